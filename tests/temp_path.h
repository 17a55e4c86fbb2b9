// A scratch file path of the running test alone. CTest runs every test case as its own process,
// two at a time, so a fixed name under testing::TempDir() is shared by tests running at once.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace earshot::testing_util {

// TempDir()/<stem>_<test suite>_<test name>_<pid>
inline std::string TestTempPath(const std::string& stem) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "_" + info->name() : "none";
  for (char& c : name) {
    if (c == '/') c = '_';  // parameterised tests' names
  }
  return ::testing::TempDir() + "/" + stem + "_" + name + "_" + std::to_string(::getpid());
}

}  // namespace earshot::testing_util
