// Unary math: Neg, Abs, Sign, Square, Sqrt, Rsqrt, Exp, Log, Log1p, Tanh, Sigmoid, Relu,
// Relu6, Elu, Softplus, Sin, Cos, Floor, Ceil, Round, Reciprocal, IsNan, IsInf, IsFinite.
// Large float32 tensors run on oneDNN eltwise where an algorithm computes the same function.
// Gradients are compositions of other ops (so they are differentiable again).
#include "kernels/fused/elementwise.h"
#include "kernels/fused/exp.h"
#include "kernels/fused/log.h"
#include "ops/elementwise_impl.h"
#include "ops/complex.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/nn_util.h"
#include "trace/context.h"

namespace fn {

namespace {

using G = const GradContext&;
using Grads = std::vector<TensorPtr>;
using onednn::eltwise_of;

constexpr unsigned kSignedNumbers = kFloatTypes | kSignedIntTypes;

template <typename Op, unsigned Mask>
OpDef unary(const char* name, GradFn grad, onednn::Eltwise e = onednn::Eltwise{}) {
  using A = float;
  constexpr bool kBoolOut = std::is_same<decltype(Op::template apply<A>(A())), bool>::value;
  return OpDef{name, name, 1, unary_infer(name, Mask, kBoolOut), unary_kernel<Op, Mask>(name, e), std::move(grad)}
      .with_output_args({"y"})
      .with_class(OpClass::Unary);
}

// A gradient rule d(x) -> dx from the incoming gradient d (null-safe).
template <typename F>
GradFn rule(F f) {
  return [f](G g) -> Grads {
    if (!g.out_grads[0]) return {nullptr};
    return {f(g.out_grads[0], g.inputs[0], g.outputs[0])};
  };
}

using T = const TensorPtr&;

}  // namespace

void register_unary_ops(OpRegistry& r) {
  using dnnl::algorithm;
  using namespace grad;
  r.add(with_complex(unary<ref::Neg, kSignedNumbers>("Neg", rule([](T d, T, T) { return neg(d); }),
                                                     eltwise_of(algorithm::eltwise_linear, -1.f, 0.f)),
                     ComplexPath::Neg)
            .with_onnx("Neg")
            .with_fusion(fused::kNeg));
  r.add(with_complex(unary<ref::Abs, kSignedNumbers>("Abs", rule([](T d, T x, T) { return mul(d, op1("Sign", x)); }),
                                                     eltwise_of(algorithm::eltwise_abs)),
                     ComplexPath::Abs)
            .with_onnx("Abs")
            .with_fusion(fused::kAbs));
  r.add(
      unary<ref::Sign, kSignedNumbers>("Sign", rule([](T, T x, T) { return op1("ZerosLike", x); })).with_onnx("Sign"));
  r.add(unary<ref::Square, kNumberTypes>("Square", rule([](T d, T x, T) { return mul(d, scale(x, 2.0)); }),
                                         eltwise_of(algorithm::eltwise_square))
            .with_fusion(fused::kSquare));
  r.add(unary<ref::Sqrt, kFloatTypes>("Sqrt", rule([](T d, T, T y) { return div(scale(d, 0.5), y); }),
                                      eltwise_of(algorithm::eltwise_sqrt))
            .with_onnx("Sqrt")
            .with_fusion(fused::kSqrt));
  r.add(unary<ref::Rsqrt, kFloatTypes>("Rsqrt",
                                       rule([](T d, T, T y) { return scale(mul(d, mul(y, mul(y, y))), -0.5); }),
                                       eltwise_of(algorithm::eltwise_pow, 1.f, -0.5f))
            .with_fusion(fused::kRsqrt));
  // float32 Exp below oneDNN's threshold: std::exp's bits, vectorised (fused::exp; the fused
  // kernel's Exp), instead of a libm call per element.
  r.add(OpDef{"Exp", "Exp", 1, unary_infer("Exp", kFloatTypes, false),
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                static const auto e = eltwise_of(algorithm::eltwise_exp, 0.f, 0.f, true);
                const EagerTensor& x = *in[0];
                if (x.dtype() == DType::Float32 && x.num_elements() < e.min_elements) {
                  auto out = make_tensor(DType::Float32, x.shape());
                  fused::exp(x.data<float>(), out->data<float>(), x.num_elements());
                  return std::vector<EagerPtr>{out};
                }
                return std::vector<EagerPtr>{unary_compute<ref::Exp, kFloatTypes>("Exp", x, &e)};
              },
              rule([](T d, T, T y) { return mul(d, y); })}
            .with_output_args({"y"})
            .with_class(OpClass::Unary)
            .with_onnx("Exp")
            .with_fusion(fused::kExp));
  // No oneDNN for Log: its eltwise_log is ~12 ulp off near x = 1. float32 runs fused::log
  // (std::log's bits, vectorised) instead of a libm call per element.
  r.add(OpDef{"Log", "Log", 1, unary_infer("Log", kFloatTypes, false),
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                const EagerTensor& x = *in[0];
                if (x.dtype() == DType::Float32) {
                  auto out = make_tensor(DType::Float32, x.shape());
                  fused::log(x.data<float>(), out->data<float>(), x.num_elements());
                  return std::vector<EagerPtr>{out};
                }
                return std::vector<EagerPtr>{unary_compute<ref::Log, kFloatTypes>("Log", x)};
              },
              rule([](T d, T x, T) { return div(d, x); })}
            .with_output_args({"y"})
            .with_class(OpClass::Unary)
            .with_onnx("Log"));
  r.add(unary<ref::Log1p, kFloatTypes>("Log1p", rule([](T d, T x, T) { return div(d, add(scalar_like(x, 1), x)); })));
  // float32 Tanh below 64K elements: the vectorised loop of TF's formula (one thread, no libm call).
  r.add(OpDef{kTanhOp, kTanhOp, 1, unary_infer("Tanh", kFloatTypes, false),
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                static const auto e = eltwise_of(algorithm::eltwise_tanh);
                const EagerTensor& x = *in[0];
                if (x.dtype() == DType::Float32 && x.num_elements() < (1 << 16)) {
                  auto out = make_tensor(DType::Float32, x.shape());
                  fused::tanh(x.data<float>(), out->data<float>(), x.num_elements());
                  return std::vector<EagerPtr>{out};
                }
                return std::vector<EagerPtr>{unary_compute<ref::Tanh, kFloatTypes>("Tanh", x, &e)};
              },
              rule([](T d, T, T y) { return mul(d, sub(scalar_like(y, 1), mul(y, y))); })}
            .with_output_args({"y"})
            .with_class(OpClass::Unary, "Tanh")
            .with_fusion(fused::kTanh));
  // float32 Sigmoid below 64K elements: TF's formula, vectorised (as Tanh above; the fused kernel's).
  r.add(OpDef{"Sigmoid", "Sigmoid", 1, unary_infer("Sigmoid", kFloatTypes, false),
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                static const auto e = eltwise_of(algorithm::eltwise_logistic);
                const EagerTensor& x = *in[0];
                if (x.dtype() == DType::Float32 && x.num_elements() < (1 << 16)) {
                  auto out = make_tensor(DType::Float32, x.shape());
                  fused::sigmoid(x.data<float>(), out->data<float>(), x.num_elements());
                  return std::vector<EagerPtr>{out};
                }
                return std::vector<EagerPtr>{unary_compute<ref::Sigmoid, kFloatTypes>("Sigmoid", x, &e)};
              },
              rule([](T d, T, T y) { return mul(d, mul(y, sub(scalar_like(y, 1), y))); })}
            .with_output_args({"y"})
            .with_class(OpClass::Unary, "Sigmoid")
            .with_fusion(fused::kSigmoid));
  r.add(unary<ref::Relu, kNumberTypes>(kReluOp.c_str(), rule([](T d, T, T y) {
                                         return mul(d, mask_like(op2("Greater", y, scalar_like(y, 0)), d));
                                       }),
                                       eltwise_of(algorithm::eltwise_relu, 0.f, 0.f, true))
            .with_output_args({"activations"})
            .with_fusion(fused::kRelu));
  // Reads the output, as TF's _Relu6Grad: the input then has one reader and fuses with its bias.
  r.add(unary<ref::Relu6, kNumberTypes>(kRelu6Op.c_str(), rule([](T d, T, T y) {
                                          auto in = op2("LogicalAnd", op2("Greater", y, scalar_like(y, 0)),
                                                        op2("Less", y, scalar_like(y, 6)));
                                          return mul(d, mask_like(in, d));
                                        }),
                                        eltwise_of(algorithm::eltwise_clip_v2, 0.f, 6.f, true))
            .with_output_args({"activations"}));
  r.add(unary<ref::Elu, kFloatTypes>("Elu", rule([](T d, T, T y) {
                                       // y < 0: d * (y + 1); else d
                                       auto m = mask_like(op2("Less", y, scalar_like(y, 0)), y);
                                       return mul(d, add(scalar_like(y, 1), mul(m, y)));
                                     }),
                                     eltwise_of(algorithm::eltwise_elu, 1.f))
            .with_output_args({"activations"})
            .with_onnx("Elu"));
  r.add(unary<ref::Softplus, kFloatTypes>("Softplus", rule([](T d, T x, T) { return mul(d, op1("Sigmoid", x)); }))
            .with_output_args({"activations"})
            .with_onnx("Softplus"));
  r.add(unary<ref::Sin, kFloatTypes>("Sin", rule([](T d, T x, T) { return mul(d, op1("Cos", x)); })).with_onnx("Sin"));
  r.add(unary<ref::Cos, kFloatTypes>("Cos", rule([](T d, T x, T) { return neg(mul(d, op1("Sin", x))); }))
            .with_onnx("Cos"));
  r.add(unary<ref::Floor, kFloatTypes>("Floor", {}).with_onnx("Floor"));
  r.add(unary<ref::Ceil, kFloatTypes>("Ceil", {}).with_onnx("Ceil"));
  r.add(unary<ref::Round, kSignedNumbers>("Round", {}, eltwise_of(algorithm::eltwise_round)).with_onnx("Round"));
  r.add(OpDef{"Reciprocal", "Reciprocal", 1, unary_infer("Reciprocal", kSignedNumbers, false),
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                DType d = in[0]->dtype();
                if (!(kSignedNumbers & bit(d))) throw_unsupported_dtype("Reciprocal", d, kSignedNumbers);  // unsigned
                if (is_integer(d)) throw_no_kernel("Reciprocal", d);
                static const auto e = eltwise_of(algorithm::eltwise_pow, 1.f, -1.f);
                return std::vector<EagerPtr>{unary_compute<ref::Reciprocal, kFloatTypes>("Reciprocal", *in[0], &e)};
              },
              rule([](T d, T, T y) { return mul(neg(d), mul(y, y)); })}
            .with_output_args({"y"})
            .with_class(OpClass::Unary, "Reciprocal")
            .with_fusion(fused::kReciprocal));
  r.add(unary<ref::IsNan, kFloatTypes>("IsNan", {}));
  r.add(unary<ref::IsInf, kFloatTypes>("IsInf", {}));
  r.add(unary<ref::IsFinite, kFloatTypes>("IsFinite", {}));
}

}  // namespace fn
