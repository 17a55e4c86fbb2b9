// The int8 dot products: each SIMD kernel the CPU has (AVX2; NEON and SDOT on aarch64) gives the
// plain loop's integers, bit for bit, on every row count (groups of 4 and the rest), every length
// (whole vectors and tails), and the extremes of each input kind (-128 .. 127; ReLU outputs
// 0 .. 127); DotRows runs the kernel the CPU calls for.
#include "models/int8_dot.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace earshot::models {
namespace {

std::vector<int8_t> Random(size_t n, int lo, int hi, std::mt19937& gen) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(gen));
  return v;
}

// The SIMD kernels this CPU can run, by the name DotRowsKernel() gives them.
struct SimdKernel {
  const char* name;
  void (*rows)(const int8_t* w, size_t rows, size_t k, const int8_t* in, Int8Inputs kind,
               int32_t* out);
};

std::vector<SimdKernel> KernelsOfThisCpu() {
  std::vector<SimdKernel> kernels;
  if (Avx2Available()) kernels.push_back({"avx2", DotRowsAvx2});
  if (NeonAvailable()) {
    kernels.push_back({"neon", [](const int8_t* w, size_t rows, size_t k, const int8_t* in,
                                  Int8Inputs, int32_t* out) { DotRowsNeon(w, rows, k, in, out); }});
  }
  if (SdotAvailable()) {
    kernels.push_back({"sdot", [](const int8_t* w, size_t rows, size_t k, const int8_t* in,
                                  Int8Inputs, int32_t* out) { DotRowsSdot(w, rows, k, in, out); }});
  }
  return kernels;
}

void ExpectSameBits(const std::vector<int8_t>& w, size_t rows, size_t k,
                    const std::vector<int8_t>& in, Int8Inputs kind) {
  std::vector<int32_t> plain(rows), dispatched(rows);
  DotRowsPlain(w.data(), rows, k, in.data(), plain.data());
  for (const SimdKernel& kernel : KernelsOfThisCpu()) {
    std::vector<int32_t> simd(rows);
    kernel.rows(w.data(), rows, k, in.data(), kind, simd.data());
    EXPECT_EQ(simd, plain) << kernel.name << ": " << rows << " rows of " << k;
  }
  DotRows(w.data(), rows, k, in.data(), kind, dispatched.data());
  EXPECT_EQ(dispatched, plain) << rows << " rows of " << k;
}

TEST(Int8Dot, SimdKernelsAndPlainGiveTheSameBits) {
  if (KernelsOfThisCpu().empty()) GTEST_SKIP() << "no SIMD kernel for this CPU";
  std::mt19937 gen(5);
  for (size_t rows : {1, 3, 4, 5, 9, 64}) {
    for (size_t k : {1, 15, 16, 17, 31, 32, 33, 100, 1040, 2080}) {
      const auto w = Random(rows * k, -128, 127, gen);
      ExpectSameBits(w, rows, k, Random(k, -128, 127, gen), Int8Inputs::kAny);
      ExpectSameBits(w, rows, k, Random(k, 0, 127, gen), Int8Inputs::kNonNegative);
    }
  }
}

// Two inputs at once: each the plain loop's integers, whatever kernel the CPU runs (the aarch64
// suite runs this on a core with SDOT and, under -cpu cortex-a53, on one with NEON alone).
TEST(Int8Dot, TwoInputsGiveThePlainLoopsIntegers) {
  std::mt19937 gen(9);
  for (size_t rows : {1, 3, 4, 5, 9, 64}) {
    for (size_t k : {1, 15, 16, 17, 72, 100, 216, 2080}) {
      const auto w = Random(rows * k, -128, 127, gen);
      const auto in0 = Random(k, -128, 127, gen), in1 = Random(k, -128, 127, gen);
      std::vector<int32_t> plain0(rows), plain1(rows), out0(rows), out1(rows);
      DotRowsPlain(w.data(), rows, k, in0.data(), plain0.data());
      DotRowsPlain(w.data(), rows, k, in1.data(), plain1.data());
      DotRows2(w.data(), rows, k, in0.data(), in1.data(), out0.data(), out1.data());
      EXPECT_EQ(out0, plain0) << DotRowsKernel() << ": " << rows << " rows of " << k;
      EXPECT_EQ(out1, plain1) << DotRowsKernel() << ": " << rows << " rows of " << k;
    }
  }
}

TEST(Int8Dot, ExtremesDoNotSaturate) {
  if (KernelsOfThisCpu().empty()) GTEST_SKIP() << "no SIMD kernel for this CPU";
  const size_t k = 2080;
  // vpmaddubsw's pairs at their limits: 127 x -128 twice is -32512, 127 x 127 twice 32258;
  // vmull_s8's products: -128 x -128 = 2^14.
  for (int8_t weight : {int8_t{-128}, int8_t{127}}) {
    const std::vector<int8_t> w(k, weight), relu(k, 127), any(k, -128);
    ExpectSameBits(w, 1, k, relu, Int8Inputs::kNonNegative);
    ExpectSameBits(w, 1, k, any, Int8Inputs::kAny);
    int32_t sum = 0;
    DotRows(w.data(), 1, k, relu.data(), Int8Inputs::kNonNegative, &sum);
    EXPECT_EQ(sum, int32_t{weight} * 127 * static_cast<int32_t>(k));
  }
}

// DotRows takes the best kernel the CPU has: AVX2; SDOT where HWCAP_ASIMDDP is set; NEON on an
// aarch64 without it. EARSHOT_EXPECT_DOT_KERNEL names the kernel a run expects
// (tests/CMakeLists.txt runs this under qemu-aarch64 -cpu cortex-a53, an Armv8.0 core without SDOT,
// expecting neon).
TEST(Int8Dot, DispatchTakesTheKernelTheCpuHas) {
  const std::string expected = Avx2Available()   ? "avx2"
                               : SdotAvailable() ? "sdot"
                               : NeonAvailable() ? "neon"
                                                 : "plain";
  EXPECT_EQ(DotRowsKernel(), expected);
  if (const char* want = std::getenv("EARSHOT_EXPECT_DOT_KERNEL")) {
    EXPECT_STREQ(DotRowsKernel(), want);
  }
}

}  // namespace
}  // namespace earshot::models
