// Files earshot opens by path must be regular files: a directory, a device or a FIFO (which could
// block or never end) is an error naming the file, as is a missing or unreadable one.
// ReadWholeFile reads all of one of bounded size (model files, configs, sensor timelines);
// RegularFileSize is the check alone, for readers that stream (audio files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/result.h"

namespace earshot {

// `what` names the file expected, in the errors ("a model file", "a config", "an audio file").
Result<uint64_t> RegularFileSize(const std::string& path, const std::string& what);
Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes,
                                  const std::string& what);

}  // namespace earshot
