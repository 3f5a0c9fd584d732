#include "kernels/onednn/binary.h"

#include "kernels/onednn/engine.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"

namespace fn {
namespace onednn {

bool binary_applicable(const EagerTensor& a, const EagerTensor& b, const Shape& out) {
  // float32 only: oneDNN computes integer binaries in f32 with saturation (TF wraps, and int32
  // values above 2^24 would lose precision); half types may lack CPU kernels.
  if (a.dtype() != b.dtype() || a.dtype() != DType::Float32) return false;
  if (out.num_elements() < kMinElements) return false;
  // oneDNN 3.2 broadcasts src1 only: a must already have the output shape.
  return a.shape() == out && b.shape().rank() <= out.rank();
}

void binary(dnnl::algorithm alg, const EagerTensor& a, const EagerTensor& b, EagerTensor& out) {
  using namespace dnnl;
  auto dt = to_dnnl(a.dtype());
  memory::dims da = dims_of(a.shape());
  memory::dims db(da.size(), 1);
  const auto& bd = b.shape().dims();
  for (size_t i = 0; i < bd.size(); ++i) db[da.size() - bd.size() + i] = bd[i];
  auto tag_for = [](size_t r) {
    static const memory::format_tag tags[] = {
        memory::format_tag::a,    memory::format_tag::a,     memory::format_tag::ab,    memory::format_tag::abc,
        memory::format_tag::abcd, memory::format_tag::abcde, memory::format_tag::abcdef};
    return r < 7 ? tags[r] : memory::format_tag::undef;
  };
  // Comparisons write 0/1 bytes: oneDNN's u8 is fn's bool layout.
  auto odt = out.dtype() == DType::Bool ? memory::data_type::u8 : to_dnnl(out.dtype());
  memory::desc ma(da, dt, tag_for(da.size())), mb(db, dt, tag_for(db.size())), mo(da, odt, tag_for(da.size()));
  ThreadScope threads(small_pass(out.num_elements()));
  std::string key = "binary" + std::to_string(static_cast<int>(alg)) + threads.key();
  append_key(key, ma);
  append_key(key, mb);
  append_key(key, mo);
  auto prim = cached_primitive(
      key, [&] { return dnnl::binary(dnnl::binary::primitive_desc(engine(), alg, ma, mb, mo, user_scratchpad())); });
  memory am(ma, engine(), const_cast<void*>(a.raw())), bm(mb, engine(), const_cast<void*>(b.raw())),
      om(mo, engine(), out.raw());
  execute(*prim, stream(), {{DNNL_ARG_SRC_0, am}, {DNNL_ARG_SRC_1, bm}, {DNNL_ARG_DST, om}});
  stream().wait();
}

}  // namespace onednn
}  // namespace fn
