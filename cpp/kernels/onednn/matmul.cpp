#include "kernels/onednn/matmul.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "kernels/onednn/engine.h"
#include "kernels/onednn/post_ops.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"

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

// Big products run as blocks on the task pool (kernels/task_pool.h): output rows (or columns)
// split into blocks, each a single-threaded oneDNN matmul on its slice of the operands, taken
// dynamically by the calling thread and the pool's workers. A thread that lost its core holds
// one block, not the whole product (an OpenMP team of two waits at its barrier for it).
//
// Block size, from the shape: about kBlocksPerThread blocks per thread, so a late or
// descheduled thread leaves at most a few blocks to the others; no block under kMinBlockMacs
// multiply-adds (~50 us on one AVX2 core: a block's fixed cost, a primitive call and its
// operand descriptors, stays ~1%); and at least kMinBlockRows rows: every row block re-reads
// the whole right operand (K x N) from L2/L3 once, K*N*4 bytes at ~32 B/cycle against
// rows*K*N/16 cycles of FMAs, ~2/rows of the block's time (4% at 48 rows). Row blocks are a
// multiple of 48 rows, the row panel of oneDNN 3.2's AVX2 sgemm for a plain left operand: each
// block's rows then fall into the same kernel calls as in the one-call product, which keeps its
// bits (blocks of 32 or 100 rows did not, of 48, 96 or 144 did; Catch2 test_task_pool). Columns
// are split only where the rows cannot make two blocks; batched products split whole matrices
// of their outermost batch dim where there are enough of them. A block's shape is fixed by the
// problem's alone (never by the thread count or timing), so the result does not depend on the
// load.
constexpr double kMinBlockMacs = double(int64_t{1} << 21);
constexpr int64_t kBlocksPerThread = 4;
constexpr int64_t kBlockRows = 48;
constexpr int64_t kMinBlockCols = 64;

struct Split {
  int dim = 0;        // the output dim split: r - 2 (rows) or r - 1 (columns)
  int64_t size = 0;   // rows or columns per block; the last block may be shorter
  int64_t count = 1;  // blocks
};

// FN_MATMUL_POOL=0 runs big products as one oneDNN call on the OpenMP team instead (A/B timings).
bool pool_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FN_MATMUL_POOL");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

Split choose_split(int r, int64_t batch, int64_t rows, int64_t cols, double macs, int threads) {
  if (!pool_enabled()) return Split{};
  const int64_t want = std::min<int64_t>(kBlocksPerThread * threads, static_cast<int64_t>(macs / kMinBlockMacs));
  Split s;
  if (want < 2) return s;
  auto fit = [&](int dim, int64_t extent, int64_t min_size, int64_t align) {
    const int64_t n = std::min<int64_t>(want, extent / min_size);
    if (n < 2) return false;
    int64_t size = (extent + n - 1) / n;
    size = (size + align - 1) / align * align;
    s.dim = dim;
    s.size = size;
    s.count = (extent + size - 1) / size;
    return s.count >= 2;
  };
  // Whole matrices of the outermost batch dim where they make enough blocks (each block the same
  // per-matrix gemm calls as the one-call product), else rows, else fewer batch blocks, else columns.
  if (r >= 3 && batch >= want && fit(0, batch, 1, 1)) return s;
  if (fit(r - 2, rows, kBlockRows, kBlockRows)) return s;
  if (r >= 3 && fit(0, batch, 1, 1)) return s;
  if (fit(r - 1, cols, kMinBlockCols, 16)) return s;
  return Split{};
}

// `md` with dim `d` of extent `size`, the same strides (a block of it, at an offset the caller adds).
dnnl::memory::desc resized(const dnnl::memory::desc& md, int d, int64_t size) {
  dnnl::memory::dims dims = md.get_dims();
  dims[d] = size;
  return dnnl::memory::desc(dims, md.get_data_type(), md.get_strides());
}

// The scratchpad a primitive made with scratchpad_mode::user needs (0 for most gemm kernels).
size_t scratchpad_bytes(const dnnl::primitive& p) {
  const_dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_primitive_get_primitive_desc(p.get(), &pd) != dnnl_success || !pd) return 0;
  const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  return md ? dnnl_memory_desc_get_size(md) : 0;
}

struct BlockPrim {
  dnnl::memory::desc a, b, o, bias;
  std::shared_ptr<dnnl::primitive> prim;
  size_t scratch = 0;
};

// Layouts for which oneDNN offered only its reference kernel: those calls copy instead.
std::mutex refused_mu;
std::unordered_set<std::string> refused;
struct Refused {};

// The product as split.count blocks on the task pool (see choose_split). False, running nothing,
// where oneDNN offers only its reference kernel for a block of a folded layout (as matmul()).
bool blocked_matmul(const dnnl::memory::desc& ma, const dnnl::memory::desc& mb, const dnnl::memory::desc& mo,
                    const dnnl::memory::desc& mbias, const Epilogue* e, bool layout, const std::string& whole_key,
                    const Split& split, int team, const void* a_ptr, const void* b_ptr, void* o_ptr) {
  using namespace dnnl;
  const int r = static_cast<int>(mo.get_dims().size());
  const int d = split.dim;
  // An operand is sliced along d unless it does not have that dim (a's columns, b's rows) or
  // broadcasts it (a batch dim of 1): then every block reads all of it.
  auto sliced = [&](const memory::desc& md, int skip) { return d != skip && md.get_dims()[d] > 1; };
  const bool slice_a = sliced(ma, r - 1), slice_b = sliced(mb, r - 2), slice_bias = d == r - 1;
  const int64_t extent = mo.get_dims()[split.dim];
  const int64_t tail = extent - (split.count - 1) * split.size;
  ThreadScope one(true);  // each block is a single-threaded call, made and run so
  auto make = [&](int64_t size) {
    BlockPrim p;
    p.a = slice_a ? resized(ma, d, size) : ma;
    p.b = slice_b ? resized(mb, d, size) : mb;
    p.o = resized(mo, d, size);
    if (e && e->bias) p.bias = slice_bias ? resized(mbias, 1, size) : mbias;
    std::string key = std::string("matmul-block") + one.key();
    append_key(key, p.a);
    append_key(key, p.b);
    append_key(key, p.o);
    key += post_op_key(e);
    p.prim = cached_primitive(key, [&] {
      primitive_attr attr = e ? post_op_attr(*e, p.o) : primitive_attr();
      attr.set_scratchpad_mode(scratchpad_mode::user);  // per thread: blocks run concurrently
      auto pd = e ? dnnl::matmul::primitive_desc(engine(), p.a, p.b, p.bias, p.o, attr)
                  : dnnl::matmul::primitive_desc(engine(), p.a, p.b, p.o, attr);
      if (layout && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) throw Refused{};
      return dnnl::matmul(pd);
    });
    p.scratch = scratchpad_bytes(*p.prim);
    return p;
  };
  BlockPrim full, last;
  try {
    full = make(split.size);
    last = tail == split.size ? full : make(tail);
  } catch (const Refused&) {
    std::lock_guard<std::mutex> lock(refused_mu);
    refused.insert(whole_key);
    return false;
  } catch (const dnnl::error&) {
    if (!layout) throw;
    std::lock_guard<std::mutex> lock(refused_mu);
    refused.insert(whole_key);
    return false;
  }
  const size_t elem = memory::data_type_size(mo.get_data_type());
  // Element offsets of block i's slices: rows (or columns) of a (or b), the output, the residual
  // (laid out as the output) and the bias.
  const int64_t a_step = slice_a ? ma.get_strides()[d] : 0, b_step = slice_b ? mb.get_strides()[d] : 0;
  const int64_t o_step = mo.get_strides()[d], bias_step = slice_bias ? 1 : 0;
  auto at = [elem](const void* p, int64_t elements) {
    return const_cast<char*>(static_cast<const char*>(p)) + elements * static_cast<int64_t>(elem);
  };
  std::function<void(int64_t)> task = [&](int64_t i) {
    ThreadScope single(true);
    const BlockPrim& p = i == split.count - 1 ? last : full;
    const int64_t start = i * split.size;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(p.a, engine(), at(a_ptr, start * a_step))},
                                         {DNNL_ARG_WEIGHTS, memory(p.b, engine(), at(b_ptr, start * b_step))},
                                         {DNNL_ARG_DST, memory(p.o, engine(), at(o_ptr, start * o_step))}};
    if (e && e->bias) args.insert({DNNL_ARG_BIAS, memory(p.bias, engine(), at(e->bias, start * bias_step))});
    if (e) {
      Epilogue be = *e;
      if (be.residual) be.residual = reinterpret_cast<const float*>(at(e->residual, start * o_step));
      add_post_op_args(be, p.o, args);
    }
    thread_local std::vector<char> scratch;
    if (p.scratch) {
      if (scratch.size() < p.scratch) scratch.resize(p.scratch);
      args.insert({DNNL_ARG_SCRATCHPAD,
                   memory(memory::desc({static_cast<int64_t>(p.scratch)}, memory::data_type::u8, memory::format_tag::a),
                          engine(), scratch.data())});
    }
    p.prim->execute(stream(), args);
    stream().wait();
  };
  TaskPool::global().run(team, split.count, task);
  return true;
}
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
  const bool small = small_contraction(macs);
  const int team = small ? 1 : max_threads();
  const Split split =
      team > 1 ? choose_split(r, mo.get_dims()[0], mo.get_dims()[r - 2], mo.get_dims()[r - 1], macs, team) : Split{};
  ThreadScope threads(small);
  std::string key = std::string("matmul") + threads.key();
  append_key(key, ma);
  append_key(key, mb);
  append_key(key, mo);
  key += post_op_key(e);
  if (layout) {
    std::lock_guard<std::mutex> lock(refused_mu);
    if (refused.count(key)) return false;
  }
  thread_local std::vector<float> a_scratch;
  if (split.count > 1) {
    const void* a_ptr = a.raw();
    if (copy_a)
      a_ptr = row_major_copy(memory(ma_user, engine(), const_cast<void*>(a.raw())), ma, a_scratch).get_data_handle();
    return blocked_matmul(ma, mb, mo, mbias, e, layout != nullptr, key, split, team, a_ptr, b.raw(), out.raw());
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
