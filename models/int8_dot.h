// The int8 engine's one hot loop: the dot products of a layer's weight rows with one window of
// inputs, int32 accumulation. Plain C++, and SIMD kernels picked at run time from what the CPU
// has: AVX2 on x86-64; on aarch64 SDOT (Armv8.2 dot product) where getauxval(AT_HWCAP) has
// HWCAP_ASIMDDP, NEON otherwise (a Cortex-A53). All compute exact integer sums, so they give the
// same bits (tests check it).
#pragma once

#include <cstddef>
#include <cstdint>

namespace earshot::models {

// What the inputs can hold: any int8 (a model's own inputs), or [0, 127] only (the outputs of a
// hidden layer after ReLU), which lets AVX2 multiply 32 pairs per instruction instead of 16.
enum class Int8Inputs { kAny, kNonNegative };

// out[r] = sum_i w[r * k + i] * in[i] for r < rows: exact for any int8 values while
// k * 128 * 128 < 2^31, i.e. k < 2^17 (the large keyword model's widest row: 2080).
void DotRows(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs kind,
             int32_t* out);

// Two inputs through the same rows, any int8: out0[r] = w_r . in0 and out1[r] = w_r . in1, each
// weight vector read once for both (a convolution's neighbouring positions); the kernel DotRows
// runs, with the plain loop's integers.
void DotRows2(const int8_t* w, size_t rows, size_t k, const int8_t* in0, const int8_t* in1,
              int32_t* out0, int32_t* out1);

// The plain C++ path and the AVX2 one (call only when Avx2Available(); built as the plain loop
// for CPUs other than x86-64), for tests and benchmarks.
void DotRowsPlain(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out);
bool Avx2Available();
void DotRowsAvx2(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs kind,
                 int32_t* out);

// The aarch64 kernels (call only when NeonAvailable() / SdotAvailable(); built as the plain loop
// elsewhere). Neither needs Int8Inputs: both multiply signed by signed.
bool NeonAvailable();
bool SdotAvailable();
void DotRowsNeon(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out);
void DotRowsSdot(const int8_t* w, size_t rows, size_t k, const int8_t* in, int32_t* out);

// The kernel DotRows runs on this CPU: "avx2", "sdot", "neon" or "plain".
const char* DotRowsKernel();

}  // namespace earshot::models
