#include "kernels/onednn/post_ops.h"

#include "kernels/onednn/engine.h"

namespace fn {
namespace onednn {

namespace {
// A one-element tensor of dst's rank (broadcast by the binary post-op).
dnnl::memory::desc scalar_desc(const dnnl::memory::desc& dst) {
  dnnl::memory::dims ones(dst.get_dims().size(), 1);
  return dnnl::memory::desc(ones, dnnl::memory::data_type::f32, dnnl::memory::dims(ones.size(), 1));
}
}  // namespace

dnnl::primitive_attr post_op_attr(const Epilogue& e, const dnnl::memory::desc& dst) {
  dnnl::post_ops po;
  if (e.scale) po.append_binary(dnnl::algorithm::binary_mul, scalar_desc(dst));
  if (e.residual) po.append_binary(dnnl::algorithm::binary_add, dst);
  if (e.act == Activation::Relu) po.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (e.act == Activation::Relu6) po.append_eltwise(dnnl::algorithm::eltwise_clip_v2, 0.f, 6.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  return attr;
}

std::string post_op_key(const Epilogue* e) {
  if (!e) return "";
  std::string k = e->scale ? "+s" : "";
  if (e->bias) k += "+b";
  if (e->residual) k += "+r";
  if (e->act == Activation::Relu) k += "+relu";
  if (e->act == Activation::Relu6) k += "+relu6";
  return k;
}

void add_post_op_args(const Epilogue& e, const dnnl::memory::desc& dst, std::unordered_map<int, dnnl::memory>& args) {
  int idx = 0;
  if (e.scale)
    args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx++) | DNNL_ARG_SRC_1,
                 dnnl::memory(scalar_desc(dst), engine(), const_cast<float*>(e.scale))});
  if (e.residual)
    args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1,
                 dnnl::memory(dst, engine(), const_cast<float*>(e.residual))});
}

int post_op_pointers(const Epilogue& e, std::pair<int, const void*>* out) {
  int idx = 0;
  if (e.scale) out[idx] = {DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1, e.scale}, ++idx;
  if (e.residual) out[idx] = {DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1, e.residual}, ++idx;
  return idx;
}

}  // namespace onednn
}  // namespace fn
