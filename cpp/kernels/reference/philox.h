// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator, so any block of the stream can be computed independently (results
// do not depend on threads). Seeded, counted and converted to floats the way TensorFlow's
// stateful random ops do, so fn reproduces TensorFlow's numbers for the same seeds.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <algorithm>

namespace fn {
namespace philox {

using Block = std::array<uint32_t, 4>;

class Philox4x32 {
 public:
  // The key is seed; seed2 fills the high half of the 128-bit counter.
  Philox4x32(uint64_t seed, uint64_t seed2)
      : counter_{0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)},
        key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)} {}

  // An explicit 128-bit counter and 64-bit key (stateless ops derive both from their seed).
  Philox4x32(const Block& counter, const std::array<uint32_t, 2>& key) : counter_(counter), key_(key) {}

  // Advances the counter by n blocks (carrying into the high words).
  void skip(uint64_t n) {
    uint32_t lo = static_cast<uint32_t>(n), hi = static_cast<uint32_t>(n >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

  // The block for the current counter; then the counter moves on by one.
  Block next() {
    Block c = counter_;
    uint32_t k0 = key_[0], k1 = key_[1];
    for (int round = 0; round < 10; ++round) {
      uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
      uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
      uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
      c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    skip(1);
    return c;
  }

 private:
  Block counter_;
  std::array<uint32_t, 2> key_;
};

// Uniform [0, 1) from the low mantissa bits: 23 for float, 52 for double, 10 for half and
// 7 for bfloat16 (returned as their bit patterns).
inline float uniform_float(uint32_t x) {
  uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, 4);
  return f - 1.0f;
}
inline double uniform_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = (uint64_t{1023} << 52) | (uint64_t{hi & 0xfffffu} << 32) | lo;
  double d;
  std::memcpy(&d, &bits, 8);
  return d - 1.0;
}
// [1, 2) as half bits and bfloat16 bits; the caller subtracts 1 in the wider type.
inline uint16_t half_one_to_two(uint32_t x) { return static_cast<uint16_t>((15u << 10) | (x & 0x3ffu)); }
inline uint16_t bf16_one_to_two(uint32_t x) { return static_cast<uint16_t>((127u << 7) | (x & 0x7fu)); }

// Box-Muller: two uniforms -> two standard normals.
inline void box_muller(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = uniform_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = 2.0f * static_cast<float>(M_PI) * uniform_float(x1);
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * u2;
  *f1 = std::cos(v1) * u2;
}
inline void box_muller(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1) {
  double u1 = uniform_double(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * uniform_double(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * u2;
  *d1 = std::cos(v1) * u2;
}

// One 32-bit sample at a time from a generator (TF's SingleSampleAdapter).
class SingleSamples {
 public:
  explicit SingleSamples(Philox4x32& gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = gen_.next();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox4x32& gen_;
  Block block_{};
  int used_ = 4;
};

// Truncated normal: groups of `group` outputs (4 float, 2 double), each group from its own
// region of group * 256 / 4 blocks, redrawing pairs of normals until |x| < 2 (TF's
// FillPhiloxRandomTask for variable samples per output).
template <typename T>
inline void fill_truncated(const Philox4x32& base, T* out, int64_t n) {
  constexpr int group = std::is_same<T, float>::value ? 4 : 2;
  constexpr uint64_t skip_per_group = group * 256 / 4;  // TF reserves 256 samples per output
  for (int64_t g = 0; g * group < n; ++g) {
    Philox4x32 gen = base;
    gen.skip(static_cast<uint64_t>(g) * skip_per_group);
    SingleSamples s(gen);
    T res[group];
    int idx = 0;
    while (idx < group) {
      T f[2];
      if constexpr (std::is_same<T, float>::value) {
        uint32_t x0 = s(), x1 = s();
        box_muller(x0, x1, &f[0], &f[1]);
      } else {
        uint32_t x0 = s(), x1 = s(), x2 = s(), x3 = s();
        box_muller(x0, x1, x2, x3, &f[0], &f[1]);
      }
      for (int j = 0; j < 2 && idx < group; ++j)
        if (std::abs(f[j]) < T(2)) res[idx++] = f[j];
    }
    int64_t count = std::min<int64_t>(group, n - g * group);
    std::copy(res, res + count, out + g * group);
  }
}

}  // namespace philox
}  // namespace fn
