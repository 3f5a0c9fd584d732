// Shape ops: Reshape, Transpose (+ InvertPermutation), ExpandDims, Squeeze, Shape, Size, Rank,
// StopGradient, Tile, Pad/PadV2 (MirrorPad in mirror_pad.cpp). Each rule works on partial shapes and
// uses constant inputs (shape, perm, multiples, paddings) when they are known.
#include <algorithm>
#include <cstring>

#include "kernels/direct/transpose.h"
#include "ops/families.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::vector<TensorSpec> same_spec(const InferContext& c) { return {c.inputs.at(0)}; }

std::vector<int64_t> values_of(const EagerPtr& v) { return v ? read_int_list(*v) : std::vector<int64_t>{}; }

// ---- Reshape ----

Shape reshape_eager(const Shape& in, const std::vector<int64_t>& req) {
  int64_t n = in.num_elements(), known = 1;
  int unknown = -1;
  for (size_t i = 0; i < req.size(); ++i) {
    if (req[i] == -1) {
      if (unknown >= 0)
        throw_error(Code::InvalidArgument, "Only one input size may be -1, not both ", unknown, " and ", i);
      unknown = static_cast<int>(i);
    } else if (req[i] < 0) {
      throw_error(Code::InvalidArgument, "Size ", i, " must be non-negative, not ", req[i]);
    } else if (__builtin_mul_overflow(known, req[i], &known)) {
      std::string txt;
      for (size_t k = 0; k < req.size(); ++k) txt += (k ? ", " : "") + std::to_string(req[k]);
      throw_error(Code::InvalidArgument, "Shape [", txt, "] has too many elements");
    }
  }
  std::vector<int64_t> out = req;
  if (unknown >= 0) {
    if (known == 0 || n % known != 0) {
      if (known == 0)
        throw_error(Code::InvalidArgument,
                    "Reshape cannot infer the missing input size for an empty "
                    "tensor unless all specified input sizes are non-zero");
      throw_error(Code::InvalidArgument, "Input to reshape is a tensor with ", n,
                  " values, but the requested shape requires a multiple of ", known);
    }
    out[unknown] = n / known;
  } else if (known != n) {
    throw_error(Code::InvalidArgument, "Input to reshape is a tensor with ", n, " values, but the requested shape has ",
                known);
  }
  return Shape(out);
}

std::vector<TensorSpec> reshape_infer(const InferContext& c) {
  const Shape& in = c.inputs[0].shape;
  const Shape& ss = c.inputs[1].shape;
  DType d = c.inputs[0].dtype;
  if (ss.rank() > 1)
    throw_error(Code::ValueError, "Shape must be at most rank 1 but is rank ", ss.rank(),
                " for 'Reshape' with input shapes: ", tf_shapes(c.inputs), ".");
  if (!c.value(1)) {
    if (ss.rank() == 0) return one(d, Shape{});
    return one(d, shape_input(c, 1));  // the known elements of shape arithmetic, if any
  }
  std::vector<int64_t> req = values_of(c.value(1));
  int minus = static_cast<int>(std::count(req.begin(), req.end(), -1));
  int64_t known = 1;
  bool overflow = false;
  for (int64_t v : req)
    if (v >= 0) overflow |= __builtin_mul_overflow(known, v, &known);
  auto fail = [&](const std::string& msg) {
    std::string partial;
    for (size_t i = 0; i < req.size(); ++i)
      partial += (i ? "," : "") + (req[i] < 0 ? std::string("?") : std::to_string(req[i]));
    throw_error(Code::ValueError, msg, " for '{{node Reshape}} = Reshape[]' with input shapes: ", tf_shapes(c.inputs),
                " and with input tensors computed as partial shapes: input[1] = [", partial, "].");
  };
  if (overflow) fail("Shape " + tf_shape(Shape(req)) + " has too many elements");
  if (minus > 1) fail("Cannot infer multiple unknown dimensions in shape " + tf_shape(Shape(req)));
  if (in.is_fully_defined()) {
    int64_t n = in.num_elements();
    if (minus == 0 && known != n)
      fail("Cannot reshape a tensor with " + std::to_string(n) + " elements to shape " + tf_shape(Shape(req)) + " (" +
           std::to_string(known) + " elements)");
    if (minus == 1) {
      if (known == 0 ? n != 0 : n % known != 0)
        fail("Dimension size must be evenly divisible by " + std::to_string(known) + " but is " + std::to_string(n));
      for (auto& v : req)
        if (v == -1) v = known == 0 ? 0 : n / known;
    }
  }
  for (auto& v : req)
    if (v < 0) v = Shape::kUnknown;
  return one(d, Shape(req));
}

std::vector<EagerPtr> reshape_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_index_type("Reshape", "Tshape", in[1]->dtype());
  if (in[1]->shape().rank() > 1)
    throw_error(Code::InvalidArgument, "shape must be a vector of {int32,int64}, got shape ", tf_shape(in[1]->shape()));
  return {reshaped(in[0], reshape_eager(in[0]->shape(), read_int_list(*in[1])))};  // shares the buffer
}

std::vector<TensorPtr> reshape_like_input_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  return {dispatch1("Reshape", {g.out_grads[0], shape_tensor(g.inputs[0])}), nullptr};
}

// ---- Transpose ----

std::vector<int64_t> check_perm(const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int>(perm.size()) != rank)
    throw_error(Code::InvalidArgument, "transpose expects a vector of size ", rank,
                ". But input(1) is a vector of size ", perm.size());
  std::vector<char> seen(rank, 0);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank) throw_error(Code::InvalidArgument, p, " is out of range [0 .. ", rank, ")");
    seen[p] = 1;
  }
  for (int i = 0; i < rank; ++i) {
    if (!seen[i]) {
      std::string s = "{";
      for (size_t k = 0; k < perm.size(); ++k) s += (k ? "," : "") + std::to_string(perm[k]);
      throw_error(Code::InvalidArgument, i, " is missing from ", s, "}.");
    }
  }
  return perm;
}

std::vector<TensorSpec> transpose_infer(const InferContext& c) {
  const Shape& in = c.inputs[0].shape;
  DType d = c.inputs[0].dtype;
  const Shape& ps = c.inputs[1].shape;
  int rank = in.rank();
  if (rank < 0 && ps.rank() == 1 && ps[0] >= 0) rank = static_cast<int>(ps[0]);
  if (rank >= 0 && ps.rank() == 1 && ps[0] >= 0 && ps[0] != rank)
    throw_error(Code::ValueError, "Dimension must be ", rank, " but is ", ps[0],
                " for '{{node transpose}} = Transpose[]' with input shapes: ", tf_shapes(c.inputs), ".");
  if (rank < 0) return one(d, Shape::unknown_rank());
  if (!c.value(1)) return one(d, Shape(std::vector<int64_t>(rank, Shape::kUnknown)));
  auto perm = values_of(c.value(1));
  for (int64_t p : perm)
    if (p < 0 || p >= rank)
      throw_error(Code::ValueError, "perm dim ", p, " is out of range of input rank ", rank,
                  " for '{{node transpose}} = Transpose[]' with input shapes: ", tf_shapes(c.inputs), ".");
  std::vector<int64_t> out(rank, Shape::kUnknown);
  if (in.has_rank())
    for (int i = 0; i < rank; ++i) out[i] = in[static_cast<int>(perm[i])];
  return one(d, Shape(out));
}

}  // namespace

EagerPtr transpose(const EagerPtr& x, const std::vector<int64_t>& perm) {
  const auto& dims = x->shape().dims();
  int r = static_cast<int>(dims.size());
  std::vector<int64_t> out_dims(r), src_strides(r);
  auto in_strides = row_major_strides(dims);
  bool identity = true;
  for (int i = 0; i < r; ++i) {
    out_dims[i] = dims[perm[i]];
    src_strides[i] = in_strides[perm[i]];
    identity &= perm[i] == i;
  }
  if (identity) return x;
  auto out = make_tensor(x->dtype(), Shape(out_dims));
  if (x->dtype() != DType::String) {
    direct::transpose_copy(x->raw(), out->raw(), dtype_size(x->dtype()), dims, perm);
    return out;
  }
  auto dst_strides = row_major_strides(out_dims);
  visit_move(x->dtype(), [&](auto tag) {
    using T = decltype(tag);
    strided_copy(elems<T>(*x), src_strides, elems<T>(*out), dst_strides, out_dims);
    return 0;
  });
  return out;
}

namespace {

std::vector<EagerPtr> transpose_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_index_type("Transpose", "Tperm", in[1]->dtype());
  if (in[1]->shape().rank() != 1)
    throw_error(Code::InvalidArgument, "perm must be rank 1, got shape ", tf_shape(in[1]->shape()));
  auto perm = check_perm(read_int_list(*in[1]), in[0]->shape().rank());
  return {transpose(in[0], perm)};
}

std::vector<int64_t> invert(const std::vector<int64_t>& p) {
  std::vector<int64_t> inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
  return inv;
}

std::vector<TensorPtr> transpose_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  TensorPtr inv;
  if (EagerPtr p = known_value(g.inputs[1]))
    inv = const_tensor(int_vector(p->dtype(), invert(read_int_list(*p))));
  else
    inv = dispatch1("InvertPermutation", {g.inputs[1]});
  return {dispatch1("Transpose", {g.out_grads[0], inv}), nullptr};
}

// ---- ExpandDims / Squeeze ----

int64_t expand_axis(int64_t dim, int rank) {
  if (dim < -rank - 1 || dim > rank)
    throw_error(Code::InvalidArgument, "Tried to expand dim index ", dim, " for tensor with ", rank, " dimensions.");
  return dim < 0 ? dim + rank + 1 : dim;
}

int64_t scalar_value(const EagerTensor& t, const std::string& what) {
  if (t.num_elements() != 1) throw_error(Code::InvalidArgument, "'", what, "' must be a tensor with a single value");
  return t.scalar_as_int(0);
}

std::vector<TensorSpec> expand_dims_infer(const InferContext& c) {
  const Shape& in = c.inputs[0].shape;
  DType d = c.inputs[0].dtype;
  if (!in.has_rank()) return one(d, Shape::unknown_rank());
  int r = in.rank();
  if (!c.value(1)) return one(d, Shape(std::vector<int64_t>(r + 1, Shape::kUnknown)));
  int64_t dim = scalar_value(*c.value(1), "dim");
  if (dim < -r - 1 || dim > r)
    throw_error(Code::ValueError, "dim ", dim, " not in the interval [", -r - 1, ", ", r,
                "]. for "
                "'{{node ExpandDims}} = ExpandDims[]' with input shapes: ",
                tf_shapes(c.inputs), ".");
  auto dims = in.dims();
  dims.insert(dims.begin() + (dim < 0 ? dim + r + 1 : dim), 1);
  return one(d, Shape(dims));
}

std::vector<EagerPtr> expand_dims_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_index_type("ExpandDims", "Tdim", in[1]->dtype());
  int64_t dim = expand_axis(scalar_value(*in[1], "dim"), in[0]->shape().rank());
  auto dims = in[0]->shape().dims();
  dims.insert(dims.begin() + dim, 1);
  std::vector<EagerPtr> ins{in[0], int_vector(DType::Int64, dims)};
  KernelContext k{Attrs{}, "ExpandDims"};
  return reshape_kernel(k, ins);
}

// Squeezed shape; `eager` selects TF's kernel messages over its shape-function ones.
Shape squeeze_shape(const Shape& in, const std::vector<int64_t>& sq, bool eager) {
  if (!in.has_rank()) return Shape::unknown_rank();
  int r = in.rank();
  std::vector<char> drop(r, 0);
  for (size_t k = 0; k < sq.size(); ++k) {
    int64_t a = sq[k];
    if (a < -r || a >= r) {
      if (eager)
        throw_error(Code::InvalidArgument, "Tried to squeeze dim index ", a, " for tensor with ", r, " dimensions.");
      throw_error(Code::InvalidArgument, "squeeze_dims[", k, "] not in [", -r, ",", r, ").");
    }
    if (a < 0) a += r;
    if (in[a] >= 0 && in[a] != 1)
      throw_error(Code::InvalidArgument, "Can not squeeze dim[", a, "], expected a dimension of 1, got ", in[a]);
    drop[a] = 1;
  }
  std::vector<int64_t> out;
  for (int i = 0; i < r; ++i) {
    if (sq.empty()) {
      if (in[i] < 0) return Shape::unknown_rank();
      if (in[i] == 1) continue;
    } else if (drop[i]) {
      continue;
    }
    out.push_back(in[i]);
  }
  return Shape(out);
}

std::vector<int64_t> squeeze_dims(const Attrs& a) { return a.get_or("squeeze_dims", std::vector<int64_t>{}); }

// ---- Shape / Size / Rank ----

DType out_type(const Attrs& a) {
  DType d = a.get_or("out_type", DType::Int32);
  check_index_type("Shape", "out_type", d);
  return d;
}

// ---- Tile ----

std::vector<int64_t> check_multiples(const EagerTensor& m, int rank) {
  if (m.shape().rank() != 1 || m.shape()[0] != rank)
    throw_error(Code::InvalidArgument, "Expected multiples argument to be a vector of length ", rank,
                " but got length ", m.shape().rank() == 1 ? m.shape()[0] : m.num_elements());
  auto v = read_int_list(m);
  for (int i = 0; i < rank; ++i)
    if (v[i] < 0) throw_error(Code::InvalidArgument, "Expected multiples[", i, "] >= 0, but got ", v[i]);
  return v;
}

std::vector<TensorSpec> tile_infer(const InferContext& c) {
  const Shape& in = c.inputs[0].shape;
  const Shape& ms = c.inputs[1].shape;
  DType d = c.inputs[0].dtype;
  if (ms.has_rank() && ms.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", ms.rank(),
                " for '{{node Tile}} = Tile[]' with input shapes: ", tf_shapes(c.inputs), ".");
  int rank = in.rank();
  if (rank >= 0 && ms.rank() == 1 && ms[0] >= 0 && ms[0] != rank)
    throw_error(Code::ValueError, "Shape must be rank ", rank, " but is rank ", ms[0],
                " for '{{node Tile}} = Tile[]' with input shapes: ", tf_shapes(c.inputs), ".");
  if (rank < 0 && ms.rank() == 1) rank = static_cast<int>(ms[0]);
  if (rank < 0) return one(d, Shape::unknown_rank());
  std::vector<int64_t> out(rank, Shape::kUnknown);
  auto mv = values_of(c.value(1));
  for (int i = 0; i < rank; ++i) {
    int64_t o;
    if (!mv.empty() && in.has_rank() && in[i] >= 0 && mv[i] >= 0 && !__builtin_mul_overflow(in[i], mv[i], &o))
      out[i] = o;
    if (!mv.empty() && mv[i] == 0) out[i] = 0;
  }
  return one(d, Shape(out));
}

template <typename T>
void tile_rec(const T* src, T* dst, const std::vector<int64_t>& in, const std::vector<int64_t>& mult,
              const std::vector<int64_t>& in_strides, const std::vector<int64_t>& out_strides, size_t d) {
  // Writes the tiled block for dimension d onwards at dst.
  if (d + 1 == in.size()) {
    for (int64_t m = 0; m < mult[d]; ++m) std::copy(src, src + in[d], dst + m * in[d]);
    return;
  }
  for (int64_t i = 0; i < in[d]; ++i)
    tile_rec(src + i * in_strides[d], dst + i * out_strides[d], in, mult, in_strides, out_strides, d + 1);
  int64_t block = in[d] * out_strides[d];
  for (int64_t m = 1; m < mult[d]; ++m) std::copy(dst, dst + block, dst + m * block);
}

std::vector<EagerPtr> tile_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_index_type("Tile", "Tmultiples", in[1]->dtype());
  const auto& dims = in[0]->shape().dims();
  auto mult = check_multiples(*in[1], static_cast<int>(dims.size()));
  std::vector<int64_t> out_dims(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    if (__builtin_mul_overflow(dims[i], mult[i], &out_dims[i]))
      throw_error(Code::InvalidArgument, "Tile output dimension ", i, " (", dims[i], " * ", mult[i],
                  ") would have more than 2**63 - 1 elements");
  if (dims.empty() || out_dims == dims) return {in[0]};  // TF's TileOp forwards its input first
  auto out = make_tensor(in[0]->dtype(), Shape(out_dims));
  if (out->num_elements() == 0) return {out};
  if (in[0]->dtype() == DType::UInt16)  // TF 2.21 instantiates Tile for every dtype but uint16
    throw_error(Code::Unimplemented,
                "TileOp : The input data type is not supported, DataType : uint16, Dimension : ", dims.size());
  visit_move(in[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    tile_rec(elems<T>(*in[0]), elems<T>(*out), dims, mult, row_major_strides(dims), row_major_strides(out_dims), 0);
    return 0;
  });
  return {out};
}

// d(tile)/dx: sum the gradient over the copies: reshape to [m0, d0, m1, d1, ...] and sum over
// the even axes (TensorFlow's rule).
std::vector<TensorPtr> tile_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return {nullptr, nullptr};
  const TensorPtr& x = g.inputs[0];
  if (!x->shape().has_rank()) throw_error(Code::Unimplemented, "gradient of Tile with unknown rank");
  int r = x->shape().rank();
  DType it = g.inputs[1]->dtype();
  TensorPtr split_shape;
  EagerPtr mv = known_value(g.inputs[1]);
  if (mv && x->shape().is_fully_defined()) {
    auto m = read_int_list(*mv);
    std::vector<int64_t> s;
    for (int i = 0; i < r; ++i) {
      s.push_back(m[i]);
      s.push_back(x->shape()[i]);
    }
    split_shape = const_tensor(int_vector(it, s));
  } else {
    TensorPtr both =
        dispatch1("Pack", {g.inputs[1], shape_tensor(x, it)}, Attrs{{"axis", int64_t{1}}, {"N", int64_t{2}}});
    split_shape = dispatch1("Reshape", {both, const_tensor(int_vector(DType::Int32, {-1}))});
  }
  std::vector<int64_t> axes;
  for (int i = 0; i < r; ++i) axes.push_back(2 * i);
  TensorPtr reshaped_dy = dispatch1("Reshape", {dy, split_shape});
  if (r == 0) return {reshaped_dy, nullptr};
  return {dispatch1("Sum", {reshaped_dy, const_tensor(int_vector(DType::Int32, axes))}, Attrs{{"keep_dims", false}}),
          nullptr};
}

// ---- Pad / PadV2 ----

std::vector<std::pair<int64_t, int64_t>> check_paddings(const EagerTensor& p, const Shape& in) {
  int r = in.rank();
  if (p.shape().rank() != 2 || p.shape()[0] != r || p.shape()[1] != 2)
    throw_error(Code::InvalidArgument, "The first dimension of paddings must be the rank of inputs",
                tf_shape(p.shape()), " ", tf_shape(in));
  auto v = read_int_list(p);
  std::vector<std::pair<int64_t, int64_t>> out(r);
  for (int i = 0; i < r; ++i) {
    out[i] = {v[2 * i], v[2 * i + 1]};
    if (out[i].first < 0 || out[i].second < 0)
      throw_error(Code::InvalidArgument, "Paddings must be non-negative: ", out[i].first, " ", out[i].second);
  }
  return out;
}

}  // namespace

// TF's PadShapeFn, shared by Pad, PadV2 and MirrorPad (`op` names the node in messages).
std::vector<TensorSpec> pad_shape_rule(const InferContext& c, const std::string& op) {
  const Shape& in = c.inputs[0].shape;
  const Shape& ps = c.inputs[1].shape;
  DType d = c.inputs[0].dtype;
  auto fail = [&](const std::string& msg) {
    throw_error(Code::ValueError, msg, " for '{{node ", op, "}} = ", op, "[]' with input shapes: ", tf_shapes(c.inputs),
                ".");
  };
  if (ps.has_rank() && ps.rank() != 2) fail("Shape must be rank 2 but is rank " + std::to_string(ps.rank()));
  if (ps.has_rank() && ps[1] >= 0 && ps[1] != 2) fail("Dimension must be 2 but is " + std::to_string(ps[1]));
  int rank = in.rank();
  if (rank >= 0 && ps.has_rank() && ps[0] >= 0 && ps[0] != rank)
    fail("Shape must be rank " + std::to_string(ps[0]) + " but is rank " + std::to_string(rank));
  if (rank < 0 && ps.has_rank() && ps[0] >= 0) rank = static_cast<int>(ps[0]);
  if (rank < 0) return one(d, Shape::unknown_rank());
  if (c.inputs.size() > 2 && c.inputs[2].shape.rank() > 0)
    fail("Shape must be rank 0 but is rank " + std::to_string(c.inputs[2].shape.rank()));
  std::vector<int64_t> out(rank, Shape::kUnknown);
  if (c.value(1)) {
    auto v = read_int_list(*c.value(1));
    for (int i = 0; i < rank; ++i) {
      if (v[2 * i] < 0 || v[2 * i + 1] < 0) fail("Paddings must be non-negative");
      if (in.has_rank() && in[i] >= 0) out[i] = in[i] + v[2 * i] + v[2 * i + 1];
    }
  }
  return one(d, Shape(out));
}

namespace {

std::vector<TensorSpec> pad_infer(const InferContext& c) { return pad_shape_rule(c, "Pad"); }

std::vector<EagerPtr> pad_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerPtr& x = in[0];
  check_index_type("Pad", "Tpaddings", in[1]->dtype());
  auto pads = check_paddings(*in[1], x->shape());
  if (in.size() > 2) {
    if (in[2]->shape().rank() != 0)
      throw_error(Code::InvalidArgument, "constant_values must be a scalar. Got: ", tf_shape(in[2]->shape()));
    check_same_dtype_eager("PadV2", {x, in[2]});
  }
  const auto& dims = x->shape().dims();
  std::vector<int64_t> out_dims(dims.size());
  int64_t offset = 0;
  for (size_t i = 0; i < dims.size(); ++i) out_dims[i] = dims[i] + pads[i].first + pads[i].second;
  auto out_strides = row_major_strides(out_dims);
  for (size_t i = 0; i < dims.size(); ++i) offset += pads[i].first * out_strides[i];
  auto out = make_tensor(x->dtype(), Shape(out_dims));
  visit_move(x->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = elems<T>(*out);
    std::fill(o, o + out->num_elements(), in.size() > 2 ? elems<T>(*in[2])[0] : T{});
    if (x->num_elements() > 0) strided_copy(elems<T>(*x), row_major_strides(dims), o + offset, out_strides, dims);
    return 0;
  });
  return {out};
}

// d(pad)/dx is the slice of the gradient where x sits.
std::vector<TensorPtr> pad_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  std::vector<TensorPtr> out(g.inputs.size());
  if (!dy) return out;
  const TensorPtr& x = g.inputs[0];
  DType it = g.inputs[1]->dtype();
  TensorPtr begin;
  if (EagerPtr p = known_value(g.inputs[1])) {
    auto v = read_int_list(*p);
    std::vector<int64_t> b;
    for (size_t i = 0; i < v.size(); i += 2) b.push_back(v[i]);
    begin = const_tensor(int_vector(it, b));
  } else {
    TensorPtr col =
        dispatch1("Slice", {g.inputs[1], const_tensor(int_vector(it, {0, 0})), const_tensor(int_vector(it, {-1, 1}))});
    begin = dispatch1("Reshape", {col, const_tensor(int_vector(DType::Int32, {-1}))});
  }
  out[0] = dispatch1("Slice", {dy, begin, shape_tensor(x, it)});
  return out;
}

}  // namespace

// MirrorPad / MirrorPadGrad (mirror_pad.cpp) are registered with the shape ops: declared here
// rather than in families.h, whose every includer would recompile.
void register_mirror_pad_ops(OpRegistry& r);

void register_shape_ops(OpRegistry& r) {
  r.add(OpDef{"Reshape", "Reshape", 2, reshape_infer, reshape_kernel, reshape_like_input_grad}
            .with_input_types({{1, "shape", "Tshape", kIndexDTypes}})
            .with_relabels_dims());

  r.add(OpDef{kTransposeOp, "transpose", 2, transpose_infer, transpose_kernel, transpose_grad}
            .with_input_types({{1, "perm", "Tperm", kIndexDTypes}})
            .with_output_args({"y"}));
  r.add(OpDef{"InvertPermutation",
              "InvertPermutation",
              1,
              [](const InferContext& c) { return one(c.inputs[0].dtype, c.inputs[0].shape); },
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                check_index_type("InvertPermutation", "T", in[0]->dtype());
                if (in[0]->shape().rank() != 1)
                  throw_error(Code::InvalidArgument, "invert_permutation expects a 1D vector.");
                auto p = read_int_list(*in[0]);
                int n = static_cast<int>(p.size());
                std::vector<char> seen(n, 0);
                for (int64_t v : p) {
                  if (v < 0 || v >= n) throw_error(Code::InvalidArgument, v, " is not between 0 and ", n);
                  if (seen[v]) throw_error(Code::InvalidArgument, v, " is duplicated in the input.");
                  seen[v] = 1;
                }
                return std::vector<EagerPtr>{int_vector(in[0]->dtype(), invert(p))};
              },
              {}}
            .with_input_types({{0, "x", "T", kIndexDTypes}})
            .with_output_args({"y"}));

  r.add(OpDef{"ExpandDims", "ExpandDims", 2, expand_dims_infer, expand_dims_kernel, reshape_like_input_grad}
            .with_input_types({{1, "dim", "Tdim", kIndexDTypes}})
            .with_relabels_dims());
  r.add(OpDef{
      "Squeeze", "Squeeze", 1,
      [](const InferContext& c) {
        return graph_rule(c, "Squeeze", [&] {
          return one(c.inputs[0].dtype, squeeze_shape(c.inputs[0].shape, squeeze_dims(c.attrs), false));
        });
      },
      [](KernelContext& k, const std::vector<EagerPtr>& in) {
        Shape s = squeeze_shape(in[0]->shape(), squeeze_dims(k.attrs), true);
        std::vector<EagerPtr> ins{in[0], int_vector(DType::Int64, s.dims())};
        return reshape_kernel(k, ins);
      },
      [](const GradContext& g) {
        if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr};
        return std::vector<TensorPtr>{dispatch1("Reshape", {g.out_grads[0], shape_tensor(g.inputs[0])})};
      }}.with_relabels_dims());

  OpDef& shape = r.add(OpDef{"Shape",
                             "Shape",
                             1,
                             [](const InferContext& c) {
                               const Shape& s = c.inputs[0].shape;
                               return one(out_type(c.attrs),
                                          Shape{s.has_rank() ? static_cast<int64_t>(s.rank()) : Shape::kUnknown});
                             },
                             [](KernelContext& k, const std::vector<EagerPtr>& in) {
                               return std::vector<EagerPtr>{int_vector(out_type(k.attrs), in[0]->shape().dims())};
                             },
                             {}});
  shape.shape_only = true;
  shape.partial = [](const InferContext& c) { return c.inputs[0].shape; };
  OpDef& size =
      r.add(OpDef{"Size",
                  "Size",
                  1,
                  [](const InferContext& c) { return one(out_type(c.attrs), Shape{}); },
                  [](KernelContext& k, const std::vector<EagerPtr>& in) {
                    return std::vector<EagerPtr>{int_scalar(out_type(k.attrs), in[0]->shape().num_elements())};
                  },
                  {}});
  size.shape_only = true;
  OpDef& rank = r.add(OpDef{"Rank",
                            "Rank",
                            1,
                            [](const InferContext&) { return one(DType::Int32, Shape{}); },
                            [](KernelContext&, const std::vector<EagerPtr>& in) {
                              return std::vector<EagerPtr>{int_scalar(DType::Int32, in[0]->shape().rank())};
                            },
                            {}});
  rank.shape_only = true;

  r.add(OpDef{
      "StopGradient",
      "StopGradient",
      1,
      same_spec,
      [](KernelContext&, const std::vector<EagerPtr>& in) { return std::vector<EagerPtr>{in[0]}; },
      {}}.with_class(OpClass::Unary, "Identity"));
  r.add(OpDef{"Tile", "Tile", 2, tile_infer, tile_kernel, tile_grad}.with_input_types(
      {{1, "multiples", "Tmultiples", kIndexDTypes}}));
  r.add(OpDef{"Pad", "Pad", 2, pad_infer, pad_kernel, pad_grad}.with_input_types(
      {{1, "paddings", "Tpaddings", kIndexDTypes}}));
  r.add(OpDef{"PadV2", "PadV2", 3, pad_infer, pad_kernel, pad_grad}.with_input_types(
      {{1, "paddings", "Tpaddings", kIndexDTypes}}));
  register_mirror_pad_ops(r);
}

}  // namespace fn
