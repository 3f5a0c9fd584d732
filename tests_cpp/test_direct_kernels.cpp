// cpp/kernels/direct: the small-problem kernels against the reference loops.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/direct/matmul.h"
#include "kernels/direct/reduce.h"
#include "kernels/multiversion.h"
#include "kernels/reference/elementwise.h"
#include "kernels/reference/matmul.h"
#include "kernels/reference/softmax.h"

using namespace fn;

namespace {
// Repeatable values in [-0.5, 0.5): a linear congruential generator.
struct Lcg {
  uint32_t x;
  float operator()() {
    x = x * 1664525u + 1013904223u;
    return static_cast<float>(x >> 8) / (1 << 24) - 0.5f;
  }
};
}  // namespace

TEST_CASE("direct float32 matmul matches the reference loop (all transposes, ragged blocks)") {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {32, 64, 64},
                         {5, 70, 3},
                         {7, 130, 17},
                         {4, 64, 1},
                         {16, 32, 48},
                         {3, 48, 16},
                         // every leftover row count of 4- and 6-row blocks, edge blocks of 1-3
                         // vectors plus a scalar tail, n below one vector
                         {6, 16, 5},
                         {11, 24, 9},
                         {13, 8, 33},
                         {2, 12, 7},
                         {17, 40, 3},
                         {9, 56, 20},
                         {10, 4, 6},
                         {23, 100, 11}}) {
    std::vector<float> a(m * k), b(k * n), want(m * n), got(m * n, -1.f);
    Lcg rnd{12345u};
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

TEST_CASE("direct float32 matmul: every row and column tail against a float64 product") {
  // Rows 1..13 cover every leftover of 4- and 6-row blocks (and the 4 + 3, 4 + 4, 5 + 4 splits);
  // columns 1..41 every ragged edge of 8- and 16-lane vectors (zero-padded panels), odd k.
  for (int64_t m = 1; m <= 13; ++m)
    for (int64_t n : {1, 3, 7, 8, 9, 15, 17, 23, 31, 33, 41})
      for (int64_t k : {1, 5, 19}) {
        std::vector<float> a(m * k), b(k * n), add(m * n), got(m * n, -1.f);
        Lcg rnd{uint32_t(99u + m * 1000 + n * 10 + k)};
        for (auto& v : a) v = rnd();
        for (auto& v : b) v = rnd();
        for (auto& v : add) v = rnd();
        for (bool ta : {false, true})
          for (bool tb : {false, true})
            for (bool with_add : {false, true}) {
              direct::matmul_f32(a.data(), b.data(), got.data(), m, n, k, ta, tb, with_add ? add.data() : nullptr);
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                  double want = with_add ? add[i * n + j] : 0.0, mag = std::fabs(want);
                  for (int64_t p = 0; p < k; ++p) {
                    double x = ta ? a[p * m + i] : a[i * k + p], y = tb ? b[j * k + p] : b[p * n + j];
                    want += x * y;
                    mag += std::fabs(x * y);
                  }
                  INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb << " i=" << i
                            << " j=" << j);
                  CHECK(std::fabs(got[i * n + j] - want) <= 1e-6 * (k + 1) * (mag + 1e-30));
                }
            }
      }
}

TEST_CASE("direct float32 matmul with a fused add equals the matmul followed by the add, bit for bit") {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{32, 64, 64},
                         {5, 70, 3},
                         {7, 130, 17},
                         {1, 64, 9},
                         {11, 24, 9},
                         {13, 8, 33},
                         {23, 100, 11}}) {
    std::vector<float> a(m * k), b(k * n), add(m * n), want(m * n), got(m * n, -1.f);
    Lcg rnd{777u};
    for (auto& v : a) v = rnd();
    for (auto& v : b) v = rnd();
    for (auto& v : add) v = rnd() * 3.f;
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        direct::matmul_f32(a.data(), b.data(), want.data(), m, n, k, ta, tb);
        for (int64_t i = 0; i < m * n; ++i) want[i] += add[i];
        direct::matmul_f32(a.data(), b.data(), got.data(), m, n, k, ta, tb, add.data());
        for (int64_t i = 0; i < m * n; ++i) CHECK(got[i] == want[i]);
        std::vector<float> inplace = add;  // add may alias the output
        direct::matmul_f32(a.data(), b.data(), inplace.data(), m, n, k, ta, tb, inplace.data());
        CHECK(inplace == want);
      }
  }
}

TEST_CASE("direct float32 matmul: a row's values do not depend on the block that computes it") {
  // Full blocks, leftover-row blocks and edge columns all sum over k in the same order: each row
  // of the product equals the product of that row alone (a one-row block), bit for bit.
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{13, 40, 21}, {6, 16, 64}, {29, 100, 7}}) {
    std::vector<float> a(m * k), b(k * n), full(m * n), row(n);
    Lcg rnd{4242u};
    for (auto& v : a) v = rnd();
    for (auto& v : b) v = rnd();
    for (bool tb : {false, true}) {
      direct::matmul_f32(a.data(), b.data(), full.data(), m, n, k, false, tb);
      for (int64_t i = 0; i < m; ++i) {
        direct::matmul_f32(a.data() + i * k, b.data(), row.data(), 1, n, k, false, tb);
        for (int64_t j = 0; j < n; ++j) CHECK(row[j] == full[i * n + j]);
      }
    }
  }
}

TEST_CASE("every CPU level's direct matmul body this CPU can run matches the reference; v3 and v4 agree bitwise") {
  const int detected = detected_cpu_level();
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {32, 64, 64},
                         {5, 70, 3},
                         {7, 130, 17},
                         {17, 33, 65},
                         {3, 48, 16},
                         {13, 8, 33},
                         {23, 100, 11},
                         {11, 24, 9}}) {
    std::vector<float> a(m * k), b(k * n), add(m * n), want(m * n);
    Lcg rnd{4242u};
    for (auto& v : a) v = rnd();
    for (auto& v : b) v = rnd();
    for (auto& v : add) v = rnd();
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        ref::matmul2d(a.data(), b.data(), want.data(), m, n, k, ta, tb);
        for (int64_t i = 0; i < m * n; ++i) want[i] += add[i];
        std::vector<std::vector<float>> by_level;
        for (int level : {0, 3, 4}) {
          if (level > detected) continue;
          std::vector<float> got(m * n, -1.f);
          direct::matmul_f32_at(level, a.data(), b.data(), got.data(), m, n, k, ta, tb, add.data());
          INFO("level " << level << " m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb);
          for (int64_t i = 0; i < m * n; ++i) CHECK(std::fabs(got[i] - want[i]) <= 1e-5f * (1 + std::fabs(want[i])));
          if (level >= 3) by_level.push_back(got);
        }
        if (by_level.size() == 2) CHECK(by_level[0] == by_level[1]);
      }
  }
  // A level above the CPU's runs the CPU's best body, never an instruction the CPU lacks.
  std::vector<float> a(4 * 4, 1.f), b(4 * 4, 2.f), c(4 * 4, 0.f);
  direct::matmul_f32_at(99, a.data(), b.data(), c.data(), 4, 4, 4, false, false);
  CHECK(c[0] == 8.f);
}

TEST_CASE("direct float32 sum/mean matches a double-accumulated loop over one run of axes") {
  std::vector<int64_t> dims = {3, 5, 7, 33};
  std::vector<float> x(3 * 5 * 7 * 33);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 7.f - 60.f;
  for (auto red : {std::vector<bool>{true, false, false, false},
                   {false, true, true, false},
                   {false, false, false, true},
                   {true, true, true, true},
                   {false, false, true, true}}) {
    int64_t outer, mid, inner;
    REQUIRE(direct::contiguous_reduction(dims, red, &outer, &mid, &inner));
    REQUIRE(outer * mid * inner == static_cast<int64_t>(x.size()));
    for (bool mean : {false, true}) {
      std::vector<float> got(outer * inner);
      direct::sum_f32(x.data(), got.data(), outer, mid, inner, mean);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          double s = 0;
          for (int64_t m = 0; m < mid; ++m) s += x[(o * mid + m) * inner + j];
          if (mean) s /= static_cast<double>(mid);
          CHECK(std::fabs(got[o * inner + j] - s) <= 1e-6 * (1 + std::fabs(s)));
        }
    }
  }
  int64_t o, m, i;
  CHECK_FALSE(direct::contiguous_reduction(dims, {true, false, true, false}, &o, &m, &i));
  CHECK(direct::contiguous_reduction({3, 1, 4}, {true, false, true}, &o, &m, &i));  // a size-1 axis between
  CHECK(m == 12);
}

TEST_CASE("direct float32 max/min equal the reference fold bit for bit (NaN first met, signed zeros, infinities)") {
  const float nan1 = std::nanf("1"), nan2 = std::nanf("2"), inf = std::numeric_limits<float>::infinity();
  auto bits = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
  };
  // Rows of several lengths (below, at and past one eight-lane block) with special values placed
  // in the lanes and in the tail.
  for (int64_t mid : {1, 3, 8, 13, 40}) {
    for (int variant = 0; variant < 7; ++variant) {
      const int64_t outer = 3, inner_rows = 1;
      std::vector<float> x(outer * mid);
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 23) - 11.f;
      for (int64_t o = 0; o < outer; ++o) {
        float* row = x.data() + o * mid;
        switch (variant) {
          case 1:
            row[mid / 2] = nan1;
            row[mid - 1] = nan2;
            break;  // two NaNs: the first wins
          case 2:
            for (int64_t m = 0; m < mid; ++m) row[m] = (m % 2) ? 0.f : -0.f;
            break;
          case 3:
            for (int64_t m = 0; m < mid; ++m) row[m] = (m % 3) ? -0.f : 0.f;
            break;
          case 4:
            for (int64_t m = 0; m < mid; ++m) row[m] = -inf;
            break;
          case 5:
            row[0] = inf;
            row[mid - 1] = -inf;
            break;
          case 6:
            for (int64_t m = 0; m < mid; ++m) row[m] = m == mid - 1 ? -0.f : -1.f - m;
            break;
          default: break;
        }
      }
      for (bool max : {true, false}) {
        std::vector<float> got(outer), want(outer);
        direct::extreme_f32(x.data(), got.data(), outer, mid, inner_rows, max);
        for (int64_t o = 0; o < outer; ++o) {
          float acc = max ? -inf : inf;
          for (int64_t m = 0; m < mid; ++m)
            acc = max ? ref::Maximum::apply(acc, x[o * mid + m]) : ref::Minimum::apply(acc, x[o * mid + m]);
          want[o] = acc;
          CHECK(bits(got[o]) == bits(want[o]));
        }
      }
    }
  }
  // Columns: [2, 5, 11] over axis 1, with a NaN and signed zeros in some columns.
  std::vector<float> x(2 * 5 * 11);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 13) % 17) - 8.f;
  x[11 * 2 + 3] = nan1;
  for (int64_t m = 0; m < 5; ++m) x[m * 11 + 7] = (m % 2) ? 0.f : -0.f;
  for (bool max : {true, false}) {
    std::vector<float> got(2 * 11);
    direct::extreme_f32(x.data(), got.data(), 2, 5, 11, max);
    for (int64_t o = 0; o < 2; ++o)
      for (int64_t j = 0; j < 11; ++j) {
        float acc = max ? -inf : inf;
        for (int64_t m = 0; m < 5; ++m) {
          float v = x[(o * 5 + m) * 11 + j];
          acc = max ? ref::Maximum::apply(acc, v) : ref::Minimum::apply(acc, v);
        }
        CHECK(bits(got[o * 11 + j]) == bits(acc));
      }
  }
}

// kernels/reference/softmax_tf.cpp: rows of at most 16 floats go 16 rows at a time; the bits
// must be the row-at-a-time kernel's (TF's), for every width, with NaN, infinities, huge and
// tiny values, and row counts that leave a remainder.
TEST_CASE("softmax_tf on narrow rows: the row kernel's bits") {
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  for (int64_t cols = 1; cols <= 17; ++cols)
    for (int64_t rows : {1, 15, 16, 17, 33, 64}) {
      std::vector<float> x(static_cast<size_t>(rows * cols));
      for (float& v : x) {
        const uint32_t k = next();
        switch (k % 23) {
          case 0: v = std::numeric_limits<float>::quiet_NaN(); break;
          case 1: v = std::numeric_limits<float>::infinity(); break;
          case 2: v = -std::numeric_limits<float>::infinity(); break;
          case 3: v = 1e30f; break;
          case 4: v = -1e30f; break;
          case 5: v = -0.f; break;
          default: v = (static_cast<float>(k % 20000) - 10000.f) * (k % 3 ? 0.001f : 0.05f);
        }
      }
      std::vector<float> a(x.size()), b(x.size());
      ref::softmax_tf(x.data(), a.data(), rows, cols);
      ref::softmax_tf_rowwise(x.data(), b.data(), rows, cols);
      REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
}
