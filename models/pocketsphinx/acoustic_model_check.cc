#include "models/pocketsphinx/acoustic_model_check.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "base/read_file.h"

namespace earshot::pocketsphinx {
namespace {

constexpr size_t kMaxModelFileBytes = size_t{512} << 20;

// Little- or big-endian int32s and int16s read within a file's bytes.
class Bytes {
 public:
  explicit Bytes(std::string_view data) : data_(data) {}
  void set_swap(bool swap) { swap_ = swap; }
  size_t size() const { return data_.size(); }
  bool Has(size_t at, size_t n) const { return at <= data_.size() && n <= data_.size() - at; }
  int32_t Int32(size_t at) const {
    uint32_t v;
    std::memcpy(&v, data_.data() + at, 4);
    if (swap_) v = __builtin_bswap32(v);
    return static_cast<int32_t>(v);
  }
  int16_t Int16(size_t at) const {
    uint16_t v;
    std::memcpy(&v, data_.data() + at, 2);
    if (swap_) v = __builtin_bswap16(v);
    return static_cast<int16_t>(v);
  }
  uint8_t Byte(size_t at) const { return static_cast<uint8_t>(data_[at]); }
  std::string_view View(size_t at, size_t n) const { return data_.substr(at, n); }

 private:
  std::string_view data_;
  bool swap_ = false;
};

Error Cut(const std::string& path, const std::string& what, size_t need, size_t have) {
  return Error{path + ": truncated or corrupt: " + std::to_string(have) + " bytes, " +
               std::to_string(need) + " needed for " + what};
}

// The counts at the head of a binary mdef, in the order of its format description.
struct MdefCounts {
  int32_t n_ciphone, n_phone, n_emit_state, n_ci_sen, n_sen, n_tmat, n_sseq, n_ctx, n_cd_tree, sil;
};

// A binary mdef ("BMDF"): header, counts, CI phone names, padding to 4 bytes, the CD tree (8
// bytes a node), the phones (12 bytes each), the size of the senone sequences and the sequences
// (int16 each); with n_emit_state 0, a length byte per sequence after them. Returns n_sen.
Result<int32_t> CheckBinaryMdef(const std::string& path, const Bytes& b) {
  size_t at = 12;
  const int32_t header = b.Int32(8);
  if (header < 0 || !b.Has(at, static_cast<size_t>(header) + 40)) {
    return Cut(path, "the header", at + static_cast<size_t>(std::max(header, 0)) + 40, b.size());
  }
  at += static_cast<size_t>(header);
  const auto next = [&] {
    const int32_t v = b.Int32(at);
    at += 4;
    return v;
  };
  // Braced initialisers are evaluated in order: the counts as the file holds them.
  const MdefCounts m{next(), next(), next(), next(), next(),
                     next(), next(), next(), next(), next()};
  if (std::min({m.n_ciphone, m.n_phone, m.n_emit_state, m.n_ci_sen, m.n_sen, m.n_tmat, m.n_sseq,
                m.n_ctx, m.n_cd_tree, m.sil}) < 0 ||
      m.n_ciphone == 0 || m.n_phone < m.n_ciphone || m.n_emit_state > 32 || m.n_sen < m.n_ci_sen ||
      m.n_sseq == 0) {
    return Error{path + ": corrupt: impossible counts (" + std::to_string(m.n_ciphone) +
                 " CI phones, " + std::to_string(m.n_phone) + " phones, " +
                 std::to_string(m.n_emit_state) + " states, " + std::to_string(m.n_sen) +
                 " senones, " + std::to_string(m.n_sseq) + " sequences)"};
  }
  const size_t names = at;
  for (int32_t i = 0; i < m.n_ciphone; ++i) {
    const size_t end = b.View(at, b.size()).find('\0');
    if (end == std::string_view::npos) return Cut(path, "the phone names", b.size() + 1, b.size());
    at += end + 1;
  }
  at = names + ((at - names + 3) & ~size_t{3});
  const size_t tree = at;
  const size_t phones = tree + 8 * static_cast<size_t>(m.n_cd_tree);
  const size_t sseq = phones + 12 * static_cast<size_t>(m.n_phone) + 4;
  if (!b.Has(0, sseq)) return Cut(path, "its phone tables", sseq, b.size());
  const int32_t n_states = b.Int32(sseq - 4);
  const size_t end = sseq + 2 * static_cast<size_t>(std::max(n_states, 0)) +
                     (m.n_emit_state == 0 ? static_cast<size_t>(m.n_sseq) : 0);
  if (n_states < 0 || (m.n_emit_state != 0 && n_states != int64_t{m.n_sseq} * m.n_emit_state)) {
    return Error{path + ": corrupt: " + std::to_string(n_states) + " senone states for " +
                 std::to_string(m.n_sseq) + " sequences"};
  }
  if (!b.Has(0, end)) return Cut(path, "its senone sequences", end, b.size());
  // The indices the library follows without checking them.
  for (int32_t i = 0; i < m.n_cd_tree; ++i) {
    const size_t node = tree + 8 * static_cast<size_t>(i);
    const int32_t n_down = b.Int16(node + 2);
    const int32_t down = b.Int32(node + 4);
    const bool bad = n_down > 0 ? down < 0 || down > m.n_cd_tree - n_down
                                : n_down < 0 || down < -1 || down >= m.n_phone;
    if (bad) return Error{path + ": corrupt: context tree node " + std::to_string(i)};
  }
  for (int32_t p = 0; p < m.n_phone; ++p) {
    const size_t phone = phones + 12 * static_cast<size_t>(p);
    const int32_t ssid = b.Int32(phone);
    const int32_t tmat = b.Int32(phone + 4);
    bool bad = ssid < 0 || ssid >= m.n_sseq || tmat < 0 || tmat >= m.n_tmat;
    if (p >= m.n_ciphone) {  // a triphone: word position, then base, left and right phones
      bad |= b.Byte(phone + 8) >= 4;
      for (size_t k = 9; k < 12; ++k) bad |= b.Byte(phone + k) >= m.n_ciphone;
    }
    if (bad) return Error{path + ": corrupt: phone " + std::to_string(p)};
  }
  for (int32_t s = 0; s < n_states; ++s) {
    const auto senone = static_cast<uint16_t>(b.Int16(sseq + 2 * static_cast<size_t>(s)));
    if (senone >= m.n_sen) {
      return Error{path + ": corrupt: senone " + std::to_string(senone) + " of " +
                   std::to_string(m.n_sen)};
    }
  }
  return m.n_sen;
}

// The feature streams of the model's means (an s3 file: a text header to "endhdr\n", a byte-order
// word, then the codebook, stream and density counts); nullopt if it cannot say.
std::optional<int32_t> StreamsInMeans(const std::string& dir) {
  Result<std::string> means = ReadWholeFile(dir + "/means", kMaxModelFileBytes, "a means file");
  if (!means.ok()) return std::nullopt;
  const size_t header = means->find("endhdr\n");
  if (header == std::string::npos) return std::nullopt;
  Bytes b(*means);
  const size_t at = header + 7;
  if (!b.Has(at, 12)) return std::nullopt;
  b.set_swap(b.Int32(at) != 0x11223344);
  return b.Int32(at + 8);
}

// A sendump: length-prefixed strings (at most 999 bytes each; the title and the header
// 0-terminated) up to a length of 0, some of them "name value" settings; without a cluster count,
// the rows and columns; the cluster codebook; then for every feature stream, rows of `columns`
// bytes (4 bits each with cluster_bits 4).
Status CheckSendump(const std::string& dir, const std::string& path, int32_t n_sen) {
  Result<std::string> data = ReadWholeFile(path, kMaxModelFileBytes, "a sendump");
  if (!data.ok()) return data.error();
  Bytes b(*data);
  if (!b.Has(0, 4)) return Cut(path, "the title", 4, b.size());
  const int32_t first = b.Int32(0);
  b.set_swap(first < 1 || first > 999);
  int32_t streams = -1, clusters = 0, bits = 8, rows = -1, columns = n_sen;
  size_t at = 0;
  for (int index = 0;; ++index) {
    if (!b.Has(at, 4)) return Cut(path, "its header strings", at + 4, b.size());
    const int32_t n = b.Int32(at);
    at += 4;
    if (n == 0) break;
    if (n < 0 || n > 999) {
      return Error{path + ": corrupt: a header string of " + std::to_string(n) +
                   " bytes (at most 999)"};
    }
    if (!b.Has(at, static_cast<size_t>(n))) {
      return Cut(path, "its header strings", at + static_cast<size_t>(n), b.size());
    }
    const std::string_view line = b.View(at, static_cast<size_t>(n));
    if (index < 2 && line.back() != '\0') {
      return Error{path + ": corrupt: " + (index == 0 ? "its title" : "its header") +
                   " is not 0-terminated"};
    }
    const auto setting = [&](std::string_view name, int32_t& value) {
      if (line.starts_with(name)) value = std::atoi(line.data() + name.size());
    };
    setting("feature_count ", streams);
    setting("mixture_count ", rows);
    setting("model_count ", columns);
    setting("cluster_count ", clusters);
    setting("cluster_bits ", bits);
    at += static_cast<size_t>(n);
  }
  if (clusters == 0) {
    if (!b.Has(at, 8)) return Cut(path, "its rows and columns", at + 8, b.size());
    rows = b.Int32(at);
    columns = b.Int32(at + 4);
    at += 8;
  }
  if (streams < 0) streams = StreamsInMeans(dir).value_or(1);
  if (rows < 1 || rows > 256 || columns != n_sen || streams < 1 || streams > 8 ||
      (bits != 8 && bits != 4)) {
    return Error{path + ": corrupt: " + std::to_string(streams) + " streams of " +
                 std::to_string(rows) + " x " + std::to_string(columns) +
                 " mixture weights, for the " + std::to_string(n_sen) + " senones of its mdef"};
  }
  const size_t row = bits == 4 ? (static_cast<size_t>(columns) + 1) / 2 : columns;
  const size_t end = at + static_cast<size_t>(clusters == 15 ? 16 : clusters) +
                     static_cast<size_t>(streams) * static_cast<size_t>(rows) * row;
  if (!b.Has(0, end)) return Cut(path, "its mixture weights", end, b.size());
  return OkStatus();
}

}  // namespace

Status CheckAcousticModel(const std::string& dir) {
  const std::string mdef_path = dir + "/mdef";
  Result<std::string> mdef = ReadWholeFile(mdef_path, kMaxModelFileBytes, "an mdef");
  if (!mdef.ok()) return mdef.error();
  if (mdef->empty()) return Error{mdef_path + ": empty file (0 bytes)"};
  Bytes b(*mdef);
  const std::string_view magic = b.View(0, 4);
  if (magic != "BMDF" && magic != "FDMB") return OkStatus();  // a text mdef: pocketsphinx checks it
  b.set_swap(magic == "FDMB");
  if (!b.Has(0, 12)) return Cut(mdef_path, "the header", 12, b.size());
  Result<int32_t> n_sen = CheckBinaryMdef(mdef_path, b);
  if (!n_sen.ok()) return n_sen.error();
  const std::string sendump = dir + "/sendump";
  // Without one, pocketsphinx reads mixture_weights, an s3 file it checks itself.
  if (!RegularFileSize(sendump, "a sendump").ok()) return OkStatus();
  return CheckSendump(dir, sendump, *n_sen);
}

}  // namespace earshot::pocketsphinx
