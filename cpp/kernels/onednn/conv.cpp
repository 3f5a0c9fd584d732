#include "kernels/onednn/conv.h"

#include "kernels/onednn/cache.h"
#include "kernels/onednn/engine.h"

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
  return cache_key({g.n, g.ih, g.iw, g.ic, g.kh, g.kw, g.oc, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt, g.pb,
                    g.pl, g.pr});
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
  } catch (const dnnl::error&) {
  }
  return make(memory::desc(d.wei, f32, tag::any));
}

dnnl::convolution_forward::primitive_desc forward_pd(const Descs& d, dnnl::prop_kind kind) {
  return with_filter_layout(d, [&](const memory::desc& wei) {
    return dnnl::convolution_forward::primitive_desc(engine(), kind, dnnl::algorithm::convolution_direct,
                                                     d.src_user, wei, d.dst_user, d.strides, d.dil, d.pl, d.pr);
  });
}

// The filter in the layout a primitive wants (`layout`), and the reorder between it and HWIO
// (into `layout` for forward/backward data; out of it for backward weights).
struct Reorder {
  bool needed = false;
  dnnl::reorder prim;
  memory::desc layout;
};

Reorder make_reorder(const memory::desc& user, const memory::desc& layout, bool to_user) {
  Reorder r;
  r.layout = layout;
  r.needed = !(user == layout);
  if (r.needed)
    r.prim = to_user ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), layout, engine(), user))
                     : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), user, engine(), layout));
  return r;
}

struct Fwd {
  dnnl::convolution_forward prim;
  Reorder wei;
};

struct BwdData {
  dnnl::convolution_backward_data prim;
  Reorder wei;
};

struct BwdWeights {
  dnnl::convolution_backward_weights prim;
  Reorder wei;   // from the primitive's layout back to HWIO
};

}  // namespace

void conv2d_forward(const float* x, const float* w, float* y, const Conv2DGeom& g) {
  thread_local PrimitiveCache<Fwd> cache;
  Fwd& f = cache.get(key_of(g), [&] {
    Descs d = descs(g);
    auto pd = forward_pd(d, dnnl::prop_kind::forward_inference);
    return Fwd{dnnl::convolution_forward(pd), make_reorder(d.wei_user, pd.weights_desc(), false)};
  });
  Descs d = descs(g);
  auto& s = stream();
  memory src(d.src_user, engine(), const_cast<float*>(x)), dst(d.dst_user, engine(), y);
  memory wei_user(d.wei_user, engine(), const_cast<float*>(w));
  memory wei = wei_user;
  if (f.wei.needed) {
    wei = memory(f.wei.layout, engine());
    f.wei.prim.execute(s, wei_user, wei);
  }
  f.prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  s.wait();
}

void conv2d_backward_data(const float* dy, const float* w, float* dx, const Conv2DGeom& g) {
  thread_local PrimitiveCache<BwdData> cache;
  BwdData& b = cache.get(key_of(g), [&] {
    Descs d = descs(g);
    auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
    auto pd = with_filter_layout(d, [&](const memory::desc& wei) {
      return dnnl::convolution_backward_data::primitive_desc(engine(), dnnl::algorithm::convolution_direct,
                                                             d.src_user, wei, d.dst_user, d.strides, d.dil, d.pl,
                                                             d.pr, hint);
    });
    return BwdData{dnnl::convolution_backward_data(pd), make_reorder(d.wei_user, pd.weights_desc(), false)};
  });
  Descs d = descs(g);
  auto& s = stream();
  memory ddst(d.dst_user, engine(), const_cast<float*>(dy)), dsrc(d.src_user, engine(), dx);
  memory wei_user(d.wei_user, engine(), const_cast<float*>(w));
  memory wei = wei_user;
  if (b.wei.needed) {
    wei = memory(b.wei.layout, engine());
    b.wei.prim.execute(s, wei_user, wei);
  }
  b.prim.execute(s, {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dsrc}});
  s.wait();
}

void conv2d_backward_weights(const float* x, const float* dy, float* dw, const Conv2DGeom& g) {
  thread_local PrimitiveCache<BwdWeights> cache;
  BwdWeights& b = cache.get(key_of(g), [&] {
    Descs d = descs(g);
    auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
    auto pd = with_filter_layout(d, [&](const memory::desc& wei) {
      return dnnl::convolution_backward_weights::primitive_desc(engine(), dnnl::algorithm::convolution_direct,
                                                                d.src_user, wei, d.dst_user, d.strides, d.dil,
                                                                d.pl, d.pr, hint);
    });
    return BwdWeights{dnnl::convolution_backward_weights(pd), make_reorder(d.wei_user, pd.diff_weights_desc(), true)};
  });
  Descs d = descs(g);
  auto& s = stream();
  memory src(d.src_user, engine(), const_cast<float*>(x)), ddst(d.dst_user, engine(), const_cast<float*>(dy));
  memory dwei_user(d.wei_user, engine(), dw);
  memory dwei = b.wei.needed ? memory(b.wei.layout, engine()) : dwei_user;
  b.prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_WEIGHTS, dwei}});
  if (b.wei.needed) b.wei.prim.execute(s, dwei, dwei_user);
  s.wait();
}

}  // namespace onednn
}  // namespace fn
