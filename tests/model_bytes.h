// Model files made by hand, in earshot's model format (layout in models/model_file.h) for the
// default front end's log-mel: for the loaders' tests and the benchmarks (no test framework here).
#pragma once

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "features/front_end_config.h"
#include "models/model_file.h"

namespace earshot::testing_util {

struct Tensor {
  std::string name;
  models::TensorType type;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;  // little-endian (the host's, as ModelFile assumes)
};

template <typename T>
Tensor Make(const std::string& name, models::TensorType type, std::vector<uint32_t> dims,
            const std::vector<T>& values) {
  Tensor t{name, type, std::move(dims), std::vector<uint8_t>(values.size() * sizeof(T))};
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());  // else null
  return t;
}
inline Tensor Int8(const std::string& name, std::vector<uint32_t> dims,
                   const std::vector<int8_t>& v) {
  return Make(name, models::TensorType::kInt8, std::move(dims), v);
}
inline Tensor Int32(const std::string& name, const std::vector<int32_t>& v) {
  return Make(name, models::TensorType::kInt32, {static_cast<uint32_t>(v.size())}, v);
}

inline void PutU32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A model file of `kind` (at most 15 characters) for the default front end's log-mel, at `path`;
// `feature_kind` kEmbeddingMel: for the speech embedding's log-mel.
inline void WriteModelFile(const std::string& path, const std::string& kind,
                           const std::vector<Tensor>& tensors,
                           models::FeatureKind feature_kind = models::FeatureKind::kLogMel) {
  std::vector<uint8_t> b = {'E', 'S', 'H', 'M'};
  PutU32(b, models::ModelFile::kVersion);
  char kind_field[16] = {};
  std::strncpy(kind_field, kind.c_str(), sizeof kind_field - 1);
  b.insert(b.end(), kind_field, kind_field + 16);
  const bool embedding = feature_kind == models::FeatureKind::kEmbeddingMel;
  const features::FrontEndConfig fe =
      embedding ? features::EmbeddingFrontEndConfig() : features::FrontEndConfig{};
  for (int v : {fe.sample_rate_hz, fe.window_ms, fe.hop_ms, fe.fft_size, fe.mel_bands,
                fe.mel_low_hz, fe.mel_high_hz, static_cast<int>(feature_kind), fe.mfcc_count,
                fe.lifter, 0}) {
    PutU32(b, static_cast<uint32_t>(v));  // no mean normalisation
  }
  PutU32(b, static_cast<uint32_t>(tensors.size()));
  size_t offset = b.size() + 56 * tensors.size();
  std::vector<uint8_t> data;
  for (const Tensor& t : tensors) {
    const size_t aligned = (offset + data.size() + 7) / 8 * 8;
    data.resize(aligned - offset);
    char name[24] = {};
    std::strncpy(name, t.name.c_str(), sizeof name - 1);
    b.insert(b.end(), name, name + 24);
    PutU32(b, static_cast<uint32_t>(t.type));
    PutU32(b, static_cast<uint32_t>(t.dims.size()));
    for (size_t d = 0; d < 4; ++d) PutU32(b, d < t.dims.size() ? t.dims[d] : 1);
    PutU32(b, static_cast<uint32_t>(aligned));
    PutU32(b, static_cast<uint32_t>(t.data.size()));
    data.insert(data.end(), t.data.begin(), t.data.end());
  }
  b.insert(b.end(), data.begin(), data.end());
  PutU32(b, models::Crc32(b));
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace earshot::testing_util
