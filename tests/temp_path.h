// A scratch file path of the running test alone. CTest runs every test case as its own process,
// two at a time, so a fixed name under testing::TempDir() is shared by tests running at once.
// The files live in a directory of this process, removed when it exits: runs leave nothing behind.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace earshot::testing_util {

// TempDir()/earshot_test_<pid>, made on first use and removed (with what is in it) at exit.
inline const std::string& ScratchDir() {
  // Never destroyed: the exit handler below still reads it after static destructors have run.
  static const std::string* dir = [] {
    auto* made =
        new std::string(::testing::TempDir() + "/earshot_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(*made);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(ScratchDir(), ignored);
    });
    return made;
  }();
  return *dir;
}

// ScratchDir()/<test suite>_<test name>_<name> (the name last: its extension stays)
inline std::string TestTempPath(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info ? std::string(info->test_suite_name()) + "_" + info->name() : "none";
  for (char& c : test) {
    if (c == '/') c = '_';  // parameterised tests' names
  }
  return ScratchDir() + "/" + test + "_" + name;
}

}  // namespace earshot::testing_util
