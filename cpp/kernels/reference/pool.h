// Reference 2-D pooling loops (NHWC): max and average (padding excluded from the count, as
// TensorFlow's SAME padding does), forward and backward. The oracle for oneDNN.
#pragma once
#include <algorithm>
#include <limits>

#include "kernels/nn_geom.h"

namespace fn {
namespace ref {

// Calls f(n, oh, ow, h0, h1, w0, w1): the valid input window [h0, h1) x [w0, w1) of each output.
template <typename F>
void pool_windows(const Pool2DGeom& g, F f) {
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      int64_t h0 = std::max<int64_t>(oh * g.sh - g.pt, 0), h1 = std::min(oh * g.sh - g.pt + g.kh, g.ih);
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        int64_t w0 = std::max<int64_t>(ow * g.sw - g.pl, 0), w1 = std::min(ow * g.sw - g.pl + g.kw, g.iw);
        f(n, oh, ow, h0, h1, w0, w1);
      }
    }
}

template <typename T>
void max_pool_forward(const T* x, T* y, const Pool2DGeom& g) {
  pool_windows(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    T* yr = y + ((n * g.oh + oh) * g.ow + ow) * g.c;
    std::fill(yr, yr + g.c, std::numeric_limits<T>::lowest());
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) {
        const T* xr = x + ((n * g.ih + h) * g.iw + w) * g.c;
        for (int64_t c = 0; c < g.c; ++c) yr[c] = std::max(yr[c], xr[c]);
      }
  });
}

// The gradient goes to the first maximum of each window (row-major window order).
template <typename T>
void max_pool_backward(const T* x, const T* dy, T* dx, const Pool2DGeom& g) {
  std::fill(dx, dx + g.input_size(), T(0));
  pool_windows(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    const T* dyr = dy + ((n * g.oh + oh) * g.ow + ow) * g.c;
    for (int64_t c = 0; c < g.c; ++c) {
      int64_t best = -1;
      T bv = std::numeric_limits<T>::lowest();
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          int64_t i = ((n * g.ih + h) * g.iw + w) * g.c + c;
          if (best < 0 || x[i] > bv) {
            best = i;
            bv = x[i];
          }
        }
      if (best >= 0) dx[best] += dyr[c];
    }
  });
}

template <typename T>
void avg_pool_forward(const T* x, T* y, const Pool2DGeom& g) {
  pool_windows(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    T* yr = y + ((n * g.oh + oh) * g.ow + ow) * g.c;
    std::fill(yr, yr + g.c, T(0));
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) {
        const T* xr = x + ((n * g.ih + h) * g.iw + w) * g.c;
        for (int64_t c = 0; c < g.c; ++c) yr[c] += xr[c];
      }
    T count = static_cast<T>((h1 - h0) * (w1 - w0));
    for (int64_t c = 0; c < g.c; ++c) yr[c] /= count;
  });
}

template <typename T>
void avg_pool_backward(const T* dy, T* dx, const Pool2DGeom& g) {
  std::fill(dx, dx + g.input_size(), T(0));
  pool_windows(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    const T* dyr = dy + ((n * g.oh + oh) * g.ow + ow) * g.c;
    T count = static_cast<T>((h1 - h0) * (w1 - w0));
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) {
        T* dxr = dx + ((n * g.ih + h) * g.iw + w) * g.c;
        for (int64_t c = 0; c < g.c; ++c) dxr[c] += dyr[c] / count;
      }
  });
}

}  // namespace ref
}  // namespace fn
