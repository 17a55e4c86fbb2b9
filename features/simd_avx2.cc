#include "features/simd_avx2.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace earshot::features::avx2 {

#if defined(__x86_64__)

bool Available() { return __builtin_cpu_supports("avx2"); }

namespace {

// (a * w + 2^29) >> 30 for four complex int32 values and Q30 twiddles, as MulQ30 in real_fft.cc.
// _mm256_mul_epi32 forms the exact 64-bit products of the sign-extended low halves; the logical
// shift leaves bits 30..61 in the low 32 bits, which is the arithmetic shift's int32 result.
__attribute__((target("avx2"))) inline void MulQ30x4(__m128i ar, __m128i ai, __m128i wr,
                                                     __m128i wi, __m128i& out_r, __m128i& out_i) {
  const __m256i a_r = _mm256_cvtepi32_epi64(ar), a_i = _mm256_cvtepi32_epi64(ai);
  const __m256i w_r = _mm256_cvtepi32_epi64(wr), w_i = _mm256_cvtepi32_epi64(wi);
  const __m256i half = _mm256_set1_epi64x(int64_t{1} << 29);
  const __m256i re = _mm256_sub_epi64(_mm256_mul_epi32(a_r, w_r), _mm256_mul_epi32(a_i, w_i));
  const __m256i im = _mm256_add_epi64(_mm256_mul_epi32(a_r, w_i), _mm256_mul_epi32(a_i, w_r));
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  out_r = _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(_mm256_srli_epi64(_mm256_add_epi64(re, half), 30), low_halves));
  out_i = _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(_mm256_srli_epi64(_mm256_add_epi64(im, half), 30), low_halves));
}

inline __m128i Load(const int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void Store(int32_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }

}  // namespace

__attribute__((target("avx2"))) void Radix4Pass(int32_t* re, int32_t* im, size_t m, size_t q,
                                                const int32_t* twiddles_q30) {
  const int32_t* w1r = twiddles_q30;
  const int32_t* w1i = w1r + q;
  const int32_t* w2r = w1i + q;
  const int32_t* w2i = w2r + q;
  const int32_t* w3r = w2i + q;
  const int32_t* w3i = w3r + q;
  for (size_t block = 0; block < m; block += 4 * q) {
    int32_t* r = re + block;
    int32_t* i = im + block;
    for (size_t j = 0; j < q; j += 4) {
      __m128i t1r, t1i, t2r, t2i, t3r, t3i;
      MulQ30x4(Load(r + j + q), Load(i + j + q), Load(w2r + j), Load(w2i + j), t1r, t1i);
      MulQ30x4(Load(r + j + 2 * q), Load(i + j + 2 * q), Load(w1r + j), Load(w1i + j), t2r, t2i);
      MulQ30x4(Load(r + j + 3 * q), Load(i + j + 3 * q), Load(w3r + j), Load(w3i + j), t3r, t3i);
      const __m128i x0r = Load(r + j), x0i = Load(i + j);
      const __m128i y0r = _mm_add_epi32(x0r, t1r), y0i = _mm_add_epi32(x0i, t1i);
      const __m128i y1r = _mm_sub_epi32(x0r, t1r), y1i = _mm_sub_epi32(x0i, t1i);
      const __m128i sr = _mm_add_epi32(t2r, t3r), si = _mm_add_epi32(t2i, t3i);
      const __m128i dr = _mm_sub_epi32(t2r, t3r), di = _mm_sub_epi32(t2i, t3i);
      Store(r + j, _mm_add_epi32(y0r, sr));
      Store(i + j, _mm_add_epi32(y0i, si));
      Store(r + j + 2 * q, _mm_sub_epi32(y0r, sr));
      Store(i + j + 2 * q, _mm_sub_epi32(y0i, si));
      Store(r + j + q, _mm_add_epi32(y1r, di));
      Store(i + j + q, _mm_sub_epi32(y1i, dr));
      Store(r + j + 3 * q, _mm_sub_epi32(y1r, di));
      Store(i + j + 3 * q, _mm_add_epi32(y1i, dr));
    }
  }
}

namespace {

// (x + 2^30) >> 31 of four int64 lanes, as int32 (the logical shift's low half, as in MulQ30x4).
__attribute__((target("avx2"))) inline __m128i RoundShift31(__m256i x) {
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256i half = _mm256_set1_epi64x(int64_t{1} << 30);
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(_mm256_srli_epi64(_mm256_add_epi64(x, half), 31), low_halves));
}

inline __m128i Reverse(__m128i v) { return _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3)); }

}  // namespace

__attribute__((target("avx2"))) void Split(const int32_t* re, const int32_t* im, size_t m,
                                           size_t first, size_t groups, const int32_t* split_re,
                                           const int32_t* split_im, int32_t* out) {
  for (size_t g = 0; g < groups; ++g) {
    const size_t k = first + 4 * g;
    // p = Z[k..k+3], q = Z[m-k .. m-k-3] (reversed into the same lanes).
    const __m256i pr = _mm256_cvtepi32_epi64(Load(re + k)), pi = _mm256_cvtepi32_epi64(Load(im + k));
    const __m256i qr = _mm256_cvtepi32_epi64(Reverse(Load(re + m - k - 3)));
    const __m256i qi = _mm256_cvtepi32_epi64(Reverse(Load(im + m - k - 3)));
    const __m256i e2r = _mm256_add_epi64(pr, qr), e2i = _mm256_sub_epi64(pi, qi);
    // |2O| <= 2^30.5 fits the low 32 bits _mm256_mul_epi32 reads (see RealFft's bounds).
    const __m256i o2r = _mm256_add_epi64(pi, qi), o2i = _mm256_sub_epi64(qr, pr);
    const __m256i wr = _mm256_cvtepi32_epi64(Load(split_re + k));
    const __m256i wi = _mm256_cvtepi32_epi64(Load(split_im + k));
    const __m256i wo_r = _mm256_sub_epi64(_mm256_mul_epi32(o2r, wr), _mm256_mul_epi32(o2i, wi));
    const __m256i wo_i = _mm256_add_epi64(_mm256_mul_epi32(o2r, wi), _mm256_mul_epi32(o2i, wr));
    const __m256i e2r_q30 = _mm256_slli_epi64(e2r, 30), e2i_q30 = _mm256_slli_epi64(e2i, 30);
    const __m128i xr = RoundShift31(_mm256_add_epi64(e2r_q30, wo_r));
    const __m128i xi = RoundShift31(_mm256_add_epi64(e2i_q30, wo_i));
    const __m128i mr = RoundShift31(_mm256_sub_epi64(e2r_q30, wo_r));
    const __m128i mi = RoundShift31(_mm256_sub_epi64(wo_i, e2i_q30));
    // Interleave to (re, im) pairs: bins k..k+3 forward, bins m-k .. m-k-3 backward.
    Store(out + 2 * k, _mm_unpacklo_epi32(xr, xi));
    Store(out + 2 * k + 4, _mm_unpackhi_epi32(xr, xi));
    const __m128i mr_rev = Reverse(mr), mi_rev = Reverse(mi);
    Store(out + 2 * (m - k - 3), _mm_unpacklo_epi32(mr_rev, mi_rev));
    Store(out + 2 * (m - k - 3) + 4, _mm_unpackhi_epi32(mr_rev, mi_rev));
  }
}

__attribute__((target("avx2"))) void PowerSpectrum(const int32_t* bins, size_t groups, int shift,
                                                   uint64_t* power) {
  const __m256i half = _mm256_set1_epi64x(int64_t{1} << (shift - 1));
  const __m128i count = _mm_cvtsi32_si128(shift);
  for (size_t g = 0; g < groups; ++g) {
    // Four bins (re, im pairs) as 64-bit lanes: low half re, high half im.
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bins + 8 * g));
    const __m256i re2 = _mm256_mul_epi32(v, v);                           // re * re, exact
    const __m256i im = _mm256_srli_epi64(v, 32);
    const __m256i im2 = _mm256_mul_epi32(im, im);                         // im * im, exact
    const __m256i sum = _mm256_add_epi64(_mm256_add_epi64(re2, im2), half);  // < 2^63: unsigned ok
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(power + 4 * g), _mm256_srl_epi64(sum, count));
  }
}

#else

bool Available() { return false; }
void PowerSpectrum(const int32_t*, size_t, int, uint64_t*) {}
void Radix4Pass(int32_t*, int32_t*, size_t, size_t, const int32_t*) {}
void Split(const int32_t*, const int32_t*, size_t, size_t, size_t, const int32_t*, const int32_t*,
           int32_t*) {}

#endif

}  // namespace earshot::features::avx2
