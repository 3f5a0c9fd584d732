// Reductions: Sum, Mean, Max, Min, Prod (numbers), Any, All (bool) over an int32/int64 axes
// tensor with attr keep_dims; ArgMax/ArgMin (attr output_type). Float32 Sum/Mean/Max/Min over one
// contiguous run of axes run the direct single-threaded loops (kernels/direct/reduce.h); other
// large float32 reductions run on oneDNN; the reference loop (kernels/reference/reduce.h) handles the rest.
#include <algorithm>
#include <complex>
#include <limits>
#include <memory>

#include "kernels/direct/reduce.h"
#include "kernels/fused/elementwise.h"
#include "kernels/onednn/reduction.h"
#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"
#include "kernels/reference/reduce.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

using G = const GradContext&;
using Grads = std::vector<TensorPtr>;

constexpr unsigned kAxisTypes = bit(DType::Int32) | bit(DType::Int64);
constexpr unsigned kBoolOnly = kBoolType;

enum class Kind { Sum, Mean, Max, Min, Prod, Any, All };

constexpr bool takes_complex(Kind k) { return k == Kind::Sum || k == Kind::Prod || k == Kind::Mean; }

unsigned mask_of(Kind k) { return (k == Kind::Any || k == Kind::All) ? kBoolOnly : kNumberTypes; }

// Validated reduction axes: reduced[i] for each input dim (eager: throws InvalidArgument,
// graph: ValueError, with TensorFlow's messages). TF's shape function accepts a repeated axis
// (it collects them in a set); only its kernel rejects it, so a graph fails when it runs.
std::vector<bool> reduced_axes(const std::string& op, int rank, const std::vector<int64_t>& axes, bool eager) {
  std::vector<bool> reduced(static_cast<size_t>(std::max(rank, 0)), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      if (eager)
        throw_error(Code::InvalidArgument, "Invalid reduction dimension (", a, " for input with ", rank,
                    " dimension(s)");
      throw_error(Code::ValueError, "Invalid reduction dimension ", a, " for input with ", rank,
                  " dimensions. for '{{node ", op, "}}'");
    }
    int64_t k = a < 0 ? a + rank : a;
    if (reduced[k] && eager)
      throw_error(Code::InvalidArgument, "Invalid reduction arguments: Axes contains duplicate dimension: ", k);
    reduced[k] = true;
  }
  return reduced;
}

Shape reduced_shape(const Shape& in, const std::vector<bool>& reduced, bool keep) {
  std::vector<int64_t> d;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced[i])
      d.push_back(in[i]);
    else if (keep)
      d.push_back(1);
  }
  return Shape(d);
}

void check_axes_dtype_eager(DType d) {
  if (!(kAxisTypes & bit(d)))
    throw_error(Code::InvalidArgument, "Value for attr 'Tidx' of ", tf_type_string(d),
                " is not in the list of allowed values: int32, int64");
}

InferFn reduce_infer(std::string op, Kind kind) {
  return [op, kind](const InferContext& c) {
    const Shape& in = c.inputs[0].shape;
    DType d = c.inputs[0].dtype;
    bool keep = c.attrs.get_or("keep_dims", false);
    if (!(takes_complex(kind) && is_complex(d))) check_dtype_graph(op, d, mask_of(kind), "input");
    check_dtype_graph(op, c.inputs[1].dtype, kAxisTypes, "reduction_indices");
    if (c.value(1) && in.has_rank()) {
      auto reduced = reduced_axes(op, in.rank(), read_int_list(*c.value(1)), false);
      return one(d, reduced_shape(in, reduced, keep));
    }
    if (keep && in.has_rank()) return one(d, Shape(std::vector<int64_t>(in.rank(), Shape::kUnknown)));
    return one(d, Shape::unknown_rank());
  };
}

// Accumulator type per kind and element type: wide for sums and products (double for
// floats, int64 for integers, both wrap back like TF), the arithmetic type for max/min.
template <Kind K, typename A>
using AccOf = std::conditional_t<(K == Kind::Max || K == Kind::Min || std::is_same<A, bool>::value), A,
                                 std::conditional_t<std::is_floating_point<A>::value, double,
                                                    std::conditional_t<std::is_unsigned<A>::value, uint64_t, int64_t>>>;

template <Kind K, typename Acc>
Acc identity() {
  if constexpr (K == Kind::Sum || K == Kind::Mean)
    return Acc(0);
  else if constexpr (K == Kind::Prod)
    return Acc(1);
  else if constexpr (K == Kind::Any)
    return false;
  else if constexpr (K == Kind::All)
    return true;
  else if constexpr (K == Kind::Max)
    return std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::lowest();
  else
    return std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::max();
}

template <Kind K, typename Acc, typename A>
Acc fold(Acc acc, A v) {
  if constexpr (K == Kind::Sum || K == Kind::Mean)
    return ref::wrap_add<Acc>(acc, static_cast<Acc>(v));
  else if constexpr (K == Kind::Prod)
    return ref::wrap_mul<Acc>(acc, static_cast<Acc>(v));
  else if constexpr (K == Kind::Any)
    return acc || v;
  else if constexpr (K == Kind::All)
    return acc && v;
  else if constexpr (K == Kind::Max)
    return ref::Maximum::apply<Acc>(acc, static_cast<Acc>(v));
  else
    return ref::Minimum::apply<Acc>(acc, static_cast<Acc>(v));
}

bool any_nan(const EagerTensor& x) {
  const float* p = x.data<float>();
  bool nan = false;
  for (int64_t i = 0, n = x.num_elements(); i < n; ++i) nan |= p[i] != p[i];
  return nan;
}

// A big float32 sum/mean/max/min over one run of axes runs its outer slices (a layer norm's rows)
// as blocks on the task pool: each slice's result is computed alone, in the same order on any
// block, so the bits do not depend on the split. Blocks of ~32K floats; a streaming pass, so split
// from eight blocks (fused::run_blocks' threshold for streaming programs).
constexpr int64_t kSliceBlockElements = int64_t{1} << 15;
constexpr int64_t kMinSliceBlocks = 8;

template <Kind K>
EagerPtr reduce_compute(const std::string& op, const EagerTensor& x, const std::vector<bool>& reduced,
                        const Shape& out_shape) {
  constexpr unsigned kMask = (K == Kind::Any || K == Kind::All) ? kBoolOnly : kNumberTypes;
  if (!(kMask & bit(x.dtype()))) throw_unsupported_dtype(op, x.dtype(), kMask);
  auto out = make_tensor(x.dtype(), out_shape);
  if constexpr (K == Kind::Sum || K == Kind::Mean) {  // float32 over one run of axes: the direct loop
    int64_t outer, mid, inner;
    if (x.dtype() == DType::Float32 && x.num_elements() > 0 &&
        direct::contiguous_reduction(x.shape().dims(), reduced, &outer, &mid, &inner)) {
      const float* xv = x.data<float>();
      float* ov = out->data<float>();
      run_row_blocks(onednn::max_threads(), outer, mid * inner, kSliceBlockElements, kMinSliceBlocks,
                     [&](int64_t o0, int64_t o1) {
                       direct::sum_f32(xv + o0 * mid * inner, ov + o0 * inner, o1 - o0, mid, inner, K == Kind::Mean);
                     });
      return out;
    }
  }
  if constexpr (K == Kind::Max || K == Kind::Min) {  // float32 over one run of axes: the direct loop
    int64_t outer, mid, inner;
    if (x.dtype() == DType::Float32 && x.num_elements() > 0 &&
        direct::contiguous_reduction(x.shape().dims(), reduced, &outer, &mid, &inner)) {
      const float* xv = x.data<float>();
      float* ov = out->data<float>();
      run_row_blocks(onednn::max_threads(), outer, mid * inner, kSliceBlockElements, kMinSliceBlocks,
                     [&](int64_t o0, int64_t o1) {
                       direct::extreme_f32(xv + o0 * mid * inner, ov + o0 * inner, o1 - o0, mid, inner, K == Kind::Max);
                     });
      return out;
    }
  }
  // oneDNN's max/min drop NaNs (TF propagates them): with a NaN in the input use the loop.
  if (onednn::reduction_applicable(x, reduced) && out->num_elements() > 0 &&
      !((K == Kind::Max || K == Kind::Min) && any_nan(x))) {
    using dnnl::algorithm;
    constexpr algorithm alg = K == Kind::Sum    ? algorithm::reduction_sum
                              : K == Kind::Mean ? algorithm::reduction_mean
                              : K == Kind::Max  ? algorithm::reduction_max
                              : K == Kind::Min  ? algorithm::reduction_min
                                                : algorithm::reduction_mul;
    if constexpr (K != Kind::Any && K != Kind::All) {
      onednn::reduction(alg, x, reduced, *out);
      return out;
    }
  }
  int64_t n_out = out->num_elements(), n_in = x.num_elements();
  visit_pod(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr ((kMask & bit(dtype_of<T>())) != 0) {
      using A = typename Arith<T>::type;
      using Acc = AccOf<K, A>;
      auto acc = std::make_unique<Acc[]>(static_cast<size_t>(std::max<int64_t>(n_out, 1)));  // not vector<bool>
      std::fill(acc.get(), acc.get() + n_out, identity<K, Acc>());
      ref::reduce(x.data<T>(), x.shape().dims(), reduced, acc.get(),
                  [](Acc a, T v) { return fold<K, Acc, A>(a, widen(v)); });
      T* o = out->data<T>();
      if constexpr (K == Kind::Mean) {
        int64_t count = n_out ? n_in / n_out : 0;
        for (int64_t i = 0; i < n_out; ++i) {
          if constexpr (std::is_floating_point<Acc>::value)
            o[i] = narrow<T>(static_cast<A>(acc[i] / static_cast<Acc>(count)));
          else
            o[i] = static_cast<T>(count ? acc[i] / count : 0);
        }
      } else {
        for (int64_t i = 0; i < n_out; ++i) o[i] = narrow<T>(static_cast<A>(acc[i]));
      }
    }
    return 0;
  });
  return out;
}

// Sum / Prod / Mean of complex64 / complex128 (TF's kernels accumulate in the complex type).
template <Kind K>
EagerPtr complex_reduce(const EagerTensor& x, const std::vector<bool>& reduced, const Shape& out_shape) {
  auto out = make_tensor(x.dtype(), out_shape);
  int64_t n_out = out->num_elements(), n_in = x.num_elements();
  auto run = [&](auto tag) {
    using C = decltype(tag);
    std::vector<C> acc(static_cast<size_t>(std::max<int64_t>(n_out, 1)), C(K == Kind::Prod ? 1 : 0, 0));
    ref::reduce(static_cast<const C*>(x.raw()), x.shape().dims(), reduced, acc.data(),
                [](C a, C v) { return K == Kind::Prod ? a * v : a + v; });
    C* o = static_cast<C*>(out->raw());
    using R = typename C::value_type;
    R count = static_cast<R>(n_out ? n_in / n_out : 0);
    for (int64_t i = 0; i < n_out; ++i) o[i] = K == Kind::Mean ? acc[i] / count : acc[i];
  };
  if (x.dtype() == DType::Complex64)
    run(std::complex<float>{});
  else
    run(std::complex<double>{});
  return out;
}

template <Kind K>
KernelFn reduce_kernel(std::string op) {
  return [op](KernelContext& k, const std::vector<EagerPtr>& in) {
    const EagerTensor& x = *in[0];
    if (K == Kind::Any || K == Kind::All) {
      if (x.dtype() != DType::Bool)
        throw_error(Code::InvalidArgument, "cannot compute ", op,
                    " as input #0(zero-based) was expected to be a bool tensor but is a ", tf_type_string(x.dtype()),
                    " tensor");
    } else if (!(kNumberTypes & bit(x.dtype())) && !(takes_complex(K) && is_complex(x.dtype()))) {
      throw_unsupported_dtype(op, x.dtype(), kNumberTypes);
    }
    check_axes_dtype_eager(in[1]->dtype());
    auto reduced = reduced_axes(op, x.shape().rank(), read_int_list(*in[1]), true);
    Shape out_shape = reduced_shape(x.shape(), reduced, k.attrs.get_or("keep_dims", false));
    if constexpr (takes_complex(K))
      if (is_complex(x.dtype())) return std::vector<EagerPtr>{complex_reduce<K>(x, reduced, out_shape)};
    return std::vector<EagerPtr>{reduce_compute<K>(op, x, reduced, out_shape)};
  };
}

// ---- gradients ----

// The axes of a reduction as known values: eager inputs, or Const nodes of the graph being
// built. Empty optional when they are only known at run time.
bool known_ints(const TensorPtr& t, std::vector<int64_t>* out) {
  if (t->is_eager()) {
    *out = read_int_list(*as_eager(t));
    return true;
  }
  GraphBuilder* b = current_builder();
  if (!b || t->graph_id != b->graph()->id()) return false;
  EagerPtr v = b->constant_value(NodeOutput{t->node, t->index});
  if (!v) return false;
  *out = read_int_list(*v);
  return true;
}

struct ReduceInfo {
  std::vector<bool> reduced;
  std::vector<int64_t> axes;  // normalised, ascending
};

ReduceInfo reduce_info(const std::string& op, G g) {
  const Shape& xs = g.inputs[0]->shape();
  std::vector<int64_t> axes;
  if (!xs.has_rank() || !known_ints(g.inputs[1], &axes))
    throw_error(Code::Unimplemented, "gradient of ", op, " needs a known rank and constant axes");
  ReduceInfo info;
  info.reduced = reduced_axes(op, xs.rank(), axes, true);
  for (int i = 0; i < xs.rank(); ++i)
    if (info.reduced[i]) info.axes.push_back(i);
  return info;
}

// `t` (the reduction's output or its gradient) with the reduced dims put back as size 1.
TensorPtr kept_dims(const TensorPtr& t, const TensorPtr& x, const ReduceInfo& info, bool keep_dims) {
  if (keep_dims) return t;
  const Shape& xs = x->shape();
  // Reduced axes that are all leading broadcast back without help (from the right).
  bool leading = true;
  for (int i = 0; i < xs.rank(); ++i) {
    if (!info.reduced[i]) {
      for (int j = i; j < xs.rank(); ++j) leading &= !info.reduced[j];
      break;
    }
  }
  if (leading) return t;
  std::vector<int64_t> dims;
  int unknown = 0;
  for (int i = 0; i < xs.rank(); ++i) {
    int64_t d = info.reduced[i] ? 1 : xs[i];
    if (d < 0) {
      ++unknown;
      d = -1;
    }
    dims.push_back(d);
  }
  if (unknown <= 1) return grad::op2("Reshape", t, grad::int_vector(dims));
  TensorPtr out = t;
  for (int64_t a : info.axes)
    out = grad::op2("ExpandDims", out, grad::constant(make_scalar(DType::Int32, static_cast<double>(a))));
  return out;
}

// Number of reduced elements per output element, as a scalar (static shapes) or a tensor.
TensorPtr reduce_count(const TensorPtr& x, const ReduceInfo& info) {
  const Shape& xs = x->shape();
  int64_t count = 1;
  bool known = true;
  for (int64_t a : info.axes) {
    if (xs[a] < 0)
      known = false;
    else
      count *= xs[a];
  }
  if (known) return grad::scalar_like(x, static_cast<double>(count));
  return grad::reduce_sum(grad::op1("OnesLike", x), info.axes, true);
}

GradFn reduce_grad(Kind kind, std::string op) {
  return [kind, op](G g) -> Grads {
    const TensorPtr& d = g.out_grads[0];
    if (!d) return grad::none(2);
    const TensorPtr& x = g.inputs[0];
    ReduceInfo info = reduce_info(op, g);
    bool keep = g.attrs.get_or("keep_dims", false);
    TensorPtr dk = kept_dims(d, x, info, keep);
    switch (kind) {
      case Kind::Sum: return {grad::broadcast_like(dk, x), nullptr};
      case Kind::Mean: return {grad::div(grad::broadcast_like(dk, x), reduce_count(x, info)), nullptr};
      case Kind::Max:
      case Kind::Min: {
        // The gradient is shared equally by the elements that attain the extremum.
        TensorPtr yk = kept_dims(g.outputs[0], x, info, keep);
        auto ind = grad::mask_like(grad::op2("Equal", yk, x), x);
        auto num = grad::reduce_sum(ind, info.axes, true);
        return {grad::mul(grad::div(ind, num), dk), nullptr};
      }
      case Kind::Prod: {
        // Product of the others without dividing by zero: count the zeros per reduction. Complex
        // inputs find their zeros through |x| and take the conjugate (TF's _ProdGrad).
        const bool cx = is_complex(x->dtype());
        TensorPtr mag = cx ? grad::op1("ComplexAbs", x) : x;
        auto zr = grad::mask_like(grad::op2("Equal", mag, grad::scalar_like(mag, 0)), mag);
        auto as_x = [&](const TensorPtr& m) { return cx ? grad::cast(m, x->dtype()) : m; };
        auto z = as_x(zr);
        auto x_nz = grad::add(x, z);
        auto p_nz = dispatch1("Prod", {x_nz, grad::int_vector(info.axes)}, Attrs{{"keep_dims", true}});
        auto zeros = grad::reduce_sum(zr, info.axes, true);
        auto none_zero = as_x(grad::mask_like(grad::op2("Equal", zeros, grad::scalar_like(zeros, 0)), mag));
        auto one_zero = as_x(grad::mask_like(grad::op2("Equal", zeros, grad::scalar_like(zeros, 1)), mag));
        auto dx = grad::add(grad::mul(none_zero, grad::div(p_nz, x_nz)), grad::mul(one_zero, grad::mul(z, p_nz)));
        if (cx) dx = grad::op1("Conj", dx);
        return {grad::mul(dx, dk), nullptr};
      }
      default: return grad::none(2);
    }
  };
}

template <Kind K>
OpDef reduce_op(const char* name, bool differentiable, const char* onnx) {
  return OpDef{
      name, name, 2, reduce_infer(name, K), reduce_kernel<K>(name), differentiable ? reduce_grad(K, name) : GradFn{}}
      .with_class(OpClass::Reduction, onnx)
      .with_input_types({{1, "reduction_indices", "Tidx", kIndexDTypes}});
}

// ---- ArgMax / ArgMin ----

constexpr unsigned kArgTypes = kNumberTypes | kBoolType;

template <bool IsMax>
EagerPtr arg_compute(const std::string& op, const EagerTensor& x, int64_t axis, DType out_type) {
  const Shape& s = x.shape();
  int rank = s.rank();
  if (axis < -rank || axis >= rank)
    throw_error(Code::InvalidArgument, "Expected dimension in the range [", -rank, ", ", rank, "), but got ", axis);
  if (axis < 0) axis += rank;
  if (s[axis] == 0)
    throw_error(Code::InvalidArgument, "Reduction axis ", axis, " is empty in shape ", s.debug_string());
  std::vector<int64_t> od;
  int64_t outer = 1, inner = 1, n = s[axis];
  for (int i = 0; i < rank; ++i) {
    if (i != axis) od.push_back(s[i]);
    if (i < axis) outer *= s[i];
    if (i > axis) inner *= s[i];
  }
  auto out = make_tensor(out_type, Shape(od));
  visit_pod(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr ((kArgTypes & bit(dtype_of<T>())) != 0) {
      using A = typename Arith<T>::type;
      const T* p = x.data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          // NaNs are skipped (TF's reducer never prefers them); all-NaN gives 0; ties: first.
          int64_t best = -1;
          A bv = A();
          for (int64_t k = 0; k < n; ++k) {
            A v = widen(p[(o * n + k) * inner + i]);
            if (!(v == v)) continue;
            if (best < 0 || (IsMax ? v > bv : v < bv)) {
              best = k;
              bv = v;
            }
          }
          if (best < 0) best = 0;
          int64_t idx = o * inner + i;
          if (out_type == DType::Int64)
            out->data<int64_t>()[idx] = best;
          else
            out->data<int32_t>()[idx] = static_cast<int32_t>(best);
        }
      }
    }
    return 0;
  });
  return out;
}

DType arg_output_type(const std::string& op, const Attrs& a, bool eager) {
  DType t = a.get_or("output_type", DType::Int64);
  if (t != DType::Int64 && t != DType::Int32) {
    if (eager)
      throw_error(Code::InvalidArgument, "Value for attr 'output_type' of ", tf_type_string(t),
                  " is not in the list of allowed values: int32, int64");
    throw_error(Code::TypeError, "Value passed to parameter 'output_type' has DataType ", dtype_name(t),
                " not in list of allowed values: int32, int64");
  }
  return t;
}

template <bool IsMax>
OpDef arg_op(const char* name) {
  std::string op = name;
  return OpDef{name,
               name,
               2,
               [op](const InferContext& c) {
                 const Shape& in = c.inputs[0].shape;
                 check_dtype_graph(op, c.inputs[0].dtype, kArgTypes, "input");
                 check_dtype_graph(op, c.inputs[1].dtype, kAxisTypes, "dimension");
                 DType t = arg_output_type(op, c.attrs, false);
                 const Shape& ds = c.inputs[1].shape;
                 if (ds.has_rank() && ds.rank() != 0)
                   throw_error(Code::ValueError, "Shape must be rank 0 but is rank ", ds.rank(), " for '{{node ", op,
                               "}} = ", op, "[]' with input shapes: ", tf_shapes(c.inputs), ".");
                 if (!in.has_rank()) return one(t, Shape::unknown_rank());
                 int r = in.rank();
                 if (r <= 1) return one(t, Shape{});  // TF's ArgOpShape: a scalar or vector gives a scalar
                 if (!c.value(1)) return one(t, Shape(std::vector<int64_t>(std::max(r - 1, 0), Shape::kUnknown)));
                 int64_t a = c.value(1)->scalar_as_int();
                 if (a < -r || a >= r)
                   throw_error(Code::ValueError, "Dimension (", a, ") must be in the range [", -r, ", ", r, "), where ",
                               r, " is the number of dimensions in the input. for '{{node ", op, "}}'");
                 if (a < 0) a += r;
                 std::vector<int64_t> d;
                 for (int i = 0; i < r; ++i)
                   if (i != a) d.push_back(in[i]);
                 return one(t, Shape(d));
               },
               [op](KernelContext& k, const std::vector<EagerPtr>& in) {
                 if (!(kArgTypes & bit(in[0]->dtype()))) throw_unsupported_dtype(op, in[0]->dtype(), kArgTypes);
                 check_axes_dtype_eager(in[1]->dtype());
                 if (in[1]->num_elements() != 1)
                   throw_error(Code::InvalidArgument,
                               "dim must be a scalar, but received tensor of shape: ", in[1]->shape().debug_string());
                 DType t = arg_output_type(op, k.attrs, true);
                 return std::vector<EagerPtr>{arg_compute<IsMax>(op, *in[0], in[1]->scalar_as_int(), t)};
               },
               {}};
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  // Any/All: ONNX's ReduceMax/ReduceMin of the bools as 0/1.
  r.add(reduce_op<Kind::Sum>("Sum", true, "ReduceSum").with_fused_reduce(fused::Reduce::kSum));
  r.add(reduce_op<Kind::Mean>("Mean", true, "ReduceMean").with_fused_reduce(fused::Reduce::kMean));
  r.add(reduce_op<Kind::Max>("Max", true, "ReduceMax"));
  r.add(reduce_op<Kind::Min>("Min", true, "ReduceMin"));
  r.add(reduce_op<Kind::Prod>("Prod", true, "ReduceProd"));
  r.add(reduce_op<Kind::Any>("Any", false, "ReduceMax"));
  r.add(reduce_op<Kind::All>("All", false, "ReduceMin"));
  r.add(arg_op<true>("ArgMax").with_input_types({{1, "dimension", "Tidx", kIndex16DTypes}}));
  r.add(arg_op<false>("ArgMin").with_input_types({{1, "dimension", "Tidx", kIndex16DTypes}}));
}

}  // namespace fn
