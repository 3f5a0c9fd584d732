#include "kernels/onednn/conv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/onednn/engine.h"
#include "kernels/onednn/post_ops.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"

namespace fn {
namespace onednn {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

// oneDNN describes tensors in NCHW / OIHW logical order; the format tags say how they sit in
// memory (nhwc activations, hwio filters: TensorFlow's layouts).
struct Descs {
  memory::dims src, wei, dst, strides, dil, pl, pr;
  memory::desc src_user, wei_user, dst_user;
};

Descs descs(const Conv2DGeom& g) {
  Descs d;
  d.src = {g.n, g.ic, g.ih, g.iw};
  d.wei = {g.oc, g.ic, g.kh, g.kw};
  d.dst = {g.n, g.oc, g.oh, g.ow};
  d.strides = {g.sh, g.sw};
  d.dil = {g.dh - 1, g.dw - 1};
  d.pl = {g.pt, g.pl};
  d.pr = {g.pb, g.pr};
  d.src_user = memory::desc(d.src, f32, tag::nhwc);
  d.wei_user = memory::desc(d.wei, f32, tag::hwio);
  d.dst_user = memory::desc(d.dst, f32, tag::nhwc);
  return d;
}

std::string key_of(const Conv2DGeom& g) {
  std::string k;
  for (int64_t v :
       {g.n, g.ih, g.iw, g.ic, g.kh, g.kw, g.oc, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt, g.pb, g.pl, g.pr})
    k += std::to_string(v) + ',';
  return k;
}

// oneDNN's direct kernels (brgconv on AVX-512/AVX2) read NHWC activations and HWIO filters as
// they are, saving a filter reorder per call. Where HWIO would only get the reference or the
// im2col+GEMM implementation (slower; typical for the backward passes), let oneDNN pick the
// filter layout (`any`) and reorder to it.
bool fast(const dnnl::primitive_desc_base& pd) {
  std::string impl = pd.impl_info_str();
  return impl.rfind("ref", 0) != 0 && impl.find("gemm") == std::string::npos;
}

template <typename Make>
auto with_filter_layout(const Descs& d, Make make) {
  try {
    auto pd = make(d.wei_user);
    if (fast(pd)) return pd;
  } catch (const dnnl::error&) {}
  return make(memory::desc(d.wei, f32, tag::any));
}

dnnl::convolution_forward::primitive_desc forward_pd(const Descs& d, dnnl::prop_kind kind,
                                                     const Epilogue* e = nullptr) {
  return with_filter_layout(d, [&](const memory::desc& wei) {
    if (!e)
      return dnnl::convolution_forward::primitive_desc(engine(), kind, dnnl::algorithm::convolution_direct, d.src_user,
                                                       wei, d.dst_user, d.strides, d.dil, d.pl, d.pr,
                                                       user_scratchpad());
    memory::desc bias = e->bias ? memory::desc({d.dst[1]}, f32, tag::a) : memory::desc();
    return dnnl::convolution_forward::primitive_desc(engine(), kind, dnnl::algorithm::convolution_direct, d.src_user,
                                                     wei, bias, d.dst_user, d.strides, d.dil, d.pl, d.pr,
                                                     user_scratchpad(post_op_attr(*e, d.dst_user)));
  });
}

// The memory descriptor a cached primitive was built for (the filter layout it chose).
memory::desc weights_layout(const dnnl::primitive& p, bool diff) {
  dnnl::primitive_desc_base pd(const_cast<dnnl_primitive_desc_t>(p.get_primitive_desc()), true);
  return diff ? pd.diff_weights_desc() : pd.weights_desc();
}

// Batch slices of a forward convolution (conv2d_forward): each at least kFwdSliceMacs
// multiply-adds (~40 us on one AVX-512 core, so a slice's call overhead, a few us, stays small),
// at most kFwdSlices; and, where the work is worth two slices, enough of them that a slice's
// output fits kFwdSliceOutput floats (256 KiB: with its input it stays in a core's 1 MiB L2 for
// the tail that reads it; callgrind's 1 MiB last-level cache: the benchmark CNN's second layer
// with relu and max pooling missed 390K reads / 200K writes per 6 calls as three steps, 87K / 56K
// as slices).
constexpr double kFwdSliceMacs = double(int64_t{1} << 21);
constexpr int64_t kFwdSlices = 16;
constexpr int64_t kFwdSliceOutput = int64_t{1} << 16;
// The largest unpooled output (floats, 64 MiB) kept in a per-thread buffer between calls.
constexpr int64_t kWholeScratch = int64_t{1} << 24;

// Multiply-adds of one convolution pass (forward, backward data and backward filter alike).
double macs_of(const Conv2DGeom& g) { return double(g.output_size()) * double(g.kh) * double(g.kw) * double(g.ic); }

// Filter reorders between HWIO and the layout a convolution chose, cached with it. A filter is
// small (a few KiB to a few MiB): below 64K floats (256 KiB, a few microseconds of copying) it is
// reordered on this thread alone, always: waking a sleeping OpenMP worker takes ~40 us on an
// idle machine, more than the copy (a conv1d layer's 2,560-float filter, each call). Larger ones
// below small_pass's size too.
std::shared_ptr<dnnl::primitive> filter_reorder(const std::string& key, const memory::desc& from,
                                                const memory::desc& to) {
  return cached_primitive(key, [&] {
    return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to, user_scratchpad()));
  });
}

void reorder_filter(const std::string& key, const Descs& d, const memory& from, const memory& to, dnnl::stream& s) {
  const memory::desc &f = from.get_desc(), &t = to.get_desc();
  const int64_t elements = d.wei[0] * d.wei[1] * d.wei[2] * d.wei[3];
  ThreadScope threads(elements < (int64_t{1} << 16) || small_pass(elements));
  execute(*filter_reorder(key + "reorder" + threads.key(), f, t), s, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

}  // namespace

namespace {

// One forward call over g's whole batch. `single`: on this thread alone (a slice on the task
// pool), else oneDNN's threads above small_contraction's size. `packed`: the filter already in
// the primitive's layout (reordered once for all slices), or nullptr.
void forward_call(const float* x, const float* w, float* y, const Conv2DGeom& g, const Epilogue* e, bool single,
                  const float* packed = nullptr) {
  Descs d = descs(g);
  ThreadScope threads(single || small_contraction(macs_of(g)));
  std::string key = "conv2d_fwd:" + key_of(g) + post_op_key(e) + threads.key();
  auto prim = cached_primitive(
      key, [&] { return dnnl::convolution_forward(forward_pd(d, dnnl::prop_kind::forward_inference, e)); });
  auto& s = stream();
  // The arguments are made once per thread (cached_args) and re-pointed; a filter in another
  // layout than HWIO is reordered each call into a buffer made with them (unless `packed`).
  ArgPtr ptrs[5] = {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}};
  int n = 2;
  if (e && e->bias) ptrs[n++] = {DNNL_ARG_BIAS, e->bias};
  std::pair<int, const void*> post[2];
  for (int j = 0, m = e ? post_op_pointers(*e, post) : 0; j < m; ++j) ptrs[n++] = {post[j].first, post[j].second};
  const memory::desc layout = weights_layout(*prim, false);
  const bool user_filter = layout == d.wei_user;
  const float* given = user_filter ? w : packed;
  if (given) ptrs[n++] = {DNNL_ARG_WEIGHTS, given};
  Args& args = cached_args(prim, ptrs, n, [&] {
    Args made{
        {DNNL_ARG_SRC, memory(d.src_user, engine(), const_cast<float*>(x))},
        {DNNL_ARG_DST, memory(d.dst_user, engine(), y)},
        {DNNL_ARG_WEIGHTS, given ? memory(layout, engine(), const_cast<float*>(given)) : memory(layout, engine())}};
    if (e && e->bias)
      made.insert(
          {DNNL_ARG_BIAS, memory(memory::desc({d.dst[1]}, f32, tag::a), engine(), const_cast<float*>(e->bias))});
    if (e) add_post_op_args(*e, d.dst_user, made);
    return made;
  });
  if (!given) {
    memory blocked = args.at(DNNL_ARG_WEIGHTS);  // a handle to the same buffer (the entry keeps it)
    reorder_filter(key, d, memory(d.wei_user, engine(), const_cast<float*>(w)), blocked, s);
  }
  execute(*prim, s, args);
  s.wait();
}

// The filter in the layout the slices' (single-threaded) primitive reads, reordered once per
// call into `buf`; nullptr when that layout is HWIO (read as it is).
const float* pack_filter(const float* w, const Conv2DGeom& gs, const Epilogue* e, std::vector<float>& buf) {
  Descs d = descs(gs);
  memory::desc layout;
  {
    ThreadScope threads(true);
    std::string key = "conv2d_fwd:" + key_of(gs) + post_op_key(e) + threads.key();
    auto prim = cached_primitive(
        key, [&] { return dnnl::convolution_forward(forward_pd(d, dnnl::prop_kind::forward_inference, e)); });
    layout = weights_layout(*prim, false);
    if (layout == d.wei_user) return nullptr;
  }
  buf.resize(layout.get_size() / sizeof(float));
  auto& s = stream();
  reorder_filter("conv2d_fwd_pack:" + key_of(gs), d, memory(d.wei_user, engine(), const_cast<float*>(w)),
                 memory(layout, engine(), buf.data()), s);
  s.wait();
  return buf.data();
}

// This thread's buffer for a slice's output that only the slice's tail reads (reused across
// calls: a slice's output stays in this core's cache between the convolution and its tail).
float* slice_scratch(int64_t elements) {
  thread_local std::vector<float> buf;
  if (static_cast<int64_t>(buf.size()) < elements) buf.resize(static_cast<size_t>(elements));
  return buf.data();
}

// An epilogue's per-image operands (the residual) from image `first` on; the bias and scale
// are per channel / per tensor and stay.
Epilogue slice_epilogue(const Epilogue* e, int64_t first, int64_t image) {
  Epilogue s = *e;
  if (s.residual) s.residual += first * image;
  return s;
}

}  // namespace

// FN_CONV_SLICES=1 turns the slicing on. Off by default: on the shared 2-core host it was level
// or ahead idle and at load 4-7, but behind beside one busy process (bench_models.py
// --competing-load, 2 runs: CNN rows 1.2-1.8x, the ResNet step 1.1-1.9x slower; perf15c.md).
static bool slicing_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FN_CONV_SLICES");
    return v && std::string(v) == "1";
  }();
  return on;
}

ForwardSlices forward_slices(const Conv2DGeom& g) {
  ForwardSlices s;
  s.per = g.n;
  if (g.n < 2 || !slicing_enabled()) return s;
  const double worth = std::floor(macs_of(g) / kFwdSliceMacs);
  if (worth < 2) return s;
  const double fit = std::ceil(double(g.output_size()) / double(kFwdSliceOutput));
  const int64_t k = std::min<int64_t>({g.n, kFwdSlices, static_cast<int64_t>(std::min(std::max(worth, fit), 1e9))});
  if (k < 2) return s;
  s.per = (g.n + k - 1) / k;
  s.count = (g.n + s.per - 1) / s.per;
  return s;
}

void conv2d_forward(const float* x, const float* w, float* y, const Conv2DGeom& g, const Epilogue* e,
                    const SliceTail* tail) {
  const ForwardSlices sl = forward_slices(g);
  const int64_t x_image = g.ih * g.iw * g.ic, y_image = g.oh * g.ow * g.oc;
  if (sl.count < 2) {
    // The output only the tail reads: this thread's reused buffer (no page faults per call on
    // fresh memory) up to kWholeScratch floats, a buffer of its own above.
    std::vector<float> whole;
    if (!y && g.output_size() <= kWholeScratch) {
      y = slice_scratch(g.output_size());
    } else if (!y) {
      whole.resize(static_cast<size_t>(g.output_size()));
      y = whole.data();
    }
    forward_call(x, w, y, g, e, false);
    if (tail) (*tail)(0, g.n, y, false);
    return;
  }
  Conv2DGeom gs = g, gt = g;
  gs.n = sl.per;
  gt.n = g.n - sl.per * (sl.count - 1);
  std::vector<float> packed;
  const float* pk = pack_filter(w, gs, e, packed);
  if (!pk && gt.n != gs.n) pk = pack_filter(w, gt, e, packed);  // the tail slice's primitive may choose otherwise
  auto run_slice = [&](int64_t b) {
    const int64_t first = b * sl.per;
    const Conv2DGeom& gb = b == sl.count - 1 ? gt : gs;
    float* out = y ? y + first * y_image : slice_scratch(gb.n * y_image);
    Epilogue es;
    if (e) es = slice_epilogue(e, first, y_image);
    forward_call(x + first * x_image, w, out, gb, e ? &es : nullptr, true, pk);
    if (tail) (*tail)(first, gb.n, out, true);
  };
  TaskPool::global().run(max_threads(), sl.count, run_slice);
}

void conv2d_backward_data(const float* dy, const float* w, float* dx, const Conv2DGeom& g) {
  Descs d = descs(g);
  ThreadScope threads(small_contraction(macs_of(g)));
  std::string key = "conv2d_bwd_data:" + key_of(g) + threads.key();
  auto prim = cached_primitive(key, [&] {
    auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
    return dnnl::convolution_backward_data(with_filter_layout(d, [&](const memory::desc& wei) {
      return dnnl::convolution_backward_data::primitive_desc(engine(), dnnl::algorithm::convolution_direct, d.src_user,
                                                             wei, d.dst_user, d.strides, d.dil, d.pl, d.pr, hint,
                                                             user_scratchpad());
    }));
  });
  auto& s = stream();
  // As the forward: arguments made once per thread and re-pointed; a blocked filter is reordered
  // each call into the buffer made with them (no allocation per call).
  const memory::desc layout = weights_layout(*prim, false);
  const bool user_filter = layout == d.wei_user;
  ArgPtr ptrs[3] = {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}, {DNNL_ARG_WEIGHTS, w}};
  Args& args = cached_args(prim, ptrs, user_filter ? 3 : 2, [&] {
    return Args{{DNNL_ARG_DIFF_DST, memory(d.dst_user, engine(), const_cast<float*>(dy))},
                {DNNL_ARG_DIFF_SRC, memory(d.src_user, engine(), dx)},
                {DNNL_ARG_WEIGHTS,
                 user_filter ? memory(d.wei_user, engine(), const_cast<float*>(w)) : memory(layout, engine())}};
  });
  if (!user_filter) {
    memory blocked = args.at(DNNL_ARG_WEIGHTS);  // a handle to the same buffer (the entry keeps it)
    reorder_filter(key, d, memory(d.wei_user, engine(), const_cast<float*>(w)), blocked, s);
  }
  execute(*prim, s, args);
  s.wait();
}

namespace {

// `layout`: the filter-gradient layout to use (a tail slice takes its full slices' layout, so the
// partial sums add elementwise); empty: HWIO where fast, else oneDNN's choice.
dnnl::convolution_backward_weights make_backward_weights(const Descs& d, const memory::desc& layout = {}) {
  auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
  auto make = [&](const memory::desc& wei) {
    return dnnl::convolution_backward_weights::primitive_desc(engine(), dnnl::algorithm::convolution_direct, d.src_user,
                                                              wei, d.dst_user, d.strides, d.dil, d.pl, d.pr, hint,
                                                              user_scratchpad());
  };
  if (!layout.is_zero()) return dnnl::convolution_backward_weights(make(layout));
  return dnnl::convolution_backward_weights(with_filter_layout(d, make));
}

// Batch slices of a filter gradient: each big enough (kBwdWeightsSliceMacs multiply-adds, and 64
// per filter element so adding the partial gradients costs under ~2% of the work) that a call's
// overhead stays small; at most kBwdWeightsSlices, and partial gradients of at most 2^24 floats
// (64 MiB) in all. Fixed by the shape alone, so eager and graph calls (and every run) add the
// same partial sums in the same order.
constexpr double kBwdWeightsSliceMacs = double(int64_t{1} << 22);
constexpr double kBwdWeightsMacsPerElement = 64;
constexpr double kBwdWeightsPartialFloats = double(int64_t{1} << 24);
constexpr int64_t kBwdWeightsSlices = 16;

// Images per slice; `threaded`: one slice although the work is worth two or more (one image, or
// a filter too big to keep partial gradients of), left to oneDNN's own threads.
int64_t backward_weights_slice(const Conv2DGeom& g, bool* threaded) {
  const double filter = double(g.kh) * double(g.kw) * double(g.ic) * double(g.oc);
  const double slice_macs = std::max(kBwdWeightsSliceMacs, kBwdWeightsMacsPerElement * filter);
  const double worth = std::floor(macs_of(g) / slice_macs);
  const double slices =
      std::min({double(kBwdWeightsSlices), worth, std::floor(kBwdWeightsPartialFloats / std::max(filter, 1.0))});
  const int64_t k = std::max<int64_t>(1, std::min<int64_t>(g.n, static_cast<int64_t>(slices)));
  *threaded = k == 1 && worth >= 2;
  return (g.n + k - 1) / k;
}

// One single-threaded backward-weights call over a slice's g.n images into `out`, in `layout`.
void backward_weights_slice_call(const float* x, const float* dy, float* out, const Conv2DGeom& g,
                                 const memory::desc& layout, const std::string& layout_key) {
  Descs d = descs(g);
  ThreadScope threads(true);
  auto prim = cached_primitive("conv2d_bwd_weights:" + key_of(g) + "|t1|" + layout_key,
                               [&] { return make_backward_weights(d, layout); });
  ArgPtr ptrs[3] = {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, out}};
  Args& args = cached_args(prim, ptrs, 3, [&] {
    return Args{{DNNL_ARG_SRC, memory(d.src_user, engine(), const_cast<float*>(x))},
                {DNNL_ARG_DIFF_DST, memory(d.dst_user, engine(), const_cast<float*>(dy))},
                {DNNL_ARG_DIFF_WEIGHTS, memory(layout, engine(), out)}};
  });
  execute(*prim, stream(), args);
  stream().wait();
}

// The filter gradient on oneDNN's own threads: an argument set made once per thread and
// re-pointed; a blocked filter gradient goes to the buffer made with them and is reordered from
// there into `dw`.
void threaded_backward_weights(const float* x, const float* dy, float* dw, const Conv2DGeom& g) {
  Descs d = descs(g);
  std::string key = "conv2d_bwd_weights:" + key_of(g);
  auto prim = cached_primitive(key, [&] { return make_backward_weights(d); });
  auto& s = stream();
  const memory::desc layout = weights_layout(*prim, true);
  const bool user_filter = layout == d.wei_user;
  ArgPtr ptrs[3] = {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw}};
  Args& args = cached_args(prim, ptrs, user_filter ? 3 : 2, [&] {
    return Args{{DNNL_ARG_SRC, memory(d.src_user, engine(), const_cast<float*>(x))},
                {DNNL_ARG_DIFF_DST, memory(d.dst_user, engine(), const_cast<float*>(dy))},
                {DNNL_ARG_DIFF_WEIGHTS, user_filter ? memory(d.wei_user, engine(), dw) : memory(layout, engine())}};
  });
  execute(*prim, s, args);
  if (!user_filter) reorder_filter(key, d, args.at(DNNL_ARG_DIFF_WEIGHTS), memory(d.wei_user, engine(), dw), s);
  s.wait();
}

}  // namespace

// The filter gradient sums over the batch. oneDNN's own two-thread split (jit avx512_core) ends
// in a spinning barrier that waits for a descheduled thread: beside one busy process a ResNet
// step's filter gradients took 5-7 ms instead of 0.15-1.5 ms. Here the batch is cut into slices
// that run single-threaded on the task pool (a late worker delays only the slice it holds), each
// into its own partial gradient, added in slice order.
void conv2d_backward_weights(const float* x, const float* dy, float* dw, const Conv2DGeom& g) {
  bool threaded = false;
  const int64_t per = backward_weights_slice(g, &threaded), slices = (g.n + per - 1) / per;
  if (threaded) {
    threaded_backward_weights(x, dy, dw, g);
    return;
  }
  const int team = max_threads();
  Conv2DGeom gs = g, gt = g;
  gs.n = per;
  gt.n = g.n - per * (slices - 1);
  const int64_t x_image = g.ih * g.iw * g.ic, dy_image = g.oh * g.ow * g.oc;
  // The partial gradients in the layout the slices' primitive chose (the same for a tail slice:
  // it only depends on the channels and the window).
  Descs ds = descs(gs);
  const std::string slice_key = "conv2d_bwd_weights:" + key_of(gs) + "|t1";
  memory::desc layout;
  {
    ThreadScope threads(true);
    layout = weights_layout(*cached_primitive(slice_key, [&] { return make_backward_weights(ds); }), true);
  }
  const int64_t elems = static_cast<int64_t>(layout.get_size() / sizeof(float));
  std::vector<float> part(static_cast<size_t>(elems) * static_cast<size_t>(slices));
  auto run_slice = [&](int64_t b) {
    const Conv2DGeom& gb = b == slices - 1 ? gt : gs;
    backward_weights_slice_call(x + b * per * x_image, dy + b * per * dy_image, part.data() + b * elems, gb, layout,
                                slice_key);
  };
  if (slices == 1 || team <= 1) {
    for (int64_t b = 0; b < slices; ++b) run_slice(b);
  } else {
    TaskPool::global().run(team, slices, run_slice);
  }
  float* sum = part.data();
  for (int64_t b = 1; b < slices; ++b) {
    const float* p = part.data() + b * elems;
    for (int64_t i = 0; i < elems; ++i) sum[i] += p[i];
  }
  Descs d = descs(g);
  if (layout == d.wei_user) {
    std::copy(sum, sum + elems, dw);
    return;
  }
  auto& s = stream();
  reorder_filter(slice_key, d, memory(layout, engine(), sum), memory(d.wei_user, engine(), dw), s);
  s.wait();
}

}  // namespace onednn
}  // namespace fn
