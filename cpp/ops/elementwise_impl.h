// Building blocks for elementwise ops: a binary op is a functor `Op` with
//   template <typename T> static auto apply(T a, T b);   // T is the arithmetic type
// and a mask of dtypes it accepts. Kernels broadcast with the reference loop, or run oneDNN's
// binary primitive when the tensor is large enough to gain.
#pragma once
#include <type_traits>

#include "core/error.h"
#include "kernels/onednn/binary.h"
#include "kernels/reference/broadcast.h"
#include "ops/helpers.h"
#include "ops/op.h"

namespace fn {

constexpr unsigned bit(DType d) { return 1u << static_cast<unsigned>(d); }
constexpr unsigned kFloatTypes = bit(DType::Float16) | bit(DType::BFloat16) | bit(DType::Float32) | bit(DType::Float64);
constexpr unsigned kIntTypes = bit(DType::Int8) | bit(DType::UInt8) | bit(DType::Int16) | bit(DType::Int32) | bit(DType::Int64);
constexpr unsigned kNumberTypes = kFloatTypes | kIntTypes;
constexpr unsigned kBoolType = bit(DType::Bool);

template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }
template <> constexpr DType dtype_of<int8_t>() { return DType::Int8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtype_of<int16_t>() { return DType::Int16; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<half_t>() { return DType::Float16; }
template <> constexpr DType dtype_of<bfloat16_t>() { return DType::BFloat16; }
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }

[[noreturn]] void throw_unsupported_dtype(const std::string& op, DType d);

// Shape rule of broadcasting binary ops; `bool_out` for comparisons.
InferFn binary_infer(std::string op, unsigned mask, bool bool_out);

// Runs Op elementwise with broadcasting on two same-dtype eager tensors.
template <typename Op>
EagerPtr binary_compute(const std::string& op, unsigned mask, const EagerTensor& a,
                        const EagerTensor& b, int dnnl_alg) {
  if (!(mask & bit(a.dtype()))) throw_unsupported_dtype(op, a.dtype());
  Shape out_shape = broadcast_shapes(a.shape(), b.shape());
  return visit_pod(a.dtype(), [&](auto tag) -> EagerPtr {
    using T = decltype(tag);
    using A = typename Arith<T>::type;
    using R = decltype(Op::template apply<A>(A(), A()));
    // half types store their float results back as half; bool results stay bool
    using S = std::conditional_t<std::is_same<R, A>::value, T, R>;
    if constexpr (!std::is_same<R, A>::value && !std::is_same<R, bool>::value) {
      throw_error(Code::Internal, "unexpected result type in ", op);
    } else {
      auto out = make_tensor(dtype_of<S>(), out_shape);
      if (dnnl_alg >= 0 && std::is_same<S, T>::value && onednn::binary_applicable(a, b, out_shape)) {
        onednn::binary(static_cast<dnnl::algorithm>(dnnl_alg), a, b, *out);
        return out;
      }
      ref::binary(a.template data<T>(), a.shape(), b.template data<T>(), b.shape(),
                  out->template data<S>(), out_shape,
                  [](T x, T y) { return narrow<S>(Op::template apply<A>(widen(x), widen(y))); });
      return out;
    }
  });
}

template <typename Op>
KernelFn binary_kernel(std::string op, unsigned mask, int dnnl_alg = -1) {
  return [op, mask, dnnl_alg](KernelContext&, const std::vector<EagerPtr>& in) {
    check_same_dtype_eager(op, in);
    return std::vector<EagerPtr>{binary_compute<Op>(op, mask, *in[0], *in[1], dnnl_alg)};
  };
}

// Gradient helper: sums `grad` over the axes along which `input` was broadcast to reach
// `grad`'s shape and reshapes to input's shape (TF's BroadcastGradientArgs + Sum + Reshape).
TensorPtr unbroadcast(const TensorPtr& grad, const TensorPtr& input);

}  // namespace fn
