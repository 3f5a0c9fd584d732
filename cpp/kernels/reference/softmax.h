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
// Implemented in softmax_tf.cpp; rows of at most 16 floats go 16 rows at a time (the same bits
// as softmax_tf_rowwise, the row-at-a-time form, which tests compare it with).
void softmax_tf(const float* x, float* y, int64_t rows, int64_t cols);
void softmax_tf_rowwise(const float* x, float* y, int64_t rows, int64_t cols);

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
