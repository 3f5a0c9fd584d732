#include "ops/fused_conv2d.h"

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "kernels/epilogue.h"
#include "kernels/onednn/conv.h"
#include "kernels/onednn/pool.h"
#include "kernels/reference/pool.h"
#include "ops/contraction_epilogue.h"
#include "ops/nn_util.h"

namespace fn {

namespace {

// The fused pool's attrs (stored prefixed "pool:" on the node), or empty without one.
Attrs pool_attrs(const Attrs& a) {
  Attrs p;
  for (const auto& kv : a.items())
    if (kv.first.rfind("pool:", 0) == 0) p.set(kv.first.substr(5), kv.second);
  return p;
}

const OpDef& pool_def(const Attrs& a) {
  const std::string& op = a.get<std::string>("pool_op");
  if (op != "MaxPool" && op != "AvgPool") throw_error(Code::Internal, "_FusedConv2D: unknown pool ", op);
  return OpRegistry::global().get(op);
}

// The convolution's (and its epilogue's) output, unpooled, from the first `inputs` inputs.
std::vector<EagerPtr> unpooled(KernelContext& k, const std::vector<EagerPtr>& in, size_t extra) {
  static const OpDef& conv = OpRegistry::global().get("Conv2D");  // once: the registry is frozen at start-up
  const std::vector<EagerPtr> cin = extra ? contraction_inputs(in, extra) : in;
  if (cin.size() < 2) throw_error(Code::Internal, "_FusedConv2D takes 3 or 4 inputs");
  const Shape &sx = cin[0]->shape(), &sw = cin[1]->shape();
  if (sx.rank() != 4 || sw.rank() != 4) throw_error(Code::Internal, "_FusedConv2D takes rank-4 tensors");
  Conv2DGeom g = conv_geom(sx, sw, read_window_attrs("Conv2D", k.attrs, true));
  Shape out_shape{g.n, g.oh, g.ow, g.oc};
  Epilogue e = epilogue_of("_FusedConv2D", k.attrs, cin, out_shape);
  // The same choice of kernel as Conv2D's (ops/nn_conv.cpp).
  if (onednn::conv_worthwhile(g) && g.input_size() > 0 && g.output_size() > 0) {
    auto out = make_tensor(DType::Float32, out_shape);
    onednn::conv2d_forward(cin[0]->data<float>(), cin[1]->data<float>(), out->data<float>(), g, &e);
    return {out};
  }
  auto out = conv.kernel(k, {cin[0], cin[1]});
  apply_epilogue(out[0]->data<float>(), g.n * g.oh * g.ow, g.oc, e);
  return out;
}

// Pools `count` images at `x` (geometry `pg` but for the batch) into `y`, with the kernel the
// standalone op picks for the whole batch (`dnnl`), on this thread alone when `single`.
void pool_images(const float* x, float* y, Pool2DGeom pg, int64_t count, bool max, bool dnnl, bool single) {
  pg.n = count;
  if (dnnl) {
    if (max)
      onednn::max_pool_forward(x, y, pg, single);
    else
      onednn::avg_pool_forward(x, y, pg, single);
  } else if (max) {
    ref::max_pool_forward(x, y, pg);
  } else {
    ref::avg_pool_forward(x, y, pg);
  }
}

// The fused pool's geometry over the convolution's output `conv`, and whether it is a max pool.
Pool2DGeom fused_pool_geom(const Attrs& a, const Shape& conv, bool* max) {
  *max = a.get<std::string>("pool_op") == "MaxPool";
  return pool_geom(conv, read_window_attrs(*max ? "MaxPool" : "AvgPool", pool_attrs(a), false));
}

// A oneDNN convolution whose tail (the epilogue program, the pooling, or the pooling and then the
// epilogue program) runs on each batch slice right after it (kernels/onednn/conv.h), or empty
// where that cannot be: a small problem (the reference loop), or an epilogue operand that cannot
// be re-based to a slice. The caller then runs it one step at a time.
std::vector<EagerPtr> sliced(KernelContext& k, const std::vector<EagerPtr>& in, size_t extra) {
  const std::vector<EagerPtr> cin = extra ? contraction_inputs(in, extra) : in;
  if (cin.size() < 2 || cin[0]->shape().rank() != 4 || cin[1]->shape().rank() != 4) return {};
  Conv2DGeom g = conv_geom(cin[0]->shape(), cin[1]->shape(), read_window_attrs("Conv2D", k.attrs, true));
  if (!onednn::conv_worthwhile(g) || g.input_size() <= 0 || g.output_size() <= 0) return {};
  const Shape conv_shape{g.n, g.oh, g.ow, g.oc};
  const Epilogue e = epilogue_of("_FusedConv2D", k.attrs, cin, conv_shape);
  const bool pooled = k.attrs.has("pool_op"), after_pool = pooled && k.attrs.get_or("epilogue_after_pool", false);
  Pool2DGeom pg;
  bool max = false, pool_dnnl = false;
  Shape out_shape = conv_shape;
  if (pooled) {
    pg = fused_pool_geom(k.attrs, conv_shape, &max);
    pool_dnnl = onednn::pool_worthwhile(pg);  // the standalone op's choice (ops/nn.cpp)
    out_shape = Shape{pg.n, pg.oh, pg.ow, pg.c};
  }
  const int64_t image = g.oh * g.ow * g.oc, pooled_image = pg.oh * pg.ow * pg.c;
  const int64_t prog_image = after_pool ? pooled_image : image;  // what the program runs over, per image
  std::unique_ptr<EpilogueProgram> prog;
  if (k.attrs.has("epilogue_program")) {
    prog = std::make_unique<EpilogueProgram>("_FusedConv2D", k.attrs, in, extra, g.n * prog_image);
    const onednn::ForwardSlices sl = onednn::forward_slices(g);
    for (int64_t b = 0; b < sl.count && sl.count > 1; ++b) {
      const int64_t first = b * sl.per, count = std::min(sl.per, g.n - first);
      if (!prog->runs_range(first * prog_image, count * prog_image)) return {};
    }
  }
  auto out = make_tensor(DType::Float32, out_shape);
  float* o = out->data<float>();
  auto run_prog = [&](int64_t first, int64_t count, float* at, bool slice) {
    if (slice)
      prog->run_range(first * prog_image, count * prog_image, at);
    else
      prog->run_whole(at);
  };
  const onednn::SliceTail tail = [&](int64_t first, int64_t count, float* y, bool slice) {
    if (prog && !after_pool) run_prog(first, count, y, slice);
    if (!pooled || out->num_elements() == 0) return;
    float* p = o + first * pooled_image;
    pool_images(y, p, pg, count, max, pool_dnnl, slice);
    if (prog && after_pool) run_prog(first, count, p, slice);
  };
  onednn::conv2d_forward(cin[0]->data<float>(), cin[1]->data<float>(), pooled ? nullptr : o, g, &e, &tail);
  return {out};
}

}  // namespace

std::vector<TensorSpec> fused_conv2d_infer(const InferContext& c) {
  static const OpDef& conv = OpRegistry::global().get("Conv2D");
  std::vector<TensorSpec> ins(c.inputs.begin(), c.inputs.begin() + 2);
  std::vector<EagerPtr> vals(c.values.begin(), c.values.begin() + 2);
  std::vector<TensorSpec> out = conv.infer(InferContext{ins, c.attrs, vals});
  if (!c.attrs.has("pool_op")) return out;
  const Attrs pa = pool_attrs(c.attrs);
  const std::vector<EagerPtr> none(1);
  return pool_def(c.attrs).infer(InferContext{out, pa, none});
}

std::vector<EagerPtr> fused_conv2d_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const size_t extra = epilogue_inputs("_FusedConv2D", k.attrs, in.size());
  std::vector<EagerPtr> out = sliced(k, in, extra);
  if (!out.empty()) return out;
  // One step at a time: the convolution, the program (before the pool, or after it), the pool.
  const bool program = k.attrs.has("epilogue_program"), pooled = k.attrs.has("pool_op");
  const bool after_pool = pooled && k.attrs.get_or("epilogue_after_pool", false);
  auto run_program = [&](const EagerPtr& t) {
    EpilogueProgram("_FusedConv2D", k.attrs, in, extra, t->num_elements()).run_whole(t->data<float>());
  };
  out = unpooled(k, in, extra);
  if (program && !after_pool) run_program(out[0]);
  if (!pooled) return out;
  const Attrs pa = pool_attrs(k.attrs);
  KernelContext pk{pa, k.node_name};
  out = pool_def(k.attrs).kernel(pk, {out[0]});
  if (program && after_pool) run_program(out[0]);
  return out;
}

}  // namespace fn
