#include "models/int8_dot.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
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

// The last k % 16 inputs (k >= 16) as the 16 that end at in + k, the first lanes (inputs already
// summed) zero: times the weights read from the same place, they add nothing (as the aarch64
// kernels' LastInputs; the speech embedding's rows of 72 and 216 would otherwise end in 8 plain
// products per row).
__attribute__((target("avx2"))) __m128i LastInputs(const int8_t* in, size_t k) {
  static constexpr int8_t kKeepFrom[32] = {0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                           0,  0,  0,  0,  0,  -1, -1, -1, -1, -1, -1,
                                           -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  return _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k - 16)),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(kKeepFrom + k % 16)));
}

// R rows at a time for N inputs (1, or 2: each weight vector loaded once for both), each input
// vector loaded once. Any int8: both sides widened to int16, then vpmaddwd (16 products per
// instruction, pairs summed in int32: exact).
template <int R, int N>
__attribute__((target("avx2"))) void RowsAnyN(const int8_t* w, size_t k, const int8_t* const* in,
                                              int32_t* const* out) {
  __m256i acc[N][R], x[N];
#pragma GCC unroll 8
  for (int n = 0; n < N * R; ++n) acc[n / R][n % R] = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 16 <= k; i += 16) {
#pragma GCC unroll 2
    for (int n = 0; n < N; ++n) {
      x[n] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in[n] + i)));
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256i y = _mm256_cvtepi8_epi16(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + static_cast<size_t>(r) * k + i)));
#pragma GCC unroll 2
      for (int n = 0; n < N; ++n)
        acc[n][r] = _mm256_add_epi32(acc[n][r], _mm256_madd_epi16(x[n], y));
    }
  }
  if (i < k && k >= 16) {
#pragma GCC unroll 2
    for (int n = 0; n < N; ++n) x[n] = _mm256_cvtepi8_epi16(LastInputs(in[n], k));
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(
          reinterpret_cast<const __m128i*>(w + static_cast<size_t>(r) * k + k - 16)));
#pragma GCC unroll 2
      for (int n = 0; n < N; ++n)
        acc[n][r] = _mm256_add_epi32(acc[n][r], _mm256_madd_epi16(x[n], y));
    }
    i = k;
  }
  for (int n = 0; n < N; ++n) {
    for (int r = 0; r < R; ++r) {
      out[n][r] =
          SumLanes(acc[n][r]) + DotPlain(w + static_cast<size_t>(r) * k + i, k - i, in[n] + i);
    }
  }
}

template <int R>
void RowsAny(const int8_t* w, size_t k, const int8_t* in, int32_t* out) {
  RowsAnyN<R, 1>(w, k, &in, &out);
}

// Inputs in [0, 127]: vpmaddubsw multiplies them (as unsigned) by the signed weights, 32 per
// instruction, and sums pairs in int16 without saturating (|2 * 127 * -128| = 32512 < 2^15);
// vpmaddwd by ones then sums pairs of those in int32.
template <int R>
__attribute__((target("avx2"))) void RowsNonNegative(const int8_t* w, size_t k, const int8_t* in,
                                                     int32_t* out) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= k; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
#pragma GCC unroll 4
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

#elif defined(__aarch64__)

// The last k % 16 inputs (k >= 16) as the vector that ends at in + k, its first lanes (inputs
// already summed) zero: multiplied with the weights read from the same place, they add nothing.
// A layer's rows are rarely a multiple of 16 long (the VAD's 287), and a plain tail of up to 15
// products per row would cost as much as the vectors.
inline int8x16_t LastInputs(const int8_t* in, size_t k) {
  static constexpr int8_t kKeepFrom[32] = {0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                           0,  0,  0,  0,  0,  -1, -1, -1, -1, -1, -1,
                                           -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  return vandq_s8(vld1q_s8(in + k - 16), vld1q_s8(kKeepFrom + k % 16));
}

// R rows at a time, each input vector loaded once. vmull_s8 forms eight exact int16 products
// (|-128 * -128| = 2^14), vpadalq_s16 adds them in pairs into four int32 lanes.
inline int32x4_t AddProducts(int32x4_t acc, int8x16_t x, int8x16_t y) {
  acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(x), vget_low_s8(y)));
  return vpadalq_s16(acc, vmull_high_s8(x, y));
}

// The accumulate step of RowsWith: NEON's widening products, or SDOT (Armv8.2 dot product: each
// int32 lane adds the products of four int8 pairs, sixteen products per instruction, exact). SDOT's
// is compiled for that target alone and inlined once RowsWith is inlined into RowsSdot.
struct NeonProducts {
  static int32x4_t Add(int32x4_t acc, int8x16_t x, int8x16_t y) { return AddProducts(acc, x, y); }
};
struct SdotProducts {
  __attribute__((target("arch=armv8.2-a+dotprod"))) static int32x4_t Add(int32x4_t acc, int8x16_t x,
                                                                         int8x16_t y) {
    return vdotq_s32(acc, x, y);
  }
};

// R rows at a time for N inputs (1, or 2: each weight vector loaded once for both).
template <int R, typename Products, int N>
[[gnu::always_inline]] inline void RowsWith(const int8_t* w, size_t k, const int8_t* const* in,
                                            int32_t* const* out) {
  int32x4_t acc[N][R];
  int8x16_t x[N];
  for (int n = 0; n < N * R; ++n) acc[n / R][n % R] = vdupq_n_s32(0);
  size_t i = 0;
  for (; i + 16 <= k; i += 16) {
    for (int n = 0; n < N; ++n) x[n] = vld1q_s8(in[n] + i);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const int8x16_t y = vld1q_s8(w + static_cast<size_t>(r) * k + i);
      for (int n = 0; n < N; ++n) acc[n][r] = Products::Add(acc[n][r], x[n], y);
    }
  }
  if (i < k && k >= 16) {
    for (int n = 0; n < N; ++n) x[n] = LastInputs(in[n], k);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const int8x16_t y = vld1q_s8(w + static_cast<size_t>(r) * k + k - 16);
      for (int n = 0; n < N; ++n) acc[n][r] = Products::Add(acc[n][r], x[n], y);
    }
    i = k;
  }
  for (int n = 0; n < N; ++n) {
    for (int r = 0; r < R; ++r) {
      out[n][r] =
          vaddvq_s32(acc[n][r]) + DotPlain(w + static_cast<size_t>(r) * k + i, k - i, in[n] + i);
    }
  }
}

template <int R, int N>
void RowsNeon(const int8_t* w, size_t k, const int8_t* const* in, int32_t* const* out) {
  RowsWith<R, NeonProducts, N>(w, k, in, out);
}

template <int R, int N>
__attribute__((target("arch=armv8.2-a+dotprod"))) void RowsSdot(const int8_t* w, size_t k,
                                                                const int8_t* const* in,
                                                                int32_t* const* out) {
  RowsWith<R, SdotProducts, N>(w, k, in, out);
}

#endif

#if defined(__x86_64__) || defined(__aarch64__)

using RowsKernel = void (*)(const int8_t* w, size_t k, const int8_t* const* in,
                            int32_t* const* out);

// Rows in groups of four, then one at a time, for N inputs.
template <RowsKernel kFour, RowsKernel kOne, int N>
void InGroups(const int8_t* w, size_t rows, size_t k, const int8_t* const* in,
              int32_t* const* out) {
  int32_t* at[N];
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    for (int n = 0; n < N; ++n) at[n] = out[n] + r;
    kFour(w + r * k, k, in, at);
  }
  for (; r < rows; ++r) {
    for (int n = 0; n < N; ++n) at[n] = out[n] + r;
    kOne(w + r * k, k, in, at);
  }
}

#endif

// The kernel DotRows runs, chosen once from what the CPU has.
enum class Kernel { kPlain, kAvx2, kNeon, kSdot };

Kernel ChooseKernel() {
  if (Avx2Available()) return Kernel::kAvx2;
  if (SdotAvailable()) return Kernel::kSdot;
  if (NeonAvailable()) return Kernel::kNeon;
  return Kernel::kPlain;
}

const Kernel kKernel = ChooseKernel();

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

#else  // other CPUs: the plain loop

bool Avx2Available() { return false; }

void DotRowsAvx2(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs,
                 int32_t* out) {
  DotRowsPlain(w, rows, k, in, out);
}

#endif

#if defined(__aarch64__)

bool NeonAvailable() { return true; }
bool SdotAvailable() { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }

void DotRowsNeon(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out) {
  InGroups<RowsNeon<4, 1>, RowsNeon<1, 1>, 1>(w, rows, k, &in, &out);
}

void DotRowsSdot(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out) {
  InGroups<RowsSdot<4, 1>, RowsSdot<1, 1>, 1>(w, rows, k, &in, &out);
}

#else  // other CPUs: the plain loop

bool NeonAvailable() { return false; }
bool SdotAvailable() { return false; }

void DotRowsNeon(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out) {
  DotRowsPlain(w, rows, k, in, out);
}

void DotRowsSdot(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out) {
  DotRowsPlain(w, rows, k, in, out);
}

#endif

const char* DotRowsKernel() {
  switch (kKernel) {
    case Kernel::kAvx2:
      return "avx2";
    case Kernel::kSdot:
      return "sdot";
    case Kernel::kNeon:
      return "neon";
    case Kernel::kPlain:
      break;
  }
  return "plain";
}

void DotRows(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs kind,
             int32_t* out) {
  switch (kKernel) {
    case Kernel::kAvx2:
      return DotRowsAvx2(w, rows, k, in, kind, out);
    case Kernel::kSdot:
      return DotRowsSdot(w, rows, k, in, out);
    case Kernel::kNeon:
      return DotRowsNeon(w, rows, k, in, out);
    case Kernel::kPlain:
      break;
  }
  DotRowsPlain(w, rows, k, in, out);
}

void DotRows2(const int8_t* w, size_t rows, size_t k, const int8_t* in0, const int8_t* in1,
              int32_t* out0, int32_t* out1) {
  const int8_t* const in[2] = {in0, in1};
  int32_t* const out[2] = {out0, out1};
  switch (kKernel) {
#if defined(__x86_64__)
    case Kernel::kAvx2:
      return InGroups<RowsAnyN<4, 2>, RowsAnyN<1, 2>, 2>(w, rows, k, in, out);
#elif defined(__aarch64__)
    case Kernel::kSdot:
      return InGroups<RowsSdot<4, 2>, RowsSdot<1, 2>, 2>(w, rows, k, in, out);
    case Kernel::kNeon:
      return InGroups<RowsNeon<4, 2>, RowsNeon<1, 2>, 2>(w, rows, k, in, out);
#endif
    default:
      break;
  }
  DotRowsPlain(w, rows, k, in0, out0);
  DotRowsPlain(w, rows, k, in1, out1);
}

}  // namespace earshot::models
