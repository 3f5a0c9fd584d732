// Indexing ops: GatherV2, GatherNd, and the scatter-adds their gradients use
// (UnsortedSegmentSum, ScatterNd); SelectV2 (3-argument where) and Where (1-argument: indices).
#include "kernels/reference/broadcast.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string rule_suffix(const std::string& node, const InferContext& c, const std::string& op = "") {
  return " for '{{node " + node + "}} = " + (op.empty() ? node : op) + "[]' with input shapes: " + tf_shapes(c.inputs) +
         ".";
}

// "1" or "1,0": the position of flat element i in a tensor of shape s.
std::string index_text(int64_t i, const Shape& s) {
  if (s.rank() <= 1) return std::to_string(i);
  auto st = row_major_strides(s.dims());
  std::string out;
  for (int d = 0; d < s.rank(); ++d) {
    out += (d ? "," : "") + std::to_string(i / st[d]);
    i %= st[d];
  }
  return out;
}

template <typename T>
void add_into(T* dst, const T* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = narrow<T>(widen(dst[i]) + widen(src[i]));
}

// ---- GatherV2 ----

struct GatherGeom {
  int64_t axis, batch_dims;
};

GatherGeom gather_geom(const Shape& params, const Shape& indices, int64_t axis, int64_t bd, bool graph) {
  int r = params.rank();
  if (axis >= r || axis < -r) {
    if (axis >= r) throw_error(Code::InvalidArgument, "Shape must be at least rank ", axis + 1, " but is rank ", r);
    throw_error(Code::InvalidArgument, "Expected axis in the range [", -r, ", ", r, "), but got ", axis);
  }
  if (axis < 0) axis += r;
  if (indices.has_rank()) {
    if (bd < 0) bd += indices.rank();
    if (bd < 0 || bd > indices.rank())
      throw_error(Code::InvalidArgument, "Expected batch_dims in the range [", -indices.rank(), ", ", indices.rank(),
                  "], but got ", bd);
  }
  if (bd > axis)
    throw_error(Code::InvalidArgument, "batch_dims (", bd, ") must be less than or equal to axis (", axis, ").");
  return {axis, bd};
}

std::vector<TensorSpec> gather_infer(const InferContext& c) {
  const Shape &p = c.inputs[0].shape, &ind = c.inputs[1].shape;
  DType d = c.inputs[0].dtype;
  if (!c.value(2) || !p.has_rank() || !ind.has_rank()) return one(d, Shape::unknown_rank());
  int64_t bd = c.attrs.get_or("batch_dims", int64_t{0});
  GatherGeom g = graph_rule(c, "GatherV2", [&] { return gather_geom(p, ind, c.value(2)->scalar_as_int(0), bd, true); });
  std::vector<int64_t> out(p.dims().begin(), p.dims().begin() + g.axis);
  out.insert(out.end(), ind.dims().begin() + g.batch_dims, ind.dims().end());
  out.insert(out.end(), p.dims().begin() + g.axis + 1, p.dims().end());
  return one(d, Shape(out));
}

std::vector<EagerPtr> gather_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr &params = in[0], &ind = in[1];
  check_index_type("GatherV2", "Tindices", ind->dtype());
  check_index_type("GatherV2", "Taxis", in[2]->dtype());
  GatherGeom g = gather_geom(params->shape(), ind->shape(), in[2]->scalar_as_int(0),
                             k.attrs.get_or("batch_dims", int64_t{0}), false);
  const auto &pd = params->shape().dims(), &id = ind->shape().dims();
  for (int64_t b = 0; b < g.batch_dims; ++b)
    if (pd[b] != id[b])
      throw_error(Code::InvalidArgument, "params.shape[", b, "]: ", pd[b], " should be equal to indices.shape[", b,
                  "]: ", id[b]);
  int64_t batches = prod(pd, 0, g.batch_dims), outer = prod(pd, g.batch_dims, g.axis), limit = pd[g.axis];
  int64_t inner = prod(pd, g.axis + 1, pd.size()), n = prod(id, g.batch_dims, id.size());
  std::vector<int64_t> out(pd.begin(), pd.begin() + g.axis);
  out.insert(out.end(), id.begin() + g.batch_dims, id.end());
  out.insert(out.end(), pd.begin() + g.axis + 1, pd.end());
  auto result = make_tensor(params->dtype(), Shape(out));
  auto idx = read_int_list(*ind);
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= limit)
      throw_error(Code::InvalidArgument, "indices",  // TF names a scalar index without a subscript
                  ind->shape().rank() == 0 ? "" : "[" + index_text(static_cast<int64_t>(i), ind->shape()) + "]", " = ",
                  idx[i], " is not in [0, ", limit, ")");
  if (result->num_elements() == 0) return {result};
  visit_move(params->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = elems<T>(*params);
    T* dst = elems<T>(*result);
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t o = 0; o < outer; ++o) {
        const T* base = src + ((b * outer + o) * limit) * inner;
        for (int64_t j = 0; j < n; ++j) {
          const T* from = base + idx[b * n + j] * inner;
          dst = std::copy(from, from + inner, dst);
        }
      }
    return 0;
  });
  return {result};
}

std::vector<int64_t> iota_perm(int n) {
  std::vector<int64_t> p(n);
  for (int i = 0; i < n; ++i) p[i] = i;
  return p;
}

// Dense gradient: scatter-add the gradient rows into zeros of params' shape.
std::vector<TensorPtr> gather_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return {nullptr, nullptr, nullptr};
  if (g.attrs.get_or("batch_dims", int64_t{0}) != 0)
    throw_error(Code::Unimplemented, "gradient of GatherV2 with batch_dims != 0");
  const TensorPtr &params = g.inputs[0], &indices = g.inputs[1];
  EagerPtr av = known_value(g.inputs[2]);
  if (!av || !params->shape().has_rank() || !indices->shape().has_rank())
    throw_error(Code::Unimplemented, "gradient of GatherV2 needs a known axis and ranks");
  int pr = params->shape().rank(), ir = indices->shape().rank();
  int axis = static_cast<int>(av->scalar_as_int(0));
  if (axis < 0) axis += pr;
  TensorPtr num = dim_tensor(params, axis, indices->dtype());
  if (axis == 0) return {dispatch1("UnsortedSegmentSum", {dy, indices, num}), nullptr, nullptr};
  // Move the indices' dims to the front, scatter, then move the gathered axis back.
  std::vector<int64_t> perm;
  for (int i = 0; i < ir; ++i) perm.push_back(axis + i);
  for (int i = 0; i < axis; ++i) perm.push_back(i);
  for (int i = axis + ir; i < pr - 1 + ir; ++i) perm.push_back(i);
  TensorPtr moved = dispatch1("Transpose", {dy, const_tensor(int_vector(DType::Int32, perm))});
  TensorPtr summed = dispatch1("UnsortedSegmentSum", {moved, indices, num});
  std::vector<int64_t> back = iota_perm(pr);  // summed is [A, outer..., inner...]
  for (int i = 0; i < axis; ++i) back[i] = i + 1;
  back[axis] = 0;
  return {dispatch1("Transpose", {summed, const_tensor(int_vector(DType::Int32, back))}), nullptr, nullptr};
}

// ---- UnsortedSegmentSum ----

std::vector<TensorSpec> segment_sum_infer(const InferContext& c) {
  const Shape &d = c.inputs[0].shape, &ids = c.inputs[1].shape;
  DType dt = c.inputs[0].dtype;
  if (!d.has_rank() || !ids.has_rank()) return one(dt, Shape::unknown_rank());
  std::vector<int64_t> out{c.value(2) ? c.value(2)->scalar_as_int(0) : Shape::kUnknown};
  out.insert(out.end(), d.dims().begin() + ids.rank(), d.dims().end());
  return one(dt, Shape(out));
}

std::vector<EagerPtr> segment_sum_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerPtr &data = in[0], &ids = in[1];
  check_index_type("UnsortedSegmentSum", "Tindices", ids->dtype());
  if (!is_numeric(data->dtype())) throw_unsupported_dtype("UnsortedSegmentSum", data->dtype());
  int64_t num = in[2]->scalar_as_int(0);
  const auto &dd = data->shape().dims(), &idd = ids->shape().dims();
  if (idd.size() > dd.size() || !std::equal(idd.begin(), idd.end(), dd.begin()))
    throw_error(Code::InvalidArgument, "data.shape = ", tf_shape(data->shape()),
                " does not start with segment_ids.shape = ", tf_shape(ids->shape()));
  if (num < 0) throw_error(Code::InvalidArgument, "Input num_segments == ", num, " must not be negative.");
  std::vector<int64_t> out{num};
  out.insert(out.end(), dd.begin() + idd.size(), dd.end());
  auto result = make_tensor(data->dtype(), Shape(out));
  int64_t inner = prod(dd, idd.size(), dd.size());
  auto idx = read_int_list(*ids);
  visit_pod(data->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = result->data<T>();
    std::fill(dst, dst + result->num_elements(), from_double<T>(0));
    const T* src = data->data<T>();
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0) continue;  // TensorFlow drops negative ids
      if (idx[i] >= num)
        throw_error(Code::InvalidArgument, "segment_ids[", index_text(static_cast<int64_t>(i), ids->shape()),
                    "] = ", idx[i], " is out of range [0, ", num, ")");
      add_into(dst + idx[i] * inner, src + i * inner, inner);
    }
    return 0;
  });
  return {result};
}

// ---- GatherNd / ScatterNd ----

// Flat offsets (in units of the slice) of each index tuple of `indices` ([..., K]) into `shape`.
std::vector<int64_t> nd_offsets(const EagerTensor& indices, const Shape& shape, const char* what) {
  int64_t k = indices.shape().rank() ? indices.shape()[indices.shape().rank() - 1] : 0;
  if (k > shape.rank())
    throw_error(Code::InvalidArgument, "index innermost dimension length must be <= ", what, " rank; saw: ", k, " vs. ",
                shape.rank());
  auto idx = read_int_list(indices);
  int64_t n = k ? static_cast<int64_t>(idx.size()) / k : prod(indices.shape().dims());
  std::vector<int64_t> strides(k);
  int64_t acc = 1;
  for (int64_t d = k - 1; d >= 0; --d) {
    strides[d] = acc;
    acc *= shape[static_cast<int>(d)];
  }
  std::vector<int64_t> off(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d = 0; d < k; ++d) {
      int64_t v = idx[i * k + d];
      if (v < 0 || v >= shape[static_cast<int>(d)]) {
        std::string t;
        for (int64_t e = 0; e < k; ++e) t += (e ? ", " : "") + std::to_string(idx[i * k + e]);
        throw_error(Code::InvalidArgument, "indices[", i, "] = [", t, "] does not index into ", what, " shape ",
                    tf_shape(shape), ", node name: ", std::string(what) == "param" ? "GatherNd" : "ScatterNd");
      }
      off[i] += v * strides[d];
    }
  }
  return off;
}

std::vector<TensorSpec> gather_nd_infer(const InferContext& c) {
  const Shape &p = c.inputs[0].shape, &ind = c.inputs[1].shape;
  DType d = c.inputs[0].dtype;
  if (!p.has_rank() || !ind.has_rank() || ind.rank() == 0 || ind[ind.rank() - 1] < 0)
    return one(d, Shape::unknown_rank());
  int64_t k = ind[ind.rank() - 1];
  if (k > p.rank())
    throw_error(Code::ValueError, "indices.shape[-1] must be <= params.rank, but saw indices shape: ", tf_shape(ind),
                " and params shape: ", tf_shape(p), rule_suffix("GatherNd", c));
  std::vector<int64_t> out(ind.dims().begin(), ind.dims().end() - 1);
  out.insert(out.end(), p.dims().begin() + k, p.dims().end());
  return one(d, Shape(out));
}

std::vector<EagerPtr> gather_nd_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerPtr &params = in[0], &ind = in[1];
  check_index_type("GatherNd", "Tindices", ind->dtype());
  if (ind->shape().rank() == 0) throw_error(Code::InvalidArgument, "indices must be at least a vector");
  auto off = nd_offsets(*ind, params->shape(), "param");
  const auto &pd = params->shape().dims(), &id = ind->shape().dims();
  int64_t k = id.back();
  int64_t inner = prod(pd, k, pd.size());
  std::vector<int64_t> out(id.begin(), id.end() - 1);
  out.insert(out.end(), pd.begin() + k, pd.end());
  auto result = make_tensor(params->dtype(), Shape(out));
  visit_move(params->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = elems<T>(*params);
    T* dst = elems<T>(*result);
    for (int64_t o : off) dst = std::copy(src + o * inner, src + (o + 1) * inner, dst);
    return 0;
  });
  return {result};
}

std::vector<EagerPtr> scatter_nd_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerPtr &ind = in[0], &upd = in[1];
  check_index_type("ScatterNd", "Tindices", ind->dtype());
  if (!is_numeric(upd->dtype())) throw_unsupported_dtype("ScatterNd", upd->dtype());
  if (in[2]->shape().rank() != 1)
    throw_error(Code::InvalidArgument, "Shape must be a vector, got ", tf_shape(in[2]->shape()));
  Shape shape(read_int_list(*in[2]));
  for (int64_t d : shape.dims())
    if (d < 0) throw_error(Code::InvalidArgument, "Dimension ", d, " must be >= 0");
  shape.num_elements();  // InvalidArgument past 2**63 - 1 elements, before any offset is formed
  auto off = nd_offsets(*ind, shape, "output");
  int64_t k = ind->shape().rank() ? ind->shape().dims().back() : 0;
  int64_t inner = prod(shape.dims(), k, shape.rank());
  if (upd->num_elements() != static_cast<int64_t>(off.size()) * inner)
    throw_error(Code::InvalidArgument, "Dimensions [0,", ind->shape().rank() - 1,
                ") of indices[shape=", tf_shape(ind->shape()),
                "] must match dimensions of updates[shape=", tf_shape(upd->shape()), "]");
  auto result = make_tensor(upd->dtype(), shape);
  visit_pod(upd->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = result->data<T>();
    std::fill(dst, dst + result->num_elements(), from_double<T>(0));
    for (size_t i = 0; i < off.size(); ++i) add_into(dst + off[i] * inner, upd->data<T>() + i * inner, inner);
    return 0;
  });
  return {result};
}

// ---- SelectV2 / Where ----

Shape select_shape(const Shape& c, const Shape& t, const Shape& e, bool graph) {
  try {
    return broadcast_shapes(broadcast_shapes(c, t), e);
  } catch (const Error&) {
    if (!graph)
      throw_error(Code::InvalidArgument, "condition ", tf_shape(c), ", then ", tf_shape(t), ", and else ", tf_shape(e),
                  " must be broadcastable");
    throw;
  }
}

std::vector<TensorSpec> select_infer(const InferContext& c) {
  if (c.inputs[0].dtype != DType::Bool)
    throw_error(Code::TypeError, "Input 'condition' of 'SelectV2' Op has type ", dtype_name(c.inputs[0].dtype),
                " that does not match expected type of bool.");
  if (c.inputs[1].dtype != c.inputs[2].dtype)
    throw_error(Code::TypeError, "Input 'e' of 'SelectV2' Op has type ", dtype_name(c.inputs[2].dtype),
                " that does not match type ", dtype_name(c.inputs[1].dtype), " of argument 't'.");
  Shape s;
  Shape ab;
  try {
    s = select_shape(c.inputs[0].shape, c.inputs[1].shape, c.inputs[2].shape, true);
  } catch (const Error&) {
    // Name the first pair of mismatched dims, as TensorFlow does.
    std::string dims = "";
    for (int i = 0; i < 3 && dims.empty(); ++i)
      for (int j = i + 1; j < 3 && dims.empty(); ++j) {
        const Shape &a = c.inputs[i].shape, &b = c.inputs[j].shape;
        if (!a.has_rank() || !b.has_rank()) continue;
        for (int k = 1; k <= std::min(a.rank(), b.rank()); ++k) {
          int64_t x = a[a.rank() - k], y = b[b.rank() - k];
          if (x > 1 && y > 1 && x != y) {
            dims = std::to_string(x) + " and " + std::to_string(y);
            break;
          }
        }
      }
    throw_error(Code::ValueError, "Dimensions must be equal, but are ", dims, rule_suffix("SelectV2", c));
  }
  return one(c.inputs[1].dtype, s);
}

std::vector<EagerPtr> select_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerPtr &c = in[0], &t = in[1], &e = in[2];
  if (c->dtype() != DType::Bool)
    throw_error(Code::InvalidArgument,
                "cannot compute SelectV2 as input #0(zero-based) was expected to be a bool "
                "tensor but is a ",
                tf_type_string(c->dtype()), " tensor");
  check_same_dtype_eager("SelectV2", {t, e});
  Shape s = select_shape(c->shape(), t->shape(), e->shape(), false);
  auto out = make_tensor(t->dtype(), s);
  int64_t n = s.num_elements();
  if (n == 0) return {out};
  int r = s.rank();
  auto sc = ref::broadcast_strides(c->shape(), s), st = ref::broadcast_strides(t->shape(), s),
       se = ref::broadcast_strides(e->shape(), s);
  const bool* cv = c->data<bool>();
  visit_move(t->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *tv = elems<T>(*t), *ev = elems<T>(*e);
    T* o = elems<T>(*out);
    if (c->num_elements() == n && t->num_elements() == n && e->num_elements() == n) {
      for (int64_t i = 0; i < n; ++i) o[i] = cv[i] ? tv[i] : ev[i];
      return 0;
    }
    std::vector<int64_t> idx(r, 0);
    int64_t ic = 0, it = 0, ie = 0;
    for (int64_t i = 0; i < n; ++i) {
      o[i] = cv[ic] ? tv[it] : ev[ie];
      for (int d = r - 1; d >= 0; --d) {
        ++idx[d];
        ic += sc[d];
        it += st[d];
        ie += se[d];
        if (idx[d] < s[d]) break;
        ic -= sc[d] * idx[d];
        it -= st[d] * idx[d];
        ie -= se[d] * idx[d];
        idx[d] = 0;
      }
    }
    return 0;
  });
  return {out};
}

std::vector<TensorPtr> select_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return {nullptr, nullptr, nullptr};
  TensorPtr zeros = zeros_like(dy);
  TensorPtr dt = dispatch1("SelectV2", {g.inputs[0], dy, zeros});
  TensorPtr de = dispatch1("SelectV2", {g.inputs[0], zeros, dy});
  return {nullptr, unbroadcast(dt, g.inputs[1]), unbroadcast(de, g.inputs[2])};
}

std::vector<EagerPtr> where_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerPtr& x = in[0];
  if (!is_pod(x->dtype())) throw_unsupported_dtype("Where", x->dtype());
  int64_t n = x->num_elements();
  int r = x->shape().rank();
  std::vector<int64_t> hits;
  visit_pod(x->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = x->data<T>();
    for (int64_t i = 0; i < n; ++i)
      if (to_double(v[i]) != 0) hits.push_back(i);
    return 0;
  });
  auto out = make_tensor(DType::Int64, Shape{static_cast<int64_t>(hits.size()), r});
  auto strides = row_major_strides(x->shape().dims());
  int64_t* o = out->data<int64_t>();
  for (int64_t h : hits)
    for (int d = 0; d < r; ++d) {
      *o++ = h / strides[d];
      h %= strides[d];
    }
  return {out};
}

}  // namespace

void register_gather_ops(OpRegistry& r) {
  r.add(OpDef{"GatherV2", "GatherV2", 3, gather_infer, gather_kernel, gather_grad}.with_input_types(
      {{1, "indices", "Tindices", kIndex16DTypes}, {2, "axis", "Taxis", kIndexDTypes}}));
  r.add(OpDef{
      "UnsortedSegmentSum", "UnsortedSegmentSum", 3, segment_sum_infer, segment_sum_kernel,
      [](const GradContext& g) {
        if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr, nullptr, nullptr};
        return std::vector<TensorPtr>{
            dispatch1("GatherV2", {g.out_grads[0], g.inputs[1], const_tensor(int_scalar(DType::Int32, 0))}), nullptr,
            nullptr};
      }}.with_input_types({{1, "segment_ids", "Tindices", kIndex16DTypes},
                           {2, "num_segments", "Tnumsegments", kIndexDTypes}}));
  r.add(OpDef{
      "GatherNd", "GatherNd", 2, gather_nd_infer, gather_nd_kernel, [](const GradContext& g) {
        if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr, nullptr};
        const TensorPtr& ind = g.inputs[1];
        return std::vector<TensorPtr>{
            dispatch1("ScatterNd", {ind, g.out_grads[0], shape_tensor(g.inputs[0], ind->dtype())}), nullptr};
      }}.with_input_types({{1, "indices", "Tindices", kIndex16DTypes}}));
  r.add(OpDef{
      "ScatterNd", "ScatterNd", 3, [](const InferContext& c) { return one(c.inputs[1].dtype, shape_input(c, 2)); },
      scatter_nd_kernel,
      [](const GradContext& g) {
        if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr, nullptr, nullptr};
        return std::vector<TensorPtr>{nullptr, dispatch1("GatherNd", {g.out_grads[0], g.inputs[0]}), nullptr};
      }}.with_input_types({{0, "indices", "Tindices", kIndex16DTypes}, {2, "shape", "Tindices", kIndex16DTypes}}));
  r.add(OpDef{"SelectV2", "SelectV2", 3, select_infer, select_kernel, select_grad});
  r.add(OpDef{
      "Where",
      "Where",
      1,
      [](const InferContext& c) {
        const Shape& s = c.inputs[0].shape;
        return one(DType::Int64, Shape{Shape::kUnknown, s.has_rank() ? s.rank() : Shape::kUnknown});
      },
      where_kernel,
      {}}.with_output_args({"index"}));
}

}  // namespace fn
