// Scatters into a copy of a tensor: TensorScatterUpdate/Add/Sub/Min/Max (index tuples in the
// last dim of `indices`), and SegmentSum (sorted segment ids). Gradients are GatherNd /
// GatherV2 of the output gradient (TF's rules, including Min/Max's tie sharing).
#include <algorithm>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

enum class Scat { Update, Add, Sub, Min, Max };

std::string suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

// Validates shapes: updates.shape == indices.shape[:-1] + tensor.shape[K:].
void check_scatter_shapes(const std::string& op, const Shape& t, const Shape& ind, const Shape& upd, bool eager) {
  if (!t.has_rank() || !ind.has_rank() || !upd.has_rank()) return;
  if (ind.rank() < 1) {
    throw_error(eager ? Code::InvalidArgument : Code::ValueError,
                "Indices shape must have rank at least one. Found:", tf_shape(ind));
  }
  int64_t k = ind[ind.rank() - 1];
  if (k < 0) return;
  bool ok = k <= t.rank();
  std::vector<int64_t> want(ind.dims().begin(), ind.dims().end() - 1);
  if (ok) want.insert(want.end(), t.dims().begin() + k, t.dims().end());
  ok = ok && static_cast<int>(want.size()) == upd.rank();
  for (size_t i = 0; ok && i < want.size(); ++i)
    if (want[i] >= 0 && upd[static_cast<int>(i)] >= 0 && want[i] != upd[static_cast<int>(i)]) ok = false;
  if (!ok)
    throw_error(eager ? Code::InvalidArgument : Code::ValueError,
                "Inner dimensions of output shape must match inner dimensions of updates shape. Output: ", tf_shape(t),
                " updates: ", tf_shape(upd));
}

InferFn scatter_infer(std::string op) {
  return [op](const InferContext& c) {
    check_same_dtype_graph(op, {c.inputs[0], c.inputs[2]});
    try {
      check_scatter_shapes(op, c.inputs[0].shape, c.inputs[1].shape, c.inputs[2].shape, false);
    } catch (const Error& e) {
      if (e.code() != Code::ValueError) throw;
      throw Error(Code::ValueError, std::string(e.what()) + suffix(op, c));
    }
    return std::vector<TensorSpec>{c.inputs[0]};
  };
}

template <Scat K>
KernelFn scatter_kernel(std::string op) {
  return [op](KernelContext&, const std::vector<EagerPtr>& in) {
    const EagerTensor &t = *in[0], &ind = *in[1], &upd = *in[2];
    check_index_type(op, "Tindices", ind.dtype());
    if (t.dtype() != upd.dtype()) check_same_dtype_eager(op, {in[0], in[2]});
    if (K != Scat::Update && !is_numeric(t.dtype())) throw_unsupported_dtype(op, t.dtype());
    check_scatter_shapes(op, t.shape(), ind.shape(), upd.shape(), true);
    int64_t k = ind.shape()[ind.shape().rank() - 1];
    const auto& td = t.shape().dims();
    int64_t inner = prod(td, k, td.size());
    auto idx = read_int_list(ind);
    int64_t n = k ? static_cast<int64_t>(idx.size()) / k : prod(ind.shape().dims(), 0, ind.shape().rank() - 1);
    auto strides = row_major_strides(std::vector<int64_t>(td.begin(), td.begin() + k));
    std::vector<int64_t> off(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t d = 0; d < k; ++d) {
        int64_t v = idx[i * k + d];
        if (v < 0 || v >= td[d]) {
          std::string s;
          for (int64_t e = 0; e < k; ++e) s += (e ? ", " : "") + std::to_string(idx[i * k + e]);
          throw_error(Code::InvalidArgument, "indices[", i, "] = [", s, "] does not index into shape ",
                      tf_shape(t.shape()));
        }
        off[i] += v * strides[d];
      }
    auto out = make_tensor(t.dtype(), t.shape());
    if (K == Scat::Update) {
      visit_move(t.dtype(), [&](auto tag) {
        using M = decltype(tag);
        const M* src = elems<M>(t);
        M* dst = elems<M>(*out);
        std::copy(src, src + t.num_elements(), dst);
        const M* u = elems<M>(upd);
        for (int64_t i = 0; i < n; ++i) std::copy(u + i * inner, u + (i + 1) * inner, dst + off[i] * inner);
        return 0;
      });
      return std::vector<EagerPtr>{out};
    }
    visit_pod(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same<T, bool>::value) {
        using A = typename Arith<T>::type;
        const T* src = t.data<T>();
        T* dst = out->data<T>();
        std::copy(src, src + t.num_elements(), dst);
        const T* u = upd.data<T>();
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < inner; ++j) {
            A a = widen(dst[off[i] * inner + j]), b = widen(u[i * inner + j]);
            A r = K == Scat::Add   ? A(a + b)
                  : K == Scat::Sub ? A(a - b)
                  : K == Scat::Min ? std::min(a, b)
                                   : std::max(a, b);
            dst[off[i] * inner + j] = narrow<T>(r);
          }
      }
      return 0;
    });
    return std::vector<EagerPtr>{out};
  };
}

template <Scat K>
std::vector<TensorPtr> scatter_grad(const GradContext& g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return {nullptr, nullptr, nullptr};
  const TensorPtr &x = g.inputs[0], &ind = g.inputs[1], &y = g.inputs[2];
  if (K == Scat::Min || K == Scat::Max) {
    const TensorPtr& z = g.outputs[0];
    TensorPtr xi = grad::cast(grad::op2("Equal", x, z), d->dtype());
    TensorPtr yi = grad::cast(grad::op2("Equal", y, grad::op2("GatherNd", z, ind)), d->dtype());
    TensorPtr ys = dispatch1("ScatterNd", {ind, yi, shape_tensor(x, ind->dtype())});
    TensorPtr all = grad::add(xi, ys);
    return {grad::div(grad::mul(d, xi), all), nullptr, grad::mul(grad::op2("GatherNd", grad::div(d, all), ind), yi)};
  }
  TensorPtr gu = grad::op2("GatherNd", d, ind);
  if (K == Scat::Update) return {dispatch1("TensorScatterUpdate", {d, ind, zeros_like(y)}), nullptr, gu};
  return {d, nullptr, K == Scat::Sub ? grad::neg(gu) : gu};
}

// ---- SegmentSum ----

std::vector<TensorSpec> segment_infer(const InferContext& c) {
  const Shape &d = c.inputs[0].shape, &ids = c.inputs[1].shape;
  if (ids.has_rank() && ids.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", ids.rank(), suffix("SegmentSum", c));
  if (!d.has_rank()) return one(c.inputs[0].dtype, Shape::unknown_rank());
  if (d.rank() < 1)
    throw_error(Code::ValueError, "Shape must be at least rank 1 but is rank 0", suffix("SegmentSum", c));
  std::vector<int64_t> out = d.dims();
  out[0] = Shape::kUnknown;
  return one(c.inputs[0].dtype, Shape(out));
}

std::vector<EagerPtr> segment_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor &data = *in[0], &ids = *in[1];
  check_index_type("SegmentSum", "Tindices", ids.dtype());
  if (!is_numeric(data.dtype())) throw_unsupported_dtype("SegmentSum", data.dtype());
  if (ids.shape().rank() != 1) throw_error(Code::InvalidArgument, "segment_ids should be a vector.");
  if (data.shape().rank() < 1 || data.shape()[0] != ids.shape()[0])
    throw_error(Code::InvalidArgument, "segment_ids should be the same size as dimension 0 of input.");
  auto idx = read_int_list(ids);
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0) throw_error(Code::InvalidArgument, "segment ids must be >= 0");
    if (i && idx[i] < idx[i - 1]) throw_error(Code::InvalidArgument, "segment ids are not increasing");
  }
  std::vector<int64_t> od = data.shape().dims();
  od[0] = idx.empty() ? 0 : idx.back() + 1;
  int64_t inner = prod(od, 1, od.size());
  auto out = make_tensor(data.dtype(), Shape(od));
  visit_pod(data.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same<T, bool>::value) {
      using A = typename Arith<T>::type;
      std::vector<A> acc(static_cast<size_t>(out->num_elements()), A(0));
      const T* src = data.data<T>();
      for (size_t i = 0; i < idx.size(); ++i)
        for (int64_t j = 0; j < inner; ++j) acc[idx[i] * inner + j] += widen(src[i * inner + j]);
      T* dst = out->data<T>();
      for (size_t i = 0; i < acc.size(); ++i) dst[i] = narrow<T>(acc[i]);
    }
    return 0;
  });
  return {out};
}

std::vector<TensorPtr> segment_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  return {dispatch1("GatherV2", {g.out_grads[0], g.inputs[1], grad::constant(int_scalar(DType::Int32, 0))}), nullptr};
}

}  // namespace

void register_scatter_ops(OpRegistry& r) {
  r.add(OpDef{"TensorScatterUpdate", "TensorScatterUpdate", 3, scatter_infer("TensorScatterUpdate"),
              scatter_kernel<Scat::Update>("TensorScatterUpdate"), scatter_grad<Scat::Update>});
  r.add(OpDef{"TensorScatterAdd", "TensorScatterAdd", 3, scatter_infer("TensorScatterAdd"),
              scatter_kernel<Scat::Add>("TensorScatterAdd"), scatter_grad<Scat::Add>});
  r.add(OpDef{"TensorScatterSub", "TensorScatterSub", 3, scatter_infer("TensorScatterSub"),
              scatter_kernel<Scat::Sub>("TensorScatterSub"), scatter_grad<Scat::Sub>});
  r.add(OpDef{"TensorScatterMin", "TensorScatterMin", 3, scatter_infer("TensorScatterMin"),
              scatter_kernel<Scat::Min>("TensorScatterMin"), scatter_grad<Scat::Min>});
  r.add(OpDef{"TensorScatterMax", "TensorScatterMax", 3, scatter_infer("TensorScatterMax"),
              scatter_kernel<Scat::Max>("TensorScatterMax"), scatter_grad<Scat::Max>});
  r.add(OpDef{"SegmentSum", "SegmentSum", 2, segment_infer, segment_kernel, segment_grad});
}

}  // namespace fn
