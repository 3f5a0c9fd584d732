// Data movement along axes: ReverseV2, Roll and BroadcastTo. Each kernel is one strided copy;
// gradients are the same op in reverse (ReverseV2, Roll by -shift) or a sum (BroadcastTo).
#include <algorithm>

#include "kernels/reference/broadcast.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string rule_suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

// ---- ReverseV2 ----

std::vector<bool> reverse_axes(const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> rev(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (a < -rank || a >= rank)
      throw_error(Code::InvalidArgument, "'axis'[", i, "] = ", a, " is out of valid range [0, ", rank - 1);
    if (a < 0) a += rank;
    if (rev[a]) throw_error(Code::InvalidArgument, "axis ", a, " specified more than once.");
    rev[a] = true;
  }
  return rev;
}

std::vector<TensorSpec> reverse_infer(const InferContext& c) {
  const Shape& s = c.inputs[0].shape;
  if (c.inputs[1].shape.rank() >= 0 && c.inputs[1].shape.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", c.inputs[1].shape.rank(),
                rule_suffix("ReverseV2", c));
  if (c.value(1) && s.has_rank())
    graph_rule(c, "ReverseV2", [&] { return reverse_axes(read_int_list(*c.value(1)), s.rank()); });
  return {c.inputs[0]};
}

std::vector<EagerPtr> reverse_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  check_index_type("ReverseV2", "Tidx", in[1]->dtype());
  if (in[1]->shape().rank() != 1)
    throw_error(Code::InvalidArgument, "'dims' must be 1-dimension, not ", in[1]->shape().rank());
  const auto& d = x.shape().dims();
  auto rev = reverse_axes(read_int_list(*in[1]), x.shape().rank());
  auto out = make_tensor(x.dtype(), x.shape());
  if (x.num_elements() == 0) return {out};
  auto st = row_major_strides(d);
  int64_t offset = 0;
  std::vector<int64_t> src_st = st;
  for (size_t i = 0; i < d.size(); ++i)
    if (rev[i]) {
      offset += (d[i] - 1) * st[i];
      src_st[i] = -st[i];
    }
  visit_move(x.dtype(), [&](auto tag) {
    using M = decltype(tag);
    strided_copy(elems<M>(x) + offset, src_st, elems<M>(*out), st, d);
    return 0;
  });
  return {out};
}

std::vector<TensorPtr> reverse_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  return {dispatch1("ReverseV2", {g.out_grads[0], g.inputs[1]}), nullptr};
}

// ---- Roll ----

std::vector<TensorSpec> roll_infer(const InferContext& c) {
  const Shape &sh = c.inputs[1].shape, &ax = c.inputs[2].shape;
  if (sh.rank() > 1)
    throw_error(Code::ValueError, "Shape must be at most rank 1 but is rank ", sh.rank(), rule_suffix("Roll", c));
  if (ax.rank() > 1)
    throw_error(Code::ValueError, "Shape must be at most rank 1 but is rank ", ax.rank(), rule_suffix("Roll", c));
  if (sh.rank() >= 0 && ax.rank() >= 0 && sh.rank() == 1 && ax.rank() == 1 && sh[0] >= 0 && ax[0] >= 0 &&
      sh[0] != ax[0])
    throw_error(Code::ValueError, "Dimensions must be equal, but are ", sh[0], " and ", ax[0], rule_suffix("Roll", c));
  return {c.inputs[0]};
}

std::vector<EagerPtr> roll_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  check_index_type("Roll", "Tshift", in[1]->dtype());
  check_index_type("Roll", "Taxis", in[2]->dtype());
  if (x.shape().rank() < 1) throw_error(Code::InvalidArgument, "input must be 1-D or higher");
  if (in[1]->shape().rank() > 1)
    throw_error(Code::InvalidArgument, "shift must be a scalar or a 1-D vector. Found: ", tf_shape(in[1]->shape()));
  if (in[2]->shape().rank() > 1)
    throw_error(Code::InvalidArgument, "axis must be a scalar or a 1-D vector. Found: ", tf_shape(in[2]->shape()));
  auto shifts = read_int_list(*in[1]), axes = read_int_list(*in[2]);
  if (shifts.size() != axes.size()) throw_error(Code::InvalidArgument, "shift and axis must have the same size");
  const auto& d = x.shape().dims();
  int r = x.shape().rank();
  std::vector<int64_t> total(d.size(), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
    if (a < 0 || a >= r) throw_error(Code::InvalidArgument, "axis ", axes[i], " is out of range");
    total[a] += shifts[i];
  }
  auto out = make_tensor(x.dtype(), x.shape());
  int64_t n = x.num_elements();
  if (n == 0) return {out};
  auto st = row_major_strides(d);
  for (size_t i = 0; i < d.size(); ++i) total[i] = ((total[i] % d[i]) + d[i]) % d[i];
  visit_move(x.dtype(), [&](auto tag) {
    using M = decltype(tag);
    const M* src = elems<M>(x);
    M* dst = elems<M>(*out);
    std::vector<int64_t> idx(d.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t to = 0;
      for (size_t k = 0; k < d.size(); ++k) {
        int64_t j = idx[k] + total[k];
        if (j >= d[k]) j -= d[k];
        to += j * st[k];
      }
      dst[to] = src[i];
      for (int k = static_cast<int>(d.size()) - 1; k >= 0; --k) {
        if (++idx[k] < d[k]) break;
        idx[k] = 0;
      }
    }
    return 0;
  });
  return {out};
}

std::vector<TensorPtr> roll_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr, nullptr};
  return {dispatch1("Roll", {g.out_grads[0], grad::neg(g.inputs[1]), g.inputs[2]}), nullptr, nullptr};
}

// ---- BroadcastTo ----

Shape broadcast_to_shape(const Shape& in, const Shape& out) {
  if (in.rank() > out.rank())
    throw_error(Code::InvalidArgument, "Rank of input (", in.rank(), ") must be no greater than rank of output shape (",
                out.rank(), ").");
  int off = out.rank() - in.rank();
  for (int i = 0; i < in.rank(); ++i) {
    int64_t a = in[i], b = out[i + off];
    if (a >= 0 && b >= 0 && a != b && a != 1)
      throw_error(Code::InvalidArgument, "Incompatible shapes: ", tf_shape(in), " vs. ", tf_shape(out));
  }
  return out;
}

std::vector<TensorSpec> broadcast_to_infer(const InferContext& c) {
  if (c.inputs[1].shape.rank() > 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", c.inputs[1].shape.rank(),
                rule_suffix("BroadcastTo", c));
  Shape out = shape_input(c, 1);
  const Shape& in = c.inputs[0].shape;
  if (!out.has_rank() || !in.has_rank()) return one(c.inputs[0].dtype, out);
  graph_rule(c, "BroadcastTo", [&] { return broadcast_to_shape(in, out); });
  // Output dims the shape input leaves unknown stay unknown (the input could broadcast from 1).
  return one(c.inputs[0].dtype, out);
}

std::vector<EagerPtr> broadcast_to_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  check_index_type("BroadcastTo", "Tidx", in[1]->dtype());
  if (in[1]->shape().rank() != 1)
    throw_error(Code::InvalidArgument, "shape must be a vector of {int32,int64}, got shape ", tf_shape(in[1]->shape()));
  auto dims = read_int_list(*in[1]);
  for (int64_t v : dims)
    if (v < 0) throw_error(Code::InvalidArgument, "Dimension ", v, " must be >= 0");
  Shape out_shape(dims);
  broadcast_to_shape(x.shape(), out_shape);
  if (x.num_elements() == 0 && out_shape.num_elements() != 0)
    throw_error(Code::InvalidArgument, "Incompatible shapes: ", tf_shape(x.shape()), " vs. ", tf_shape(out_shape));
  auto out = make_tensor(x.dtype(), out_shape);
  if (out_shape.num_elements() == 0) return {out};
  auto src_st = ref::broadcast_strides(x.shape(), out_shape);
  visit_move(x.dtype(), [&](auto tag) {
    using M = decltype(tag);
    strided_copy(elems<M>(x), src_st, elems<M>(*out), row_major_strides(dims), dims);
    return 0;
  });
  return {out};
}

// Static shapes: unbroadcast. Otherwise TF's rule computed at run time: sum (keeping dims) over
// the axes where the input, padded with leading 1s, has size 1, then reshape to its shape.
std::vector<TensorPtr> broadcast_to_grad(const GradContext& g) {
  const TensorPtr &dy = g.out_grads[0], &x = g.inputs[0];
  if (!dy) return {nullptr, nullptr};
  if (x->shape().is_fully_defined() && dy->shape().is_fully_defined()) return {unbroadcast(dy, x), nullptr};
  int r = dy->shape().rank(), ri = x->shape().rank();
  if (r < 0 || ri < 0) throw_error(Code::Unimplemented, "gradient of BroadcastTo with unknown ranks");
  TensorPtr in_shape = shape_tensor(x, DType::Int32);
  TensorPtr padded = dispatch1(
      "ConcatV2",
      {grad::int_vector(std::vector<int64_t>(r - ri, 1)), in_shape, grad::constant(int_scalar(DType::Int32, 0))},
      Attrs{{"N", int64_t{2}}});
  TensorPtr ones = grad::constant(int_scalar(DType::Int32, 1));
  TensorPtr where = dispatch1("Where", {dispatch1("Equal", {padded, ones})});
  TensorPtr axes = dispatch1("Reshape", {where, grad::constant(int_vector(DType::Int64, {-1}))});
  TensorPtr summed = dispatch1("Sum", {dy, axes}, Attrs{{"keep_dims", true}});
  return {dispatch1("Reshape", {summed, in_shape}), nullptr};
}

}  // namespace

void register_permute_ops(OpRegistry& r) {
  r.add(OpDef{"ReverseV2", "ReverseV2", 2, reverse_infer, reverse_kernel, reverse_grad});
  r.add(OpDef{"Roll", "Roll", 3, roll_infer, roll_kernel, roll_grad});
  r.add(OpDef{"BroadcastTo", "BroadcastTo", 2, broadcast_to_infer, broadcast_to_kernel, broadcast_to_grad}
            .with_broadcast_view());
}

}  // namespace fn
