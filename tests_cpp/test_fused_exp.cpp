// kernels/fused/exp.h: fused::exp gives std::exp's bits for every float it is tested on (the
// whole 2^32 range was checked once, docs/notes/perf11v.md), in place and at every length, and
// the fused kernel's Exp uses it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/fused/elementwise.h"
#include "kernels/fused/exp.h"

using namespace fn;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Indices where y is not std::exp(x) bit for bit (at most a few, for the message).
std::vector<float> mismatches(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> bad;
  for (size_t i = 0; i < x.size() && bad.size() < 4; ++i) {
    const float want = std::exp(x[i]);
    if (std::memcmp(&want, &y[i], sizeof want) != 0) bad.push_back(x[i]);
  }
  return bad;
}

// Floats around glibc's thresholds and the specials: NaNs, infinities, zeros, subnormals.
std::vector<float> edge_values() {
  std::vector<float> v{0.f,
                       -0.f,
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(),
                       -std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::denorm_min(),
                       -std::numeric_limits<float>::denorm_min(),
                       std::numeric_limits<float>::min(),
                       std::numeric_limits<float>::max(),
                       std::numeric_limits<float>::lowest(),
                       from_bits(0x7fa00000u) /* signalling NaN */};
  for (float t : {0x1.62e42ep6f, -0x1.9fe368p6f, -0x1.9d1d9ep6f, 88.f, -88.f, -87.33654f, 1.f, -1.f, 0x1p-25f}) {
    uint32_t u;
    std::memcpy(&u, &t, sizeof u);
    for (int k = -40; k <= 40; ++k) v.push_back(from_bits(static_cast<uint32_t>(static_cast<int64_t>(u) + k)));
  }
  return v;
}

}  // namespace

TEST_CASE("fused exp: std::exp's bits over a sweep of all float bit patterns") {
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093) x.push_back(from_bits(static_cast<uint32_t>(u)));
  for (float e : edge_values()) x.push_back(e);
  std::vector<float> y(x.size());
  fused::exp(x.data(), y.data(), static_cast<int64_t>(x.size()));
  const std::vector<float> bad = mismatches(x, y);
  INFO("first mismatching input " << (bad.empty() ? 0.f : bad[0]));
  CHECK(bad.empty());
}

TEST_CASE("fused exp: every length (vector bodies and tails), in place") {
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = -100.f + 7.3f * static_cast<float>(i);
    std::vector<float> y(x.size(), -1.f);
    fused::exp(x.data(), y.data(), n);
    CHECK(mismatches(x, y).empty());
    std::vector<float> z = x;  // in place
    fused::exp(z.data(), z.data(), n);
    CHECK(mismatches(x, z).empty());
  }
}

TEST_CASE("fused exp: the fused kernel's Exp is std::exp, over a tensor and a scalar operand") {
  const int64_t n = 3000;  // three tiles, the last partial
  std::vector<float> x(static_cast<size_t>(n)), m{2.5f};
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = -110.f + 0.0713f * static_cast<float>(i);
  // exp(x - m): Sub then Exp
  const std::vector<fused::Instr> prog{{fused::kSub, 0, 1}, {fused::kExp, -1, 0}};
  std::vector<float> y(x.size());
  fused::run(prog, {{x.data(), 1, n}, {m.data(), 1, 1}}, y.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    const float want = std::exp(x[static_cast<size_t>(i)] - m[0]);
    INFO("i " << i);
    REQUIRE(std::memcmp(&want, &y[static_cast<size_t>(i)], sizeof want) == 0);
  }
  // Exp of a one-value operand (a scalar broadcast over the tile)
  const std::vector<fused::Instr> scalar_prog{{fused::kExp, 1, 0}, {fused::kMul, 0, -1}};
  fused::run(scalar_prog, {{x.data(), 1, n}, {m.data(), 1, 1}}, y.data(), n);
  const float e = std::exp(m[0]);
  for (int64_t i = 0; i < n; ++i) REQUIRE(y[static_cast<size_t>(i)] == x[static_cast<size_t>(i)] * e);
}
