// TF 2.21's float32 softmax, as oneDNN's avx512 jit kernel inside TF computes it (see
// reference/softmax.h).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/multiversion.h"
#include "kernels/reference/softmax.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vector types cross no ABI boundary here

namespace fn {
namespace ref {

// Separate roundings where oneDNN has separate instructions: this file is compiled with
// -ffp-contract=off (CMakeLists.txt), so x * log2e + 0.5f is never fused.
// oneDNN's exp (jit eltwise injector): inlined into each clone so its FMAs are instructions.
namespace {
__attribute__((always_inline)) inline float onednn_exp(float x) {
  const float log2e = 1.44269502f, ln2 = 0.693147182f;  // 0x3fb8aa3b, 0x3f317218
  const float hi = 88.7228394f, lo = -87.3365479f;      // 0x42b17218, 0xc2aeac50
  const float p1 = 0.999999701f, p2 = 0.499991506f, p3 = 0.166676521f, p4 = 0.0418978221f, p5 = 0.00828929059f;
  const uint32_t keep = x < lo ? 0u : ~0u;  // below ln(FLT_MIN): 0
  // minps / maxps as selects (std::fmin does not vectorise): a NaN becomes hi; x is a number after
  x = x < hi ? x : hi;
  x = x > lo ? x : lo;
  float t = x * log2e;
  float n = std::floor(t + 0.5f);
  float r = std::fma(-n, ln2, x);
  float p = std::fma(p5, r, p4);
  p = std::fma(p, r, p3);
  p = std::fma(p, r, p2);
  p = std::fma(p, r, p1);
  p = std::fma(p, r, 1.0f);
  // 2^(n-1) built in the exponent bits, as oneDNN does (n - 1 + 127 is in [0, 254] here).
  uint32_t bits = (static_cast<uint32_t>(static_cast<int32_t>(n) - 1 + 127) << 23) & keep;
  float two;
  std::memcpy(&two, &bits, sizeof two);
  return p * two * 2.0f;
}
}  // namespace

typedef float v8f __attribute__((vector_size(32)));
__attribute__((always_inline)) inline v8f load8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

typedef float v4f __attribute__((vector_size(16)));
__attribute__((always_inline)) inline v4f half(v8f v, int which) {
  v4f h;
  std::memcpy(&h, reinterpret_cast<const char*>(&v) + which * sizeof h, sizeof h);
  return h;
}

// Lanes 0..7 halved pairwise: lane i with lane i + w for w = 4, 2, 1 (maxps's select / addps).
__attribute__((always_inline)) inline float halve_max(v8f v) {
  const v4f a = half(v, 0), b = half(v, 1);
  const v4f m = a > b ? a : b;
  const float m0 = m[0] > m[2] ? m[0] : m[2], m1 = m[1] > m[3] ? m[1] : m[3];
  return m0 > m1 ? m0 : m1;
}
__attribute__((always_inline)) inline float halve_sum(v8f v) {
  const v4f s = half(v, 0) + half(v, 1);
  return (s[0] + s[2]) + (s[1] + s[3]);
}

FN_MULTIVERSION void softmax_tf_rowwise(const float* x, float* y, int64_t rows, int64_t cols) {
  // oneDNN's avx512 kernel: the row max over 16 lanes then halved; exps; 16-float blocks summed
  // round-robin into 4 accumulators, the partial last block into the first; (a0 + a1) +
  // (a2 + a3), the 16 lanes halved pairwise; each exp times the sum's reciprocal.
  constexpr int kLanes = 16, kAcc = 4;
  const int64_t full = cols / kLanes, tail = cols % kLanes;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    if (cols == 0) continue;
    // maxps keeps a lane's max unless the new value is not smaller (a NaN replaces it, the next
    // number replaces the NaN).
    // (The 16 lanes as two vectors of eight: the same comparisons and additions, lane by lane.)
    v8f lo = v8f{} - std::numeric_limits<float>::max(), hi = lo;
    for (int64_t b = 0; b < full; ++b) {
      const v8f xl = load8(xr + b * kLanes), xh = load8(xr + b * kLanes + 8);
      lo = lo > xl ? lo : xl;
      hi = hi > xh ? hi : xh;
    }
    if (tail) {  // the partial block into the first lanes
      float lane[kLanes];
      std::memcpy(lane, &lo, sizeof lo);
      std::memcpy(lane + 8, &hi, sizeof hi);
      for (int64_t i = 0; i < tail; ++i) lane[i] = lane[i] > xr[full * kLanes + i] ? lane[i] : xr[full * kLanes + i];
      lo = load8(lane);
      hi = load8(lane + 8);
    }
    // The 16 lanes halved pairwise (lane i against lane i + w), the halvings as vector selects:
    // the same comparisons in the same order as lane by lane, without a per-row scalar loop
    // (rows of 8-32 floats spent most of their time here).
    const float mx = halve_max(lo > hi ? lo : hi);
    for (int64_t c = 0; c < cols; ++c) yr[c] = onednn_exp(xr[c] - mx);
    v8f a[kAcc][2] = {};  // accumulator b % 4 takes block b
    int64_t b = 0;
    for (; b + kAcc <= full; b += kAcc)
      for (int q = 0; q < kAcc; ++q) {
        a[q][0] += load8(yr + (b + q) * kLanes);
        a[q][1] += load8(yr + (b + q) * kLanes + 8);
      }
    for (int q = 0; b < full; ++b, ++q) {
      a[q][0] += load8(yr + b * kLanes);
      a[q][1] += load8(yr + b * kLanes + 8);
    }
    if (tail) {
      float acc0[kLanes];
      std::memcpy(acc0, &a[0][0], sizeof a[0][0]);
      std::memcpy(acc0 + 8, &a[0][1], sizeof a[0][1]);
      for (int64_t i = 0; i < tail; ++i) acc0[i] += yr[full * kLanes + i];
      a[0][0] = load8(acc0);
      a[0][1] = load8(acc0 + 8);
    }
    // (a0 + a1) + (a2 + a3) lane by lane, then halved pairwise as the max above.
    const v8f slo = (a[0][0] + a[1][0]) + (a[2][0] + a[3][0]), shi = (a[0][1] + a[1][1]) + (a[2][1] + a[3][1]);
    const float inv = 1.0f / halve_sum(slo + shi);
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}

namespace {
constexpr int kGroup = 16;  // rows a narrow group computes together, one per vector lane

// kGroup rows of cols <= 16 floats: t[j][r] is row r's column j, so each step below is the row
// kernel's step for one lane position, done for all rows at once (the inner loops over r
// vectorise). With at most one 16-float block a row, the row kernel's lanes reduce to: lane j
// takes column j (max against -FLT_MAX, sum onto +0) when j < cols; the same selects, exps, sums,
// halvings and the reciprocal's product follow in its order, so the bits are its bits.
__attribute__((always_inline)) inline void narrow_group(const float* x, float* y, int64_t cols) {
  float t[16][kGroup], e[16][kGroup], m[8][kGroup], mx[kGroup], inv[kGroup];
  for (int64_t j = 0; j < 16; ++j)
    for (int r = 0; r < kGroup; ++r) {
      const float lowest = -std::numeric_limits<float>::max();
      const float v = j < cols ? x[r * cols + j] : lowest;
      t[j][r] = j < cols ? (lowest > v ? lowest : v) : lowest;
    }
  for (int i = 0; i < 8; ++i)  // lo > hi ? lo : hi
    for (int r = 0; r < kGroup; ++r) m[i][r] = t[i][r] > t[i + 8][r] ? t[i][r] : t[i + 8][r];
  for (int i = 0; i < 4; ++i)  // the halves of that: a > b ? a : b
    for (int r = 0; r < kGroup; ++r) m[i][r] = m[i][r] > m[i + 4][r] ? m[i][r] : m[i + 4][r];
  for (int r = 0; r < kGroup; ++r) {
    const float m0 = m[0][r] > m[2][r] ? m[0][r] : m[2][r], m1 = m[1][r] > m[3][r] ? m[1][r] : m[3][r];
    mx[r] = m0 > m1 ? m0 : m1;
  }
  for (int64_t j = 0; j < cols; ++j)  // the exps, each onto an accumulator of +0 (0 past cols)
    for (int r = 0; r < kGroup; ++r) {
      e[j][r] = onednn_exp(x[r * cols + j] - mx[r]);
      t[j][r] = 0.f + e[j][r];
    }
  for (int64_t j = cols; j < 16; ++j)
    for (int r = 0; r < kGroup; ++r) t[j][r] = 0.f;
  for (int i = 0; i < 8; ++i)  // (a0 + a1) + (a2 + a3), a1..a3 empty, then slo + shi
    for (int r = 0; r < kGroup; ++r) m[i][r] = ((t[i][r] + 0.f) + (0.f + 0.f)) + ((t[i + 8][r] + 0.f) + (0.f + 0.f));
  for (int i = 0; i < 4; ++i)
    for (int r = 0; r < kGroup; ++r) m[i][r] = m[i][r] + m[i + 4][r];
  for (int r = 0; r < kGroup; ++r) inv[r] = 1.0f / ((m[0][r] + m[2][r]) + (m[1][r] + m[3][r]));
  for (int r = 0; r < kGroup; ++r)
    for (int64_t j = 0; j < cols; ++j) y[r * cols + j] = e[j][r] * inv[r];
}
}  // namespace

FN_MULTIVERSION void softmax_tf(const float* x, float* y, int64_t rows, int64_t cols) {
  // Rows of at most one 16-float block cost the row kernel ~40-100 cycles each in its setup and
  // halvings: those go kGroup rows at a time (the rest row by row).
  int64_t r = 0;
  if (cols > 0 && cols <= 16)
    for (; r + kGroup <= rows; r += kGroup) narrow_group(x + r * cols, y + r * cols, cols);
  softmax_tf_rowwise(x + r * cols, y + r * cols, rows - r, cols);
}

}  // namespace ref
}  // namespace fn
