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

}  // namespace earshot::features::neon
