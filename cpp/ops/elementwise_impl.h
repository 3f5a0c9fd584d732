// Building blocks for elementwise ops. A binary op is a functor `Op` (kernels/reference/
// elementwise.h) with `template <typename T> static R apply(T a, T b)` where R is T or bool,
// plus a compile-time mask of the dtypes it accepts (types outside the mask are not even
// instantiated). Kernels broadcast with the reference loop, or run oneDNN's binary/eltwise
// primitive when the tensor is large enough to gain.
#pragma once
#include <string>
#include <type_traits>

#include "core/error.h"
#include "kernels/onednn/binary.h"
#include "kernels/onednn/eltwise.h"
#include "kernels/reference/broadcast.h"
#include "kernels/reference/elementwise.h"
#include "ops/helpers.h"
#include "ops/op.h"

namespace fn {

constexpr unsigned bit(DType d) { return 1u << static_cast<unsigned>(d); }
constexpr unsigned kFloatTypes = bit(DType::Float16) | bit(DType::BFloat16) | bit(DType::Float32) | bit(DType::Float64);
constexpr unsigned kSignedIntTypes = bit(DType::Int8) | bit(DType::Int16) | bit(DType::Int32) | bit(DType::Int64);
constexpr unsigned kWideUnsignedTypes = bit(DType::UInt16) | bit(DType::UInt32) | bit(DType::UInt64);
constexpr unsigned kUnsignedTypes = bit(DType::UInt8) | kWideUnsignedTypes;
constexpr unsigned kIntTypes = kSignedIntTypes | kUnsignedTypes;
constexpr unsigned kNumberTypes = kFloatTypes | kIntTypes;
constexpr unsigned kBoolType = bit(DType::Bool);
constexpr unsigned kStringType = bit(DType::String);

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::Int8;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::UInt8;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::UInt16;
}
template <>
constexpr DType dtype_of<uint32_t>() {
  return DType::UInt32;
}
template <>
constexpr DType dtype_of<uint64_t>() {
  return DType::UInt64;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::Int16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::Int32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::Int64;
}
template <>
constexpr DType dtype_of<half_t>() {
  return DType::Float16;
}
template <>
constexpr DType dtype_of<bfloat16_t>() {
  return DType::BFloat16;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::Float32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::Float64;
}

// "FLOAT" for DT_FLOAT in node descriptions.
std::string tf_enum_suffix(DType d);
// "bfloat16, half, float, double" (TF's kernel-side names) or "float32" names (Python side).
std::string allowed_types(unsigned mask, bool python_names);
// Eager: InvalidArgument "Value for attr 'T' of int32 is not in the list of allowed values: ..."
[[noreturn]] void throw_unsupported_dtype(const std::string& op, DType d, unsigned mask);
[[noreturn]] void throw_unsupported_dtype(const std::string& op, DType d);
// Eager: the op allows the dtype but has no CPU kernel for it (TF's NotFoundError).
[[noreturn]] void throw_no_kernel(const std::string& op, DType d);
// An op TF defines for the dtypes in `no_kernel` but registers no CPU kernel for: `kernel` runs
// for the others; those are NotFound eagerly (the graph's "No OpKernel was registered" at run time).
inline KernelFn without_kernels(std::string op, unsigned no_kernel, KernelFn kernel) {
  return
      [op = std::move(op), no_kernel, kernel = std::move(kernel)](KernelContext& c, const std::vector<EagerPtr>& in) {
        if (!in.empty() && (no_kernel & bit(in[0]->dtype()))) throw_no_kernel(op, in[0]->dtype());
        return kernel(c, in);
      };
}
// Graph: TypeError "Value passed to parameter 'x' has DataType int32 not in list of allowed values: ..."
void check_dtype_graph(const std::string& op, DType d, unsigned mask, const char* param = "x");

// Shape rules: broadcasting binary ops (bool output for comparisons); unary ops.
InferFn binary_infer(std::string op, unsigned mask, bool bool_out);
InferFn unary_infer(std::string op, unsigned mask, bool bool_out);

// Runs Op elementwise with broadcasting on two same-dtype eager tensors. `dnnl_alg` >= 0 names
// the oneDNN binary algorithm computing the same thing (used for large tensors).
template <typename Op, unsigned Mask>
EagerPtr binary_compute(const std::string& op, const EagerTensor& a, const EagerTensor& b, int dnnl_alg = -1) {
  if (!(Mask & bit(a.dtype()))) throw_unsupported_dtype(op, a.dtype(), Mask);
  Shape out_shape = broadcast_shapes(a.shape(), b.shape());
  return visit_pod(a.dtype(), [&](auto tag) -> EagerPtr {
    using T = decltype(tag);
    if constexpr (!(Mask & bit(dtype_of<T>()))) {
      throw_unsupported_dtype(op, a.dtype(), Mask);
    } else {
      using A = typename Arith<T>::type;
      using R = decltype(Op::template apply<A>(A(), A()));
      static_assert(std::is_same<R, A>::value || std::is_same<R, bool>::value, "result type");
      // half types store their float results back as half; bool results stay bool
      using S = std::conditional_t<std::is_same<R, A>::value, T, R>;
      auto out = make_tensor(dtype_of<S>(), out_shape);
      if (dnnl_alg >= 0 && onednn::binary_applicable(a, b, out_shape)) {
        onednn::binary(static_cast<dnnl::algorithm>(dnnl_alg), a, b, *out);
        return out;
      }
      ref::binary(a.template data<T>(), a.shape(), b.template data<T>(), b.shape(), out->template data<S>(), out_shape,
                  [](T x, T y) { return narrow<S>(Op::template apply<A>(widen(x), widen(y))); });
      return out;
    }
  });
}

template <typename Op, unsigned Mask>
KernelFn binary_kernel(std::string op, int dnnl_alg = -1) {
  return [op, dnnl_alg](KernelContext&, const std::vector<EagerPtr>& in) {
    check_same_dtype_eager(op, in);
    return std::vector<EagerPtr>{binary_compute<Op, Mask>(op, *in[0], *in[1], dnnl_alg)};
  };
}

// Runs Op elementwise on one eager tensor; `dnnl` (optional) is the matching oneDNN eltwise.
template <typename Op, unsigned Mask>
EagerPtr unary_compute(const std::string& op, const EagerTensor& x, const onednn::Eltwise* dnnl = nullptr) {
  if (!(Mask & bit(x.dtype()))) throw_unsupported_dtype(op, x.dtype(), Mask);
  return visit_pod(x.dtype(), [&](auto tag) -> EagerPtr {
    using T = decltype(tag);
    if constexpr (!(Mask & bit(dtype_of<T>()))) {
      throw_unsupported_dtype(op, x.dtype(), Mask);
    } else {
      using A = typename Arith<T>::type;
      using R = decltype(Op::template apply<A>(A()));
      static_assert(std::is_same<R, A>::value || std::is_same<R, bool>::value, "result type");
      using S = std::conditional_t<std::is_same<R, A>::value, T, R>;
      auto out = make_tensor(dtype_of<S>(), x.shape());
      if (dnnl && onednn::eltwise_applicable(*dnnl, x, *out)) {
        onednn::eltwise(*dnnl, x, *out);
        return out;
      }
      ref::unary(x.template data<T>(), out->template data<S>(), x.num_elements(),
                 [](T v) { return narrow<S>(Op::template apply<A>(widen(v))); });
      return out;
    }
  });
}

template <typename Op, unsigned Mask>
KernelFn unary_kernel(std::string op, onednn::Eltwise dnnl = onednn::Eltwise{}) {
  return [op, dnnl](KernelContext&, const std::vector<EagerPtr>& in) {
    return std::vector<EagerPtr>{unary_compute<Op, Mask>(op, *in[0], dnnl.valid() ? &dnnl : nullptr)};
  };
}

// Elementwise == / != of two string tensors with broadcasting.
EagerPtr string_compare(const EagerTensor& a, const EagerTensor& b, bool equal);

// Gradient helper: sums `grad` over the axes along which `input` was broadcast to reach
// `grad`'s shape, so the result has input's shape (TF's BroadcastGradientArgs + Sum + Reshape).
TensorPtr unbroadcast(const TensorPtr& grad, const TensorPtr& input);

}  // namespace fn
