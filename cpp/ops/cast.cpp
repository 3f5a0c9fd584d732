// Cast (TensorFlow's conversion semantics), ZerosLike, OnesLike and AddN.
#include <cstring>

#include "kernels/fused/elementwise.h"
#include "ops/elementwise_impl.h"
#include "ops/complex.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/tensor_list.h"
#include "trace/context.h"

namespace fn {

namespace {

using G = const GradContext&;
using Grads = std::vector<TensorPtr>;

// Float -> integer as TensorFlow's CPU kernels do it (x86 truncating conversions): in range it
// truncates toward zero; out of range or NaN gives the most negative value. Narrower integer
// types go through int32 and keep the low bits.
template <typename D>
D float_to_int(double x) {
  if constexpr (std::is_same<D, int64_t>::value) {
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
    return static_cast<int64_t>(x);
  } else if constexpr (std::is_same<D, uint64_t>::value) {  // the upper half converts directly
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0) return static_cast<uint64_t>(x);
    return static_cast<uint64_t>(float_to_int<int64_t>(x));
  } else if constexpr (std::is_same<D, uint32_t>::value) {  // through int64: keeps the low 32 bits
    return static_cast<uint32_t>(float_to_int<int64_t>(x));
  } else {
    int32_t v = (x >= -2147483648.0 && x < 2147483648.0) ? static_cast<int32_t>(x) : INT32_MIN;
    return static_cast<D>(v);
  }
}

template <typename D, typename S>
D convert(S v) {
  if constexpr (std::is_same<D, S>::value) {
    return v;
  } else if constexpr (std::is_same<D, bool>::value) {
    if constexpr (std::is_same<S, half_t>::value || std::is_same<S, bfloat16_t>::value)
      return to_double(v) != 0.0;
    else
      return v != S(0);
  } else if constexpr (std::is_same<S, bool>::value) {
    return from_double<D>(v ? 1.0 : 0.0);
  } else if constexpr (ref::is_int_v<D>) {
    if constexpr (ref::is_int_v<S>)
      return static_cast<D>(v);  // modular
    else
      return float_to_int<D>(to_double(v));
  } else if constexpr (std::is_same<D, half_t>::value || std::is_same<D, bfloat16_t>::value) {
    return from_double<D>(static_cast<double>(static_cast<float>(to_double(v))));
  } else {  // float / double
    if constexpr (ref::is_int_v<S>)
      return static_cast<D>(v);
    else
      return static_cast<D>(to_double(v));
  }
}

EagerPtr cast_kernel(const EagerPtr& x, DType to) {
  DType from = x->dtype();
  if (from == to) return x;
  if (!is_pod(from) || !is_pod(to))
    throw_error(Code::Unimplemented, "Cast ", dtype_name(from), " to ", dtype_name(to), " is not supported");
  auto out = make_tensor(to, x->shape());
  int64_t n = x->num_elements();
  visit_pod(from, [&](auto stag) {
    using S = decltype(stag);
    const S* src = x->data<S>();
    return visit_pod(to, [&](auto dtag) {
      using D = decltype(dtag);
      D* dst = out->data<D>();
      for (int64_t i = 0; i < n; ++i) dst[i] = convert<D, S>(src[i]);
      return 0;
    });
  });
  return out;
}

Grads cast_grad(G g) {
  DType src = g.inputs[0]->dtype(), dst = g.outputs[0]->dtype();
  if (!g.out_grads[0] || !is_floating(src) || !is_floating(dst)) return {nullptr};
  return {grad::cast(g.out_grads[0], src)};
}

EagerPtr filled_like(const EagerTensor& x, double value) {
  auto out = make_tensor(x.dtype(), x.shape());
  int64_t n = out->num_elements();
  if (x.dtype() == DType::String) return out;  // "" strings
  if (value == 0.0) {
    std::memset(out->raw(), 0, static_cast<size_t>(n) * dtype_size(x.dtype()));
    return out;
  }
  visit_pod(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = from_double<T>(value);
    T* p = out->data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = v;
    return 0;
  });
  return out;
}

constexpr unsigned kAddNTypes = kNumberTypes | bit(DType::Complex64) | bit(DType::Complex128);
constexpr unsigned kOnesLikeTypes = kNumberTypes | kBoolType;
// Variant: a TensorList's zero is a list of the same length with no element written (TF's
// zeros of a TensorList gradient).
constexpr unsigned kZerosLikeTypes = kNumberTypes | kBoolType | kStringType | bit(DType::Variant);

std::vector<TensorSpec> addn_infer(const InferContext& c) {
  if (c.inputs.empty()) throw_error(Code::ValueError, "AddN needs at least one input");
  check_same_dtype_graph("AddN", c.inputs);
  if (c.inputs[0].dtype == DType::Variant) return one(DType::Variant, Shape{});  // TensorLists
  check_dtype_graph("AddN", c.inputs[0].dtype, kAddNTypes, "inputs");
  Shape s = c.inputs[0].shape;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    const Shape& o = c.inputs[i].shape;
    if (!s.has_rank()) {
      s = o;
      continue;
    }
    if (!o.has_rank()) continue;
    if (s.rank() != o.rank())
      throw_error(Code::ValueError, "Shapes must be equal rank, but are ", s.rank(), " and ", o.rank(),
                  " for '{{node AddN}}' with input shapes: ", c.inputs[0].shape.debug_string(), ", ", o.debug_string(),
                  ".");
    std::vector<int64_t> d = s.dims();
    for (int k = 0; k < s.rank(); ++k) {
      if (d[k] >= 0 && o[k] >= 0 && d[k] != o[k])
        throw_error(Code::ValueError, "Dimension ", k, " in both shapes must be equal, but are ", d[k], " and ", o[k],
                    ". Shapes are ", s.debug_string(), " and ", o.debug_string(), ".");
      if (d[k] < 0) d[k] = o[k];
    }
    s = Shape(d);
  }
  return one(c.inputs[0].dtype, s);
}

std::vector<EagerPtr> addn_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  static const std::string kOp = "AddN";
  check_same_dtype_eager(kOp, in);
  if (in[0]->dtype() == DType::Variant) {
    // TensorLists (gradients of a TensorArray) add element by element; unwritten ones are zeros.
    auto l = std::make_shared<TensorList>(list_of(*in[0]));
    for (size_t i = 1; i < in.size(); ++i) {
      const TensorList& o = list_of(*in[i]);
      if (o.items.size() > l->items.size()) l->items.resize(o.items.size());
      for (size_t k = 0; k < o.items.size(); ++k) {
        if (!o.items[k]) continue;
        l->items[k] = l->items[k] ? addn_kernel(ctx, {l->items[k], o.items[k]})[0] : o.items[k];
      }
    }
    return {make_list_tensor(std::move(l))};
  }
  if (!(kAddNTypes & bit(in[0]->dtype()))) throw_unsupported_dtype(kOp, in[0]->dtype(), kAddNTypes);
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i]->shape() != in[0]->shape())
      throw_error(Code::InvalidArgument,
                  "Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: ",
                  in[0]->shape().debug_string(), " != input ", i, ": ", in[i]->shape().debug_string());
  if (in.size() == 1) return {in[0]};
  auto out = make_tensor(in[0]->dtype(), in[0]->shape());
  int64_t n = out->num_elements();
  if (is_complex(in[0]->dtype())) {  // (re, im) pairs: the sum of the underlying reals
    auto sum = [&](auto tag) {
      using R = decltype(tag);
      R* o = static_cast<R*>(out->raw());
      for (int64_t k = 0; k < 2 * n; ++k) {
        R acc = 0;
        for (const auto& t : in) acc += static_cast<const R*>(t->raw())[k];
        o[k] = acc;
      }
    };
    if (in[0]->dtype() == DType::Complex64)
      sum(float{});
    else
      sum(double{});
    return {out};
  }
  visit_pod(in[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr ((kAddNTypes & bit(dtype_of<T>())) != 0) {
      using A = typename Arith<T>::type;
      T* o = out->data<T>();
      const T* a = in[0]->data<T>();
      const T* b = in[1]->data<T>();
      for (int64_t k = 0; k < n; ++k) o[k] = narrow<T>(ref::wrap_add(widen(a[k]), widen(b[k])));
      for (size_t i = 2; i < in.size(); ++i) {
        const T* c = in[i]->data<T>();
        for (int64_t k = 0; k < n; ++k) o[k] = narrow<T>(ref::wrap_add<A>(widen(o[k]), widen(c[k])));
      }
    }
    return 0;
  });
  return {out};
}

}  // namespace

void register_cast_ops(OpRegistry& r) {
  r.add(with_complex(OpDef{"Cast", "Cast", 1,
                           [](const InferContext& c) { return one(c.attrs.get<DType>("DstT"), c.inputs[0].shape); },
                           [](KernelContext& k, const std::vector<EagerPtr>& in) {
                             return std::vector<EagerPtr>{cast_kernel(in[0], k.attrs.get<DType>("DstT"))};
                           },
                           cast_grad},
                     ComplexPath::Cast)
            .with_output_args({"y"})
            .with_class(OpClass::Unary)
            .with_fusion(fused::kCastBool));  // fused only as bool -> float32 under a comparison
  r.add(with_complex(OpDef{"ZerosLike",
                           "zeros_like",
                           1,
                           unary_infer("ZerosLike", kZerosLikeTypes, false),
                           [](KernelContext&, const std::vector<EagerPtr>& in) {
                             if (!(kZerosLikeTypes & bit(in[0]->dtype())))
                               throw_unsupported_dtype("ZerosLike", in[0]->dtype(), kZerosLikeTypes);
                             if (in[0]->dtype() == DType::Variant) {
                               const TensorList& src = list_of(*in[0]);
                               auto l = std::make_shared<TensorList>();
                               l->dtype = src.dtype;
                               l->element_shape = src.element_shape;
                               l->items.resize(src.items.size());
                               return std::vector<EagerPtr>{make_list_tensor(std::move(l))};
                             }
                             return std::vector<EagerPtr>{filled_like(*in[0], 0.0)};
                           },
                           {}},
                     ComplexPath::Zeros)
            .with_output_args({"y"}));
  r.add(with_complex(OpDef{"OnesLike",
                           "ones_like",
                           1,
                           unary_infer("OnesLike", kOnesLikeTypes, false),
                           [](KernelContext&, const std::vector<EagerPtr>& in) {
                             if (!(kOnesLikeTypes & bit(in[0]->dtype())))
                               throw_unsupported_dtype("OnesLike", in[0]->dtype(), kOnesLikeTypes);
                             return std::vector<EagerPtr>{filled_like(*in[0], 1.0)};
                           },
                           {}},
                     ComplexPath::Ones)
            .with_output_args({"y"}));
  r.add(OpDef{"AddN", "AddN", -1, addn_infer, addn_kernel, [](G g) { return Grads(g.inputs.size(), g.out_grads[0]); }}
            .with_min_inputs(1)
            .with_output_args({"sum"})
            .with_fusion(fused::kAdd));  // n inputs: the fuser's chain ((a + b) + c) + ..., this kernel's order
}

}  // namespace fn
