// 2-D max / average pooling on oneDNN (float32, NHWC), forward and backward.
#pragma once
#include "kernels/nn_geom.h"

namespace fn {
namespace onednn {
// In double: a window of 2**31 times a large output must not overflow (it is not worthwhile).
// oneDNN refuses windows or paddings past its limits (a descriptor error): huge ones take the loop.
inline bool pool_worthwhile(const Pool2DGeom& g) {
  constexpr int64_t kMax = int64_t{1} << 20;
  if (g.kh > kMax || g.kw > kMax || g.pt > kMax || g.pb > kMax || g.pl > kMax || g.pr > kMax) return false;
  return double(g.output_size()) * double(g.kh) * double(g.kw) >= double(int64_t{1} << 14);
}
// `single`: on the calling thread alone (a slice of a batch on the task pool: oneDNN's pooling
// computes each window the same way at any batch size and thread count, so the bits are a whole
// call's).
void max_pool_forward(const float* x, float* y, const Pool2DGeom& g, bool single = false);
// Recomputes the forward pass for oneDNN's workspace (which window element was the maximum).
void max_pool_backward(const float* x, const float* dy, float* dx, const Pool2DGeom& g);
void avg_pool_forward(const float* x, float* y, const Pool2DGeom& g, bool single = false);
void avg_pool_backward(const float* dy, float* dx, const Pool2DGeom& g);
}  // namespace onednn
}  // namespace fn
