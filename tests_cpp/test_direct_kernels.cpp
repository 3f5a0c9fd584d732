// cpp/kernels/direct: the small-problem kernels against the reference loops.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kernels/direct/matmul.h"
#include "kernels/reference/matmul.h"

using namespace fn;

TEST_CASE("direct float32 matmul matches the reference loop (all transposes, ragged blocks)") {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {32, 64, 64}, {5, 70, 3}, {7, 130, 17}, {4, 64, 1}}) {
    std::vector<float> a(m * k), b(k * n), want(m * n), got(m * n, -1.f);
    uint32_t x = 12345;
    auto rnd = [&] { x = x * 1664525u + 1013904223u; return static_cast<float>(x >> 8) / (1 << 24) - 0.5f; };
    for (auto& v : a) v = rnd();
    for (auto& v : b) v = rnd();
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        ref::matmul2d(a.data(), b.data(), want.data(), m, n, k, ta, tb);
        direct::matmul_f32(a.data(), b.data(), got.data(), m, n, k, ta, tb);
        for (int64_t i = 0; i < m * n; ++i) CHECK(std::fabs(got[i] - want[i]) <= 1e-5f * (1 + std::fabs(want[i])));
      }
  }
}
