// Slicing: Slice, StridedSlice (Python's x[...] with TF's begin/end/ellipsis/new-axis/shrink
// masks) and StridedSliceGrad (its gradient: the slice written into zeros).
#include "ops/families.h"
#include "ops/slice_index.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

struct SliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

SliceMasks read_masks(const Attrs& a) {
  return {a.get_or("begin_mask", int64_t{0}), a.get_or("end_mask", int64_t{0}), a.get_or("ellipsis_mask", int64_t{0}),
          a.get_or("new_axis_mask", int64_t{0}), a.get_or("shrink_axis_mask", int64_t{0})};
}

Attrs masks_attrs(const SliceMasks& m) {
  return Attrs{{"begin_mask", m.begin},
               {"end_mask", m.end},
               {"ellipsis_mask", m.ellipsis},
               {"new_axis_mask", m.new_axis},
               {"shrink_axis_mask", m.shrink}};
}

// The region a strided slice reads, per input dimension, and the output shape.
struct SliceRegion {
  std::vector<int64_t> begin, size, stride;  // per input dim (size -1: unknown)
  std::vector<int64_t> final_shape;          // with new axes, without shrunk dims (-1: unknown)
};

constexpr int kNewAxis = -1, kShrink = -2;

// b, e, s: begin/end/strides (each nullptr when unknown while tracing); `n` is their length.
// Dims of `in` may be unknown (-1) while tracing. Dims an ellipsis covers, and dims masked at
// both ends with a known stride, keep their size even when other values are unknown.
SliceRegion strided_region(const Shape& in, const std::vector<int64_t>* b, const std::vector<int64_t>* e,
                           const std::vector<int64_t>* s, int64_t n, SliceMasks m) {
  int64_t ell = m.ellipsis;
  if (ell & (ell - 1)) throw_error(Code::InvalidArgument, "Multiple ellipses in slice spec not allowed");
  int64_t sparse = n;
  if (!ell) {
    ell = int64_t{1} << sparse;
    ++sparse;
  }
  int64_t after_ellipsis = 0;
  bool seen = false;
  for (int64_t i = 0; i < sparse; ++i) {
    if ((ell >> i) & 1)
      seen = true;
    else if (seen && ((m.new_axis >> i) & 1))
      ++after_ellipsis;
  }
  int rank = in.rank();
  // Dense spec: one entry per input dim.
  std::vector<int64_t> db(rank, 0), de(rank, 0), ds(rank, 1);
  std::vector<char> bm(rank, 0), em(rank, 0), sh(rank, 0);
  std::vector<char> bk(rank, 1), ek(rank, 1), sk(rank, 1);  // value known (ellipsis dims: yes)
  std::vector<int> gather;                                  // output dims: input dim, kNewAxis or kShrink
  int full = 0;
  for (int64_t i = 0; i < sparse; ++i) {
    if ((ell >> i) & 1) {
      int64_t next = std::min<int64_t>(rank - (sparse - i) + 1 + after_ellipsis, rank);
      for (; full < next; ++full) {
        bm[full] = em[full] = 1;
        gather.push_back(full);
      }
    } else if ((m.new_axis >> i) & 1) {
      gather.push_back(kNewAxis);
    } else {
      if (full == rank)
        throw_error(Code::InvalidArgument, "Index out of range using input dim ", full, "; input has only ", rank,
                    " dims");
      bk[full] = b != nullptr;
      ek[full] = e != nullptr;
      sk[full] = s != nullptr;
      if (b) db[full] = (*b)[i];
      if (e) de[full] = (*e)[i];
      if (s) ds[full] = (*s)[i];
      bm[full] = (m.begin >> i) & 1;
      em[full] = (m.end >> i) & 1;
      sh[full] = (m.shrink >> i) & 1;
      gather.push_back(sh[full] ? kShrink : full);
      ++full;
    }
  }
  SliceRegion r;
  r.begin.assign(rank, 0);
  r.size.assign(rank, -1);
  r.stride.assign(rank, 1);
  for (int i = 0; i < rank; ++i) {
    int64_t dim = in[i], st = ds[i];
    if (sk[i] && st == 0) throw_error(Code::InvalidArgument, "strides[", i, "] must be non-zero");
    if (sh[i]) {
      if (sk[i] && st < 0) throw_error(Code::InvalidArgument, "only stride 1 allowed on non-range indexing.");
      r.size[i] = 1;
      if (bk[i] && dim >= 0) {
        int64_t x = db[i] < 0 ? db[i] + dim : db[i];
        if (x < 0 || x >= dim)
          throw_error(Code::InvalidArgument, "slice index ", x, " of dimension ", i,
                      " out of bounds.");  // TF: after + dim
        r.begin[i] = x;
      }
      continue;
    }
    if (!sk[i] || dim < 0 || (!bk[i] && !bm[i]) || (!ek[i] && !em[i])) continue;
    r.stride[i] = st;
    auto canon = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return st > 0 ? (is_begin ? 0 : dim) : (is_begin ? dim - 1 : -1);
      if (x < 0) x += dim;
      return st > 0 ? std::min(std::max<int64_t>(x, 0), dim) : std::min(std::max<int64_t>(x, -1), dim - 1);
    };
    int64_t lo = canon(db[i], bm[i], true), hi = canon(de[i], em[i], false);
    int64_t len = st > 0 ? (hi > lo ? (hi - lo + st - 1) / st : 0) : (lo > hi ? (lo - hi + (-st) - 1) / (-st) : 0);
    r.begin[i] = lo;
    r.size[i] = len;
  }
  for (int g : gather) {
    if (g == kNewAxis)
      r.final_shape.push_back(1);
    else if (g != kShrink)
      r.final_shape.push_back(r.size[g]);
  }
  return r;
}

EagerPtr slice_region(const EagerPtr& x, const SliceRegion& r) {
  const auto& dims = x->shape().dims();
  auto in_strides = row_major_strides(dims);
  int64_t offset = 0;
  for (size_t i = 0; i < dims.size(); ++i) offset += r.begin[i] * in_strides[i];
  Shape out_shape(r.final_shape);
  // A contiguous region (leading dims of size 1, one partial dim, full dims after) is a view.
  bool contiguous = x->dtype() != DType::String;
  size_t d = 0;
  while (d < dims.size() && r.size[d] == 1) ++d;
  if (d < dims.size() && r.stride[d] != 1 && r.size[d] > 1) contiguous = false;
  for (size_t k = d + 1; k < dims.size(); ++k)
    if (r.size[k] != dims[k] || r.stride[k] != 1) contiguous = false;
  if (contiguous && out_shape.num_elements() > 0) return view_of(x, offset, out_shape);
  auto out = make_tensor(x->dtype(), out_shape);
  if (out->num_elements() == 0) return out;
  std::vector<int64_t> src_strides(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) src_strides[i] = in_strides[i] * r.stride[i];
  visit_move(x->dtype(), [&](auto tag) {
    using T = decltype(tag);
    strided_copy(elems<T>(*x) + offset, src_strides, elems<T>(*out), row_major_strides(r.size), r.size);
    return 0;
  });
  return out;
}

void check_spec_tensors(const std::vector<TensorSpec>& in, size_t first) {
  const Shape &b = in[first].shape, &e = in[first + 1].shape, &s = in[first + 2].shape;
  auto bad = [](const Shape& x) { return x.has_rank() && x.rank() != 1; };
  if (bad(b) || bad(e) || bad(s) ||
      (b.rank() == 1 && e.rank() == 1 && s.rank() == 1 && b[0] >= 0 && e[0] >= 0 && s[0] >= 0 &&
       (b[0] != e[0] || b[0] != s[0])))
    throw_error(Code::InvalidArgument, "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
                tf_shape(b), ", ", tf_shape(e), ", and ", tf_shape(s), " instead.");
}

// ---- StridedSlice ----

std::vector<TensorSpec> strided_slice_infer(const InferContext& c) {
  return graph_rule(
      c, "StridedSlice",
      [&] {
        DType d = c.inputs[0].dtype;
        check_spec_tensors(c.inputs, 1);
        const Shape& in = c.inputs[0].shape;
        const Shape& bs = c.inputs[1].shape;
        if (!in.has_rank() || !bs.has_rank() || bs[0] < 0) return one(d, Shape::unknown_rank());
        std::vector<int64_t> v[3];
        for (int i = 0; i < 3; ++i)
          if (c.value(i + 1)) v[i] = read_int_list(*c.value(i + 1));
        auto opt = [&](int i) { return c.value(i + 1) ? &v[i] : nullptr; };
        SliceRegion r = strided_region(in, opt(0), opt(1), opt(2), bs[0], read_masks(c.attrs));
        return one(d, Shape(r.final_shape));
      },
      "strided_slice");
}

// x[i] on a non-empty, non-string tensor with i in bounds (negative counts from the end): the view
// slice_region makes, without strided_region's vectors (a loop body's xs[t], every iteration);
// nullptr otherwise (the general path raises TF's error).
EagerPtr row_view(const EagerPtr& xp, int64_t i) {
  const EagerTensor& x = *xp;
  if (x.dtype() == DType::String || x.shape().rank() < 1 || x.num_elements() == 0) return nullptr;
  const int64_t dim = x.shape()[0];
  if (i < 0) i += dim;
  if (i < 0 || i >= dim) return nullptr;
  const auto& dims = x.shape().dims();
  return view_of(xp, i * (x.num_elements() / dim), Shape(std::vector<int64_t>(dims.begin() + 1, dims.end())));
}

int64_t index_scalar(const EagerTensor& t) {
  return t.dtype() == DType::Int64 ? t.data<int64_t>()[0] : static_cast<int64_t>(t.data<int32_t>()[0]);
}

// x[i] as StridedSlice spells it (one spec entry: shrink, stride 1, no masks): row_view.
EagerPtr index_view(const std::vector<EagerPtr>& in, const SliceMasks& m) {
  if (m.shrink != 1 || m.begin || m.end || m.ellipsis || m.new_axis) return nullptr;
  for (int i = 1; i < 4; ++i)
    if (in[i]->shape().rank() != 1 || in[i]->num_elements() != 1 ||
        (in[i]->dtype() != DType::Int32 && in[i]->dtype() != DType::Int64))
      return nullptr;
  if (index_scalar(*in[3]) != 1) return nullptr;
  return row_view(in[0], index_scalar(*in[1]));
}

std::vector<EagerPtr> strided_slice_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  for (int i = 1; i < 4; ++i) check_index_type("StridedSlice", "Index", in[i]->dtype());
  if (EagerPtr v = index_view(in, read_masks(k.attrs))) return {v};
  check_spec_tensors({in[0]->spec(), in[1]->spec(), in[2]->spec(), in[3]->spec()}, 1);
  auto b = read_int_list(*in[1]), e = read_int_list(*in[2]), s = read_int_list(*in[3]);
  SliceRegion r = strided_region(in[0]->shape(), &b, &e, &s, static_cast<int64_t>(b.size()), read_masks(k.attrs));
  return {slice_region(in[0], r)};
}

// _StridedSliceIndex(x, index) (ops/slice_index.h): the row's view for x[index], else the
// region StridedSlice computes from a begin of `num_indices` entries, `index` at `index_axis` and 0
// elsewhere (those entries are under begin_mask), strides of 1 (and its errors): a shrunk axis
// ignores end, as in TF.
std::vector<EagerPtr> strided_slice_index_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor& index = *in[1];
  check_index_type("StridedSlice", "Index", index.dtype());
  const int64_t i = index_scalar(index);
  const int64_t axis = k.attrs.get_or<int64_t>("index_axis", 0), n = k.attrs.get_or<int64_t>("num_indices", 1);
  if (axis < 0 || axis >= n) throw_error(Code::Internal, "_StridedSliceIndex: index_axis ", axis, " of ", n);
  if (n == 1)
    if (EagerPtr v = row_view(in[0], i)) return {v};
  std::vector<int64_t> b(static_cast<size_t>(n), 0), s(static_cast<size_t>(n), 1);
  b[static_cast<size_t>(axis)] = i;
  return {slice_region(in[0], strided_region(in[0]->shape(), &b, &b, &s, n, read_masks(k.attrs)))};
}

std::vector<TensorPtr> strided_slice_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return {nullptr, nullptr, nullptr, nullptr};
  TensorPtr shape = shape_tensor(g.inputs[0], g.inputs[1]->dtype());
  return {dispatch1("StridedSliceGrad", {shape, g.inputs[1], g.inputs[2], g.inputs[3], dy},
                    masks_attrs(read_masks(g.attrs))),
          nullptr, nullptr, nullptr};
}

// ---- StridedSliceGrad(shape, begin, end, strides, dy) ----

std::vector<TensorSpec> strided_slice_grad_infer(const InferContext& c) {
  return one(c.inputs[4].dtype, shape_input(c, 0));
}

std::vector<EagerPtr> strided_slice_grad_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  Shape shape(read_int_list(*in[0]));
  auto b = read_int_list(*in[1]), e = read_int_list(*in[2]), s = read_int_list(*in[3]);
  SliceRegion r = strided_region(shape, &b, &e, &s, static_cast<int64_t>(b.size()), read_masks(k.attrs));
  const EagerPtr& dy = in[4];
  if (prod(r.final_shape) != dy->num_elements())
    throw_error(Code::InvalidArgument, "shape of dy was ", tf_shape(dy->shape()), " instead of ",
                tf_shape(Shape(r.final_shape)));
  auto out = make_tensor(dy->dtype(), shape);
  const auto& dims = shape.dims();
  auto strides = row_major_strides(dims);
  int64_t offset = 0;
  std::vector<int64_t> dst_strides(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    offset += r.begin[i] * strides[i];
    dst_strides[i] = strides[i] * r.stride[i];
  }
  visit_move(dy->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = elems<T>(*out);
    std::fill(o, o + out->num_elements(), T{});
    if (dy->num_elements() > 0) strided_copy(elems<T>(*dy), row_major_strides(r.size), o + offset, dst_strides, r.size);
    return 0;
  });
  return {out};
}

// ---- Slice(input, begin, size) ----

SliceRegion slice_spec(const Shape& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& size) {
  SliceRegion r;
  int rank = in.rank();
  if (static_cast<int64_t>(begin.size()) != rank || static_cast<int64_t>(size.size()) != rank)
    throw_error(Code::InvalidArgument, "Expected begin and size arguments to be 1-D tensors of size ", rank,
                ", but got shapes [", begin.size(), "] and [", size.size(), "] instead.");
  for (int i = 0; i < rank; ++i) {
    int64_t dim = in[i], b = begin[i], s = size[i];
    if (dim >= 0) {
      if (s == -1) s = dim - b;
      if (b < 0 || b > dim)
        throw_error(Code::InvalidArgument, "Expected begin[", i, "] in [0, ", dim, "], but got ", b);
      if (s < 0 || s > dim - b)
        throw_error(Code::InvalidArgument, "Expected size[", i, "] in [0, ", dim - b, "], but got ", s);
    } else if (s == -1) {
      s = Shape::kUnknown;
    }
    r.begin.push_back(b);
    r.size.push_back(s);
    r.stride.push_back(1);
  }
  r.final_shape = r.size;
  return r;
}

std::vector<TensorSpec> slice_infer(const InferContext& c) {
  DType d = c.inputs[0].dtype;
  const Shape &in = c.inputs[0].shape, &bs = c.inputs[1].shape, &ss = c.inputs[2].shape;
  auto fail = [&](const std::string& msg) {
    throw_error(Code::ValueError, msg, " for '{{node Slice}} = Slice[]' with input shapes: ", tf_shapes(c.inputs), ".");
  };
  if (bs.has_rank() && bs.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(bs.rank()));
  if (ss.has_rank() && ss.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(ss.rank()));
  if (bs.rank() == 1 && ss.rank() == 1 && bs[0] >= 0 && ss[0] >= 0 && bs[0] != ss[0])
    fail("Dimension 0 in both shapes must be equal, but are " + std::to_string(bs[0]) + " and " +
         std::to_string(ss[0]) + ". Shapes are [" + std::to_string(bs[0]) + "] and [" + std::to_string(ss[0]) + "].");
  int rank = in.rank();
  if (rank >= 0 && ss.rank() == 1 && ss[0] >= 0 && ss[0] != rank)
    fail("Shape must be rank " + std::to_string(ss[0]) + " but is rank " + std::to_string(rank));
  if (rank >= 0 && bs.rank() == 1 && bs[0] >= 0 && bs[0] != rank)
    fail("Shape must be rank " + std::to_string(bs[0]) + " but is rank " + std::to_string(rank));
  if (rank < 0 && bs.rank() == 1) rank = static_cast<int>(bs[0]);
  if (rank < 0) return one(d, Shape::unknown_rank());
  if (!c.value(1) || !c.value(2) || !in.has_rank()) {
    std::vector<int64_t> out(rank, Shape::kUnknown);
    if (c.value(2)) {
      auto sz = read_int_list(*c.value(2));
      for (int i = 0; i < rank && i < static_cast<int>(sz.size()); ++i)
        if (sz[i] >= 0) out[i] = sz[i];
    }
    return one(d, Shape(out));
  }
  return graph_rule(c, "Slice", [&] {
    return one(d, Shape(slice_spec(in, read_int_list(*c.value(1)), read_int_list(*c.value(2))).final_shape));
  });
}

std::vector<EagerPtr> slice_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_index_type("Slice", "Index", in[1]->dtype());
  int rank = in[0]->shape().rank();
  const Shape &bs = in[1]->shape(), &ss = in[2]->shape();
  if (bs.rank() != 1 || ss.rank() != 1 || bs[0] != rank || ss[0] != rank)
    throw_error(Code::InvalidArgument, "Expected begin and size arguments to be 1-D tensors of size ", rank,
                ", but got shapes ", tf_shape(bs), " and ", tf_shape(ss), " instead.");
  return {slice_region(in[0], slice_spec(in[0]->shape(), read_int_list(*in[1]), read_int_list(*in[2])))};
}

std::vector<TensorPtr> slice_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return {nullptr, nullptr, nullptr};
  const TensorPtr& begin = g.inputs[1];
  DType it = begin->dtype();
  TensorPtr end;
  EagerPtr bv = known_value(begin);
  if (bv && dy->shape().is_fully_defined()) {
    auto b = read_int_list(*bv);
    for (size_t i = 0; i < b.size(); ++i) b[i] += dy->shape()[static_cast<int>(i)];
    end = const_tensor(int_vector(it, b));
  } else {
    end = dispatch1("AddV2", {begin, shape_tensor(dy, it)});
  }
  int r = g.inputs[0]->shape().rank();
  TensorPtr ones = r >= 0 ? const_tensor(int_vector(it, std::vector<int64_t>(r, 1))) : dispatch1("OnesLike", {begin});
  return {dispatch1("StridedSliceGrad", {shape_tensor(g.inputs[0], it), begin, end, ones, dy}), nullptr, nullptr};
}

// Partial value of a slice of a 1-D shape vector (shape(x)[0], shape(x)[1:], ...).
Shape strided_slice_partial(const InferContext& c) {
  if (c.inputs[0].shape.rank() != 1 || !c.value(1) || !c.value(2) || !c.value(3)) return Shape::unknown_rank();
  Shape p = c.partial_value(0);
  if (!p.has_rank()) return Shape::unknown_rank();
  auto b = read_int_list(*c.value(1)), e = read_int_list(*c.value(2)), s = read_int_list(*c.value(3));
  SliceMasks m = read_masks(c.attrs);
  if (m.new_axis) return Shape::unknown_rank();
  SliceRegion r = strided_region(Shape{p.rank()}, &b, &e, &s, static_cast<int64_t>(b.size()), m);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < r.size[0]; ++k) out.push_back(p[static_cast<int>(r.begin[0] + k * r.stride[0])]);
  return Shape(out);  // a shrunk (scalar) slice is its one element
}

}  // namespace

const OpDef& strided_slice_index_op() {
  static const OpDef def{"_StridedSliceIndex",
                         "strided_slice",
                         2,
                         [](const InferContext& c) {
                           const Shape& x = c.inputs[0].shape;
                           const int64_t axis = c.attrs.get_or<int64_t>("index_axis", 0);
                           if (!x.has_rank() || x.rank() <= axis) return one(c.inputs[0].dtype, Shape::unknown_rank());
                           std::vector<int64_t> dims = x.dims();
                           dims.erase(dims.begin() + axis);
                           return one(c.inputs[0].dtype, Shape(dims));
                         },
                         strided_slice_index_kernel,
                         {}};
  return def;
}

void register_slice_ops(OpRegistry& r) {
  r.add(OpDef{"Slice", "Slice", 3, slice_infer, slice_kernel, slice_grad}.with_input_types(
      {{1, "begin", "Index", kIndexDTypes}, {2, "size", "Index", kIndexDTypes}}));
  r.add(OpDef{"StridedSlice", "strided_slice", 4, strided_slice_infer, strided_slice_kernel, strided_slice_grad}
            .with_input_types({{1, "begin", "Index", kIndexDTypes},
                               {2, "end", "Index", kIndexDTypes},
                               {3, "strides", "Index", kIndexDTypes}}))
      .partial = strided_slice_partial;
  r.add(OpDef{"StridedSliceGrad", "StridedSliceGrad", 5, strided_slice_grad_infer, strided_slice_grad_kernel,
              [](const GradContext& g) {
                std::vector<TensorPtr> out(5);
                if (g.out_grads[0])
                  out[4] = dispatch1("StridedSlice", {g.out_grads[0], g.inputs[1], g.inputs[2], g.inputs[3]},
                                     masks_attrs(read_masks(g.attrs)));
                return out;
              }});
}

}  // namespace fn
