// Broadcasting binary arithmetic: Sub, Mul, RealDiv, DivNoNan, FloorDiv, FloorMod, TruncateDiv,
// TruncateMod, Pow, Maximum, Minimum, SquaredDifference. AddV2 is in elementwise.cpp. Gradients sum over the
// broadcast axes with unbroadcast().
#include <cmath>
#include <type_traits>

#include "kernels/fused/elementwise.h"
#include "kernels/fused/pow.h"
#include "ops/elementwise_impl.h"
#include "ops/complex.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "trace/context.h"

namespace fn {

namespace {

using G = const GradContext&;
using Grads = std::vector<TensorPtr>;

constexpr unsigned kPowTypes = kFloatTypes | kSignedIntTypes;
constexpr unsigned kSqDiffTypes = kFloatTypes | bit(DType::Int32) | bit(DType::Int64);

int alg(dnnl::algorithm a) { return static_cast<int>(a); }

// Integer kernels that TensorFlow checks before computing: division by zero, negative powers.
bool any_int_zero(const EagerTensor& t) {
  return visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (ref::is_int_v<T>) {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < t.num_elements(); ++i)
        if (p[i] == 0) return true;
    }
    return false;
  });
}
bool any_int_negative(const EagerTensor& t) {
  return visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (ref::is_signed_int_v<T>) {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < t.num_elements(); ++i)
        if (p[i] < 0) return true;
    }
    return false;
  });
}

template <typename Op, unsigned Mask>
KernelFn int_div_kernel(std::string op) {
  return [op](KernelContext&, const std::vector<EagerPtr>& in) {
    check_same_dtype_eager(op, in);
    if (is_integer(in[1]->dtype()) && (Mask & bit(in[1]->dtype())) && any_int_zero(*in[1]))
      throw_error(Code::InvalidArgument, "Integer division by zero");
    return std::vector<EagerPtr>{binary_compute<Op, Mask>(op, *in[0], *in[1])};
  };
}

// Float-only kernels whose op definitions also admit integers (TF: NotFoundError for those).
template <typename Op>
KernelFn float_kernel(std::string op, int dnnl_alg) {
  return [op, dnnl_alg](KernelContext&, const std::vector<EagerPtr>& in) {
    check_same_dtype_eager(op, in);
    if (is_integer(in[0]->dtype())) throw_no_kernel(op, in[0]->dtype());
    return std::vector<EagerPtr>{binary_compute<Op, kFloatTypes>(op, *in[0], *in[1], dnnl_alg)};
  };
}

OpDef binary_op(const char* name, const char* default_name, unsigned mask, KernelFn kernel, GradFn grad) {
  return OpDef{name, default_name, 2, binary_infer(name, mask, false), std::move(kernel), std::move(grad)}
      .with_output_args({"z"})
      .with_class(OpClass::Binary);
}

// Both gradients from the broadcast-shaped pieces gx and gy.
Grads unb(G g, const TensorPtr& gx, const TensorPtr& gy) {
  return {unbroadcast(gx, g.inputs[0]), unbroadcast(gy, g.inputs[1])};
}

Grads sub_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  return unb(g, d, grad::neg(d));
}

Grads mul_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  return unb(g, grad::mul(d, g.inputs[1]), grad::mul(g.inputs[0], d));
}

Grads realdiv_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  const TensorPtr &x = g.inputs[0], &y = g.inputs[1];
  return unb(g, grad::div(d, y), grad::mul(d, grad::div(grad::div(grad::neg(x), y), y)));
}

Grads div_no_nan_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  const TensorPtr &x = g.inputs[0], &y = g.inputs[1];
  auto dnn = [](const TensorPtr& a, const TensorPtr& b) { return grad::op2("DivNoNan", a, b); };
  return unb(g, dnn(d, y), grad::mul(d, dnn(dnn(grad::neg(x), y), y)));
}

Grads floormod_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  auto q = grad::op2("FloorDiv", g.inputs[0], g.inputs[1]);
  return unb(g, d, grad::mul(d, grad::neg(q)));
}

Grads pow_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  const TensorPtr &x = g.inputs[0], &y = g.inputs[1], &z = g.outputs[0];
  // dx = d * y * x^(y-1); dy = d * z * log(x) where x > 0, else 0 (TF's rule).
  auto gx = grad::mul(d, grad::mul(y, grad::op2("Pow", x, grad::sub(y, grad::scalar_like(y, 1)))));
  auto pos = grad::mask_like(grad::op2("Greater", x, grad::scalar_like(x, 0)), x);
  auto x_safe = grad::add(grad::mul(pos, x), grad::sub(grad::scalar_like(x, 1), pos));  // x or 1
  auto gy = grad::mul(d, grad::mul(z, grad::op1("Log", x_safe)));
  return unb(g, gx, gy);
}

// Maximum/Minimum: the input selected (x on ties) takes the gradient.
GradFn select_grad(const char* cmp) {
  return [cmp](G g) -> Grads {
    const TensorPtr& d = g.out_grads[0];
    if (!d) return grad::none(2);
    auto m = grad::mask_like(grad::op2(cmp, g.inputs[0], g.inputs[1]), d);
    auto gx = grad::mul(d, m);
    return unb(g, gx, grad::sub(d, gx));
  };
}

Grads sqdiff_grad(G g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return grad::none(2);
  auto gx = grad::mul(grad::scale(d, 2.0), grad::sub(g.inputs[0], g.inputs[1]));
  return unb(g, gx, grad::neg(gx));
}

struct DivNoNan {
  template <typename T>
  static T apply(T a, T b) {
    return b == T(0) ? T(0) : static_cast<T>(a / b);
  }
};

// C's division and remainder (rounding toward zero); integer division by zero is checked by
// truncate_kernel first. INT_MIN / -1 wraps (and must not trap).
struct TruncateDiv {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (ref::is_int_v<T>) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed<T>::value)
        if (b == T(-1)) return ref::wrap_neg(a);
      return static_cast<T>(a / b);
    } else {
      return static_cast<T>(std::trunc(a / b));
    }
  }
};
struct TruncateMod {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (ref::is_int_v<T>) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed<T>::value)
        if (b == T(-1)) return T(0);
      return static_cast<T>(a % b);
    } else {
      return static_cast<T>(std::fmod(a, b));
    }
  }
};

// TF 2.21's CPU kernels of TruncateDiv (every real type; complex is defined without one) and
// TruncateMod (int32/int64/float/double of a definition that also has half and bfloat16).
constexpr unsigned kComplexTypes = bit(DType::Complex64) | bit(DType::Complex128);
constexpr unsigned kTruncateModTypes = kFloatTypes | bit(DType::Int32) | bit(DType::Int64);
constexpr unsigned kTruncateModKernels =
    bit(DType::Float32) | bit(DType::Float64) | bit(DType::Int32) | bit(DType::Int64);

// An op TF defines for `Defined` with CPU kernels for `Kernels` only: eagerly, other dtypes are
// "not in the list of allowed values" (naming the definition's list), defined ones without a
// kernel NotFound. Integer division by zero is TF's InternalError for these two ops (their
// kernels report it through the generic binary-op path).
template <typename Op, unsigned Defined, unsigned Kernels>
KernelFn truncate_kernel(std::string op) {
  return [op](KernelContext&, const std::vector<EagerPtr>& in) {
    check_same_dtype_eager(op, in);
    DType d = in[0]->dtype();
    if (!(Defined & bit(d))) throw_unsupported_dtype(op, d, Defined);
    if (!(Kernels & bit(d))) throw_no_kernel(op, d);
    if (is_integer(d) && any_int_zero(*in[1]))
      throw_error(Code::Internal, "Unexpected error in binary operator (only integer div and mod should have errors)");
    return std::vector<EagerPtr>{binary_compute<Op, Kernels>(op, *in[0], *in[1])};
  };
}

}  // namespace

void register_binary_ops(OpRegistry& r) {
  using namespace dnnl;
  r.add(with_complex(binary_op("Sub", "sub", kNumberTypes,
                               binary_kernel<ref::Sub, kNumberTypes>("Sub", alg(algorithm::binary_sub)), sub_grad),
                     ComplexPath::Sub)
            .with_onnx("Sub")
            .with_fusion(fused::kSub));
  r.add(with_complex(binary_op("Mul", "mul", kNumberTypes,
                               binary_kernel<ref::Mul, kNumberTypes>("Mul", alg(algorithm::binary_mul)), mul_grad),
                     ComplexPath::Mul)
            .with_onnx("Mul")
            .with_fusion(fused::kMul));
  r.add(with_complex(binary_op("RealDiv", "truediv", kNumberTypes,
                               float_kernel<ref::RealDiv>("RealDiv", alg(algorithm::binary_div)), realdiv_grad),
                     ComplexPath::Div)
            .with_onnx("Div")
            .with_fusion(fused::kDiv));
  r.add(binary_op("DivNoNan", "div_no_nan", kFloatTypes, binary_kernel<DivNoNan, kFloatTypes>("DivNoNan"),
                  div_no_nan_grad));
  r.add(binary_op("FloorDiv", "floordiv", kNumberTypes, int_div_kernel<ref::FloorDiv, kNumberTypes>("FloorDiv"), {}));
  r.add(binary_op("FloorMod", "FloorMod", kNumberTypes, int_div_kernel<ref::FloorMod, kNumberTypes>("FloorMod"),
                  floormod_grad));
  // tf.truncatediv / tf.truncatemod (TF: TruncateDiv's gradient is None; TruncateMod has no
  // gradient registered, so differentiating it is TF's LookupError).
  r.add(binary_op("TruncateDiv", "TruncateDiv", kNumberTypes | kComplexTypes,
                  truncate_kernel<TruncateDiv, kNumberTypes | kComplexTypes, kNumberTypes>("TruncateDiv"), {}));
  r.add(binary_op("TruncateMod", "TruncateMod", kTruncateModTypes,
                  truncate_kernel<TruncateMod, kTruncateModTypes, kTruncateModKernels>("TruncateMod"), [](G) -> Grads {
                    throw_error(Code::LookupError, "gradient registry has no entry for: TruncateMod");
                  }));
  r.add(binary_op(
            "Pow", "Pow", kPowTypes,
            [](KernelContext&, const std::vector<EagerPtr>& in) {
              check_same_dtype_eager("Pow", in);
              if (is_integer(in[1]->dtype()) && any_int_negative(*in[1]))
                throw_error(Code::InvalidArgument, "Integers to negative integer powers are not allowed");
              const EagerTensor &x = *in[0], &y = *in[1];
              int small = 0;
              if (x.dtype() == DType::Float32 && y.shape().rank() == 0 &&
                  !ref::small_int_exponent(*y.data<float>(), &small)) {
                // float32 x ** (one non-integer exponent): std::pow's bits, vectorised (as the fused Pow)
                auto out = make_tensor(DType::Float32, x.shape());
                fused::pow(x.data<float>(), y.data<float>(), 0, out->data<float>(), x.num_elements());
                return std::vector<EagerPtr>{out};
              }
              return std::vector<EagerPtr>{binary_compute<ref::Pow, kPowTypes>("Pow", x, y)};
            },
            pow_grad)
            .with_onnx("Pow")
            .with_fusion(fused::kPow));
  r.add(binary_op("Maximum", "Maximum", kNumberTypes, binary_kernel<ref::Maximum, kNumberTypes>("Maximum"),
                  select_grad("GreaterEqual"))
            .with_onnx("Max")
            .with_fusion(fused::kMax));
  r.add(binary_op("Minimum", "Minimum", kNumberTypes, binary_kernel<ref::Minimum, kNumberTypes>("Minimum"),
                  select_grad("LessEqual"))
            .with_onnx("Min")
            .with_fusion(fused::kMin));
  r.add(binary_op(
            "SquaredDifference", "SquaredDifference", kSqDiffTypes,
            [](KernelContext&, const std::vector<EagerPtr>& in) {
              static const std::string kOp = "SquaredDifference";
              check_same_dtype_eager(kOp, in);
              DType d = in[0]->dtype();
              if (d == DType::Float16 || d == DType::BFloat16) {  // TF rounds x - y to half first
                auto diff = binary_compute<ref::Sub, kSqDiffTypes>(kOp, *in[0], *in[1]);
                return std::vector<EagerPtr>{unary_compute<ref::Square, kSqDiffTypes>(kOp, *diff)};
              }
              return std::vector<EagerPtr>{binary_compute<ref::SquaredDifference, kSqDiffTypes>(kOp, *in[0], *in[1])};
            },
            sqdiff_grad)
            .with_fusion(fused::kSquaredDiff));
}

}  // namespace fn
