#include "kernels/onednn/softmax.h"

#include "kernels/onednn/engine.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"

namespace fn {
namespace onednn {

namespace {

using dnnl::memory;

memory::desc desc2d(int64_t rows, int64_t cols) {
  return memory::desc({rows, cols}, memory::data_type::f32, memory::format_tag::ab);
}

dnnl::algorithm alg(bool log) { return log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate; }

dnnl::softmax_forward::primitive_desc forward_pd(int64_t rows, int64_t cols, bool log, dnnl::prop_kind kind) {
  auto md = desc2d(rows, cols);
  return dnnl::softmax_forward::primitive_desc(engine(), kind, alg(log), md, md, 1, user_scratchpad());
}

}  // namespace

void softmax_forward(const float* x, float* y, int64_t rows, int64_t cols, bool log) {
  ThreadScope threads(small_pass(rows * cols));
  std::string key = std::string(log ? "log_softmax_fwd:" : "softmax_fwd:") + std::to_string(rows) + "," +
                    std::to_string(cols) + threads.key();
  auto prim = cached_primitive(
      key, [&] { return dnnl::softmax_forward(forward_pd(rows, cols, log, dnnl::prop_kind::forward_inference)); });
  auto md = desc2d(rows, cols);
  memory src(md, engine(), const_cast<float*>(x)), dst(md, engine(), y);
  execute(*prim, stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream().wait();
}

}  // namespace onednn
}  // namespace fn
