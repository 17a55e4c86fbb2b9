// Hand-made model files for the loaders' tests: tensors written in earshot's model format
// (model_bytes.h) to the running test's scratch files.
#pragma once

#include <string>
#include <vector>

#include "tests/model_bytes.h"
#include "tests/temp_path.h"

namespace earshot::testing_util {

// A model file of `kind` (at most 15 characters) for the default front end's log-mel (or
// `feature_kind`'s), written to the running test's scratch file `file`; returns its path.
inline std::string WriteModel(const std::string& kind, const std::vector<Tensor>& tensors,
                              const std::string& file,
                              models::FeatureKind feature_kind = models::FeatureKind::kLogMel) {
  const std::string path = TestTempPath(file);
  WriteModelFile(path, kind, tensors, feature_kind);
  return path;
}

}  // namespace earshot::testing_util
