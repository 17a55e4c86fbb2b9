#include "models/model_file.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include "base/read_file.h"

namespace earshot::models {
namespace {

constexpr size_t kHeaderSize = 4 + 4 + 16 + 11 * 4 + 4;
constexpr size_t kEntrySize = 56;
constexpr uint32_t kMaxTensors = 256;
constexpr size_t kMaxFileBytes = size_t{64} << 20;  // the bundled models are under 150 KB

uint32_t U32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// A NUL-padded name (kind, tensor), its bytes outside printable ASCII as \xNN: a damaged file's
// names end up in error messages.
std::string FixedString(const uint8_t* p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && p[i] != 0; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f) {
      out += static_cast<char>(p[i]);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += {'\\', 'x', kHex[p[i] >> 4], kHex[p[i] & 15]};
    }
  }
  return out;
}

template <typename T>
constexpr TensorType TypeOf() {
  if constexpr (std::is_same_v<T, int8_t>) return TensorType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return TensorType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return TensorType::kInt32;
  if constexpr (std::is_same_v<T, uint16_t>) return TensorType::kUint16;
  if constexpr (std::is_same_v<T, float>) return TensorType::kFloat32;
}

size_t TypeSize(TensorType t) {
  switch (t) {
    case TensorType::kInt8: return 1;
    case TensorType::kInt16: case TensorType::kUint16: return 2;
    case TensorType::kInt32: case TensorType::kFloat32: return 4;
  }
  return 0;
}

std::string DimsText(const std::vector<uint32_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

uint32_t Crc32(std::span<const uint8_t> data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;  // reflected IEEE
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t b : data) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

namespace {

struct NumberDiff {
  const char* name;
  int spec, front_end;
};

// The first of the spec's front-end numbers that differs from `fe`'s (the MFCC numbers apart).
std::optional<NumberDiff> FirstDifferingNumber(const FeatureSpec& s,
                                               const features::FrontEndConfig& fe) {
  const NumberDiff fields[] = {{"sample_rate", s.sample_rate, fe.sample_rate_hz},
                               {"window_ms", s.window_ms, fe.window_ms},
                               {"hop_ms", s.hop_ms, fe.hop_ms},
                               {"fft_size", s.fft_size, fe.fft_size},
                               {"mel_bands", s.mel_bands, fe.mel_bands},
                               {"mel_low_hz", s.mel_low_hz, fe.mel_low_hz},
                               {"mel_high_hz", s.mel_high_hz, fe.mel_high_hz}};
  for (const NumberDiff& d : fields) {
    if (d.spec != d.front_end) return d;
  }
  return std::nullopt;
}

// The first setting the spec's numbers do not carry in which `fe` differs from `expected`, or
// nullptr: the mel shape, the dB reference and DC removal, and with `with_emphasis_and_floor` the
// pre-emphasis and the floor too (options of the main front end, free for kinds 0 and 1).
const char* FirstDifferingSetting(const features::FrontEndConfig& fe,
                                  const features::FrontEndConfig& expected,
                                  bool with_emphasis_and_floor) {
  const std::pair<const char*, bool> settings[] = {
      {"mel_scale", fe.mel_scale != expected.mel_scale},
      {"mel_norm", fe.mel_norm != expected.mel_norm},
      {"log_reference", fe.log_reference != expected.log_reference},
      {"dc_removal", fe.dc_removal != expected.dc_removal},
      {"preemphasis", with_emphasis_and_floor && fe.preemphasis_q15 != expected.preemphasis_q15},
      {"log_floor_db", with_emphasis_and_floor && fe.log_floor_db != expected.log_floor_db}};
  for (const auto& [name, differs] : settings) {
    if (differs) return name;
  }
  return nullptr;
}

const char* FeatureKindName(int32_t kind) {
  switch (static_cast<FeatureKind>(kind)) {
    case FeatureKind::kLogMel: return "log-mel";
    case FeatureKind::kMfcc: return "MFCC";
    case FeatureKind::kEmbeddingMel: return "speech-embedding log-mel";
  }
  return "unknown";
}

}  // namespace

Status FeatureSpec::Check(const features::FrontEndConfig& fe) const {
  const bool embedding = kind == static_cast<int32_t>(FeatureKind::kEmbeddingMel);
  if (embedding) {  // the numbers are the preset's, or the file is wrong whatever the front end
    if (const auto d = FirstDifferingNumber(*this, features::EmbeddingFrontEndConfig())) {
      return Error{"model of the speech embedding's log-mel (feature kind 2) states features." +
                   std::string(d->name) + " = " + std::to_string(d->spec) + ", that log-mel has " +
                   std::to_string(d->front_end)};
    }
  }
  if (const auto d = FirstDifferingNumber(*this, fe)) {
    return Error{"model expects features." + std::string(d->name) + " = " +
                 std::to_string(d->spec) + ", the front end is set to " +
                 std::to_string(d->front_end)};
  }
  if (kind == static_cast<int32_t>(FeatureKind::kMfcc)) {
    const int fe_norm = fe.mean_norm == features::MeanNorm::kRunning ? 1 : 0;
    if (mfcc_count != fe.mfcc_count || lifter != fe.lifter || mean_norm != fe_norm) {
      return Error{"model expects MFCCs with mfcc_count " + std::to_string(mfcc_count) +
                   ", lifter " + std::to_string(lifter) + ", mean_norm " + std::to_string(mean_norm) +
                   "; the front end differs"};
    }
  } else if (kind != static_cast<int32_t>(FeatureKind::kLogMel) && !embedding) {
    return Error{"unknown feature kind " + std::to_string(kind)};
  }
  // Kind 2 ignores the MFCC numbers, as kind 0 does.
  const features::FrontEndConfig expected =
      embedding ? features::EmbeddingFrontEndConfig() : features::FrontEndConfig{};
  if (const char* setting = FirstDifferingSetting(fe, expected, embedding)) {
    return Error{std::string(embedding ? "model expects the speech embedding's log-mel (Slaney, "
                                         "area-normalised, dB of int16 power floored at 0 dB, no "
                                         "DC removal or pre-emphasis)"
                                       : "model expects the main front end's features (HTK mel, "
                                         "peak-normalised, dB re full scale, DC removed)") +
                 "; the front end differs in " + setting};
  }
  return OkStatus();
}

Result<ModelFile> ModelFile::Load(const std::string& path, std::string_view kind,
                                  FeatureKind feature_kind, const features::FrontEndConfig& front_end) {
  ModelFile m;
  m.path_ = path;
  Result<std::string> read = ReadWholeFile(path, kMaxFileBytes, "a model file");
  if (!read.ok()) return read.error();
  m.bytes_.assign(read->begin(), read->end());
  const std::vector<uint8_t>& b = m.bytes_;
  if (b.size() < kHeaderSize + 4 || std::memcmp(b.data(), "ESHM", 4) != 0) {
    return m.Fail("not an earshot model file (bad magic or too short)");
  }
  if (const uint32_t v = U32(&b[4]); v != kVersion) {
    return m.Fail("model format version " + std::to_string(v) + " is not supported (expected " +
                  std::to_string(kVersion) + ")");
  }
  const uint32_t stored_crc = U32(&b[b.size() - 4]);
  if (Crc32({b.data(), b.size() - 4}) != stored_crc) {
    return m.Fail("checksum mismatch: the model file is damaged or truncated");
  }
  if (const std::string k = FixedString(&b[8], 16); k != kind) {
    return m.Fail("is a '" + k + "' model, expected '" + std::string(kind) + "'");
  }
  int32_t spec[11];
  std::memcpy(spec, &b[24], sizeof spec);  // little-endian host (x86-64, arm64)
  m.features_ = {spec[0], spec[1], spec[2], spec[3], spec[4], spec[5],
                 spec[6], spec[7], spec[8], spec[9], spec[10]};
  if (Status s = m.features_.Check(front_end); !s.ok()) return m.Fail(s.error().message);
  if (m.features_.kind != static_cast<int32_t>(feature_kind)) {
    return m.Fail(std::string("the model reads ") + FeatureKindName(m.features_.kind) +
                  " features, this stage reads " +
                  FeatureKindName(static_cast<int32_t>(feature_kind)) + " features");
  }
  const uint32_t count = U32(&b[kHeaderSize - 4]);
  if (count > kMaxTensors || kHeaderSize + size_t{count} * kEntrySize > b.size() - 4) {
    return m.Fail("tensor table of " + std::to_string(count) + " entries does not fit the file");
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = &b[kHeaderSize + i * kEntrySize];
    Entry entry{FixedString(e, 24), static_cast<TensorType>(U32(e + 24)), {}, U32(e + 48), U32(e + 52)};
    const uint32_t ndim = U32(e + 28);
    if (ndim < 1 || ndim > 4) return m.Fail("tensor '" + entry.name + "' has " + std::to_string(ndim) + " dimensions");
    size_t elements = 1;
    for (uint32_t d = 0; d < ndim; ++d) {
      entry.dims.push_back(U32(e + 32 + 4 * d));
      elements *= entry.dims.back();
    }
    if (TypeSize(entry.type) == 0 || elements * TypeSize(entry.type) != entry.size) {
      return m.Fail("tensor '" + entry.name + "' has an invalid type or size");
    }
    if (entry.offset % 8 != 0 || size_t{entry.offset} + entry.size > b.size() - 4) {
      return m.Fail("tensor '" + entry.name + "' lies outside the file");
    }
    m.entries_.push_back(std::move(entry));
  }
  return m;
}

bool ModelFile::Has(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.name == name; });
}

Result<std::vector<uint32_t>> ModelFile::Dims(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return e.dims;
  }
  return Fail("tensor '" + std::string(name) + "' is missing");
}

Result<std::span<const uint8_t>> ModelFile::Data(std::string_view name, TensorType type,
                                                 const std::vector<uint32_t>& dims) const {
  for (const Entry& e : entries_) {
    if (e.name != name) continue;
    if (e.type != type) return Fail("tensor '" + e.name + "' has the wrong type");
    if (e.dims != dims) {
      return Fail("tensor '" + e.name + "' is " + DimsText(e.dims) + ", expected " + DimsText(dims));
    }
    return std::span<const uint8_t>(bytes_.data() + e.offset, e.size);  // e.size may be 0
  }
  return Fail("tensor '" + std::string(name) + "' is missing");
}

template <typename T>
Result<std::vector<T>> ModelFile::Read(std::string_view name, std::vector<uint32_t> dims) const {
  Result<std::span<const uint8_t>> data = Data(name, TypeOf<T>(), dims);
  if (!data.ok()) return data.error();
  std::vector<T> values(data->size() / sizeof(T));
  // Little-endian host; an empty tensor copies nothing (memcpy may not be given its null data).
  if (!values.empty()) std::memcpy(values.data(), data->data(), data->size());
  if constexpr (std::is_same_v<T, float>) {
    if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
      return Fail("tensor '" + std::string(name) + "' holds a NaN or an infinity");
    }
  }
  return values;
}

template Result<std::vector<int8_t>> ModelFile::Read(std::string_view, std::vector<uint32_t>) const;
template Result<std::vector<int16_t>> ModelFile::Read(std::string_view, std::vector<uint32_t>) const;
template Result<std::vector<int32_t>> ModelFile::Read(std::string_view, std::vector<uint32_t>) const;
template Result<std::vector<uint16_t>> ModelFile::Read(std::string_view, std::vector<uint32_t>) const;
template Result<std::vector<float>> ModelFile::Read(std::string_view, std::vector<uint32_t>) const;

}  // namespace earshot::models
