// Neural-network ops besides convolution: BiasAdd (+BiasAddGrad), Softmax / LogSoftmax (over
// the last axis, with fn's SoftmaxGrad / LogSoftmaxGrad), MaxPool / AvgPool (NHWC, with
// TensorFlow's MaxPoolGrad / AvgPoolGrad). float32 runs on oneDNN when the tensor is big enough.
#include "kernels/direct/softmax.h"
#include "kernels/fused/elementwise.h"
#include "kernels/onednn/pool.h"
#include "kernels/onednn/softmax.h"
#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"
#include "kernels/reference/pool.h"
#include "kernels/reference/softmax.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "kernels/onednn/binary.h"
#include "ops/nn_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

// ---- BiasAdd(value, bias) / BiasAddGrad(out_backprop) ----

// The channel dimension: last for NHWC, 1 for NCHW.
int channel_dim(const Attrs& a, int rank) {
  std::string f = a.get_or("data_format", std::string("NHWC"));
  if (f != "NHWC" && f != "NCHW") throw_error(Code::InvalidArgument, "Invalid data format: ", f);
  return f == "NCHW" ? 1 : rank - 1;
}

std::vector<TensorSpec> bias_add_infer(const InferContext& c) {
  check_same_dtype_graph("BiasAdd", c.inputs);
  const Shape &x = c.inputs[0].shape, &b = c.inputs[1].shape;
  if (x.has_rank() && x.rank() < 2)
    throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", x.rank(), suffix("BiasAdd", c));
  if (b.has_rank() && b.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", b.rank(), suffix("BiasAdd", c));
  if (x.has_rank() && b.has_rank()) {
    int64_t ch = x[channel_dim(c.attrs, x.rank())];
    if (ch >= 0 && b[0] >= 0 && ch != b[0])
      throw_error(Code::ValueError, "Dimensions must be equal, but are ", ch, " and ", b[0], suffix("BiasAdd", c));
  }
  return {c.inputs[0]};
}

std::vector<EagerPtr> bias_add_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr &x = in[0], &b = in[1];
  check_same_dtype_eager("BiasAdd", in);
  int r = x->shape().rank();
  if (r < 2) throw_error(Code::InvalidArgument, "Input tensor must be at least 2D: ", tf_shape(x->shape()));
  if (b->shape().rank() != 1) throw_error(Code::InvalidArgument, "Biases must be 1D: ", tf_shape(b->shape()));
  int cd = channel_dim(k.attrs, r);
  const auto& dims = x->shape().dims();
  if (dims[cd] != b->shape()[0])
    throw_error(Code::InvalidArgument, "Must provide as many biases as the ", cd == r - 1 ? "last" : "channel",
                " dimension of the input tensor: ", tf_shape(b->shape()), " vs. ", tf_shape(x->shape()));
  if (!is_numeric(x->dtype())) throw_unsupported_dtype("BiasAdd", x->dtype());
  auto out = make_tensor(x->dtype(), x->shape());
  // Channels last (the common case): oneDNN's binary add broadcasts the bias over the rows.
  if (cd == r - 1 && onednn::binary_applicable(*x, *b, x->shape())) {
    onednn::binary(dnnl::algorithm::binary_add, *x, *b, *out);
    return {out};
  }
  int64_t outer = prod(dims, 0, cd), ch = dims[cd], inner = prod(dims, cd + 1, dims.size());
  visit_pod(x->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xv = x->data<T>(), *bv = b->data<T>();
    T* o = out->data<T>();
    if (inner == 1) {  // channels last: the inner loop runs over the channels (vectorizable)
      for (int64_t a = 0; a < outer; ++a, xv += ch, o += ch)
        for (int64_t c = 0; c < ch; ++c)
          o[c] = narrow<T>(static_cast<decltype(widen(bv[c]))>(widen(xv[c]) + widen(bv[c])));
      return 0;
    }
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t c = 0; c < ch; ++c) {
        auto bc = widen(bv[c]);
        for (int64_t i = 0; i < inner; ++i, ++xv, ++o) *o = narrow<T>(static_cast<decltype(bc)>(widen(*xv) + bc));
      }
    return 0;
  });
  return {out};
}

std::vector<EagerPtr> bias_add_grad_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr& dy = in[0];
  int r = dy->shape().rank();
  if (r < 2) throw_error(Code::InvalidArgument, "Input tensor must be at least 2D: ", tf_shape(dy->shape()));
  if (!is_numeric(dy->dtype())) throw_unsupported_dtype("BiasAddGrad", dy->dtype());
  int cd = channel_dim(k.attrs, r);
  const auto& dims = dy->shape().dims();
  int64_t outer = prod(dims, 0, cd), ch = dims[cd], inner = prod(dims, cd + 1, dims.size());
  auto out = make_tensor(dy->dtype(), Shape{ch});
  visit_pod(dy->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = std::conditional_t<std::is_floating_point<typename Arith<T>::type>::value, double, int64_t>;
    std::vector<A> acc(ch, 0);
    const T* v = dy->data<T>();
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t c = 0; c < ch; ++c)
        for (int64_t i = 0; i < inner; ++i) acc[c] += static_cast<A>(widen(*v++));
    for (int64_t c = 0; c < ch; ++c) out->data<T>()[c] = from_double<T>(static_cast<double>(acc[c]));
    return 0;
  });
  return {out};
}

// ---- Softmax / LogSoftmax ----

// Big softmaxes and their gradients run as blocks of whole rows on the task pool (each row's
// numbers do not depend on its block): blocks of ~32K floats (128 KiB, in L2), split from four
// blocks (fused::run_blocks' threshold for compute-bound programs: two-block splits lost beside
// busy processes).
constexpr int64_t kRowBlockElements = int64_t{1} << 15;
constexpr int64_t kMinRowBlocks = 4;

std::vector<TensorSpec> softmax_infer(const InferContext& c, const std::string& op) {
  if (c.inputs[0].shape.rank() == 0)
    throw_error(Code::ValueError, "Shape must be at least rank 1 but is rank 0", suffix(op, c));
  return {c.inputs[0]};
}

// rows x cols view of a tensor softmaxed over its last axis.
std::pair<int64_t, int64_t> rows_cols(const Shape& s) {
  int64_t cols = s.rank() ? s[s.rank() - 1] : 1;
  return {cols ? s.num_elements() / cols : 0, cols};
}

EagerPtr softmax_compute(const std::string& op, const EagerPtr& x, bool log) {
  if (x->shape().rank() < 1)
    throw_error(Code::InvalidArgument, "logits must have >= 1 dimension, got ", tf_shape(x->shape()));
  auto [rows, cols] = rows_cols(x->shape());
  return float_kernel(op, {x}, x->shape(), [&](auto tag, const std::vector<EagerPtr>& in, EagerTensor& o) {
    using T = decltype(tag);
    if constexpr (std::is_same<T, float>::value) {
      // TF's numbers bit for bit below oneDNN's threshold (the guide's tensors) and, at every
      // size, for rows of whole 16-float blocks (attention scores, classes padded to 16): the
      // vectorised emulation of TF's oneDNN kernel runs those faster than oneDNN 3.2 itself (one
      // AVX-512 thread, ns an element: 0.62 against 0.69 on 64 floats, 1.5 against 1.3-2.0 on 16;
      // 8x4x128x128 scores 290 against 440 us) and its rows run as blocks on the task pool. A
      // partial last block costs the emulation ~40 ns a row (4.8 against 3.3 ns an element on
      // 10-float rows): such big problems keep oneDNN's kernel, within an ulp of TF's.
      if (!log && (!onednn::softmax_worthwhile(rows, cols) || cols % 16 == 0)) {
        const float* xv = in[0]->template data<T>();
        float* yv = o.template data<T>();
        run_row_blocks(onednn::max_threads(), rows, cols, kRowBlockElements, kMinRowBlocks,
                       [&](int64_t r0, int64_t r1) { ref::softmax_tf(xv + r0 * cols, yv + r0 * cols, r1 - r0, cols); });
        return;
      }
      if (onednn::softmax_worthwhile(rows, cols)) {
        onednn::softmax_forward(in[0]->template data<T>(), o.template data<T>(), rows, cols, log);
        return;
      }
    }
    ref::softmax(in[0]->template data<T>(), o.template data<T>(), rows, cols, log);
  });
}

// SoftmaxGrad(y, dy) / LogSoftmaxGrad(y, dy): y is the forward output.
EagerPtr softmax_grad_compute(const std::string& op, const EagerPtr& y, const EagerPtr& dy, bool log) {
  check_same_dtype_eager(op, {y, dy});
  if (y->shape() != dy->shape())
    throw_error(Code::InvalidArgument, op, ": y and dy shapes differ: ", tf_shape(y->shape()), " vs. ",
                tf_shape(dy->shape()));
  auto [rows, cols] = rows_cols(y->shape());
  return float_kernel(op, {y, dy}, y->shape(), [&](auto tag, const std::vector<EagerPtr>& in, EagerTensor& o) {
    using T = decltype(tag);
    const T *yv = in[0]->template data<T>(), *dv = in[1]->template data<T>();
    if constexpr (std::is_same<T, float>::value) {  // at every size: oneDNN's is its reference kernel on AVX2
      T* ov = o.template data<T>();
      run_row_blocks(onednn::max_threads(), rows, cols, kRowBlockElements, kMinRowBlocks, [&](int64_t r0, int64_t r1) {
        direct::softmax_backward_f32(yv + r0 * cols, dv + r0 * cols, ov + r0 * cols, r1 - r0, cols, log);
      });
    } else {
      ref::softmax_backward(yv, dv, o.template data<T>(), rows, cols, log);
    }
  });
}

OpDef softmax_op(const std::string& op, const std::string& grad_op, bool log) {
  return OpDef{op,
               op,
               1,
               [op](const InferContext& c) { return softmax_infer(c, op); },
               [op, log](KernelContext&, const std::vector<EagerPtr>& in) {
                 return std::vector<EagerPtr>{softmax_compute(op, in[0], log)};
               },
               [grad_op](const GradContext& g) {
                 if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr};
                 return std::vector<TensorPtr>{dispatch1(grad_op, {g.outputs[0], g.out_grads[0]})};
               }};
}

OpDef softmax_grad_op(const std::string& op, bool log) {
  return OpDef{op,
               op,
               2,
               [](const InferContext& c) { return std::vector<TensorSpec>{c.inputs[1]}; },
               [op, log](KernelContext&, const std::vector<EagerPtr>& in) {
                 return std::vector<EagerPtr>{softmax_grad_compute(op, in[0], in[1], log)};
               },
               {}};
}

// ---- MaxPool / AvgPool and their gradients ----

void check_pool_input(const Shape& s, const std::string& op) {
  if (s.has_rank() && s.rank() != 4) throw_error(Code::InvalidArgument, "input must be 4-dimensional", tf_shape(s));
}

Shape pool_out(const Pool2DGeom& g) { return Shape{g.n, g.oh, g.ow, g.c}; }

std::vector<TensorSpec> pool_infer(const InferContext& c, const std::string& op) {
  const Shape& x = c.inputs[0].shape;
  if (x.has_rank() && x.rank() != 4)
    throw_error(Code::ValueError, "Shape must be rank 4 but is rank ", x.rank(), suffix(op, c));
  return graph_rule(
      c, op, [&] { return one(c.inputs[0].dtype, pool_out(pool_geom(x, read_window_attrs(op, c.attrs, false)))); });
}

EagerPtr pool_forward(const std::string& op, const EagerPtr& x, const Attrs& attrs, bool max) {
  check_pool_input(x->shape(), op);
  Pool2DGeom g = pool_geom(x->shape(), read_window_attrs(op, attrs, false));
  return float_kernel(op, {x}, pool_out(g), [&](auto tag, const std::vector<EagerPtr>& in, EagerTensor& o) {
    using T = decltype(tag);
    if (o.num_elements() == 0) return;
    const T* xv = in[0]->template data<T>();
    T* y = o.template data<T>();
    if constexpr (std::is_same<T, float>::value) {
      if (onednn::pool_worthwhile(g)) {
        if (max)
          onednn::max_pool_forward(xv, y, g);
        else
          onednn::avg_pool_forward(xv, y, g);
        return;
      }
    }
    if (max)
      ref::max_pool_forward(xv, y, g);
    else
      ref::avg_pool_forward(xv, y, g);
  });
}

// MaxPoolGrad(orig_input, orig_output, grad): recomputes which element was each window's max.
std::vector<EagerPtr> max_pool_grad_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr &x = in[0], &dy = in[2];
  check_pool_input(x->shape(), "MaxPoolGrad");
  check_same_dtype_eager("MaxPoolGrad", in);
  Pool2DGeom g = pool_geom(x->shape(), read_window_attrs("MaxPoolGrad", k.attrs, false));
  if (dy->shape() != pool_out(g))
    throw_error(Code::InvalidArgument, "Expected grad shape to be ", tf_shape(pool_out(g)), ", but got ",
                tf_shape(dy->shape()));
  return {
      float_kernel("MaxPoolGrad", {x, dy}, x->shape(), [&](auto tag, const std::vector<EagerPtr>& v, EagerTensor& o) {
        using T = decltype(tag);
        const T *xv = v[0]->template data<T>(), *dv = v[1]->template data<T>();
        T* dx = o.template data<T>();
        if (o.num_elements() == 0) return;
        if constexpr (std::is_same<T, float>::value) {
          if (onednn::pool_worthwhile(g) && g.output_size() > 0) {
            onednn::max_pool_backward(xv, dv, dx, g);
            return;
          }
        }
        ref::max_pool_backward(xv, dv, dx, g);
      })};
}

// AvgPoolGrad(orig_input_shape, grad).
std::vector<EagerPtr> avg_pool_grad_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  Shape xs(read_int_list(*in[0]));
  const EagerPtr& dy = in[1];
  check_pool_input(xs, "AvgPoolGrad");
  Pool2DGeom g = pool_geom(xs, read_window_attrs("AvgPoolGrad", k.attrs, false));
  if (dy->shape() != pool_out(g))
    throw_error(Code::InvalidArgument, "Expected grad shape to be ", tf_shape(pool_out(g)), ", but got ",
                tf_shape(dy->shape()));
  return {float_kernel("AvgPoolGrad", {dy}, xs, [&](auto tag, const std::vector<EagerPtr>& v, EagerTensor& o) {
    using T = decltype(tag);
    const T* dv = v[0]->template data<T>();
    T* dx = o.template data<T>();
    if (o.num_elements() == 0) return;
    if constexpr (std::is_same<T, float>::value) {
      if (onednn::pool_worthwhile(g) && g.output_size() > 0) {
        onednn::avg_pool_backward(dv, dx, g);
        return;
      }
    }
    ref::avg_pool_backward(dv, dx, g);
  })};
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.add(OpDef{
      kBiasAddOp, kBiasAddOp, 2, bias_add_infer, bias_add_kernel, [](const GradContext& g) {
        const TensorPtr& dy = g.out_grads[0];
        if (!dy) return std::vector<TensorPtr>{nullptr, nullptr};
        Attrs a;
        a.set("data_format", g.attrs.get_or("data_format", std::string("NHWC")));
        return std::vector<TensorPtr>{dy, dispatch1("BiasAddGrad", {dy}, a)};
      }}.with_fusion(fused::kAdd));  // NHWC: the bias broadcasts along the last dim
  r.add(OpDef{"BiasAddGrad", "BiasAddGrad", 1,
              [](const InferContext& c) {
                const Shape& s = c.inputs[0].shape;
                int64_t ch = s.has_rank() && s.rank() >= 2 ? s[channel_dim(c.attrs, s.rank())] : Shape::kUnknown;
                return one(c.inputs[0].dtype, Shape{ch});
              },
              bias_add_grad_kernel,
              [](const GradContext& g) {
                // d(sum over non-channel dims)/d(dy): the gradient broadcast back (a BiasAdd on zeros).
                if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr};
                Attrs a;
                a.set("data_format", g.attrs.get_or("data_format", std::string("NHWC")));
                return std::vector<TensorPtr>{dispatch1("BiasAdd", {zeros_like(g.inputs[0]), g.out_grads[0]}, a)};
              }});
  r.add(softmax_op("Softmax", "SoftmaxGrad", false)
            .with_input_types({{0, "logits", "T", {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}}})
            .with_output_args({"softmax"}));
  r.add(softmax_op("LogSoftmax", "LogSoftmaxGrad", true)
            .with_input_types({{0, "logits", "T", {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}}})
            .with_output_args({"logsoftmax"}));
  r.add(softmax_grad_op("SoftmaxGrad", false));
  r.add(softmax_grad_op("LogSoftmaxGrad", true));

  r.add(OpDef{
      "MaxPool", "MaxPool", 1, [](const InferContext& c) { return pool_infer(c, "MaxPool"); },
      [](KernelContext& k, const std::vector<EagerPtr>& in) {
        return std::vector<EagerPtr>{pool_forward("MaxPool", in[0], k.attrs, true)};
      },
      [](const GradContext& g) {
        if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr};
        return std::vector<TensorPtr>{dispatch1("MaxPoolGrad", {g.inputs[0], g.outputs[0], g.out_grads[0]}, g.attrs)};
      }});
  r.add(OpDef{"MaxPoolGrad",
              "MaxPoolGrad",
              3,
              [](const InferContext& c) { return std::vector<TensorSpec>{c.inputs[0]}; },
              max_pool_grad_kernel,
              {}});
  r.add(OpDef{
      "AvgPool", "AvgPool", 1, [](const InferContext& c) { return pool_infer(c, "AvgPool"); },
      [](KernelContext& k, const std::vector<EagerPtr>& in) {
        return std::vector<EagerPtr>{pool_forward("AvgPool", in[0], k.attrs, false)};
      },
      [](const GradContext& g) {
        if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr};
        return std::vector<TensorPtr>{dispatch1("AvgPoolGrad", {shape_tensor(g.inputs[0]), g.out_grads[0]}, g.attrs)};
      }});
  r.add(OpDef{"AvgPoolGrad", "AvgPoolGrad", 2,
              [](const InferContext& c) {
                Shape s = shape_input(c, 0);
                return one(
                    c.inputs[1].dtype,
                    s.has_rank() ? s : Shape{Shape::kUnknown, Shape::kUnknown, Shape::kUnknown, Shape::kUnknown});
              },
              avg_pool_grad_kernel,
              [](const GradContext& g) {
                // AvgPoolGrad is linear in the gradient: its own gradient is the pooling itself.
                if (!g.out_grads[0]) return std::vector<TensorPtr>{nullptr, nullptr};
                return std::vector<TensorPtr>{nullptr, dispatch1("AvgPool", {g.out_grads[0]}, g.attrs)};
              }});
}

}  // namespace fn
