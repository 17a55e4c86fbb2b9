// AVX2 kernels of the front end's hottest loops (RealFft's radix-4 passes and split step, the power
// spectrum), four 64-bit lanes at a time. The integer arithmetic is the scalar path's, product for
// product and rounding for rounding, so both give the same bits (tests check it); the stages pick
// these at run time when the CPU has AVX2.
#pragma once

#include <cstddef>
#include <cstdint>

namespace earshot::features::avx2 {

bool Available();

// One radix-4 pass of quarter size q (a multiple of 4) over m complex values in re/im, with the
// pass's twiddles as six arrays of q values: w^1, w^2, w^3, real and imaginary parts, Q30.
void Radix4Pass(int32_t* re, int32_t* im, size_t m, size_t q, const int32_t* twiddles_q30);

// The split step for bins k = first .. first + 4 * groups - 1 (and their mirrors m - k), as
// RealFft::Split: `split_re`/`split_im` hold W^k in Q30 for every k <= m/2. Output is interleaved
// re, im per bin.
void Split(const int32_t* re, const int32_t* im, size_t m, size_t first, size_t groups,
           const int32_t* split_re, const int32_t* split_im, int32_t* out);

// power[k] = (re^2 + im^2 + 2^(shift-1)) >> shift for k < 4 * groups; bins interleaved re, im.
void PowerSpectrum(const int32_t* bins, size_t groups, int shift, uint64_t* power);

}  // namespace earshot::features::avx2
