#include "kernels/onednn/matmul.h"

#include "kernels/onednn/engine.h"
#include "kernels/onednn/post_ops.h"
#include "kernels/onednn/primitive_cache.h"

namespace fn {
namespace onednn {

bool matmul_applicable(const EagerTensor& a, const EagerTensor& b) {
  DType d = a.dtype();
  if (d != b.dtype() || !(d == DType::Float32 || d == DType::BFloat16)) return false;
  if (a.shape().rank() > 12) return false;
  int r = a.shape().rank();
  int64_t m = a.shape()[r - 2], k = a.shape()[r - 1], n = b.shape()[r - 1];
  return m * n * k >= 4096;
}

namespace {
// Strides of a row-major tensor, with the last two dims swapped when transposed.
dnnl::memory::desc desc_for(const Shape& s, bool transposed, dnnl::memory::data_type dt) {
  int r = s.rank();
  dnnl::memory::dims dims(s.dims().begin(), s.dims().end());
  dnnl::memory::dims strides(r);
  int64_t acc = 1;
  for (int i = r - 1; i >= 0; --i) { strides[i] = acc; acc *= dims[i]; }
  if (transposed) {
    std::swap(dims[r - 1], dims[r - 2]);
    std::swap(strides[r - 1], strides[r - 2]);
  }
  for (int i = 0; i < r; ++i)
    if (dims[i] == 1) strides[i] = (i + 1 < r) ? strides[i] : 1;  // any stride is valid for size 1
  return dnnl::memory::desc(dims, dt, strides);
}
}  // namespace

void matmul(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out, const Epilogue* e) {
  using namespace dnnl;
  auto dt = to_dnnl(a.dtype());
  auto ma = desc_for(a.shape(), ta, dt), mb = desc_for(b.shape(), tb, dt),
       mo = desc_for(out.shape(), false, dt);
  int r = out.shape().rank();
  memory::desc mbias;
  if (e && e->bias) mbias = memory::desc({1, out.shape()[r - 1]}, dt, memory::format_tag::ab);
  std::string key = "matmul";
  append_key(key, ma);
  append_key(key, mb);
  append_key(key, mo);
  key += post_op_key(e);
  auto prim = cached_primitive(key, [&] {
    if (!e) return dnnl::matmul(dnnl::matmul::primitive_desc(engine(), ma, mb, mo));
    return dnnl::matmul(dnnl::matmul::primitive_desc(engine(), ma, mb, mbias, mo, post_op_attr(*e, mo)));
  });
  memory am(ma, engine(), const_cast<void*>(a.raw())), bm(mb, engine(), const_cast<void*>(b.raw())),
      om(mo, engine(), out.raw());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, om}};
  if (e && e->bias) args.insert({DNNL_ARG_BIAS, memory(mbias, engine(), const_cast<float*>(e->bias))});
  if (e) add_post_op_args(*e, mo, args);
  prim->execute(stream(), args);
  stream().wait();
}

}  // namespace onednn
}  // namespace fn
