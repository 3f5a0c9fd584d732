#include "kernels/onednn/engine.h"

namespace fn {
namespace onednn {

dnnl::engine& engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::memory::data_type to_dnnl(DType d) {
  using dt = dnnl::memory::data_type;
  switch (d) {
    case DType::Float32: return dt::f32;
    case DType::BFloat16: return dt::bf16;
    case DType::Float16: return dt::f16;
    case DType::Int32: return dt::s32;
    case DType::Int8: return dt::s8;
    case DType::UInt8: return dt::u8;
    default: return dt::undef;
  }
}

dnnl::memory::dims dims_of(const Shape& s) {
  if (s.rank() == 0) return {1};
  return dnnl::memory::dims(s.dims().begin(), s.dims().end());
}

}  // namespace onednn
}  // namespace fn
