// ModelFile: earshot's model format, read and validated. Every model (VAD, keyword spotter) is one
// such file, written by the training scripts (tools/train/vad_export.py writes the reference).
//
// Layout, little-endian:
//   char[4]  magic "ESHM"
//   u32      version (1)
//   char[16] kind, NUL-padded ("vad-mlp", ...)
//   i32[11]  feature spec: sample_rate, window_ms, hop_ms, fft_size, mel_bands, mel_low_hz,
//            mel_high_hz, kind (0 log-mel, 1 MFCC, 2 the speech embedding's log-mel), mfcc_count,
//            lifter, mean_norm (0 none, 1 running). Kinds 0 and 1: the main front end (HTK mel,
//            peak-normalised, dB re full scale, DC removed). Kind 2: features::
//            EmbeddingFrontEndConfig() (Slaney, area-normalised, dB of int16 power, no DC removal
//            or pre-emphasis, 0 dB floor); its numbers must be that preset's, the MFCC ones unused
//   u32      tensor count N
//   N x 56 bytes: char[24] name, u32 type (1 int8, 2 int16, 3 int32, 4 uint16,
//            5 float32), u32 ndim,
//            u32[4] dims (unused = 1), u32 offset from the file start (8-aligned), u32 byte size
//   tensor data
//   u32      CRC-32 (IEEE, as zlib) of every byte before it
// The loader rejects a bad magic, an unknown version, a wrong kind, a checksum mismatch, tensors
// out of bounds or of the wrong type or shape, float tensors holding a NaN or an infinity, and a
// feature spec other than the front end's.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"

namespace earshot::models {

enum class TensorType : uint32_t { kInt8 = 1, kInt16 = 2, kInt32 = 3, kUint16 = 4, kFloat32 = 5 };
// kEmbeddingMel: the speech embedding's log-mel (features::EmbeddingFrontEndConfig()).
enum class FeatureKind : int32_t { kLogMel = 0, kMfcc = 1, kEmbeddingMel = 2 };

struct FeatureSpec {
  int32_t sample_rate = 0, window_ms = 0, hop_ms = 0, fft_size = 0, mel_bands = 0, mel_low_hz = 0,
          mel_high_hz = 0, kind = 0, mfcc_count = 0, lifter = 0, mean_norm = 0;
  // Ok if `front_end` computes these features; otherwise names the first differing field (for
  // kind 2, also a spec whose numbers are not EmbeddingFrontEndConfig()'s).
  Status Check(const features::FrontEndConfig& front_end) const;
};

class ModelFile {
 public:
  static constexpr uint32_t kVersion = 1;

  // Reads and validates `path`: `kind` is the model kind the caller can run, `feature_kind` the
  // features it reads, and `front_end` must compute the features the model was trained on.
  static Result<ModelFile> Load(const std::string& path, std::string_view kind,
                                FeatureKind feature_kind, const features::FrontEndConfig& front_end);

  const FeatureSpec& features() const { return features_; }
  const std::string& path() const { return path_; }

  // Whether the file holds a tensor of that name (for optional ones).
  bool Has(std::string_view name) const;
  // A tensor's dimensions (outermost first), or an error if it is missing.
  Result<std::vector<uint32_t>> Dims(std::string_view name) const;

  // A tensor's values, checked for type and shape (dims, outermost first).
  template <typename T>
  Result<std::vector<T>> Read(std::string_view name, std::vector<uint32_t> dims) const;

  // An error naming the file, for checks the model itself makes.
  Error Fail(const std::string& cause) const { return Error{path_ + ": " + cause}; }

 private:
  struct Entry {
    std::string name;
    TensorType type;
    std::vector<uint32_t> dims;
    uint32_t offset;
    uint32_t size;
  };
  Result<std::span<const uint8_t>> Data(std::string_view name, TensorType type,
                                        const std::vector<uint32_t>& dims) const;

  std::string path_;
  std::vector<uint8_t> bytes_;
  FeatureSpec features_;
  std::vector<Entry> entries_;
};

uint32_t Crc32(std::span<const uint8_t> data);

}  // namespace earshot::models
