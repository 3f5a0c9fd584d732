// MirrorPad and its gradient MirrorPadGrad: tf.pad's REFLECT and SYMMETRIC modes, every dtype
// TF's kernels take (MirrorPad: all, strings too; MirrorPadGrad: numbers), TF's checks and
// messages. The shape rule is Pad's (shape_ops.cpp).
#include <complex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/elementwise_impl.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

std::vector<TensorSpec> pad_shape_rule(const InferContext& c, const std::string& op);  // shape_ops.cpp

namespace {

// ---- MirrorPad / MirrorPadGrad (tf.pad's REFLECT and SYMMETRIC modes) ----

// 1 for REFLECT (the edge is not repeated), 0 for SYMMETRIC (it is).
int mirror_offset(const Attrs& attrs) {
  const std::string mode = attrs.get_or<std::string>("mode", "");
  if (mode == "REFLECT") return 1;
  if (mode == "SYMMETRIC") return 0;
  throw_error(Code::InvalidArgument, "mode must be either REFLECT or SYMMETRIC.");
}

// Per dimension of size n padded by (before, after): the input index each output index reads.
std::vector<int64_t> mirror_map(int64_t n, int64_t before, int64_t after, int offset) {
  std::vector<int64_t> m(static_cast<size_t>(before + n + after));
  for (int64_t o = 0; o < static_cast<int64_t>(m.size()); ++o) {
    int64_t i = o - before;
    if (i < 0)
      i = -i - 1 + offset;
    else if (i >= n)
      i = 2 * n - i - 1 - offset;
    m[o] = i;
  }
  return m;
}

// TF's kernel checks, in its order: rank (at most 5), the paddings' shape, then per dimension
// the paddings' sign and their bound (`grad`: the bound is the gradient's output dimension).
std::vector<std::pair<int64_t, int64_t>> check_mirror_paddings(const EagerTensor& p, const Shape& in, int offset,
                                                               bool grad) {
  int r = in.rank();
  if (r > 5) throw_error(Code::Unimplemented, "inputs rank not in [0,5]: ", r);
  if (p.shape().rank() != 2 || p.shape()[1] != 2)
    throw_error(Code::InvalidArgument, "paddings must be a matrix with 2 columns: ", tf_shape(p.shape()));
  if (p.shape()[0] != r)
    throw_error(Code::InvalidArgument, "The first dimension of paddings must be the rank of inputs",
                tf_shape(p.shape()), grad ? " " : ", ", tf_shape(in));
  auto v = read_int_list(p);
  std::vector<std::pair<int64_t, int64_t>> out(r);
  for (int i = 0; i < r; ++i) {
    int64_t b = v[2 * i], a = v[2 * i + 1];
    if (b < 0 || a < 0)
      throw_error(Code::InvalidArgument,
                  grad ? "Paddings must be non-negative: " : "paddings must be non-negative: ", b, grad ? ", " : " ",
                  a);
    // the dimension the paddings mirror: the input's, or the gradient's output
    int64_t n = grad ? in[i] - (b + a) : in[i];
    const char* of = grad ? "the output dimension size: " : "the dimension size: ";
    if (offset == 0 && (b > n || a > n))
      throw_error(Code::InvalidArgument, "paddings must be no greater than ", of, b, ", ", a, " greater than ", n);
    if (offset == 1 && (b >= n || a >= n))
      throw_error(Code::InvalidArgument, "paddings must be less than ", of, b, ", ", a, " not less than ", n);
    out[i] = {b, a};
  }
  return out;
}

std::vector<EagerPtr> mirror_pad_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr& x = in[0];
  int offset = mirror_offset(k.attrs);
  auto pads = check_mirror_paddings(*in[1], x->shape(), offset, false);
  const auto& dims = x->shape().dims();
  const int r = static_cast<int>(dims.size());
  std::vector<int64_t> out_dims(r);
  for (int i = 0; i < r; ++i) out_dims[i] = pads[i].first + dims[i] + pads[i].second;
  auto out = make_tensor(x->dtype(), Shape(out_dims));
  if (out->num_elements() == 0) return {out};
  // offsets[d][o]: where output index o of dimension d reads in the input
  auto in_strides = row_major_strides(dims);
  std::vector<std::vector<int64_t>> offsets(r);
  for (int d = 0; d < r; ++d) {
    offsets[d] = mirror_map(dims[d], pads[d].first, pads[d].second, offset);
    for (int64_t& o : offsets[d]) o *= in_strides[d];
  }
  visit_move(x->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = elems<T>(*x);
    T* dst = elems<T>(*out);
    if (r == 0) {
      dst[0] = src[0];
      return 0;
    }
    std::vector<int64_t> idx(r, 0);
    const std::vector<int64_t>& last = offsets[r - 1];
    int64_t base = 0;
    for (int d = 0; d < r - 1; ++d) base += offsets[d][0];
    while (true) {
      for (int64_t o : last) *dst++ = src[base + o];
      int d = r - 2;
      for (; d >= 0; --d) {
        base -= offsets[d][idx[d]];
        if (++idx[d] < out_dims[d]) {
          base += offsets[d][idx[d]];
          break;
        }
        idx[d] = 0;
        base += offsets[d][0];
      }
      if (d < 0) break;
    }
    return 0;
  });
  return {out};
}

// The gradient folds the padded borders back onto the elements they copy, one dimension after
// the other, left border then right (TF's order, so float sums round as TF's do), in a scratch
// copy of the incoming gradient; the result is the scratch's interior.
template <typename T, typename Add>
void mirror_pad_grad_fold(const T* g, T* out, const std::vector<int64_t>& gdims,
                          const std::vector<std::pair<int64_t, int64_t>>& pads, int offset, Add add) {
  const int r = static_cast<int>(gdims.size());
  int64_t n = 1;
  for (int64_t d : gdims) n *= d;
  std::vector<T> s(g, g + n);
  auto strides = row_major_strides(gdims);
  for (int d = 0; d < r; ++d) {
    const int64_t before = pads[d].first, after = pads[d].second, size = gdims[d] - before - after;
    if (before == 0 && after == 0) continue;
    auto map = mirror_map(size, before, after, offset);
    const int64_t outer = n / (gdims[d] * strides[d]), inner = strides[d];
    auto fold = [&](int64_t o) {
      const int64_t target = before + map[o];
      for (int64_t a = 0; a < outer; ++a) {
        T* row = s.data() + a * gdims[d] * inner;
        for (int64_t b = 0; b < inner; ++b) row[target * inner + b] = add(row[target * inner + b], row[o * inner + b]);
      }
    };
    for (int64_t o = 0; o < before; ++o) fold(o);
    for (int64_t o = before + size; o < gdims[d]; ++o) fold(o);
  }
  std::vector<int64_t> odims(r);
  for (int d = 0; d < r; ++d) odims[d] = gdims[d] - pads[d].first - pads[d].second;
  int64_t start = 0;
  for (int d = 0; d < r; ++d) start += pads[d].first * strides[d];
  strided_copy(s.data() + start, strides, out, row_major_strides(odims), odims);
}

std::vector<EagerPtr> mirror_pad_grad_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr& g = in[0];
  DType dt = g->dtype();
  if (dt == DType::Bool || dt == DType::String || !(is_pod(dt) || is_complex(dt))) throw_no_kernel("MirrorPadGrad", dt);
  int offset = mirror_offset(k.attrs);
  auto pads = check_mirror_paddings(*in[1], g->shape(), offset, true);
  const auto& gdims = g->shape().dims();
  std::vector<int64_t> odims(gdims.size());
  for (size_t i = 0; i < gdims.size(); ++i) odims[i] = gdims[i] - pads[i].first - pads[i].second;
  if (Shape(odims) == g->shape()) return {g};
  auto out = make_tensor(dt, Shape(odims));
  if (out->num_elements() == 0) return {out};
  if (is_complex(dt)) {
    auto run = [&](auto tag) {
      using C = decltype(tag);
      mirror_pad_grad_fold<C>(static_cast<const C*>(g->raw()), static_cast<C*>(out->raw()), gdims, pads, offset,
                              [](C a, C b) { return a + b; });
    };
    if (dt == DType::Complex64)
      run(std::complex<float>{});
    else
      run(std::complex<double>{});
    return {out};
  }
  visit_pod(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same<T, bool>::value) {
      using A = typename Arith<T>::type;
      // integers wrap as TF's; half types add in float and round each sum back (Eigen's half)
      mirror_pad_grad_fold<T>(g->template data<T>(), out->template data<T>(), gdims, pads, offset,
                              [](T a, T b) { return narrow<T>(ref::wrap_add<A>(widen(a), widen(b))); });
    }
    return 0;
  });
  return {out};
}

// TF's MirrorPadGrad shape rule: the output is the input less the paddings.
std::vector<TensorSpec> mirror_pad_grad_infer(const InferContext& c) {
  const Shape& in = c.inputs[0].shape;
  const Shape& ps = c.inputs[1].shape;
  DType d = c.inputs[0].dtype;
  auto fail = [&](const std::string& msg) {
    throw_error(Code::ValueError, msg,
                " for '{{node MirrorPadGrad}} = MirrorPadGrad[]' with input shapes: ", tf_shapes(c.inputs), ".");
  };
  if (ps.has_rank() && ps.rank() != 2) fail("Shape must be rank 2 but is rank " + std::to_string(ps.rank()));
  if (!ps.has_rank() || ps[0] < 0) return one(d, Shape::unknown_rank());
  const int rank = static_cast<int>(ps[0]);
  if (in.has_rank() && in.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(in.rank()));
  if (ps[1] >= 0 && ps[1] != 2)
    fail("Dimension 1 in both shapes must be equal, but are " + std::to_string(ps[1]) + " and 2. Shapes are [" +
         std::to_string(rank) + "," + std::to_string(ps[1]) + "] and [" + std::to_string(rank) + ",2].");
  std::vector<int64_t> out(rank, Shape::kUnknown);
  if (c.value(1)) {
    auto v = read_int_list(*c.value(1));
    for (int i = 0; i < rank; ++i) {
      if (v[2 * i] < 0 || v[2 * i + 1] < 0) fail("Paddings must be non-negative");
      if (!in.has_rank() || in[i] < 0) continue;
      int64_t both = v[2 * i] + v[2 * i + 1];
      if (in[i] < both)
        fail("Negative dimension size caused by subtracting " + std::to_string(both) + " from " +
             std::to_string(in[i]));
      out[i] = in[i] - both;
    }
  }
  return one(d, Shape(out));
}

GradFn mirror_grad(const char* inverse) {
  return [inverse](const GradContext& g) -> std::vector<TensorPtr> {
    if (!g.out_grads[0]) return {nullptr, nullptr};
    Attrs a{{"mode", g.attrs.get_or<std::string>("mode", "")}};
    return {dispatch1(inverse, {g.out_grads[0], g.inputs[1]}, a), nullptr};
  };
}

}  // namespace

void register_mirror_pad_ops(OpRegistry& r) {
  const AttrAllowed mirror_modes{"mode", {"REFLECT", "SYMMETRIC"}, {}, {}};
  r.add(OpDef{"MirrorPad", "MirrorPad", 2, [](const InferContext& c) { return pad_shape_rule(c, "MirrorPad"); },
              mirror_pad_kernel, mirror_grad("MirrorPadGrad")}
            .with_input_types({{1, "paddings", "Tpaddings", kIndexDTypes}})
            .with_attr_allowed({mirror_modes}));
  r.add(OpDef{"MirrorPadGrad", "MirrorPadGrad", 2, mirror_pad_grad_infer, mirror_pad_grad_kernel,
              mirror_grad("MirrorPad")}
            .with_input_types({{1, "paddings", "Tpaddings", kIndexDTypes}})
            .with_attr_allowed({mirror_modes}));
}

}  // namespace fn
