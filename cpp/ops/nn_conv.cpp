// 2-D convolution: Conv2D (NHWC input, HWIO filter) and its two gradient ops,
// Conv2DBackpropInput and Conv2DBackpropFilter. float32 runs on oneDNN (reference loops for
// tiny problems), float64 on the reference loops, float16/bfloat16 through float32.
#include "kernels/onednn/conv.h"
#include "kernels/reference/conv.h"
#include "ops/families.h"
#include "ops/nn_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

void check_rank4(const Shape& s, const char* what, bool graph, const InferContext* c, const std::string& op) {
  if (!s.has_rank() || s.rank() == 4) return;
  if (graph) throw_error(Code::ValueError, "Shape must be rank 4 but is rank ", s.rank(), suffix(op, *c));
  throw_error(Code::InvalidArgument, what, " must be 4-dimensional", std::string(what) == "filter" ? ": " : "",
              tf_shape(s));
}

Shape nhwc(int64_t n, int64_t h, int64_t w, int64_t c) { return Shape{n, h, w, c}; }

// The three convolution computations on whole tensors. `g` is fully known here.
enum class ConvKind { Forward, BackwardData, BackwardFilter };

EagerPtr conv_compute(ConvKind kind, const std::string& op, const EagerPtr& a, const EagerPtr& b, const Conv2DGeom& g) {
  check_same_dtype_eager(op, {a, b});
  Shape out = kind == ConvKind::Forward        ? nhwc(g.n, g.oh, g.ow, g.oc)
              : kind == ConvKind::BackwardData ? nhwc(g.n, g.ih, g.iw, g.ic)
                                               : Shape{g.kh, g.kw, g.ic, g.oc};
  return float_kernel(op, {a, b}, out, [&](auto tag, const std::vector<EagerPtr>& in, EagerTensor& o) {
    using T = decltype(tag);
    const T *x = in[0]->template data<T>(), *y = in[1]->template data<T>();
    T* r = o.template data<T>();
    if (o.num_elements() == 0) return;
    bool dnnl = std::is_same<T, float>::value && onednn::conv_worthwhile(g) && g.n * g.ih * g.iw * g.ic > 0 &&
                g.output_size() > 0;
    if constexpr (std::is_same<T, float>::value) {
      if (dnnl) {
        if (kind == ConvKind::Forward)
          onednn::conv2d_forward(x, y, r, g);
        else if (kind == ConvKind::BackwardData)
          onednn::conv2d_backward_data(x, y, r, g);
        else
          onednn::conv2d_backward_weights(x, y, r, g);
        return;
      }
    }
    if (kind == ConvKind::Forward)
      ref::conv2d_forward(x, y, r, g);
    else if (kind == ConvKind::BackwardData)
      ref::conv2d_backward_data(x, y, r, g);
    else
      ref::conv2d_backward_filter(x, y, r, g);
  });
}

// ---- Conv2D(input, filter) ----

std::vector<TensorSpec> conv_infer(const InferContext& c) {
  check_same_dtype_graph("Conv2D", c.inputs);
  const Shape &x = c.inputs[0].shape, &w = c.inputs[1].shape;
  check_rank4(x, "input", true, &c, "Conv2D");
  check_rank4(w, "filter", true, &c, "Conv2D");
  return graph_rule(c, "Conv2D", [&] {
    Conv2DGeom g = conv_geom(x, w, read_window_attrs("Conv2D", c.attrs, true));
    return one(c.inputs[0].dtype, nhwc(g.n, g.oh, g.ow, g.oc));
  });
}

std::vector<EagerPtr> conv_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  check_rank4(in[0]->shape(), "input", false, nullptr, "Conv2D");
  check_rank4(in[1]->shape(), "filter", false, nullptr, "Conv2D");
  Conv2DGeom g = conv_geom(in[0]->shape(), in[1]->shape(), read_window_attrs("Conv2D", k.attrs, true));
  return {conv_compute(ConvKind::Forward, "Conv2D", in[0], in[1], g)};
}

std::vector<TensorPtr> conv_grad(const GradContext& g) {
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return {nullptr, nullptr};
  const TensorPtr &x = g.inputs[0], &w = g.inputs[1];
  return {dispatch1("Conv2DBackpropInput", {shape_tensor(x), w, dy}, g.attrs),
          dispatch1("Conv2DBackpropFilter", {x, shape_tensor(w), dy}, g.attrs)};
}

// ---- Conv2DBackpropInput(input_sizes, filter, out_backprop) ----

Shape sizes_shape(const InferContext& c, int i) {
  Shape s = shape_input(c, i);
  return s.has_rank() ? s : Shape{Shape::kUnknown, Shape::kUnknown, Shape::kUnknown, Shape::kUnknown};
}

void check_out_backprop(const Conv2DGeom& g, const Shape& dy) {
  Shape want = nhwc(g.n, g.oh, g.ow, g.oc);
  if (dy.has_rank() && !dy.is_compatible_with(want))
    throw_error(Code::InvalidArgument, "Conv2DBackprop: out_backprop has shape ", tf_shape(dy),
                " but the convolution's output has shape ", tf_shape(want));
}

std::vector<TensorSpec> backprop_input_infer(const InferContext& c) {
  Shape x = sizes_shape(c, 0);
  return graph_rule(c, "Conv2DBackpropInput", [&] {
    Conv2DGeom g = conv_geom(x, c.inputs[1].shape, read_window_attrs("Conv2DBackpropInput", c.attrs, true));
    check_out_backprop(g, c.inputs[2].shape);
    return one(c.inputs[1].dtype, x);
  });
}

std::vector<EagerPtr> backprop_input_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  Shape x(read_int_list(*in[0]));
  check_rank4(x, "input", false, nullptr, "Conv2DBackpropInput");
  check_rank4(in[1]->shape(), "filter", false, nullptr, "Conv2DBackpropInput");
  Conv2DGeom g = conv_geom(x, in[1]->shape(), read_window_attrs("Conv2DBackpropInput", k.attrs, true));
  check_out_backprop(g, in[2]->shape());
  return {conv_compute(ConvKind::BackwardData, "Conv2DBackpropInput", in[2], in[1], g)};
}

// ---- Conv2DBackpropFilter(input, filter_sizes, out_backprop) ----

std::vector<TensorSpec> backprop_filter_infer(const InferContext& c) {
  Shape w = sizes_shape(c, 1);
  return graph_rule(c, "Conv2DBackpropFilter", [&] {
    Conv2DGeom g = conv_geom(c.inputs[0].shape, w, read_window_attrs("Conv2DBackpropFilter", c.attrs, true));
    check_out_backprop(g, c.inputs[2].shape);
    return one(c.inputs[0].dtype, w);
  });
}

std::vector<EagerPtr> backprop_filter_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  Shape w(read_int_list(*in[1]));
  check_rank4(in[0]->shape(), "input", false, nullptr, "Conv2DBackpropFilter");
  check_rank4(w, "filter", false, nullptr, "Conv2DBackpropFilter");
  Conv2DGeom g = conv_geom(in[0]->shape(), w, read_window_attrs("Conv2DBackpropFilter", k.attrs, true));
  check_out_backprop(g, in[2]->shape());
  return {conv_compute(ConvKind::BackwardFilter, "Conv2DBackpropFilter", in[0], in[2], g)};
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  r.add(OpDef{kConv2DOp, kConv2DOp, 2, conv_infer, conv_kernel, conv_grad});
  // Both gradient ops are linear in their tensor inputs, so their gradients are convolutions too.
  r.add(OpDef{
      "Conv2DBackpropInput", "Conv2DBackpropInput", 3, backprop_input_infer, backprop_input_kernel,
      [](const GradContext& g) {
        const TensorPtr& ddx = g.out_grads[0];
        if (!ddx) return std::vector<TensorPtr>{nullptr, nullptr, nullptr};
        const TensorPtr &w = g.inputs[1], &dy = g.inputs[2];
        return std::vector<TensorPtr>{nullptr, dispatch1("Conv2DBackpropFilter", {ddx, shape_tensor(w), dy}, g.attrs),
                                      dispatch1("Conv2D", {ddx, w}, g.attrs)};
      }}.with_input_types({{0, "input_sizes", "input_sizes", {DType::Int32}}}));
  r.add(OpDef{
      "Conv2DBackpropFilter", "Conv2DBackpropFilter", 3, backprop_filter_infer, backprop_filter_kernel,
      [](const GradContext& g) {
        const TensorPtr& ddw = g.out_grads[0];
        if (!ddw) return std::vector<TensorPtr>{nullptr, nullptr, nullptr};
        const TensorPtr &x = g.inputs[0], &dy = g.inputs[2];
        return std::vector<TensorPtr>{dispatch1("Conv2DBackpropInput", {shape_tensor(x), ddw, dy}, g.attrs), nullptr,
                                      dispatch1("Conv2D", {x, ddw}, g.attrs)};
      }}.with_input_types({{1, "filter_sizes", "filter_sizes", {DType::Int32}}}));
}

}  // namespace fn
