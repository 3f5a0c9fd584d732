// complex64 / complex128: Complex, Real, Imag, Conj, ComplexAbs, and complex kernels added to
// AddV2, Sub, Mul, RealDiv and Abs (|z| as a real tensor, what tf.abs gives). Elements are
// std::complex<float|double>; other ops reject complex dtypes (they are not "pod").
#include <algorithm>
#include <complex>

#include "kernels/reference/broadcast.h"
#include "ops/complex.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

DType real_of(DType d) { return d == DType::Complex64 ? DType::Float32 : DType::Float64; }
DType complex_of(DType d) { return d == DType::Float32 ? DType::Complex64 : DType::Complex128; }

template <typename F>
auto visit_complex(DType d, F&& f) {
  if (d == DType::Complex64) return f(std::complex<float>{});
  return f(std::complex<double>{});
}

void require_complex(const std::string& op, DType d) {
  if (!is_complex(d)) throw_unsupported_dtype(op, d);
}

// ---- complex arithmetic added to existing binary ops ----

enum class Bin { Add, Sub, Mul, Div };

EagerPtr complex_binary(Bin k, const EagerTensor& a, const EagerTensor& b) {
  Shape s = broadcast_shapes(a.shape(), b.shape());
  auto out = make_tensor(a.dtype(), s);
  visit_complex(a.dtype(), [&](auto tag) {
    using C = decltype(tag);
    ref::binary(static_cast<const C*>(a.raw()), a.shape(), static_cast<const C*>(b.raw()), b.shape(),
                static_cast<C*>(out->raw()), s, [k](C x, C y) {
                  return k == Bin::Add ? x + y : k == Bin::Sub ? x - y : k == Bin::Mul ? x * y : x / y;
                });
    return 0;
  });
  return out;
}

void add_complex_binary(OpDef* d, Bin k) {
  const std::string name = d->name;
  KernelFn base = d->kernel;
  InferFn base_infer = d->infer;
  d->kernel = [base, name, k](KernelContext& kc, const std::vector<EagerPtr>& in) {
    if (in.size() == 2 && is_complex(in[0]->dtype())) {
      check_same_dtype_eager(name, in);
      return std::vector<EagerPtr>{complex_binary(k, *in[0], *in[1])};
    }
    return base(kc, in);
  };
  d->infer = [base_infer, name](const InferContext& c) {
    if (c.inputs.size() == 2 && is_complex(c.inputs[0].dtype)) {
      check_same_dtype_graph(name, c.inputs);
      return one(c.inputs[0].dtype, broadcast_shapes(c.inputs[0].shape, c.inputs[1].shape));
    }
    return base_infer(c);
  };
}

// ---- unary: Real, Imag, ComplexAbs, Conj ----

template <typename F>
EagerPtr complex_map(const EagerTensor& x, DType out_t, F f) {
  auto out = make_tensor(out_t, x.shape());
  visit_complex(x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    using R = typename C::value_type;
    const C* src = static_cast<const C*>(x.raw());
    for (int64_t i = 0; i < x.num_elements(); ++i) f(src[i], out->raw(), i, R{});
    return 0;
  });
  return out;
}

enum class Part { Real, Imag, Abs };

KernelFn part_kernel(std::string op, Part p) {
  return [op, p](KernelContext&, const std::vector<EagerPtr>& in) {
    require_complex(op, in[0]->dtype());
    return std::vector<EagerPtr>{complex_map(*in[0], real_of(in[0]->dtype()), [p](auto z, void* o, int64_t i, auto r) {
      using R = decltype(r);
      static_cast<R*>(o)[i] = p == Part::Real ? z.real() : p == Part::Imag ? z.imag() : std::abs(z);
    })};
  };
}

InferFn part_infer(std::string op) {
  return [op](const InferContext& c) {
    if (!is_complex(c.inputs[0].dtype))
      throw_error(Code::TypeError, "Value passed to parameter 'input' has DataType ", dtype_name(c.inputs[0].dtype),
                  " not in list of allowed values: complex64, complex128");
    return one(real_of(c.inputs[0].dtype), c.inputs[0].shape);
  };
}

std::vector<EagerPtr> conj_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  require_complex("Conj", in[0]->dtype());
  return {complex_map(*in[0], in[0]->dtype(),
                      [](auto z, void* o, int64_t i, auto) { static_cast<decltype(z)*>(o)[i] = std::conj(z); })};
}

// ---- Complex(real, imag) ----

std::vector<TensorSpec> complex_infer(const InferContext& c) {
  check_same_dtype_graph("Complex", c.inputs);
  DType d = c.inputs[0].dtype;
  if (d != DType::Float32 && d != DType::Float64)
    throw_error(Code::TypeError, "Value passed to parameter 'real' has DataType ", dtype_name(d),
                " not in list of allowed values: float32, float64");
  return one(complex_of(d), broadcast_shapes(c.inputs[0].shape, c.inputs[1].shape));
}

std::vector<EagerPtr> complex_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_same_dtype_eager("Complex", in);
  DType d = in[0]->dtype();
  if (d != DType::Float32 && d != DType::Float64) throw_unsupported_dtype("Complex", d);
  Shape s = broadcast_shapes(in[0]->shape(), in[1]->shape());
  auto out = make_tensor(complex_of(d), s);
  visit_complex(out->dtype(), [&](auto tag) {
    using C = decltype(tag);
    using R = typename C::value_type;
    ref::binary(in[0]->data<R>(), in[0]->shape(), in[1]->data<R>(), in[1]->shape(), static_cast<C*>(out->raw()), s,
                [](R re, R im) { return C(re, im); });
    return 0;
  });
  return {out};
}

using Grads = std::vector<TensorPtr>;

TensorPtr zeros_of(const TensorPtr& t) { return dispatch1("ZerosLike", {t}); }

// ZerosLike / OnesLike of a complex tensor (gradient seeds need them).
void add_complex_fill_like(OpDef* d, double value) {
  KernelFn base = d->kernel;
  InferFn base_infer = d->infer;
  d->kernel = [base, value](KernelContext& kc, const std::vector<EagerPtr>& in) {
    if (!is_complex(in[0]->dtype())) return base(kc, in);
    auto out = make_tensor(in[0]->dtype(), in[0]->shape());
    visit_complex(out->dtype(), [&](auto tag) {
      using C = decltype(tag);
      C* p = static_cast<C*>(out->raw());
      std::fill(p, p + out->num_elements(), C(static_cast<typename C::value_type>(value), 0));
      return 0;
    });
    return std::vector<EagerPtr>{out};
  };
  d->infer = [base_infer](const InferContext& c) {
    return is_complex(c.inputs[0].dtype) ? std::vector<TensorSpec>{c.inputs[0]} : base_infer(c);
  };
}

// Mul and RealDiv differentiate with conjugates on complex inputs (TF's rules); the real rules
// stay as they were.
void add_complex_grad(OpDef* d, bool div) {
  GradFn base = d->grad;
  d->grad = [base, div](const GradContext& g) -> std::vector<TensorPtr> {
    if (!is_complex(g.inputs[0]->dtype())) return base(g);
    const TensorPtr& dz = g.out_grads[0];
    if (!dz) return {nullptr, nullptr};
    TensorPtr cx = grad::op1("Conj", g.inputs[0]), cy = grad::op1("Conj", g.inputs[1]);
    if (!div) return {unbroadcast(grad::mul(dz, cy), g.inputs[0]), unbroadcast(grad::mul(cx, dz), g.inputs[1])};
    TensorPtr gx = grad::div(dz, cy);
    TensorPtr t = grad::mul(dz, grad::div(grad::div(cx, cy), cy));
    return {unbroadcast(gx, g.inputs[0]), unbroadcast(grad::sub(grad::sub(t, t), t), g.inputs[1])};
  };
}

// Cast to or from complex: real -> (x, 0); complex -> its real part (TF drops the imaginary
// part); complex64 <-> complex128 by parts.
EagerPtr complex_cast(const EagerPtr& x, DType to) {
  if (is_complex(x->dtype()) && is_complex(to)) {
    auto out = make_tensor(to, x->shape());
    visit_complex(x->dtype(), [&](auto a) {
      using A = decltype(a);
      visit_complex(to, [&](auto b) {
        using B = decltype(b);
        const A* src = static_cast<const A*>(x->raw());
        B* dst = static_cast<B*>(out->raw());
        for (int64_t i = 0; i < x->num_elements(); ++i) dst[i] = B(src[i].real(), src[i].imag());
        return 0;
      });
      return 0;
    });
    return out;
  }
  if (is_complex(x->dtype())) {
    DType rt = real_of(x->dtype());
    auto re =
        complex_map(*x, rt, [](auto z, void* o, int64_t i, auto r) { static_cast<decltype(r)*>(o)[i] = z.real(); });
    return to == rt ? re : cast_tensor(re, to);
  }
  if (!is_pod(x->dtype()) || x->dtype() == DType::Bool)
    throw_error(Code::Unimplemented, "Cast ", dtype_name(x->dtype()), " to ", dtype_name(to), " is not supported");
  auto wide = cast_tensor(x, DType::Float64);
  auto out = make_tensor(to, x->shape());
  visit_complex(to, [&](auto tag) {
    using C = decltype(tag);
    using R = typename C::value_type;
    C* dst = static_cast<C*>(out->raw());
    for (int64_t i = 0; i < x->num_elements(); ++i) dst[i] = C(static_cast<R>(wide->data<double>()[i]), R(0));
    return 0;
  });
  return out;
}

}  // namespace

OpDef with_complex(OpDef def, ComplexPath path) {
  def.complex = path;
  switch (path) {
    case ComplexPath::Add:
    case ComplexPath::Sub:
    case ComplexPath::Mul:
    case ComplexPath::Div: {
      if (path == ComplexPath::Mul || path == ComplexPath::Div) add_complex_grad(&def, path == ComplexPath::Div);
      add_complex_binary(&def, path == ComplexPath::Add   ? Bin::Add
                               : path == ComplexPath::Sub ? Bin::Sub
                               : path == ComplexPath::Mul ? Bin::Mul
                                                          : Bin::Div);
      return def;
    }
    case ComplexPath::Zeros:
    case ComplexPath::Ones: add_complex_fill_like(&def, path == ComplexPath::Ones ? 1.0 : 0.0); return def;
    case ComplexPath::Cast: {
      KernelFn base = def.kernel;
      def.kernel = [base](KernelContext& k, const std::vector<EagerPtr>& in) {
        DType to = k.attrs.get<DType>("DstT");
        if (!is_complex(to) && !is_complex(in[0]->dtype())) return base(k, in);
        if (in[0]->dtype() == to) return std::vector<EagerPtr>{in[0]};
        return std::vector<EagerPtr>{complex_cast(in[0], to)};
      };
      return def;
    }
    case ComplexPath::Neg: {  // -z (gradients of complex ops negate)
      KernelFn base = def.kernel;
      InferFn base_infer = def.infer;
      def.kernel = [base](KernelContext& k, const std::vector<EagerPtr>& in) {
        if (!is_complex(in[0]->dtype())) return base(k, in);
        return std::vector<EagerPtr>{complex_map(
            *in[0], in[0]->dtype(), [](auto z, void* o, int64_t i, auto) { static_cast<decltype(z)*>(o)[i] = -z; })};
      };
      def.infer = [base_infer](const InferContext& c) {
        return is_complex(c.inputs[0].dtype) ? std::vector<TensorSpec>{c.inputs[0]} : base_infer(c);
      };
      return def;
    }
    case ComplexPath::Abs: {
      // tf.abs of a complex tensor is its magnitude (TF calls ComplexAbs).
      KernelFn base = def.kernel;
      InferFn base_infer = def.infer;
      KernelFn mag = part_kernel("ComplexAbs", Part::Abs);
      def.kernel = [base, mag](KernelContext& k, const std::vector<EagerPtr>& in) {
        return is_complex(in[0]->dtype()) ? mag(k, in) : base(k, in);
      };
      def.infer = [base_infer](const InferContext& c) {
        return is_complex(c.inputs[0].dtype) ? one(real_of(c.inputs[0].dtype), c.inputs[0].shape) : base_infer(c);
      };
      return def;
    }
    case ComplexPath::None: break;
  }
  throw_error(Code::Internal, "with_complex: no complex path named for op ", def.name);
}

void register_complex_ops(OpRegistry& r) {
  r.add(OpDef{
      "Complex", "Complex", 2, complex_infer, complex_kernel, [](const GradContext& g) -> Grads {
        if (!g.out_grads[0]) return {nullptr, nullptr};
        return {unbroadcast(grad::op1("Real", g.out_grads[0]), g.inputs[0]),
                unbroadcast(grad::op1("Imag", g.out_grads[0]), g.inputs[1])};
      }}.with_output_args({"out"}));
  r.add(
      OpDef{"Real", "Real", 1, part_infer("Real"), part_kernel("Real", Part::Real), [](const GradContext& g) -> Grads {
              if (!g.out_grads[0]) return {nullptr};
              return {grad::op2("Complex", g.out_grads[0], zeros_of(g.out_grads[0]))};
            }});
  r.add(
      OpDef{"Imag", "Imag", 1, part_infer("Imag"), part_kernel("Imag", Part::Imag), [](const GradContext& g) -> Grads {
              if (!g.out_grads[0]) return {nullptr};
              return {grad::op2("Complex", zeros_of(g.out_grads[0]), g.out_grads[0])};
            }});
  r.add(OpDef{"ComplexAbs", "ComplexAbs", 1, part_infer("ComplexAbs"), part_kernel("ComplexAbs", Part::Abs), {}}
            .with_output_args({"y"}));
  r.add(OpDef{"Conj", "Conj", 1,
              [](const InferContext& c) {
                if (!is_complex(c.inputs[0].dtype))
                  throw_error(Code::TypeError, "Value passed to parameter 'input' has DataType ",
                              dtype_name(c.inputs[0].dtype), " not in list of allowed values: complex64, complex128");
                return std::vector<TensorSpec>{c.inputs[0]};
              },
              conj_kernel,
              [](const GradContext& g) -> Grads {
                if (!g.out_grads[0]) return {nullptr};
                return {grad::op1("Conj", g.out_grads[0])};
              }});
}

}  // namespace fn
