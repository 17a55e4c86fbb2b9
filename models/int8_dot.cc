#include "models/int8_dot.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace earshot::models {
namespace {

int32_t DotPlain(const int8_t* w, size_t k, const int8_t* in) {
  int32_t acc = 0;
  for (size_t i = 0; i < k; ++i) acc += int32_t{w[i]} * in[i];
  return acc;
}

#if defined(__x86_64__)

__attribute__((target("avx2"))) int32_t SumLanes(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

// R rows at a time, each input vector loaded once. Any int8: both sides widened to int16, then
// vpmaddwd (16 products per instruction, pairs summed in int32: exact).
template <int R>
__attribute__((target("avx2"))) void RowsAny(const int8_t* w, size_t k, const int8_t* in,
                                             int32_t* out) {
  __m256i acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 16 <= k; i += 16) {
    const __m256i x =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    for (int r = 0; r < R; ++r) {
      const __m256i y = _mm256_cvtepi8_epi16(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + static_cast<size_t>(r) * k + i)));
      acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(x, y));
    }
  }
  for (int r = 0; r < R; ++r) {
    out[r] = SumLanes(acc[r]) + DotPlain(w + static_cast<size_t>(r) * k + i, k - i, in + i);
  }
}

// Inputs in [0, 127]: vpmaddubsw multiplies them (as unsigned) by the signed weights, 32 per
// instruction, and sums pairs in int16 without saturating (|2 * 127 * -128| = 32512 < 2^15);
// vpmaddwd by ones then sums pairs of those in int32.
template <int R>
__attribute__((target("avx2"))) void RowsNonNegative(const int8_t* w, size_t k, const int8_t* in,
                                                     int32_t* out) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= k; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    for (int r = 0; r < R; ++r) {
      const __m256i y =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + static_cast<size_t>(r) * k + i));
      acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), ones));
    }
  }
  for (int r = 0; r < R; ++r) {
    out[r] = SumLanes(acc[r]) + DotPlain(w + static_cast<size_t>(r) * k + i, k - i, in + i);
  }
}

template <int R>
void Rows(const int8_t* w, size_t k, const int8_t* in, Int8Inputs kind, int32_t* out) {
  if (kind == Int8Inputs::kNonNegative) {
    RowsNonNegative<R>(w, k, in, out);
  } else {
    RowsAny<R>(w, k, in, out);
  }
}

#endif  // __x86_64__

const bool kAvx2 = Avx2Available();

}  // namespace

void DotRowsPlain(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out) {
  for (size_t r = 0; r < rows; ++r) out[r] = DotPlain(w + r * k, k, in);
}

#if defined(__x86_64__)

bool Avx2Available() {
  __builtin_cpu_init();  // kAvx2 is set before libgcc's own constructor may have run
  return __builtin_cpu_supports("avx2");
}

void DotRowsAvx2(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs kind,
                 int32_t* out) {
  constexpr size_t kGroup = 4;
  size_t r = 0;
  for (; r + kGroup <= rows; r += kGroup) Rows<kGroup>(w + r * k, k, in, kind, out + r);
  for (; r < rows; ++r) Rows<1>(w + r * k, k, in, kind, out + r);
}

#else  // other CPUs: the plain loop (a NEON kernel would go here)

bool Avx2Available() { return false; }

void DotRowsAvx2(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs,
                 int32_t* out) {
  DotRowsPlain(w, rows, k, in, out);
}

#endif

void DotRows(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs kind,
             int32_t* out) {
  if (kAvx2) {
    DotRowsAvx2(w, rows, k, in, kind, out);
  } else {
    DotRowsPlain(w, rows, k, in, out);
  }
}

}  // namespace earshot::models
