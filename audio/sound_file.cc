#include "audio/sound_file.h"

#include <sndfile.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string_view>

#include "base/read_file.h"

namespace earshot::audio {
namespace {

constexpr int kMaxChannels = 64;
constexpr int kMinRate = 4000;
constexpr int kMaxRate = 384000;

Error FileError(const std::string& path, const std::string& cause) {
  return Error{path + ": " + cause};
}

// libsndfile shortens a WAV/AIFF whose data chunk runs past the end of the file to what is there,
// and only says so in its log: "data : 64000 (should be 39956)". A size of 0 or >= 2^31 is the
// placeholder of a writer that streamed to a pipe (arecord, sox -), not a cut file.
std::string TruncationInLog(SNDFILE* file) {
  char log[8192] = {};
  sf_command(file, SFC_GET_LOG_INFO, log, sizeof log);
  std::string_view text(log);
  for (std::string_view tag : {"\ndata : ", "\nSSND : "}) {
    size_t at = text.find(tag);
    if (at == std::string_view::npos) continue;
    std::string_view line = text.substr(at + tag.size());
    line = line.substr(0, line.find('\n'));
    const size_t should = line.find("(should be ");
    if (should == std::string_view::npos) continue;
    const long long declared = std::atoll(std::string(line).c_str());
    const long long actual = std::atoll(std::string(line.substr(should + 11)).c_str());
    if (declared == 0 || declared >= 0x7fffffffLL) continue;
    return "truncated: the header declares " + std::to_string(declared) +
           " bytes of audio, the file holds " + std::to_string(actual);
  }
  return "";
}

// A float or double file can hold NaN and infinities, which no conversion to int16 can place.
// Returns the index of the first such value in `samples`, or samples.size().
size_t FirstNonFinite(std::span<const float> samples) {
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) return i;
  }
  return samples.size();
}

}  // namespace

Result<std::unique_ptr<SoundFile>> SoundFile::Open(const std::string& file_path) {
  const bool from_stdin = file_path == kStandardInput;
  const std::string path = from_stdin ? "standard input" : file_path;  // as errors name it
  if (!from_stdin) {
    Result<uint64_t> size = RegularFileSize(path, "an audio file");
    if (!size.ok()) return size.error();
    if (*size == 0) return FileError(path, "empty file (0 bytes), not audio");
  }

  SF_INFO info{};
  // Standard input (a pipe from arecord or sox): libsndfile reads a WAV, AU or FLAC header from
  // it as from a file, and leaves the descriptor open.
  SNDFILE* file = from_stdin ? sf_open_fd(STDIN_FILENO, SFM_READ, &info, SF_FALSE)
                             : sf_open(path.c_str(), SFM_READ, &info);
  if (file == nullptr) {
    return FileError(path, std::string("not a readable audio file (libsndfile: ") +
                               sf_strerror(nullptr) + ")");
  }
  // A stream's header cannot know its length (arecord writes 2^31 - 1 bytes, sox a guess): it
  // ends where its data ends.
  if (from_stdin) info.frames = SF_COUNT_MAX;
  std::string cause;
  if (info.channels < 1 || info.channels > kMaxChannels) {
    cause = "unsupported channel count " + std::to_string(info.channels);
  } else if (info.samplerate < kMinRate || info.samplerate > kMaxRate) {
    cause = "unsupported sample rate " + std::to_string(info.samplerate) + " Hz (expected " +
            std::to_string(kMinRate) + " to " + std::to_string(kMaxRate) + " Hz)";
  } else if (info.frames <= 0) {
    cause = "holds no audio samples";
  } else if (!from_stdin) {
    cause = TruncationInLog(file);
  }
  if (!cause.empty()) {
    sf_close(file);
    return FileError(path, cause);
  }
  return std::unique_ptr<SoundFile>(new SoundFile(file, path, info.samplerate, info.channels,
                                                  info.frames, info.format & SF_FORMAT_SUBMASK));
}

SoundFile::SoundFile(SNDFILE* file, std::string path, int rate, int channels, int64_t frames,
                     int subtype)
    : file_(file),
      path_(std::move(path)),
      rate_(rate),
      channels_(channels),
      frames_(frames),
      subtype_(subtype) {}

SoundFile::~SoundFile() { sf_close(file_); }

bool SoundFile::int16_samples() const { return subtype_ == SF_FORMAT_PCM_16; }

Result<size_t> SoundFile::Read(std::span<float> interleaved) {
  const sf_count_t want = static_cast<sf_count_t>(interleaved.size()) / channels_;
  const sf_count_t got = sf_readf_float(file_, interleaved.data(), want);
  // Float or double data can hold NaN and infinities: checked as read.
  const bool float_samples = subtype_ == SF_FORMAT_FLOAT || subtype_ == SF_FORMAT_DOUBLE;
  if (sf_error(file_) == SF_ERR_NO_ERROR && float_samples) {
    const std::span<const float> samples(interleaved.data(), static_cast<size_t>(got) * channels_);
    if (const size_t bad = FirstNonFinite(samples); bad < samples.size()) {
      const int64_t frame = frames_read_ + static_cast<int64_t>(bad) / channels_;
      return FileError(path_, "corrupt: frame " + std::to_string(frame) + " of channel " +
                                  std::to_string(bad % channels_ + 1) + " is " +
                                  (std::isnan(samples[bad]) ? "NaN" : "infinite") +
                                  " (float samples must be finite)");
    }
  }
  return Counted(got, want);
}

Result<size_t> SoundFile::Read(std::span<int16_t> interleaved) {
  if (!int16_samples()) return FileError(path_, "not 16-bit PCM: read it as float");
  const sf_count_t want = static_cast<sf_count_t>(interleaved.size()) / channels_;
  return Counted(sf_readf_short(file_, interleaved.data(), want), want);
}

Result<size_t> SoundFile::Counted(int64_t got, int64_t want) {
  if (sf_error(file_) != SF_ERR_NO_ERROR) {
    return FileError(path_, std::string("decoding failed: ") + sf_strerror(file_));
  }
  frames_read_ += got;
  // A stream whose header leaves the length open (a FLAC written while recording: libsndfile
  // says SF_COUNT_MAX) ends where its data ends; it must hold some.
  if (frames_ == SF_COUNT_MAX) {
    if (got == 0 && frames_read_ == 0) return FileError(path_, "holds no audio samples");
    return static_cast<size_t>(got);
  }
  // libsndfile trusts the header for the length; fewer frames than it promised is a cut file.
  if (got < want && frames_read_ < frames_) {
    return FileError(path_, "truncated: header promises " + std::to_string(frames_) +
                                " frames, only " + std::to_string(frames_read_) + " could be read");
  }
  return static_cast<size_t>(got);
}

Status WriteWav16k(const std::string& path, std::span<const int16_t> samples) {
  SF_INFO info{};
  info.samplerate = 16000;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  if (file == nullptr) {
    return Error{"'" + path + "': cannot be written (libsndfile: " + sf_strerror(nullptr) + ")"};
  }
  const auto count = static_cast<sf_count_t>(samples.size());
  const sf_count_t wrote = sf_write_short(file, samples.data(), count);
  const bool closed = sf_close(file) == 0;
  if (wrote != count || !closed) {
    return Error{"'" + path + "': short write (disk full?)"};
  }
  return OkStatus();
}

}  // namespace earshot::audio
