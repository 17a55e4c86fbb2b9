// NEON kernels of the front end's hottest loops, the aarch64 counterparts of simd_avx2.h with the
// same functions and contracts: RealFft's radix-4 passes and split step, the power spectrum. Each
// forms the scalar path's exact 64-bit products (vmull_s32, vmlal_s32) and rounds them as
// RoundShift does (vrshrn_n_s64: (x + 2^(s-1)) >> s at full precision, then the low 32 bits, as
// the scalar cast keeps), so both give the same bits (tests check it). Advanced SIMD is part of
// every Armv8-A core: Available() needs no run-time check.
#pragma once

#include <cstddef>
#include <cstdint>

namespace earshot::features::neon {

bool Available();

// As avx2::Radix4Pass: quarter size q (a multiple of 4), twiddles w^1, w^2, w^3 as real and
// imaginary arrays of q values each, Q30.
void Radix4Pass(int32_t* re, int32_t* im, size_t m, size_t q, const int32_t* twiddles_q30);

// As avx2::Split: bins k = first .. first + 4 * groups - 1 and their mirrors m - k, W^k in Q30.
void Split(const int32_t* re, const int32_t* im, size_t m, size_t first, size_t groups,
           const int32_t* split_re, const int32_t* split_im, int32_t* out);

// As avx2::PowerSpectrum: power[k] = (re^2 + im^2 + 2^(shift-1)) >> shift for k < 4 * groups.
void PowerSpectrum(const int32_t* bins, size_t groups, int shift, uint64_t* power);

// aarch64 only (no AVX2 twin yet; the stages call these under __aarch64__):

// Window::Process, first half: the OR of |frame_q8[n] * window_q15[n]| (exact int64 products)
// over n < count, a multiple of 4.
uint64_t WindowMagnitudes(const int32_t* frame_q8, const int16_t* window_q15, size_t count);

// Window::Process, second half: out[n] = the product rounded right by shift_right (RoundShift)
// when shift_right > 0, else shifted left by -shift_right; the low 32 bits, n < count (a
// multiple of 4).
void WindowScale(const int32_t* frame_q8, const int16_t* window_q15, size_t count, int shift_right,
                 int32_t* out);

// RealFft::Process's bit-reversed load and first radix-4 pass (quarter size 1, no twiddles) in
// one: re[bit_reverse[k]] = in[2k], im[bit_reverse[k]] = in[2k + 1] for k < m, then the size-4
// DFTs of each block of four, as RealFft::Radix4Pass(1). log2(m) even, m >= 16.
void LoadRadix4First(const int32_t* in, const uint16_t* bit_reverse, size_t m, int32_t* re,
                     int32_t* im);

}  // namespace earshot::features::neon
