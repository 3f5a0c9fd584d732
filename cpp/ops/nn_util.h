// Shared pieces of the nn ops: TensorFlow's window attrs (strides, ksize, dilations, padding,
// data_format), its SAME/VALID/EXPLICIT padding arithmetic, and float-type kernel dispatch.
#pragma once
#include <string>
#include <vector>

#include "kernels/nn_geom.h"
#include "ops/shape_util.h"

namespace fn {

// Op types passes that rewrite contraction patterns name (fuse_contraction, fuse_epilogue).
inline const std::string kConv2DOp = "Conv2D";
inline const std::string kBiasAddOp = "BiasAdd";
inline const std::string kReluOp = "Relu";
inline const std::string kRelu6Op = "Relu6";
inline const std::string kTanhOp = "Tanh";

enum class Padding { Same, Valid, Explicit };

struct WindowAttrs {
  std::vector<int64_t> strides{1, 1, 1, 1}, dilations{1, 1, 1, 1}, ksize{1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings;  // 8 values (NHWC order, before/after per dim)
  Padding padding = Padding::Valid;
  std::string data_format = "NHWC";
};

// Reads and validates the attrs of `op` (InvalidArgument with TensorFlow's messages).
WindowAttrs read_window_attrs(const std::string& op, const Attrs& a, bool conv);

// Output size and padding of one spatial dimension (TF's GetWindowedOutputSize); an unknown
// input size (-1) gives an unknown output.
void window_dim(int64_t in, int64_t k, int64_t stride, int64_t dilation, Padding p, int64_t ex_before, int64_t ex_after,
                int64_t* out, int64_t* before, int64_t* after);

// Geometry from (possibly partial) NHWC input and HWIO filter shapes; unknown dims stay -1.
Conv2DGeom conv_geom(const Shape& input, const Shape& filter, const WindowAttrs& w);
Pool2DGeom pool_geom(const Shape& input, const WindowAttrs& w);

// Runs a floating-point kernel: f(T{}, inputs, out) with T = double for float64 and float
// otherwise (float16/bfloat16 inputs are computed in float32 and rounded back).
template <typename F>
EagerPtr float_kernel(const std::string& op, std::vector<EagerPtr> ins, const Shape& out_shape, F f) {
  DType d = ins[0]->dtype();
  if (!is_floating(d))
    throw_error(Code::InvalidArgument, "Value for attr 'T' of ", dtype_name(d),
                " is not in the list of allowed values: half, bfloat16, float, double for op ", op);
  DType cd = d == DType::Float64 ? DType::Float64 : DType::Float32;
  for (auto& t : ins) t = cast_tensor(t, cd);
  auto out = make_tensor(cd, out_shape);
  if (cd == DType::Float64)
    f(double{}, ins, *out);
  else
    f(float{}, ins, *out);
  return cast_tensor(out, d);
}

}  // namespace fn
