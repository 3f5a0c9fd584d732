// 2-D max / average pooling on oneDNN (float32, NHWC), forward and backward.
#pragma once
#include "kernels/nn_geom.h"

namespace fn {
namespace onednn {
inline bool pool_worthwhile(const Pool2DGeom& g) { return g.output_size() * g.kh * g.kw >= (int64_t{1} << 14); }
void max_pool_forward(const float* x, float* y, const Pool2DGeom& g);
// Recomputes the forward pass for oneDNN's workspace (which window element was the maximum).
void max_pool_backward(const float* x, const float* dy, float* dx, const Pool2DGeom& g);
void avg_pool_forward(const float* x, float* y, const Pool2DGeom& g);
void avg_pool_backward(const float* dy, float* dx, const Pool2DGeom& g);
}  // namespace onednn
}  // namespace fn
