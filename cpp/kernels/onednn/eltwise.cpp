#include "kernels/onednn/eltwise.h"

#include "kernels/onednn/engine.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"

namespace fn {
namespace onednn {

bool eltwise_applicable(const Eltwise& e, const EagerTensor& x, const EagerTensor& out) {
  return x.dtype() == DType::Float32 && out.dtype() == DType::Float32 && x.num_elements() >= e.min_elements;
}

void eltwise(const Eltwise& e, const EagerTensor& x, EagerTensor& out) {
  using namespace dnnl;
  // Elementwise: the shape does not matter, view both as one contiguous vector.
  memory::desc md({x.num_elements()}, memory::data_type::f32, memory::format_tag::a);
  ThreadScope threads(small_pass(x.num_elements()));
  std::string key = std::string("eltwise") + threads.key() + std::to_string(e.alg) + "," + std::to_string(e.alpha) +
                    "," + std::to_string(e.beta) + "," + std::to_string(x.num_elements());
  auto prim = cached_primitive(key, [&] {
    return eltwise_forward(eltwise_forward::primitive_desc(engine(), prop_kind::forward_inference,
                                                           static_cast<algorithm>(e.alg), md, md, e.alpha, e.beta,
                                                           user_scratchpad()));
  });
  memory src(md, engine(), const_cast<void*>(x.raw())), dst(md, engine(), out.raw());
  execute(*prim, stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream().wait();
  if (e.nan_passthrough) {
    const float* in = x.data<float>();
    float* o = out.data<float>();
    for (int64_t i = 0, n = x.num_elements(); i < n; ++i)
      if (in[i] != in[i]) o[i] = in[i];
  }
}

}  // namespace onednn
}  // namespace fn
