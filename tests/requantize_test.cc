// The requantisation of a row of channels (models/requantize.h): the aarch64 kernel gives the plain
// loop's integers on every row length (groups of 8 and the rest), every shift, both signs, the
// accumulators' extremes, with and without the clipped leaky ReLU; and the plain loop is the
// scalar formula.
#include "models/requantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace earshot::models {
namespace {

struct Row {
  std::vector<int32_t> acc, bias, mult, shift;
};

Row RandomRow(size_t n, std::mt19937& gen) {
  std::uniform_int_distribution<int32_t> acc(-(1 << 24), 1 << 24), bias(-(1 << 26), 1 << 26),
      mult(1 << 30, std::numeric_limits<int32_t>::max()), shift(1, 62);
  Row r;
  for (size_t i = 0; i < n; ++i) {
    r.acc.push_back(acc(gen));
    r.bias.push_back(bias(gen));
    r.mult.push_back(mult(gen));
    r.shift.push_back(shift(gen));
  }
  return r;
}

std::vector<int8_t> Apply(decltype(&RequantizeRowPlain) kernel, const Row& r, int32_t slope,
                          int32_t floor) {
  std::vector<int8_t> out(r.acc.size());
  kernel(r.acc.data(), r.acc.size(), {r.bias.data(), r.mult.data(), r.shift.data(), slope, floor},
         out.data());
  return out;
}

TEST(RequantizeRow, KernelsGiveThePlainLoopsIntegers) {
  std::mt19937 gen(7);
  for (size_t n : {1u, 7u, 8u, 9u, 24u, 96u, 101u}) {
    for (int trial = 0; trial < 50; ++trial) {
      Row r = RandomRow(n, gen);
      // Shifts near where outputs stay in int8 range, so that the activation is exercised too.
      std::uniform_int_distribution<int32_t> near(36, 46);
      if (trial % 2 == 0) std::generate(r.shift.begin(), r.shift.end(), [&] { return near(gen); });
      if (trial == 0)
        std::fill(r.acc.begin(), r.acc.end(), std::numeric_limits<int32_t>::max() / 2);
      for (auto [slope, floor] : {std::pair{13107, -3}, std::pair{65536, -128}, std::pair{0, 0}}) {
        EXPECT_EQ(Apply(RequantizeRowNeon, r, slope, floor),
                  Apply(RequantizeRowPlain, r, slope, floor))
            << n << " channels, slope " << slope;
        EXPECT_EQ(Apply(RequantizeRow, r, slope, floor),
                  Apply(RequantizeRowPlain, r, slope, floor));
      }
    }
  }
}

TEST(RequantizeRow, PlainIsTheScalarFormula) {
  const Row r{{-1000000, -1000, 0, 1000, 1000000},
              {0, 0, 0, 0, 0},
              {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30},
              {38, 38, 38, 38, 38}};
  // mult / 2^shift = 2^-8: -3906.25 -> floor -3; -3.9 -> leaky -0.78 -> -1; 0; 3.9 -> 4; 3906 ->
  // 127.
  EXPECT_EQ(Apply(RequantizeRowPlain, r, 13107, -3), (std::vector<int8_t>{-3, -1, 0, 4, 127}));
  EXPECT_EQ(Apply(RequantizeRowPlain, r, 65536, -128), (std::vector<int8_t>{-128, -4, 0, 4, 127}));
}

}  // namespace
}  // namespace earshot::models
