// The int8 dot products: the AVX2 kernels give the plain loop's integers, bit for bit, on every
// row count (groups of 4 and the rest), every length (whole vectors and tails), and the extremes
// of each input kind (-128 .. 127; ReLU outputs 0 .. 127).
#include "models/int8_dot.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace earshot::models {
namespace {

std::vector<int8_t> Random(size_t n, int lo, int hi, std::mt19937& gen) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(gen));
  return v;
}

void ExpectSameBits(const std::vector<int8_t>& w, size_t rows, size_t k,
                    const std::vector<int8_t>& in, Int8Inputs kind) {
  std::vector<int32_t> plain(rows), simd(rows), dispatched(rows);
  DotRowsPlain(w.data(), rows, k, in.data(), plain.data());
  DotRowsAvx2(w.data(), rows, k, in.data(), kind, simd.data());
  DotRows(w.data(), rows, k, in.data(), kind, dispatched.data());
  EXPECT_EQ(simd, plain) << rows << " rows of " << k;
  EXPECT_EQ(dispatched, plain) << rows << " rows of " << k;
}

TEST(Int8Dot, Avx2AndPlainGiveTheSameBits) {
  if (!Avx2Available()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937 gen(5);
  for (size_t rows : {1, 3, 4, 5, 9, 64}) {
    for (size_t k : {1, 15, 16, 17, 31, 32, 33, 100, 1040, 2080}) {
      const auto w = Random(rows * k, -128, 127, gen);
      ExpectSameBits(w, rows, k, Random(k, -128, 127, gen), Int8Inputs::kAny);
      ExpectSameBits(w, rows, k, Random(k, 0, 127, gen), Int8Inputs::kNonNegative);
    }
  }
}

TEST(Int8Dot, ExtremesDoNotSaturate) {
  if (!Avx2Available()) GTEST_SKIP() << "no AVX2 on this CPU";
  const size_t k = 2080;
  // vpmaddubsw's pairs at their limits: 127 x -128 twice is -32512, 127 x 127 twice 32258.
  for (int8_t weight : {int8_t{-128}, int8_t{127}}) {
    const std::vector<int8_t> w(k, weight), relu(k, 127), any(k, -128);
    ExpectSameBits(w, 1, k, relu, Int8Inputs::kNonNegative);
    ExpectSameBits(w, 1, k, any, Int8Inputs::kAny);
    int32_t sum = 0;
    DotRows(w.data(), 1, k, relu.data(), Int8Inputs::kNonNegative, &sum);
    EXPECT_EQ(sum, int32_t{weight} * 127 * static_cast<int32_t>(k));
  }
}

}  // namespace
}  // namespace earshot::models
