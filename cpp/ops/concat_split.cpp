// Joining and splitting along an axis: ConcatV2, Pack (stack), Unpack (unstack), Split, SplitV.
// All copy [outer, piece, inner] blocks; splits along the leading axis return views (no copy).
#include <cstring>

#include "ops/families.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string rule_suffix(const std::string& node, const InferContext& c, const std::string& op = "") {
  return " for '{{node " + node + "}} = " + (op.empty() ? node : op) + "[]' with input shapes: " + tf_shapes(c.inputs) +
         ".";
}

// Concatenates `xs` (same rank, same dims but `axis`) along `axis` into out.
EagerPtr concat(const std::vector<EagerPtr>& xs, int axis, const Shape& out_shape) {
  auto out = make_tensor(xs[0]->dtype(), out_shape);
  const auto& od = out_shape.dims();
  int64_t outer = prod(od, 0, axis), inner = prod(od, axis + 1, od.size());
  visit_move(out->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = elems<T>(*out);
    std::vector<int64_t> piece(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) piece[i] = xs[i]->shape()[axis] * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < xs.size(); ++i) {
        const T* src = elems<T>(*xs[i]) + o * piece[i];
        dst = std::copy(src, src + piece[i], dst);
      }
    return 0;
  });
  return out;
}

// Splits x along `axis` into pieces of the given sizes.
std::vector<EagerPtr> split(const EagerPtr& x, int axis, const std::vector<int64_t>& sizes) {
  const auto& d = x->shape().dims();
  int64_t outer = prod(d, 0, axis), inner = prod(d, axis + 1, d.size());
  std::vector<EagerPtr> outs;
  int64_t start = 0;
  for (int64_t s : sizes) {
    auto od = d;
    od[axis] = s;
    if (outer == 1 && x->dtype() != DType::String) {
      outs.push_back(view_of(x, start * inner, Shape(od)));
    } else {
      auto out = make_tensor(x->dtype(), Shape(od));
      visit_move(x->dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* src = elems<T>(*x);
        T* dst = elems<T>(*out);
        int64_t row = d[axis] * inner, piece = s * inner;
        for (int64_t o = 0; o < outer; ++o)
          std::copy(src + o * row + start * inner, src + o * row + start * inner + piece, dst + o * piece);
        return 0;
      });
      outs.push_back(out);
    }
    start += s;
  }
  return outs;
}

// ---- ConcatV2 ----

std::vector<TensorSpec> concat_infer(const InferContext& c) {
  if (c.inputs.size() < 2)
    throw_error(Code::ValueError,
                "List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum length 2.");
  size_t n = c.inputs.size() - 1;
  std::vector<TensorSpec> values(c.inputs.begin(), c.inputs.begin() + n);
  check_same_dtype_graph("ConcatV2", values);
  DType d = values[0].dtype;
  int rank = -1;
  for (auto& v : values)
    if (v.shape.has_rank()) {
      if (rank >= 0 && v.shape.rank() != rank)
        throw_error(Code::ValueError, "Shape must be rank ", rank, " but is rank ", v.shape.rank(),
                    rule_suffix("concat", c, "ConcatV2"));
      rank = v.shape.rank();
    }
  if (!c.value(n)) return one(d, rank < 0 ? Shape::unknown_rank() : Shape(std::vector<int64_t>(rank, Shape::kUnknown)));
  int64_t axis = c.value(n)->scalar_as_int(0);
  if (rank < 0) return one(d, Shape::unknown_rank());
  if (axis >= rank || axis < -rank)
    throw_error(Code::ValueError, "Shape must be at least rank ", axis < 0 ? -axis : axis + 1, " but is rank ", rank,
                rule_suffix("concat", c, "ConcatV2"));
  if (axis < 0) axis += rank;
  std::vector<int64_t> out(rank, Shape::kUnknown);
  int64_t total = 0;
  for (auto& v : values) {
    if (!v.shape.has_rank()) {
      total = -1;
      continue;
    }
    for (int i = 0; i < rank; ++i) {
      if (i == axis) continue;
      if (out[i] >= 0 && v.shape[i] >= 0 && out[i] != v.shape[i])
        throw_error(Code::ValueError, "Dimension ", i, " in both shapes must be equal, but are ", out[i], " and ",
                    v.shape[i], ". Shapes are ", tf_shape(Shape{out[i]}), " and ", tf_shape(Shape{v.shape[i]}), ".",
                    rule_suffix("concat", c, "ConcatV2"));
      if (out[i] < 0) out[i] = v.shape[i];
    }
    if (total >= 0) total = v.shape[axis] < 0 ? -1 : total + v.shape[axis];
  }
  out[axis] = total < 0 ? Shape::kUnknown : total;
  return one(d, Shape(out));
}

std::vector<EagerPtr> concat_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  if (in.size() < 2) throw_error(Code::InvalidArgument, "ConcatV2 needs at least one value");
  size_t n = in.size() - 1;
  std::vector<EagerPtr> xs(in.begin(), in.begin() + n);
  check_same_dtype_eager("ConcatV2", xs);
  check_index_type("ConcatV2", "Tidx", in[n]->dtype());
  int rank = xs[0]->shape().rank();
  int64_t axis = in[n]->scalar_as_int(0);
  if (axis < -rank || axis >= rank)
    throw_error(Code::InvalidArgument, "ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ", rank,
                "), but got ", axis);
  if (axis < 0) axis += rank;
  auto dims = xs[0]->shape().dims();
  dims[axis] = 0;
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = xs[i]->shape();
    if (s.rank() != rank)
      throw_error(Code::InvalidArgument,
                  "ConcatOp : Ranks of all input tensors should match: shape[0] = ", tf_shape(xs[0]->shape()),
                  " vs. shape[", i, "] = ", tf_shape(s));
    for (int k = 0; k < rank; ++k)
      if (k != axis && s[k] != dims[k])
        throw_error(Code::InvalidArgument, "ConcatOp : Dimension ", k,
                    " in both shapes must be equal: shape[0] = ", tf_shape(xs[0]->shape()), " vs. shape[", i,
                    "] = ", tf_shape(s));
    dims[axis] += s[static_cast<int>(axis)];
  }
  if (rank == 0) throw_error(Code::InvalidArgument, "ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  return {concat(xs, static_cast<int>(axis), Shape(dims))};
}

std::vector<TensorPtr> concat_grad(const GradContext& g) {
  size_t n = g.inputs.size() - 1;
  std::vector<TensorPtr> out(g.inputs.size());
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return out;
  EagerPtr av = known_value(g.inputs[n]);
  if (!av) throw_error(Code::Unimplemented, "gradient of ConcatV2 with an axis unknown while tracing");
  int rank = dy->shape().rank();
  if (rank < 0) throw_error(Code::Unimplemented, "gradient of ConcatV2 with unknown rank");
  int axis = static_cast<int>(av->scalar_as_int(0));
  if (axis < 0) axis += rank;
  bool static_sizes = true;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < n; ++i) {
    int64_t s = g.inputs[i]->shape().has_rank() ? g.inputs[i]->shape()[axis] : -1;
    static_sizes &= s >= 0;
    sizes.push_back(s);
  }
  TensorPtr size_t_;
  if (static_sizes) {
    size_t_ = const_tensor(int_vector(DType::Int32, sizes));
  } else {
    std::vector<TensorPtr> parts;
    for (size_t i = 0; i < n; ++i) parts.push_back(dim_tensor(g.inputs[i], axis));
    size_t_ = dispatch1("Pack", parts, Attrs{{"axis", int64_t{0}}, {"N", static_cast<int64_t>(n)}});
  }
  auto pieces = dispatch("SplitV", {dy, size_t_, const_tensor(int_scalar(DType::Int32, axis))},
                         Attrs{{"num_split", static_cast<int64_t>(n)}});
  for (size_t i = 0; i < n; ++i) out[i] = pieces[i];
  return out;
}

// ---- Pack / Unpack ----

int64_t attr_axis(const Attrs& a) { return a.get_or("axis", int64_t{0}); }

std::vector<TensorSpec> pack_infer(const InferContext& c) {
  check_same_dtype_graph("Pack", c.inputs);
  Shape merged = Shape::unknown_rank();
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Shape& s = c.inputs[i].shape;
    if (!s.has_rank()) continue;
    if (!merged.has_rank()) {
      merged = s;
      continue;
    }
    if (s.rank() != merged.rank())
      throw_error(Code::ValueError, "Shapes must be equal rank, but are ", merged.rank(), " and ", s.rank(),
                  "\n\tFrom merging shape 0 with other shapes.", rule_suffix("stack", c, "Pack"));
    auto d = merged.dims();
    for (int k = 0; k < s.rank(); ++k) {
      if (d[k] >= 0 && s[k] >= 0 && d[k] != s[k])
        throw_error(Code::ValueError, "Dimension ", k, " in both shapes must be equal, but are ", d[k], " and ", s[k],
                    ". Shapes are ", tf_shape(merged), " and ", tf_shape(s),
                    ".\n\tFrom merging shape 0 with other shapes.", rule_suffix("stack", c, "Pack"));
      if (d[k] < 0) d[k] = s[k];
    }
    merged = Shape(d);
  }
  DType dt = c.inputs[0].dtype;
  if (!merged.has_rank()) return one(dt, Shape::unknown_rank());
  int r = merged.rank();
  int64_t axis = attr_axis(c.attrs);
  if (axis < -(r + 1) || axis > r)
    throw_error(Code::ValueError, "Argument `axis` = ", axis, " not in range [", -(r + 1), ", ", r + 1, ")");
  if (axis < 0) axis += r + 1;
  auto d = merged.dims();
  d.insert(d.begin() + axis, static_cast<int64_t>(c.inputs.size()));
  return one(dt, Shape(d));
}

std::vector<EagerPtr> pack_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  check_same_dtype_eager("Pack", in);
  const Shape& s0 = in[0]->shape();
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i]->shape() != s0)
      throw_error(Code::InvalidArgument, "Shapes of all inputs must match: values[0].shape = ", tf_shape(s0),
                  " != values[", i, "].shape = ", tf_shape(in[i]->shape()));
  int r = s0.rank();
  int64_t axis = attr_axis(k.attrs);
  if (axis < -(r + 1) || axis > r)
    throw_error(Code::InvalidArgument, "axis = ", axis, " not in [", -(r + 1), ", ", r + 1, ")");
  if (axis < 0) axis += r + 1;
  if (size_t es = r == 0 ? dtype_size(in[0]->dtype()) : 0) {  // scalars (x[t]'s begin/end): a copy each
    auto out = make_tensor(in[0]->dtype(), Shape{static_cast<int64_t>(in.size())});
    char* dst = static_cast<char*>(out->raw());
    for (size_t i = 0; i < in.size(); ++i) std::memcpy(dst + i * es, in[i]->raw(), es);
    return {out};
  }
  auto one_dims = s0.dims();
  one_dims.insert(one_dims.begin() + axis, 1);
  std::vector<EagerPtr> xs;
  for (auto& t : in) xs.push_back(reshaped(t, Shape(one_dims)));
  auto out_dims = one_dims;
  out_dims[axis] = static_cast<int64_t>(in.size());
  return {concat(xs, static_cast<int>(axis), Shape(out_dims))};
}

std::vector<TensorSpec> unpack_infer(const InferContext& c) {
  const Shape& s = c.inputs[0].shape;
  int64_t num = c.attrs.get_or("num", int64_t{-1});
  DType d = c.inputs[0].dtype;
  if (num < 0) throw_error(Code::ValueError, "Unpack needs the attr 'num'");
  if (!s.has_rank()) return std::vector<TensorSpec>(num, TensorSpec{d, Shape::unknown_rank()});
  int r = s.rank();
  int64_t axis = attr_axis(c.attrs);
  if (axis < -r || axis >= r)
    throw_error(Code::ValueError, "Argument `axis` = ", axis, " not in range [", -r, ", ", r, ")");
  if (axis < 0) axis += r;
  if (s[axis] >= 0 && s[axis] != num)
    throw_error(Code::ValueError, "Dimension must be ", num, " but is ", s[axis], rule_suffix("unstack", c, "Unpack"));
  auto dims = s.dims();
  dims.erase(dims.begin() + axis);
  return std::vector<TensorSpec>(num, TensorSpec{d, Shape(dims)});
}

std::vector<EagerPtr> unpack_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const Shape& s = in[0]->shape();
  int r = s.rank();
  int64_t axis = attr_axis(k.attrs), num = k.attrs.get_or("num", int64_t{-1});
  if (axis < -r || axis >= r) throw_error(Code::InvalidArgument, "axis = ", axis, " not in [", -r, ", ", r, ")");
  if (axis < 0) axis += r;
  if (num >= 0 && s[axis] != num)
    throw_error(Code::InvalidArgument, "Input shape axis ", axis, " must equal ", num, ", got shape ", tf_shape(s));
  auto parts = split(in[0], static_cast<int>(axis), std::vector<int64_t>(s[axis], 1));
  auto dims = s.dims();
  dims.erase(dims.begin() + axis);
  for (auto& p : parts) p = reshaped(p, Shape(dims));
  return parts;
}

// ---- Split / SplitV ----

std::vector<TensorSpec> split_infer(const InferContext& c, bool v) {
  const TensorSpec& x = c.inputs[v ? 0 : 1];
  int64_t num = c.attrs.get_or("num_split", int64_t{1});
  if (num < 1)
    throw_error(Code::ValueError, "Attr 'num_split' of '", v ? "SplitV" : "Split", "' Op passed ", num,
                " less than minimum 1.");
  const EagerPtr& axis_v = c.value(v ? 2 : 0);
  auto unknown_all = [&] {
    Shape s = x.shape.has_rank() ? Shape(std::vector<int64_t>(x.shape.rank(), Shape::kUnknown)) : Shape::unknown_rank();
    return std::vector<TensorSpec>(num, TensorSpec{x.dtype, s});
  };
  if (!x.shape.has_rank() || !axis_v) return unknown_all();
  int r = x.shape.rank();
  int64_t axis = axis_v->scalar_as_int(0);
  if (axis < -r || axis >= r)
    throw_error(Code::ValueError, "Dimension ", axis, " must be >= ", -r, " and < ", r,
                rule_suffix("split", c, "Split"));
  if (axis < 0) axis += r;
  int64_t dim = x.shape[axis];
  std::vector<int64_t> sizes(num, Shape::kUnknown);
  if (!v) {
    if (dim >= 0 && dim % num != 0)
      throw_error(Code::ValueError, "Dimension size must be evenly divisible by ", num, " but is ", dim,
                  "\n\tNumber of ways to split should evenly divide the split dimension",
                  rule_suffix("split", c, "Split"));
    if (dim >= 0) sizes.assign(num, dim / num);
  } else if (c.value(1)) {
    sizes = read_int_list(*c.value(1));
    if (static_cast<int64_t>(sizes.size()) != num)
      throw_error(Code::ValueError, "Length of size_splits should be equal to the value of num_split",
                  rule_suffix("split", c, "Split"));
    int64_t known = 0, minus = -1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1)
        minus = static_cast<int64_t>(i);
      else
        known += sizes[i];
    }
    if (dim >= 0) {
      if ((minus < 0 && known != dim) || (minus >= 0 && known > dim)) {
        std::string txt;
        for (size_t i = 0; i < sizes.size(); ++i) txt += (i ? "," : "") + std::to_string(sizes[i]);
        throw_error(Code::ValueError, "can't split axis of size ", dim, " into pieces of size [", txt, "]",
                    rule_suffix("split", c, "Split"));
      }
      if (minus >= 0) sizes[minus] = dim - known;
    }
  }
  std::vector<TensorSpec> out;
  for (int64_t s : sizes) {
    auto d = x.shape.dims();
    d[axis] = s;
    out.push_back(TensorSpec{x.dtype, Shape(d)});
  }
  return out;
}

int64_t eager_split_axis(const EagerTensor& a, int r) {
  int64_t axis = a.scalar_as_int(0);
  if (axis < -r || axis >= r)
    throw_error(Code::InvalidArgument, "-input rank(-", r, ") <= split_dim < input rank (", r, "), but got ", axis);
  return axis < 0 ? axis + r : axis;
}

std::vector<EagerPtr> split_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr& x = in[1];
  int64_t num = k.attrs.get_or("num_split", int64_t{1});
  int64_t axis = eager_split_axis(*in[0], x->shape().rank());
  int64_t dim = x->shape()[axis];
  if (num <= 0 || dim % num != 0)
    throw_error(Code::InvalidArgument,
                "Number of ways to split should evenly divide the split dimension, but got "
                "split_dim ",
                axis, " (size = ", dim, ") and num_split ", num);
  return split(x, static_cast<int>(axis), std::vector<int64_t>(num, dim / num));
}

std::vector<EagerPtr> splitv_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr& x = in[0];
  int64_t num = k.attrs.get_or("num_split", int64_t{-1});
  int64_t axis = eager_split_axis(*in[2], x->shape().rank());
  int64_t dim = x->shape()[axis];
  auto sizes = read_int_list(*in[1]);
  if (num >= 0 && static_cast<int64_t>(sizes.size()) != num)
    throw_error(Code::InvalidArgument, "Number of split sizes (", sizes.size(), ") must equal num_split (", num, ")");
  int64_t known = 0, minus = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (minus >= 0) throw_error(Code::InvalidArgument, "There can only be one -1 in the input.");
      minus = static_cast<int64_t>(i);
    } else if (sizes[i] < 0) {
      throw_error(Code::InvalidArgument, "Split size at index ", i, " must be >= 0. Got: ", sizes[i]);
    } else {
      known += sizes[i];
    }
  }
  if ((minus < 0 && known != dim) || (minus >= 0 && known > dim))
    throw_error(Code::InvalidArgument,
                "Determined shape must either match input shape along split_dim exactly if "
                "fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: ",
                known);
  if (minus >= 0) sizes[minus] = dim - known;
  return split(x, static_cast<int>(axis), sizes);
}

TensorPtr concat_grads(const GradContext& g, const TensorPtr& axis) {
  auto parts = densify(g.out_grads, g.outputs);
  parts.push_back(axis);
  return dispatch1("ConcatV2", parts, Attrs{{"N", static_cast<int64_t>(g.outputs.size())}});
}

// Partial values (shape arithmetic): concatenating or stacking known and unknown elements.
Shape concat_partial(const InferContext& c) {
  size_t n = c.inputs.size() - 1;
  if (!c.value(n) || c.value(n)->scalar_as_int(0) != 0) return Shape::unknown_rank();
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    if (c.inputs[i].shape.rank() != 1) return Shape::unknown_rank();
    Shape p = c.partial_value(i);
    if (!p.has_rank()) return Shape::unknown_rank();
    out.insert(out.end(), p.dims().begin(), p.dims().end());
  }
  return Shape(out);
}

Shape pack_partial(const InferContext& c) {
  if (attr_axis(c.attrs) != 0) return Shape::unknown_rank();
  std::vector<int64_t> out;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].shape.rank() != 0) return Shape::unknown_rank();
    out.push_back(c.partial_value(i)[0]);
  }
  return Shape(out);
}

}  // namespace

void register_concat_split_ops(OpRegistry& r) {
  r.add(OpDef{"ConcatV2", "concat", -1, concat_infer, concat_kernel, concat_grad}
            .with_input_types({{-1, "axis", "Tidx", kIndexDTypes}})
            .with_min_inputs(3))
      .partial = concat_partial;
  r
      .add(OpDef{
          "Pack", "stack", -1, pack_infer, pack_kernel,
          [](const GradContext& g) {
            if (!g.out_grads[0]) return std::vector<TensorPtr>(g.inputs.size());
            return dispatch("Unpack", {g.out_grads[0]},
                            Attrs{{"num", static_cast<int64_t>(g.inputs.size())}, {"axis", attr_axis(g.attrs)}});
          }}.with_min_inputs(1))
      .partial = pack_partial;
  r.add(OpDef{
      "Unpack", "unstack", 1, unpack_infer, unpack_kernel, [](const GradContext& g) {
        auto parts = densify(g.out_grads, g.outputs);
        return std::vector<TensorPtr>{
            dispatch1("Pack", parts, Attrs{{"axis", attr_axis(g.attrs)}, {"N", static_cast<int64_t>(parts.size())}})};
      }}.with_attr_mins({{"num", 0}}));
  r.add(OpDef{"Split", "split", 2, [](const InferContext& c) { return split_infer(c, false); }, split_kernel,
              [](const GradContext& g) {
                return std::vector<TensorPtr>{nullptr, concat_grads(g, g.inputs[0])};
              }}
            .with_input_types({{0, "split_dim", "split_dim", {DType::Int32}}})
            .with_attr_mins({{"num_split", 1}}));
  r.add(OpDef{"SplitV", "split", 3, [](const InferContext& c) { return split_infer(c, true); }, splitv_kernel,
              [](const GradContext& g) {
                return std::vector<TensorPtr>{concat_grads(g, g.inputs[2]), nullptr, nullptr};
              }}
            .with_input_types({{1, "size_splits", "Tlen", {DType::Int8, DType::Int32, DType::Int64}},
                               {2, "split_dim", "split_dim", {DType::Int32}}})
            .with_attr_mins({{"num_split", 1}}));
}

}  // namespace fn
