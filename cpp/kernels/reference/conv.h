// Reference 2-D convolution loops (NHWC input, HWIO filter): forward, backward data and
// backward filter. T is float or double; they accumulate in T. The oracle for oneDNN.
#pragma once
#include <algorithm>

#include "kernels/nn_geom.h"

namespace fn {
namespace ref {

// Calls f(n, oh, ow, kh, kw, ih, iw) for every (output position, filter tap) that reads a real
// (non-padding) input element.
template <typename F>
void conv_taps(const Conv2DGeom& g, F f) {
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oh = 0; oh < g.oh; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow)
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          int64_t ih = oh * g.sh - g.pt + kh * g.dh;
          if (ih < 0 || ih >= g.ih) continue;
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            int64_t iw = ow * g.sw - g.pl + kw * g.dw;
            if (iw < 0 || iw >= g.iw) continue;
            f(n, oh, ow, kh, kw, ih, iw);
          }
        }
}

template <typename T>
void conv2d_forward(const T* x, const T* w, T* y, const Conv2DGeom& g) {
  std::fill(y, y + g.output_size(), T(0));
  conv_taps(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
    const T* xr = x + ((n * g.ih + ih) * g.iw + iw) * g.ic;
    T* yr = y + ((n * g.oh + oh) * g.ow + ow) * g.oc;
    for (int64_t c = 0; c < g.ic; ++c) {
      const T xv = xr[c];
      const T* wr = w + ((kh * g.kw + kw) * g.ic + c) * g.oc;
      for (int64_t o = 0; o < g.oc; ++o) yr[o] += xv * wr[o];
    }
  });
}

template <typename T>
void conv2d_backward_data(const T* dy, const T* w, T* dx, const Conv2DGeom& g) {
  std::fill(dx, dx + g.input_size(), T(0));
  conv_taps(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
    const T* dyr = dy + ((n * g.oh + oh) * g.ow + ow) * g.oc;
    T* dxr = dx + ((n * g.ih + ih) * g.iw + iw) * g.ic;
    for (int64_t c = 0; c < g.ic; ++c) {
      const T* wr = w + ((kh * g.kw + kw) * g.ic + c) * g.oc;
      T acc = 0;
      for (int64_t o = 0; o < g.oc; ++o) acc += dyr[o] * wr[o];
      dxr[c] += acc;
    }
  });
}

template <typename T>
void conv2d_backward_filter(const T* x, const T* dy, T* dw, const Conv2DGeom& g) {
  std::fill(dw, dw + g.filter_size(), T(0));
  conv_taps(g, [&](int64_t n, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
    const T* xr = x + ((n * g.ih + ih) * g.iw + iw) * g.ic;
    const T* dyr = dy + ((n * g.oh + oh) * g.ow + ow) * g.oc;
    for (int64_t c = 0; c < g.ic; ++c) {
      const T xv = xr[c];
      T* dwr = dw + ((kh * g.kw + kw) * g.ic + c) * g.oc;
      for (int64_t o = 0; o < g.oc; ++o) dwr[o] += xv * dyr[o];
    }
  });
}

}  // namespace ref
}  // namespace fn
