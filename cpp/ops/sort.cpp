// Sorting: TopKV2 (values and int32 indices of the k largest along the last axis; ties keep the
// lower index first, so tf.sort/argsort built on it are stable) and Unique (first-occurrence
// order). TopKV2's gradient scatters the output gradient back with a one-hot sum.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

constexpr unsigned kTopKTypes = kNumberTypes;

std::vector<TensorSpec> topk_infer(const InferContext& c) {
  check_dtype_graph("TopKV2", c.inputs[0].dtype, kTopKTypes, "input");
  const Shape& s = c.inputs[0].shape;
  DType idx = c.attrs.get_or("index_type", DType::Int32);
  if (c.inputs[1].shape.rank() > 0)
    throw_error(Code::ValueError, "Shape must be rank 0 but is rank ", c.inputs[1].shape.rank(),
                " for '{{node TopKV2}} = TopKV2[]' with input shapes: ", tf_shapes(c.inputs), ".");
  if (!s.has_rank()) return {TensorSpec{c.inputs[0].dtype, s}, TensorSpec{idx, s}};
  if (s.rank() < 1)
    throw_error(Code::ValueError, "Shape must be at least rank 1 but is rank ", s.rank(),
                " for '{{node TopKV2}} = TopKV2[]' with input shapes: ", tf_shapes(c.inputs), ".");
  std::vector<int64_t> d = s.dims();
  int64_t k = c.value(1) ? c.value(1)->scalar_as_int(0) : Shape::kUnknown;
  if (k >= 0 && d.back() >= 0 && d.back() < k)
    throw_error(Code::ValueError, "input must have last dimension >= k = ", k, " but is ", d.back(),
                " for '{{node TopKV2}} = TopKV2[]' with input shapes: ", tf_shapes(c.inputs), ".");
  if (k < 0 && c.value(1))
    throw_error(Code::ValueError, "Dimension size, given by scalar input 1, must be non-negative but is ", k,
                " for '{{node TopKV2}} = TopKV2[]' with input shapes: ", tf_shapes(c.inputs), ".");
  d.back() = k;
  return {TensorSpec{c.inputs[0].dtype, Shape(d)}, TensorSpec{idx, Shape(d)}};
}

std::vector<EagerPtr> topk_kernel(KernelContext& kc, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  if (!(kTopKTypes & bit(x.dtype()))) throw_unsupported_dtype("TopKV2", x.dtype(), kTopKTypes);
  check_index_type("TopKV2", "Tk", in[1]->dtype());
  if (in[1]->shape().rank() != 0)
    throw_error(Code::InvalidArgument, "k must be scalar, got shape ", tf_shape(in[1]->shape()));
  int64_t k = in[1]->scalar_as_int(0);
  if (k < 0) throw_error(Code::InvalidArgument, "Need k >= 0, got ", k);
  if (x.shape().rank() < 1) throw_error(Code::InvalidArgument, "input must be >= 1-D, got shape ", tf_shape(x.shape()));
  std::vector<int64_t> d = x.shape().dims();
  int64_t n = d.back();
  if (n < k) throw_error(Code::InvalidArgument, "input must have at least k columns. Had ", n, ", needed ", k);
  int64_t rows = prod(d, 0, d.size() - 1);
  d.back() = k;
  DType idx_t = kc.attrs.get_or("index_type", DType::Int32);
  auto values = make_tensor(x.dtype(), Shape(d));
  auto indices = make_tensor(idx_t, Shape(d));
  visit_pod(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = typename Arith<T>::type;
    const T* src = x.data<T>();
    T* vo = values->data<T>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = src + r * n;
      std::iota(order.begin(), order.end(), 0);
      // Larger first; NaN counts as the largest (TF's comparator); ties: lower index first.
      auto greater = [&](int64_t a, int64_t b) {
        A va = widen(row[a]), vb = widen(row[b]);
        bool na = va != va, nb = vb != vb;
        if (na || nb) return na && !nb;
        return va > vb;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
        if (greater(a, b)) return true;
        if (greater(b, a)) return false;
        return a < b;
      });
      for (int64_t j = 0; j < k; ++j) {
        vo[r * k + j] = row[order[j]];
        if (idx_t == DType::Int64)
          indices->data<int64_t>()[r * k + j] = order[j];
        else
          indices->data<int32_t>()[r * k + j] = static_cast<int32_t>(order[j]);
      }
    }
    return 0;
  });
  return {values, indices};
}

// d(input) = sum_k one_hot(indices[..., k], n) * dvalues[..., k]
std::vector<TensorPtr> topk_grad(const GradContext& g) {
  const TensorPtr& dv = g.out_grads[0];
  if (!dv) return {nullptr, nullptr};
  const TensorPtr& x = g.inputs[0];
  if (!x->shape().has_rank()) throw_error(Code::Unimplemented, "gradient of TopKV2 needs a known input rank");
  int r = x->shape().rank();
  TensorPtr n = dim_tensor(x, r - 1, DType::Int32);
  TensorPtr on = grad::scalar_like(dv, 1), off = grad::scalar_like(dv, 0);
  TensorPtr idx = grad::cast(g.outputs[1], DType::Int32);
  TensorPtr hot = dispatch1("OneHot", {idx, n, on, off}, Attrs{{"axis", int64_t{-1}}});
  TensorPtr w = dispatch1("ExpandDims", {dv, grad::constant(int_scalar(DType::Int32, -1))});
  return {grad::reduce_sum(grad::mul(hot, w), {static_cast<int64_t>(r) - 1}, false), nullptr};
}

// ---- Unique ----

std::vector<TensorSpec> unique_infer(const InferContext& c) {
  const Shape& s = c.inputs[0].shape;
  if (s.has_rank() && s.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", s.rank(),
                " for '{{node Unique}} = Unique[]' with input shapes: ", tf_shapes(c.inputs), ".");
  DType idx = c.attrs.get_or("out_idx", DType::Int32);
  return {TensorSpec{c.inputs[0].dtype, Shape{Shape::kUnknown}},
          TensorSpec{idx, s.has_rank() ? s : Shape{Shape::kUnknown}}};
}

template <typename K>
void unique_fill(const K* src, int64_t n, std::vector<int64_t>& first, std::vector<int64_t>& idx) {
  std::unordered_map<K, int64_t> seen;
  for (int64_t i = 0; i < n; ++i) {
    auto it = seen.find(src[i]);
    if (it == seen.end()) {
      it = seen.emplace(src[i], static_cast<int64_t>(first.size())).first;
      first.push_back(i);
    }
    idx[i] = it->second;
  }
}

std::vector<EagerPtr> unique_kernel(KernelContext& kc, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  if (x.shape().rank() != 1) throw_error(Code::InvalidArgument, "unique expects a 1D vector.");
  int64_t n = x.num_elements();
  std::vector<int64_t> first, idx(static_cast<size_t>(n));
  if (x.dtype() == DType::String) {
    unique_fill(x.strings().data(), n, first, idx);
  } else if (!is_pod(x.dtype())) {
    throw_unsupported_dtype("Unique", x.dtype());
  } else {
    // Compare floats by value (-0.0 == 0.0), everything else bitwise through a same-size type.
    visit_pod(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
        unique_fill(x.data<T>(), n, first, idx);
      } else {
        visit_move(x.dtype(), [&](auto mt) {
          using M = decltype(mt);
          if constexpr (!std::is_same<M, std::string>::value && !std::is_same<M, Bytes16>::value)
            unique_fill(static_cast<const M*>(x.raw()), n, first, idx);
          return 0;
        });
      }
      return 0;
    });
  }
  auto y = make_tensor(x.dtype(), Shape{static_cast<int64_t>(first.size())});
  visit_move(x.dtype(), [&](auto tag) {
    using M = decltype(tag);
    const M* src = elems<M>(x);
    M* dst = elems<M>(*y);
    for (size_t j = 0; j < first.size(); ++j) dst[j] = src[first[j]];
    return 0;
  });
  DType it = kc.attrs.get_or("out_idx", DType::Int32);
  check_index_type("Unique", "out_idx", it);
  return {y, int_vector(it, idx)};
}

}  // namespace

void register_sort_ops(OpRegistry& r) {
  r.add(OpDef{"TopKV2", "TopKV2", 2, topk_infer, topk_kernel, topk_grad}.with_output_args({"values", "indices"}));
  r.add(OpDef{"Unique", "Unique", 1, unique_infer, unique_kernel, {}}.with_output_args({"y", "idx"}));
}

}  // namespace fn
