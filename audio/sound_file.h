// SoundFile: reads WAV, FLAC and the other formats of libsndfile, in chunks, as interleaved float
// (any file) or int16 (16-bit PCM files, whose samples are int16 already).
// Memory is bounded by the chunk the caller passes, whatever the file's length.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"

struct sf_private_tag;

namespace earshot::audio {

// The path that names standard input (`earshot run -`, `earshotd --input wav:-`).
inline constexpr std::string_view kStandardInput = "-";

class SoundFile {
 public:
  // Opens `path` (kStandardInput: a stream on standard input, read to its end); an error names
  // the file and the cause (missing, empty, not audio, ...).
  static Result<std::unique_ptr<SoundFile>> Open(const std::string& path);
  ~SoundFile();
  SoundFile(const SoundFile&) = delete;
  SoundFile& operator=(const SoundFile&) = delete;

  int rate() const { return rate_; }
  int channels() const { return channels_; }
  const std::string& path() const { return path_; }  // "standard input" for kStandardInput

  // Reads up to interleaved.size() / channels() frames, scaled to [-1, 1); 0 at the end.
  // A decoding error (corrupt FLAC, short read of a truncated file, a NaN or infinite sample in a
  // float file) is an error naming the file.
  Result<size_t> Read(std::span<float> interleaved);
  // 16-bit PCM (WAV, FLAC, ...): every sample is an int16, which Read(int16) gives as stored;
  // Read(float) gives it / 2^15, exactly.
  bool int16_samples() const;
  // Reads up to interleaved.size() / channels() frames as stored, for int16_samples() files only
  // (libsndfile would scale other formats' samples); errors as Read(float).
  Result<size_t> Read(std::span<int16_t> interleaved);

 private:
  SoundFile(sf_private_tag* file, std::string path, int rate, int channels, int64_t frames,
            int subtype);
  // The checks after a read of `got` of `want` frames: libsndfile's error, a short read.
  Result<size_t> Counted(int64_t got, int64_t want);
  sf_private_tag* file_;
  std::string path_;
  int rate_;
  int channels_;
  int64_t frames_;
  int64_t frames_read_ = 0;
  int subtype_;  // libsndfile's SF_FORMAT_SUBMASK bits of the file's format
};

// Writes `samples` (16 kHz mono) to `path` as a 16-bit WAV file; an error names the file.
Status WriteWav16k(const std::string& path, std::span<const int16_t> samples);

}  // namespace earshot::audio
