// 2-D convolution on oneDNN (float32): NHWC activations, HWIO filters, any padding/strides/
// dilations. Forward, backward data and backward weights.
#pragma once
#include "kernels/epilogue.h"
#include "kernels/nn_geom.h"

namespace fn {
namespace onednn {
// Enough work for oneDNN to beat the reference loop.
inline bool conv_worthwhile(const Conv2DGeom& g) {  // in double: no overflow for huge filters
  return double(g.output_size()) * double(g.kh) * double(g.kw) * double(g.ic) >= double(int64_t{1} << 14);
}
// `e`: bias, residual and activation as the primitive's bias and post-ops.
void conv2d_forward(const float* x, const float* w, float* y, const Conv2DGeom& g, const Epilogue* e = nullptr);
void conv2d_backward_data(const float* dy, const float* w, float* dx, const Conv2DGeom& g);
void conv2d_backward_weights(const float* x, const float* dy, float* dw, const Conv2DGeom& g);
}  // namespace onednn
}  // namespace fn
