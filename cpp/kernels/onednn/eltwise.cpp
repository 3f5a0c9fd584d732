#include "kernels/onednn/eltwise.h"

#include "kernels/onednn/engine.h"

namespace fn {
namespace onednn {

bool eltwise_applicable(const EagerTensor& x, const EagerTensor& out) {
  return x.dtype() == DType::Float32 && out.dtype() == DType::Float32 &&
         x.num_elements() >= kMinEltwiseElements;
}

void eltwise(const Eltwise& e, const EagerTensor& x, EagerTensor& out) {
  using namespace dnnl;
  // Elementwise: the shape does not matter, view both as one contiguous vector.
  memory::desc md({x.num_elements()}, memory::data_type::f32, memory::format_tag::a);
  auto pd = eltwise_forward::primitive_desc(engine(), prop_kind::forward_inference,
                                            static_cast<algorithm>(e.alg), md, md, e.alpha, e.beta);
  memory src(md, engine(), const_cast<void*>(x.raw())), dst(md, engine(), out.raw());
  eltwise_forward(pd).execute(stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream().wait();
}

}  // namespace onednn
}  // namespace fn
