#include "kernels/onednn/pool.h"

#include "kernels/onednn/cache.h"
#include "kernels/onednn/engine.h"

namespace fn {
namespace onednn {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

struct Descs {
  memory::desc src, dst;
  memory::dims strides, kernel, dil, pl, pr;
};

Descs descs(const Pool2DGeom& g) {
  return Descs{memory::desc({g.n, g.c, g.ih, g.iw}, f32, memory::format_tag::nhwc),
               memory::desc({g.n, g.c, g.oh, g.ow}, f32, memory::format_tag::nhwc),
               {g.sh, g.sw}, {g.kh, g.kw}, {0, 0}, {g.pt, g.pl}, {g.pb, g.pr}};
}

std::string key_of(const Pool2DGeom& g, bool max) {
  return cache_key({max, g.n, g.ih, g.iw, g.c, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.pt, g.pb, g.pl, g.pr});
}

// TensorFlow's average pooling divides by the number of real (non-padding) elements.
dnnl::algorithm alg(bool max) {
  return max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
}

dnnl::pooling_forward::primitive_desc forward_pd(const Pool2DGeom& g, bool max, dnnl::prop_kind kind) {
  Descs d = descs(g);
  return dnnl::pooling_forward::primitive_desc(engine(), kind, alg(max), d.src, d.dst, d.strides, d.kernel,
                                               d.dil, d.pl, d.pr);
}

struct Fwd { dnnl::pooling_forward prim; };
struct Bwd {
  dnnl::pooling_forward fwd;   // training mode: produces the workspace (max pooling)
  dnnl::pooling_backward prim;
  memory::desc workspace;
};

void forward(const float* x, float* y, const Pool2DGeom& g, bool max) {
  thread_local PrimitiveCache<Fwd> cache;
  Fwd& f = cache.get(key_of(g, max), [&] {
    return Fwd{dnnl::pooling_forward(forward_pd(g, max, dnnl::prop_kind::forward_inference))};
  });
  Descs d = descs(g);
  memory src(d.src, engine(), const_cast<float*>(x)), dst(d.dst, engine(), y);
  f.prim.execute(stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream().wait();
}

void backward(const float* x, const float* dy, float* dx, const Pool2DGeom& g, bool max) {
  thread_local PrimitiveCache<Bwd> cache;
  Bwd& b = cache.get(key_of(g, max), [&] {
    Descs d = descs(g);
    auto fpd = forward_pd(g, max, dnnl::prop_kind::forward_training);
    auto bpd = dnnl::pooling_backward::primitive_desc(engine(), alg(max), d.src, d.dst, d.strides, d.kernel,
                                                      d.dil, d.pl, d.pr, fpd);
    return Bwd{dnnl::pooling_forward(fpd), dnnl::pooling_backward(bpd), fpd.workspace_desc()};
  });
  Descs d = descs(g);
  auto& s = stream();
  memory dsrc(d.src, engine(), dx), ddst(d.dst, engine(), const_cast<float*>(dy));
  if (max) {
    memory src(d.src, engine(), const_cast<float*>(x)), dst(d.dst, engine()), ws(b.workspace, engine());
    b.fwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
    b.prim.execute(s, {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}, {DNNL_ARG_WORKSPACE, ws}});
  } else {
    b.prim.execute(s, {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}});
  }
  s.wait();
}

}  // namespace

void max_pool_forward(const float* x, float* y, const Pool2DGeom& g) { forward(x, y, g, true); }
void max_pool_backward(const float* x, const float* dy, float* dx, const Pool2DGeom& g) {
  backward(x, dy, dx, g, true);
}
void avg_pool_forward(const float* x, float* y, const Pool2DGeom& g) { forward(x, y, g, false); }
void avg_pool_backward(const float* dy, float* dx, const Pool2DGeom& g) { backward(nullptr, dy, dx, g, false); }

}  // namespace onednn
}  // namespace fn
