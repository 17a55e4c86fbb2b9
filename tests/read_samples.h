// A whole audio file as 16 kHz mono int16 samples, through the device's file source (tests).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "audio/frame_source.h"

namespace earshot::testing_util {

inline std::vector<int16_t> ReadSamples(const std::string& path) {
  std::vector<int16_t> x;
  auto source = audio::FileSource::Open(path, {});
  EXPECT_TRUE(source.ok()) << source.error().message;
  audio::Frame frame;
  while (source.ok() && *(*source)->Next(frame)) x.insert(x.end(), frame.begin(), frame.end());
  return x;
}

}  // namespace earshot::testing_util
