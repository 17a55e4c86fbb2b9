// A whole audio file as 16 kHz mono int16 samples, through the device's file source (tests).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "audio/frame_source.h"

namespace earshot::testing_util {

inline std::vector<int16_t> ReadSamples(const std::string& path) {
  auto samples = audio::ReadFile(path);
  EXPECT_TRUE(samples.ok()) << samples.error().message;
  return std::move(samples).value_or({});
}

}  // namespace earshot::testing_util
