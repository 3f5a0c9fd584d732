// Scans: Cumsum, Cumprod (attrs exclusive, reverse) along a scalar int axis input. Reference
// loops over [outer, n, inner]; gradients are scans in the other direction (TF's rules).
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

constexpr unsigned kScanTypes = kNumberTypes;

int64_t scan_axis(const EagerTensor& axis, int rank) {
  check_index_type("Cumsum", "Tidx", axis.dtype());
  if (axis.shape().rank() != 0)
    throw_error(Code::InvalidArgument, "ScanOp: axis must be a scalar, not ", tf_shape(axis.shape()));
  int64_t a = axis.scalar_as_int(0);
  if (a < -rank || a >= rank)
    throw_error(Code::InvalidArgument, "ScanOp: Expected scan axis in the range [", -rank, ", ", rank, "), but got ",
                a);
  return a < 0 ? a + rank : a;
}

InferFn scan_infer(std::string op) {
  return [op](const InferContext& c) {
    check_dtype_graph(op, c.inputs[0].dtype, kScanTypes);
    const Shape& s = c.inputs[0].shape;
    if (c.inputs[1].shape.rank() > 0)
      throw_error(Code::ValueError, "Shape must be rank 0 but is rank ", c.inputs[1].shape.rank(), " for '{{node ", op,
                  "}} = ", op, "[]' with input shapes: ", tf_shapes(c.inputs), ".");
    if (c.value(1) && s.has_rank()) graph_rule(c, op, [&] { return scan_axis(*c.value(1), s.rank()); });
    return std::vector<TensorSpec>{c.inputs[0]};
  };
}

template <bool Prod>
KernelFn scan_kernel(std::string op) {
  return [op](KernelContext& k, const std::vector<EagerPtr>& in) {
    const EagerTensor& x = *in[0];
    if (!(kScanTypes & bit(x.dtype()))) throw_unsupported_dtype(op, x.dtype(), kScanTypes);
    bool exclusive = k.attrs.get_or("exclusive", false), reverse = k.attrs.get_or("reverse", false);
    const auto& d = x.shape().dims();
    if (d.empty()) throw_error(Code::InvalidArgument, "ScanOp: Expected scan axis in the range [0, 0), but got 0");
    int64_t axis = scan_axis(*in[1], x.shape().rank());
    int64_t outer = prod(d, 0, axis), n = d[axis], inner = prod(d, axis + 1, d.size());
    auto out = make_tensor(x.dtype(), x.shape());
    visit_pod(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same<T, bool>::value) {
        using A = typename Arith<T>::type;
        const T* src = x.data<T>();
        T* dst = out->data<T>();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            A acc = Prod ? A(1) : A(0);
            for (int64_t j = 0; j < n; ++j) {
              int64_t jj = reverse ? n - 1 - j : j;
              int64_t at = (o * n + jj) * inner + i;
              A v = widen(src[at]);
              if (!exclusive) acc = Prod ? A(acc * v) : A(acc + v);
              dst[at] = narrow<T>(acc);
              if (exclusive) acc = Prod ? A(acc * v) : A(acc + v);
            }
          }
      }
      return 0;
    });
    return std::vector<EagerPtr>{out};
  };
}

Attrs scan_attrs(bool exclusive, bool reverse) { return Attrs{{"exclusive", exclusive}, {"reverse", reverse}}; }

std::vector<TensorPtr> cumsum_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  bool ex = g.attrs.get_or("exclusive", false), rev = g.attrs.get_or("reverse", false);
  return {dispatch1("Cumsum", {g.out_grads[0], g.inputs[1]}, scan_attrs(ex, !rev)), nullptr};
}

// TF's _CumprodGrad: cumsum(cumprod(x) * dy, reversed) / x (NaN where x is 0, as in TF).
std::vector<TensorPtr> cumprod_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  bool ex = g.attrs.get_or("exclusive", false), rev = g.attrs.get_or("reverse", false);
  TensorPtr p = dispatch1("Cumprod", {g.inputs[0], g.inputs[1]}, scan_attrs(ex, rev));
  TensorPtr s = dispatch1("Cumsum", {grad::mul(p, g.out_grads[0]), g.inputs[1]}, scan_attrs(ex, !rev));
  return {grad::div(s, g.inputs[0]), nullptr};
}

}  // namespace

void register_scan_ops(OpRegistry& r) {
  r.add(OpDef{"Cumsum", "Cumsum", 2, scan_infer("Cumsum"), scan_kernel<false>("Cumsum"), cumsum_grad}.with_output_args(
      {"out"}));
  r.add(OpDef{"Cumprod", "Cumprod", 2, scan_infer("Cumprod"), scan_kernel<true>("Cumprod"), cumprod_grad}
            .with_output_args({"out"}));
}

}  // namespace fn
