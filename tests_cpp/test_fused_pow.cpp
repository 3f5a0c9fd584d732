// kernels/fused/pow.h: fused::pow gives std::pow's bits for every (x, y) it is tested on (all 2^32
// x for the common exponents were checked once, docs/notes/perf11v.md, section perf11w), with one
// exponent or one per element, in place and at every length; the fused kernel's Pow uses it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/fused/elementwise.h"
#include "kernels/fused/pow.h"

using namespace fn;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Exponents: the norms' and activations' ones, an odd and an even integer beyond the small-integer
// path, values that overflow or underflow for ordinary x, and glibc's special exponents.
const std::vector<float> kExponents{-0.5f,
                                    0.5f,
                                    1.5f,
                                    2.5f,
                                    -1.5f,
                                    1.f / 3.f,
                                    0.7f,
                                    -2.75f,
                                    5.f,
                                    6.f,
                                    -7.f,
                                    100.f,
                                    -100.f,
                                    1e-30f,
                                    0.f,
                                    -0.f,
                                    1e30f,
                                    -1e30f,
                                    std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity(),
                                    std::numeric_limits<float>::quiet_NaN()};

// The specials of x: zeros, negatives (integer and not), subnormals, 1, infinities, NaNs.
std::vector<float> special_x() {
  return {0.f,
          -0.f,
          -1.f,
          -2.f,
          -2.5f,
          std::numeric_limits<float>::denorm_min(),
          1e-40f,
          -1e-40f,
          1.f,
          std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN(),
          from_bits(0x7fa00001u) /* signalling */,
          std::numeric_limits<float>::max(),
          std::numeric_limits<float>::min()};
}

}  // namespace

TEST_CASE("fused pow: std::pow's bits over a sweep of all float bit patterns, per exponent") {
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 8191) x.push_back(from_bits(static_cast<uint32_t>(u)));
  for (float s : special_x()) x.push_back(s);
  std::vector<float> out(x.size());
  for (float y : kExponents) {
    fused::pow(x.data(), &y, 0, out.data(), static_cast<int64_t>(x.size()));
    size_t bad = 0;
    float first = 0.f;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!same(std::pow(x[i], y), out[i]) && bad++ == 0) first = x[i];
    }
    INFO("y " << y << " first mismatching x " << first);
    CHECK(bad == 0);
  }
}

TEST_CASE("fused pow: one exponent per element, specials in every lane position and tail length") {
  const std::vector<float> xs = special_x();
  for (int64_t n = 1; n <= 17; ++n) {
    for (int64_t at = 0; at < n; ++at) {
      for (float s : xs) {
        for (float ys : {0.5f, -0.5f, 3.f, std::numeric_limits<float>::infinity(), 0.f}) {
          std::vector<float> x(static_cast<size_t>(n), 2.25f), y(x.size(), -1.5f), out(x.size());
          x[static_cast<size_t>(at)] = s;
          y[static_cast<size_t>(at)] = ys;
          fused::pow(x.data(), y.data(), 1, out.data(), n);
          for (size_t i = 0; i < x.size(); ++i) {
            INFO("n " << n << " at " << at << " x " << x[i] << " y " << y[i]);
            REQUIRE(same(std::pow(x[i], y[i]), out[i]));
          }
        }
      }
    }
  }
}

TEST_CASE("fused pow: every length, in place") {
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 1e-3f + 0.917f * static_cast<float>(i * i);
    const float y = -0.5f;
    std::vector<float> z = x;
    fused::pow(z.data(), &y, 0, z.data(), n);
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(same(std::pow(x[i], y), z[i]));
  }
}

TEST_CASE("fused pow: the fused kernel's Pow is std::pow for one non-integer exponent") {
  const int64_t n = 3000;  // three tiles, the last partial
  std::vector<float> x(static_cast<size_t>(n)), eps{1e-5f}, e{-0.5f}, h{1.5f};
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = -1.f + 0.013f * static_cast<float>(i);
  // (x + eps) ** -0.5: negative x gives NaN, as std::pow
  const std::vector<fused::Instr> prog{{fused::kAdd, 0, 1}, {fused::kPow, -1, 2}};
  std::vector<float> y(x.size());
  fused::run(prog, {{x.data(), 1, n}, {eps.data(), 1, 1}, {e.data(), 1, 1}}, y.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    const float want = std::pow(x[static_cast<size_t>(i)] + eps[0], e[0]);
    INFO("i " << i);
    REQUIRE(same(want, y[static_cast<size_t>(i)]));
  }
  const std::vector<fused::Instr> prog15{{fused::kPow, 0, 1}};
  fused::run(prog15, {{x.data(), 1, n}, {h.data(), 1, 1}}, y.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    REQUIRE(same(std::pow(x[static_cast<size_t>(i)], 1.5f), y[static_cast<size_t>(i)]));
  }
}
