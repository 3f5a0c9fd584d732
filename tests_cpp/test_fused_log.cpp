// kernels/fused/log.h: fused::log gives std::log's bits for every float it is tested on (the
// whole 2^32 range was checked once, docs/notes/perf11v.md, section perf11w), in place and at
// every length.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/fused/log.h"

using namespace fn;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Inputs where y is not std::log(x) bit for bit (at most a few, for the message).
std::vector<float> mismatches(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> bad;
  for (size_t i = 0; i < x.size() && bad.size() < 4; ++i) {
    const float want = std::log(x[i]);
    if (std::memcmp(&want, &y[i], sizeof want) != 0) bad.push_back(x[i]);
  }
  return bad;
}

// The specials (NaNs of both signs and a signalling one, infinities, zeros, negatives), the
// subnormal/normal boundary, 1 and the table's interval edges (multiples of 2^19 around
// 0x3f330000) with their neighbours.
std::vector<float> edge_values() {
  std::vector<float> v{0.f,
                       -0.f,
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(),
                       -std::numeric_limits<float>::quiet_NaN(),
                       from_bits(0x7fa00001u) /* signalling NaN */,
                       from_bits(0x7fc12345u) /* NaN with a payload */,
                       std::numeric_limits<float>::denorm_min(),
                       -std::numeric_limits<float>::denorm_min(),
                       std::numeric_limits<float>::max(),
                       std::numeric_limits<float>::lowest(),
                       -1.f,
                       -2.5f};
  std::vector<uint32_t> centres{0x00800000u, 0x007fffffu, 0x3f800000u, 0x3f330000u, 0x7f7fffffu, 0x00000010u};
  for (uint32_t j = 0; j < 16; ++j) centres.push_back(0x3f330000u + (j << 19));
  for (uint32_t c : centres) {
    for (int k = -20; k <= 20; ++k) {
      const int64_t u = static_cast<int64_t>(c) + k;
      if (u >= 0 && u <= 0xffffffff) v.push_back(from_bits(static_cast<uint32_t>(u)));
    }
  }
  return v;
}

}  // namespace

TEST_CASE("fused log: std::log's bits over a sweep of all float bit patterns") {
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093) x.push_back(from_bits(static_cast<uint32_t>(u)));
  for (float e : edge_values()) x.push_back(e);
  std::vector<float> y(x.size());
  fused::log(x.data(), y.data(), static_cast<int64_t>(x.size()));
  const std::vector<float> bad = mismatches(x, y);
  INFO("first mismatching input " << (bad.empty() ? 0.f : bad[0]));
  CHECK(bad.empty());
}

TEST_CASE("fused log: the specials one at a time (each lane position, each tail length)") {
  const std::vector<float> edges = edge_values();
  for (int64_t n = 1; n <= 17; ++n) {
    for (int64_t at = 0; at < n; ++at) {
      for (size_t e = 0; e < 14; ++e) {  // the specials at the front of edge_values()
        std::vector<float> x(static_cast<size_t>(n), 3.5f);
        x[static_cast<size_t>(at)] = edges[e];
        std::vector<float> y(x.size());
        fused::log(x.data(), y.data(), n);
        INFO("n " << n << " at " << at << " x " << edges[e]);
        REQUIRE(mismatches(x, y).empty());
      }
    }
  }
}

TEST_CASE("fused log: every length (vector bodies and tails), in place") {
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 1e-40f + 0.731f * static_cast<float>(i * i);
    std::vector<float> y(x.size(), -1.f);
    fused::log(x.data(), y.data(), n);
    CHECK(mismatches(x, y).empty());
    std::vector<float> z = x;  // in place
    fused::log(z.data(), z.data(), n);
    CHECK(mismatches(x, z).empty());
  }
}
