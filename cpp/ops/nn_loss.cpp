// Fused softmax cross-entropy: SparseSoftmaxCrossEntropyWithLogits (int labels) and
// SoftmaxCrossEntropyWithLogits (probability labels), on [batch, classes] logits. Outputs
// (loss, backprop) as TF's; the gradients are recomputed from ops (Softmax, LogSoftmax,
// OneHot) rather than taken from `backprop`, so they are differentiable again.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference/broadcast.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

// Row-wise loss = logsumexp(x) - sum(labels * x) and backprop = softmax(x) - labels, where
// label(r, j) gives the label weight of class j in row r.
template <typename T, typename Label>
void xent_rows(const T* x, int64_t rows, int64_t cols, Label label, T* loss, T* back) {
  using A = typename Arith<T>::type;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * cols;
    A mx = -std::numeric_limits<A>::infinity();
    for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, A(widen(row[j])));
    A sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(A(widen(row[j])) - mx);
    A lse = std::log(sum);
    A l = 0;
    for (int64_t j = 0; j < cols; ++j) {
      A shifted = A(widen(row[j])) - mx;
      A y = label(r, j);
      if (y != A(0)) l += y * (lse - shifted);
      back[r * cols + j] = narrow<T>(A(std::exp(shifted) / sum - y));
    }
    loss[r] = narrow<T>(l);
  }
}

// ---- SparseSoftmaxCrossEntropyWithLogits ----

std::vector<TensorSpec> sparse_infer(const InferContext& c) {
  const std::string op = "SparseSoftmaxCrossEntropyWithLogits";
  check_dtype_graph(op, c.inputs[0].dtype, kFloatTypes, "features");
  const Shape &f = c.inputs[0].shape, &l = c.inputs[1].shape;
  if (f.has_rank() && f.rank() != 2)
    throw_error(Code::ValueError, "Shape must be rank 2 but is rank ", f.rank(), suffix(op, c));
  if (l.has_rank() && l.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", l.rank(), suffix(op, c));
  int64_t b = f.has_rank() ? f[0] : Shape::kUnknown;
  if (l.has_rank() && l[0] >= 0) {
    if (b >= 0 && b != l[0])
      throw_error(Code::ValueError, "Dimensions must be equal, but are ", b, " and ", l[0], suffix(op, c));
    b = l[0];
  }
  int64_t k = f.has_rank() ? f[1] : Shape::kUnknown;
  DType d = c.inputs[0].dtype;
  return {TensorSpec{d, Shape{b}}, TensorSpec{d, Shape{b, k}}};
}

std::vector<EagerPtr> sparse_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor &x = *in[0], &labels = *in[1];
  const std::string op = "SparseSoftmaxCrossEntropyWithLogits";
  if (!(kFloatTypes & bit(x.dtype()))) throw_unsupported_dtype(op, x.dtype(), kFloatTypes);
  check_index_type(op, "Tlabels", labels.dtype());
  if (x.shape().rank() != 2)
    throw_error(Code::InvalidArgument, "logits must be 2-D, but got shape ", tf_shape(x.shape()));
  if (labels.shape().rank() != 1)
    throw_error(Code::InvalidArgument, "labels must be 1-D, but got shape ", tf_shape(labels.shape()));
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  if (labels.shape()[0] != rows)
    throw_error(Code::InvalidArgument, "logits and labels must have the same first dimension, got logits shape ",
                tf_shape(x.shape()), " and labels shape ", tf_shape(labels.shape()));
  auto lab = read_int_list(labels);
  for (int64_t v : lab)
    if (v < 0 || v >= cols) {
      std::string all;
      for (size_t i = 0; i < lab.size(); ++i) all += (i ? " " : "") + std::to_string(lab[i]);
      throw_error(Code::InvalidArgument, "Received a label value of ", v, " which is outside the valid range of [0, ",
                  cols, ").  Label values: ", all);
    }
  auto loss = make_tensor(x.dtype(), Shape{rows});
  auto back = make_tensor(x.dtype(), x.shape());
  visit_pod(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kFloatTypes & bit(dtype_of<T>())) {
      using A = typename Arith<T>::type;
      xent_rows<T>(
          x.data<T>(), rows, cols, [&](int64_t r, int64_t j) { return lab[r] == j ? A(1) : A(0); }, loss->data<T>(),
          back->data<T>());
    }
    return 0;
  });
  return {loss, back};
}

TensorPtr expand_last(const TensorPtr& t) {
  return dispatch1("ExpandDims", {t, grad::constant(int_scalar(DType::Int32, -1))});
}

std::vector<TensorPtr> sparse_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  const TensorPtr& x = g.inputs[0];
  TensorPtr depth = dim_tensor(x, 1, DType::Int32);
  TensorPtr hot = dispatch1("OneHot", {g.inputs[1], depth, grad::scalar_like(x, 1), grad::scalar_like(x, 0)},
                            Attrs{{"axis", int64_t{-1}}});
  TensorPtr back = grad::sub(grad::op1("Softmax", x), hot);
  return {grad::mul(expand_last(g.out_grads[0]), back), nullptr};
}

// ---- SoftmaxCrossEntropyWithLogits ----

std::vector<TensorSpec> dense_infer(const InferContext& c) {
  const std::string op = "SoftmaxCrossEntropyWithLogits";
  check_dtype_graph(op, c.inputs[0].dtype, kFloatTypes, "features");
  check_same_dtype_graph(op, c.inputs);
  const Shape &f = c.inputs[0].shape, &l = c.inputs[1].shape;
  if (f.has_rank() && f.rank() != 2)
    throw_error(Code::ValueError, "Shape must be rank 2 but is rank ", f.rank(), suffix(op, c));
  if (l.has_rank() && l.rank() != 2)
    throw_error(Code::ValueError, "Shape must be rank 2 but is rank ", l.rank(), suffix(op, c));
  Shape s = graph_rule(c, op, [&] { return broadcast_shapes(f, l); });
  DType d = c.inputs[0].dtype;
  if (!s.has_rank())
    return {TensorSpec{d, Shape{Shape::kUnknown}}, TensorSpec{d, Shape{Shape::kUnknown, Shape::kUnknown}}};
  return {TensorSpec{d, Shape{s[0]}}, TensorSpec{d, s}};
}

std::vector<EagerPtr> dense_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor &x = *in[0], &labels = *in[1];
  const std::string op = "SoftmaxCrossEntropyWithLogits";
  check_same_dtype_eager(op, in);
  if (!(kFloatTypes & bit(x.dtype()))) throw_unsupported_dtype(op, x.dtype(), kFloatTypes);
  if (x.shape().rank() != 2 || labels.shape().rank() != 2)
    throw_error(Code::InvalidArgument,
                "logits and labels must be either 2-dimensional, or broadcasted to be "
                "2-dimensional");
  Shape s = broadcast_shapes(x.shape(), labels.shape());
  int64_t rows = s[0], cols = s[1];
  auto loss = make_tensor(x.dtype(), Shape{rows});
  auto back = make_tensor(x.dtype(), s);
  auto xs = ref::broadcast_strides(x.shape(), s), ls = ref::broadcast_strides(labels.shape(), s);
  visit_pod(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kFloatTypes & bit(dtype_of<T>())) {
      using A = typename Arith<T>::type;
      std::vector<T> dense(static_cast<size_t>(rows * cols));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j) dense[r * cols + j] = x.data<T>()[r * xs[0] + j * xs[1]];
      const T* lp = labels.data<T>();
      xent_rows<T>(
          dense.data(), rows, cols, [&](int64_t r, int64_t j) { return A(widen(lp[r * ls[0] + j * ls[1]])); },
          loss->data<T>(), back->data<T>());
    }
    return 0;
  });
  return {loss, back};
}

std::vector<TensorPtr> dense_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  const TensorPtr &x = g.inputs[0], &labels = g.inputs[1];
  TensorPtr d = expand_last(g.out_grads[0]);
  TensorPtr gx = grad::mul(d, grad::sub(grad::op1("Softmax", x), labels));
  TensorPtr gl = grad::mul(d, grad::neg(grad::op1("LogSoftmax", x)));
  return {unbroadcast(gx, x), unbroadcast(gl, labels)};
}

}  // namespace

void register_loss_ops(OpRegistry& r) {
  r.add(OpDef{"SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", 2, sparse_infer,
              sparse_kernel, sparse_grad}
            .with_output_args({"loss", "backprop"}));
  r.add(
      OpDef{"SoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits", 2, dense_infer, dense_kernel, dense_grad}
          .with_output_args({"loss", "backprop"}));
}

}  // namespace fn
