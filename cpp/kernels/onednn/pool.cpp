#include "kernels/onednn/pool.h"

#include "kernels/onednn/engine.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"

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
               {g.sh, g.sw},
               {g.kh, g.kw},
               {0, 0},
               {g.pt, g.pl},
               {g.pb, g.pr}};
}

std::string key_of(const Pool2DGeom& g, bool max) {
  std::string k = max ? "max_pool:" : "avg_pool:";
  for (int64_t v : {g.n, g.ih, g.iw, g.c, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.pt, g.pb, g.pl, g.pr})
    k += std::to_string(v) + ',';
  return k;
}

// TensorFlow's average pooling divides by the number of real (non-padding) elements.
dnnl::algorithm alg(bool max) {
  return max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
}

dnnl::pooling_forward::primitive_desc forward_pd(const Pool2DGeom& g, bool max, dnnl::prop_kind kind) {
  Descs d = descs(g);
  return dnnl::pooling_forward::primitive_desc(engine(), kind, alg(max), d.src, d.dst, d.strides, d.kernel, d.dil, d.pl,
                                               d.pr, user_scratchpad());
}

void forward(const float* x, float* y, const Pool2DGeom& g, bool max, bool single) {
  ThreadScope threads(single || small_pass(g.n * g.c * g.ih * g.iw));
  auto prim = cached_primitive(key_of(g, max) + "fwd" + threads.key(), [&] {
    return dnnl::pooling_forward(forward_pd(g, max, dnnl::prop_kind::forward_inference));
  });
  Descs d = descs(g);
  memory src(d.src, engine(), const_cast<float*>(x)), dst(d.dst, engine(), y);
  execute(*prim, stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream().wait();
}

// Max pooling's backward pass needs the forward workspace (where each window's maximum was):
// the forward pass runs again in training mode to produce it.
void backward(const float* x, const float* dy, float* dx, const Pool2DGeom& g, bool max) {
  ThreadScope threads(small_pass(g.n * g.c * g.ih * g.iw));
  std::string key = key_of(g, max) + threads.key();
  auto fwd = cached_primitive(key + "fwd_training", [&] {
    return dnnl::pooling_forward(forward_pd(g, max, dnnl::prop_kind::forward_training));
  });
  auto bwd = cached_primitive(key + "bwd", [&] {
    Descs d = descs(g);
    return dnnl::pooling_backward(dnnl::pooling_backward::primitive_desc(
        engine(), alg(max), d.src, d.dst, d.strides, d.kernel, d.dil, d.pl, d.pr,
        forward_pd(g, max, dnnl::prop_kind::forward_training), user_scratchpad()));
  });
  Descs d = descs(g);
  auto& s = stream();
  memory dsrc(d.src, engine(), dx), ddst(d.dst, engine(), const_cast<float*>(dy));
  if (max) {
    dnnl::primitive_desc_base fpd(const_cast<dnnl_primitive_desc_t>(fwd->get_primitive_desc()), true);
    memory src(d.src, engine(), const_cast<float*>(x)), dst(d.dst, engine()), ws(fpd.workspace_desc(), engine());
    execute(*fwd, s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
    execute(*bwd, s, {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}, {DNNL_ARG_WORKSPACE, ws}});
  } else {
    execute(*bwd, s, {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}});
  }
  s.wait();
}

}  // namespace

void max_pool_forward(const float* x, float* y, const Pool2DGeom& g, bool single) { forward(x, y, g, true, single); }
void max_pool_backward(const float* x, const float* dy, float* dx, const Pool2DGeom& g) {
  backward(x, dy, dx, g, true);
}
void avg_pool_forward(const float* x, float* y, const Pool2DGeom& g, bool single) { forward(x, y, g, false, single); }
void avg_pool_backward(const float* dy, float* dx, const Pool2DGeom& g) { backward(nullptr, dy, dx, g, false); }

}  // namespace onednn
}  // namespace fn
