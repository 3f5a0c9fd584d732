#include "kernels/onednn/matmul.h"

#include "kernels/onednn/engine.h"
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

void matmul(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out) {
  using namespace dnnl;
  auto dt = to_dnnl(a.dtype());
  auto ma = desc_for(a.shape(), ta, dt), mb = desc_for(b.shape(), tb, dt),
       mo = desc_for(out.shape(), false, dt);
  std::string key = "matmul";
  append_key(key, ma);
  append_key(key, mb);
  append_key(key, mo);
  auto prim = cached_primitive(key, [&] { return dnnl::matmul(dnnl::matmul::primitive_desc(engine(), ma, mb, mo)); });
  memory am(ma, engine(), const_cast<void*>(a.raw())), bm(mb, engine(), const_cast<void*>(b.raw())),
      om(mo, engine(), out.raw());
  prim->execute(stream(), {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, om}});
  stream().wait();
}

}  // namespace onednn
}  // namespace fn
