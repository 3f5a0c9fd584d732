#include "kernels/onednn/reduction.h"

#include "kernels/onednn/engine.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"

namespace fn {
namespace onednn {

namespace {
dnnl::memory::format_tag plain_tag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  static const tag tags[] = {tag::a, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
  return rank < 7 ? tags[rank] : tag::undef;
}
}  // namespace

bool reduction_applicable(const EagerTensor& x, const std::vector<bool>& reduced) {
  if (x.dtype() != DType::Float32 || x.num_elements() < kMinEltwiseElements) return false;
  if (x.shape().rank() > 6) return false;
  bool any = false;
  for (bool r : reduced) any |= r;
  return any;
}

void reduction(dnnl::algorithm alg, const EagerTensor& x, const std::vector<bool>& reduced, EagerTensor& out) {
  using namespace dnnl;
  memory::dims src = dims_of(x.shape()), dst = src;
  for (size_t i = 0; i < reduced.size(); ++i)
    if (reduced[i]) dst[i] = 1;
  auto tag = plain_tag(src.size());
  memory::desc ms(src, memory::data_type::f32, tag), md(dst, memory::data_type::f32, tag);
  ThreadScope threads(small_pass(x.num_elements()));
  std::string key = "reduction" + std::to_string(static_cast<int>(alg)) + threads.key();
  append_key(key, ms);
  append_key(key, md);
  auto prim = cached_primitive(key, [&] {
    return dnnl::reduction(reduction::primitive_desc(engine(), alg, ms, md, 0.f, 0.f, user_scratchpad()));
  });
  memory sm(ms, engine(), const_cast<void*>(x.raw())), dm(md, engine(), out.raw());
  execute(*prim, stream(), {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}});
  stream().wait();
}

}  // namespace onednn
}  // namespace fn
