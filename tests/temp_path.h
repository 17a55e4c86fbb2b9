// A scratch file path of the running test alone. CTest runs every test case as its own process,
// two at a time, so a fixed name under testing::TempDir() is shared by tests running at once.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace earshot::testing_util {

// TempDir()/<test suite>_<test name>_<pid>_<name> (the name last: its extension stays)
inline std::string TestTempPath(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info ? std::string(info->test_suite_name()) + "_" + info->name() : "none";
  for (char& c : test) {
    if (c == '/') c = '_';  // parameterised tests' names
  }
  return ::testing::TempDir() + "/" + test + "_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace earshot::testing_util
