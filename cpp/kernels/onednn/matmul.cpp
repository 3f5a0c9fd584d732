#include "kernels/onednn/matmul.h"

#include <mutex>
#include <unordered_set>
#include <vector>

#include "kernels/onednn/engine.h"
#include "kernels/onednn/post_ops.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"

namespace fn {
namespace onednn {

namespace {
// oneDNN 3.2 builds bf16 matmuls only where the CPU has AVX-512 (avx512_core and up); elsewhere
// (an AVX2 machine) bf16 runs the reference kernel, as for small problems.
bool bf16_matmul_supported() {
  static const bool ok = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  return ok;
}
}  // namespace

bool matmul_applicable(DType d, const Shape& a, const Shape& b) {
  if (!(d == DType::Float32 || (d == DType::BFloat16 && bf16_matmul_supported()))) return false;
  if (std::max(a.rank(), b.rank()) > 12) return false;
  int ra = a.rank(), rb = b.rank();
  int64_t m = a[ra - 2], k = a[ra - 1], n = b[rb - 1];
  return m * n * k >= 4096;
}

bool matmul_applicable(const EagerTensor& a, const EagerTensor& b) {
  if (a.dtype() != b.dtype()) return false;
  return matmul_applicable(a.dtype(), a.shape(), b.shape());
}

namespace {
// The matmul operand of rank r made of `s`'s row-major buffer: its dims permuted by `perm`
// (empty: as stored), leading 1s prepended (broadcast batch dims), the last two swapped when
// transposed.
dnnl::memory::desc desc_for(const Shape& s, bool transposed, dnnl::memory::data_type dt,
                            const std::vector<int64_t>& perm = {}, int r = -1) {
  int sr = s.rank();
  if (r < 0) r = sr;
  std::vector<int64_t> st(sr);
  int64_t acc = 1;
  for (int i = sr - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i];
  }
  dnnl::memory::dims dims(r, 1), strides(r, acc);
  for (int i = 0; i < sr; ++i) {
    int p = perm.empty() ? i : static_cast<int>(perm[i]);
    dims[r - sr + i] = s[p];
    strides[r - sr + i] = st[p];
  }
  if (transposed) {
    std::swap(dims[r - 1], dims[r - 2]);
    std::swap(strides[r - 1], strides[r - 2]);
  }
  for (int i = 0; i < r; ++i)
    if (dims[i] == 1) strides[i] = (i + 1 < r) ? strides[i] : 1;  // any stride is valid for size 1
  return dnnl::memory::desc(dims, dt, strides);
}

// The result Z written into `o`'s row-major buffer as transpose(Z, perm): Z's dim perm[j] has
// o's stride j.
dnnl::memory::desc dst_desc_for(const Shape& o, const std::vector<int64_t>& perm, dnnl::memory::data_type dt) {
  if (perm.empty()) return desc_for(o, false, dt);
  int r = o.rank();
  dnnl::memory::dims dims(r), strides(r);
  int64_t acc = 1;
  for (int j = r - 1; j >= 0; --j) {
    dims[perm[j]] = o[j];
    strides[perm[j]] = acc;
    acc *= o[j];
  }
  return dnnl::memory::desc(dims, dt, strides);
}

// A left operand read transposed (its M dim contiguous) whose K stride is a multiple of 512
// elements (2 KiB): oneDNN 3.2's AVX2 sgemm packs it column by column, each load 2 KiB (or a
// multiple) after the last, so they all fall in the same few L1 sets. That is the weight gradient
// x^T @ dy of every layer whose input width is 512, 1024, 2048...: 512x256 @ 256x512 runs at
// 56 GFLOP/s on one Zen 3 core against 84 for the same product with the operand stored
// row-major, 1024x512 @ 512x256 at 36 against 70, 2048x256 @ 256x64 at 39 against 50
// (perf5g's notes). Such an operand is first copied row-major and the product reads the copy.
// The copy moves M*K floats, the saving grows with N: it pays from N ~ 100 (512x256 @ 256x64
// gains nothing, @ 256x10 loses 50%), so only products of 128 or more columns copy.
bool transposed_aliasing(const dnnl::memory::desc& a, int64_t n) {
  const auto dims = a.get_dims();
  const auto strides = a.get_strides();
  const int r = static_cast<int>(dims.size());
  if (r < 2 || strides.empty() || n < 128 || dims[r - 2] < 64 || dims[r - 1] < 64) return false;
  const int64_t lda = strides[r - 1];
  return strides[r - 2] == 1 && lda >= 512 && lda % 512 == 0;
}

// The same dims, row-major.
dnnl::memory::desc row_major(const dnnl::memory::desc& md) {
  dnnl::memory::dims dims = md.get_dims(), strides(dims.size());
  int64_t acc = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= dims[i];
  }
  return dnnl::memory::desc(dims, md.get_data_type(), strides);
}

// `from` copied into `scratch` (the calling thread's, reused) as `to` (row_major(from)).
dnnl::memory row_major_copy(const dnnl::memory& from, const dnnl::memory::desc& to, std::vector<float>& scratch) {
  const size_t floats = (to.get_size() + sizeof(float) - 1) / sizeof(float);
  if (scratch.size() < floats) scratch.resize(floats);
  dnnl::memory copy(to, engine(), scratch.data());
  int64_t elements = 1;
  for (auto d : to.get_dims()) elements *= d;
  ThreadScope threads(small_pass(elements));
  std::string key = std::string("matmul-a-reorder") + threads.key();
  append_key(key, from.get_desc());
  append_key(key, to);
  cached_primitive(key, [&] {
    return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from.get_desc(), engine(), to));
  })->execute(stream(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, copy}});
  return copy;
}

// Layouts for which oneDNN offered only its reference kernel: those calls copy instead.
std::mutex refused_mu;
std::unordered_set<std::string> refused;
struct Refused {};
}  // namespace

bool matmul(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out, const Epilogue* e,
            const MatMulLayout* layout) {
  using namespace dnnl;
  auto dt = to_dnnl(a.dtype());
  int r = out.shape().rank();
  memory::desc ma, mb, mo;
  if (layout) {
    ma = desc_for(a.shape(), ta, dt, layout->a, r);
    mb = desc_for(b.shape(), tb, dt, layout->b, r);
    mo = dst_desc_for(out.shape(), layout->out, dt);
  } else {
    ma = desc_for(a.shape(), ta, dt);
    mb = desc_for(b.shape(), tb, dt);
    mo = desc_for(out.shape(), false, dt);
  }
  // Read a through a row-major copy where its strided read is slow (see transposed_aliasing).
  const memory::desc ma_user = ma;
  const bool copy_a = transposed_aliasing(ma, mo.get_dims()[r - 1]);
  if (copy_a) ma = row_major(ma);
  memory::desc mbias;
  if (e && e->bias) mbias = memory::desc({1, mo.get_dims()[r - 1]}, dt, memory::format_tag::ab);
  const double macs = static_cast<double>(out.num_elements()) * static_cast<double>(ma.get_dims()[r - 1]);
  ThreadScope threads(small_contraction(macs));
  std::string key = std::string("matmul") + threads.key();
  append_key(key, ma);
  append_key(key, mb);
  append_key(key, mo);
  key += post_op_key(e);
  if (layout) {
    std::lock_guard<std::mutex> lock(refused_mu);
    if (refused.count(key)) return false;
  }
  std::shared_ptr<primitive> prim;
  try {
    prim = cached_primitive(key, [&] {
      auto pd = e ? dnnl::matmul::primitive_desc(engine(), ma, mb, mbias, mo, post_op_attr(*e, mo))
                  : dnnl::matmul::primitive_desc(engine(), ma, mb, mo);
      if (layout && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) throw Refused{};
      return dnnl::matmul(pd);
    });
  } catch (const Refused&) {
    std::lock_guard<std::mutex> lock(refused_mu);
    refused.insert(key);
    return false;
  } catch (const dnnl::error&) {
    if (!layout) throw;
    std::lock_guard<std::mutex> lock(refused_mu);
    refused.insert(key);
    return false;
  }
  thread_local std::vector<float> a_scratch;
  memory am = copy_a ? row_major_copy(memory(ma_user, engine(), const_cast<void*>(a.raw())), ma, a_scratch)
                     : memory(ma, engine(), const_cast<void*>(a.raw()));
  memory bm(mb, engine(), const_cast<void*>(b.raw())), om(mo, engine(), out.raw());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, om}};
  if (e && e->bias) args.insert({DNNL_ARG_BIAS, memory(mbias, engine(), const_cast<float*>(e->bias))});
  if (e) add_post_op_args(*e, mo, args);
  prim->execute(stream(), args);
  stream().wait();
  return true;
}

}  // namespace onednn
}  // namespace fn
