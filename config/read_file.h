// ReadWholeFile: all of a regular file of bounded size, for the files earshot reads whole (model
// files, configs, sensor timelines). A directory, a device or a FIFO (which could block or never
// end), a missing or unreadable file and one over the bound are errors naming the file and the
// cause.
#pragma once

#include <cstddef>
#include <string>

#include "config/result.h"

namespace earshot::config {

// `what` names the kind of file in the size error ("model file", "config").
Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes,
                                  const std::string& what);

}  // namespace earshot::config
