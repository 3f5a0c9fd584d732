// Reference softmax / log-softmax over the last axis of a [rows, cols] array, with backward.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fn {
namespace ref {

template <typename T>
void softmax(const T* x, T* y, int64_t rows, int64_t cols, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    if (cols == 0) continue;
    T mx = *std::max_element(xr, xr + cols), sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(xr[c] - mx);
    if (log) {
      T lse = std::log(sum);
      for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] - mx - lse;
    } else {
      for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - mx) / sum;
    }
  }
}

// TF 2.21's float softmax as its CPU kernel computes it (oneDNN's jit softmax, which TF's oneDNN
// build runs): exp(x - max) by oneDNN's exp polynomial (FMA steps), the sum accumulated in 16
// lanes and then halved pairwise, and each exp multiplied by the reciprocal of the sum. Bit for
// bit TF's (checked up to 1000 columns).
inline float onednn_exp(float x) {
  const float log2e = 1.44269502f, ln2 = 0.693147182f;      // 0x3fb8aa3b, 0x3f317218
  const float hi = 88.7228394f, lo = -87.3365479f;          // 0x42b17218, 0xc2aeac50
  const float p1 = 0.999999701f, p2 = 0.499991506f, p3 = 0.166676521f, p4 = 0.0418978221f,
              p5 = 0.00828929059f;
  bool zero = x < lo;
  x = x < hi ? x : hi;   // x86 minps/maxps: a NaN operand gives the other one, so NaN -> hi
  x = x > lo ? x : lo;
  float n = std::floor(x * log2e + 0.5f);
  float r = std::fma(-n, ln2, x);
  float p = std::fma(p5, r, p4);
  p = std::fma(p, r, p3);
  p = std::fma(p, r, p2);
  p = std::fma(p, r, p1);
  p = std::fma(p, r, 1.0f);
  // 2^(n-1) built in the exponent bits, as oneDNN does (n - 1 + 127 is in [0, 254] here).
  uint32_t bits = zero ? 0u : static_cast<uint32_t>(static_cast<int32_t>(n) - 1 + 127) << 23;
  float two;
  std::memcpy(&two, &bits, sizeof two);
  return p * two * 2.0f;
}

inline void softmax_tf(const float* x, float* y, int64_t rows, int64_t cols) {
  // oneDNN's avx512 kernel: 16-float blocks summed round-robin into 4 accumulators, the partial
  // last block into the first; then (a0 + a1) + (a2 + a3) and the 16 lanes halved pairwise.
  constexpr int kLanes = 16, kAcc = 4;
  const int64_t full = cols / kLanes;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    if (cols == 0) continue;
    // The row max as maxps finds it: a lane keeps its max unless the new value is not smaller
    // (a NaN replaces it, the next number replaces the NaN), then the lanes are halved.
    float lane[kLanes];
    std::fill(lane, lane + kLanes, -std::numeric_limits<float>::max());
    for (int64_t c = 0; c < cols; ++c) lane[c % kLanes] = lane[c % kLanes] > xr[c] ? lane[c % kLanes] : xr[c];
    for (int w = kLanes / 2; w >= 1; w /= 2)
      for (int i = 0; i < w; ++i) lane[i] = lane[i] > lane[i + w] ? lane[i] : lane[i + w];
    const float mx = lane[0];
    float acc[kAcc][kLanes] = {};
    for (int64_t c = 0; c < cols; ++c) {
      yr[c] = onednn_exp(xr[c] - mx);
      int64_t b = c / kLanes;
      acc[b < full ? b % kAcc : 0][c % kLanes] += yr[c];
    }
    float sum[kLanes];
    for (int i = 0; i < kLanes; ++i) sum[i] = (acc[0][i] + acc[1][i]) + (acc[2][i] + acc[3][i]);
    for (int w = kLanes / 2; w >= 1; w /= 2)
      for (int i = 0; i < w; ++i) sum[i] += sum[i + w];
    float inv = 1.0f / sum[0];
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}

// y is the forward output. softmax: dx = (dy - sum(dy * y)) * y; log-softmax:
// dx = dy - exp(y) * sum(dy).
template <typename T>
void softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *yr = y + r * cols, *dyr = dy + r * cols;
    T* dxr = dx + r * cols;
    T s = 0;
    if (log) {
      for (int64_t c = 0; c < cols; ++c) s += dyr[c];
      for (int64_t c = 0; c < cols; ++c) dxr[c] = dyr[c] - std::exp(yr[c]) * s;
    } else {
      for (int64_t c = 0; c < cols; ++c) s += dyr[c] * yr[c];
      for (int64_t c = 0; c < cols; ++c) dxr[c] = (dyr[c] - s) * yr[c];
    }
  }
}

}  // namespace ref
}  // namespace fn
