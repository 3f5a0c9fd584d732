#include "kernels/onednn/matmul.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <string>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "kernels/direct/transpose.h"
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
// On AVX-512 hosts (oneDNN's AVX-512 sgemm) a 2 KiB stride costs 1-5% only, less than the copy,
// a serial pass before the blocks start: one Zen 4 core, the product as its row blocks, CPU ms
// min of 15-20, transposed read vs row-major operand (copy not counted): 512x256 @ 256x512 1.24-1.34
// vs 1.24-1.28, 512x256 @ 256x128 0.336 vs 0.328; a 4 KiB stride or more still costs 8-20%:
// 1024x512 @ 512x256 2.85-3.22 vs 2.52-2.70, 1024x256 @ 256x128 0.787 vs 0.635, 2048x256 @
// 256x512 5.78-6.14 vs 5.35-5.44. There only strides of 1024 elements and multiples copy.
bool transposed_aliasing(const dnnl::memory::desc& a, int64_t n) {
  static const int64_t period = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core ? 1024 : 512;
  const auto dims = a.get_dims();
  const auto strides = a.get_strides();
  const int r = static_cast<int>(dims.size());
  if (r < 2 || strides.empty() || n < 128 || dims[r - 2] < 64 || dims[r - 1] < 64) return false;
  const int64_t lda = strides[r - 1];
  return strides[r - 2] == 1 && lda >= period && lda % period == 0;
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

// A right operand read as stored (row-major, K x N with row stride ldb) with ldb a multiple of
// 512 elements: the same L1 set aliasing from the other side. oneDNN 3.2's AVX2 nocopy sgemm
// reads it column panel by column panel, rows 2 KiB (or a multiple) apart. One Zen 3 core, 64-row
// blocks, GFLOP/s with ldb = N against ldb = N + 16: 256x784 @ 784x512 48-51 -> 72-77,
// 512x256 @ 256x512 51-56 -> 75-76, 784x256 (ta) @ 256x512 46-47 -> 64-82, 256x512 @ 512x1024
// 37 -> 91, 256x256 @ 256x2048 38 -> 91 (N = 256 or 300: no difference; the copy-based kernel of
// 4096x1024 @ 1024x1024: none). Such an operand is copied once per call with its rows padded by
// kRowPad elements (64 bytes) and every block reads the copy. The copy moves K*N floats, the
// saving is ~1/3 of M*K*N FMAs: blocks of 64 or more rows copy, and only blocks small enough for
// the nocopy kernel: 1/rows + 1/cols >= 0.0038, the bound over which oneDNN 3.2 always takes it
// (`nocopy_checker_avx2`); the 512-row blocks of 4096x1024 @ 1024x1024 are copy-based and would
// only pay the 4 MiB copy.
constexpr int64_t kRowPad = 16;

bool right_aliasing(const dnnl::memory::desc& b, int64_t rows, int64_t cols) {
  static const bool on = [] {
    const char* v = std::getenv("FN_MATMUL_RIGHT_COPY");  // 0: never (A/B timings)
    return !(v && std::string(v) == "0");
  }();
  if (!on) return false;
  const auto dims = b.get_dims();
  const auto strides = b.get_strides();
  const int r = static_cast<int>(dims.size());
  if (r < 2 || strides.empty() || rows < 64 || dims[r - 2] < 64 || cols < 64) return false;
  if (1.0 / static_cast<double>(rows) + 1.0 / static_cast<double>(cols) < 0.0038) return false;
  const int64_t ldb = strides[r - 2];
  return strides[r - 1] == 1 && ldb >= 512 && ldb % 512 == 0;
}

// The same dims, row-major with each row padded by kRowPad elements.
dnnl::memory::desc padded_rows(const dnnl::memory::desc& md) {
  dnnl::memory::dims dims = md.get_dims(), strides(dims.size());
  const int r = static_cast<int>(dims.size());
  int64_t acc = 1;
  for (int i = r - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= i == r - 1 ? dims[i] + kRowPad : dims[i];
  }
  return dnnl::memory::desc(dims, md.get_data_type(), strides);
}

// `from` (rows contiguous: unit stride in its last dim) copied row by row into `scratch` as
// padded_rows(from). oneDNN's reorder between these two plain layouts is its generic "simple"
// kernel, ~6 GB/s on a 784x512 operand; the rows are contiguous on both sides, so this is one
// memcpy per row. A big operand's rows are copied in chunks on the task pool (`team` threads):
// the blocks that read it wait for the whole copy, and one thread alone left the pool's workers
// idle for its ~0.1 ms. Returns the copy's data.
constexpr int64_t kCopyChunkBytes = int64_t{1} << 18;  // 256 KiB a chunk

const void* padded_copy(const void* from, const dnnl::memory::desc& from_md, const dnnl::memory::desc& to,
                        std::vector<float>& scratch, int team) {
  const size_t floats = (to.get_size() + sizeof(float) - 1) / sizeof(float);
  if (scratch.size() < floats) scratch.resize(floats);
  const auto dims = from_md.get_dims();
  const auto src_strides = from_md.get_strides(), dst_strides = to.get_strides();
  const int r = static_cast<int>(dims.size());
  const size_t elem = dnnl::memory::data_type_size(from_md.get_data_type());
  const size_t row_bytes = static_cast<size_t>(dims[r - 1]) * elem;
  int64_t rows = 1;
  for (int i = 0; i < r - 1; ++i) rows *= dims[i];
  const char* src = static_cast<const char*>(from);
  char* dst = reinterpret_cast<char*>(scratch.data());
  auto copy_rows = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(r - 1, 0);
    for (int64_t i = r - 2, rest = begin; i >= 0; --i) {  // row `begin`'s index
      idx[i] = rest % dims[i];
      rest /= dims[i];
    }
    for (int64_t row = begin; row < end; ++row) {
      int64_t s_off = 0, d_off = 0;
      for (int i = 0; i < r - 1; ++i) {
        s_off += idx[i] * src_strides[i];
        d_off += idx[i] * dst_strides[i];
      }
      std::memcpy(dst + d_off * static_cast<int64_t>(elem), src + s_off * static_cast<int64_t>(elem), row_bytes);
      for (int i = r - 2; i >= 0 && ++idx[i] == dims[i]; --i) idx[i] = 0;  // the next row index
    }
  };
  const int64_t per_chunk = std::max<int64_t>(1, kCopyChunkBytes / std::max<int64_t>(1, row_bytes));
  const int64_t chunks = (rows + per_chunk - 1) / per_chunk;
  if (team <= 1 || chunks <= 1) {
    copy_rows(0, rows);
    return scratch.data();
  }
  TaskPool::global().run(team, chunks,
                         [&](int64_t c) { copy_rows(c * per_chunk, std::min(rows, (c + 1) * per_chunk)); });
  return scratch.data();
}

// `md` (a permuted view of a row-major buffer, as desc_for makes it) as that buffer's dims and the
// permutation taking them to md's dims (size-1 dims dropped); false for any other strides.
bool stored_permutation(const dnnl::memory::desc& md, std::vector<int64_t>& stored, std::vector<int64_t>& perm) {
  const auto dims = md.get_dims();
  const auto strides = md.get_strides();
  std::vector<int> logical;  // md's dims of size > 1, in md's order
  for (int i = 0; i < static_cast<int>(dims.size()); ++i)
    if (dims[i] > 1) logical.push_back(i);
  std::vector<int> order = logical;  // the same dims in the buffer's order: strides descending
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return strides[x] > strides[y]; });
  int64_t expect = 1;
  for (int j = static_cast<int>(order.size()) - 1; j >= 0; --j) {
    if (strides[order[j]] != expect) return false;
    expect *= dims[order[j]];
  }
  stored.clear();
  perm.clear();
  for (int o : order) stored.push_back(dims[o]);
  for (int l : logical) perm.push_back(std::find(order.begin(), order.end(), l) - order.begin());
  return true;
}

// `from` copied into `scratch` (the calling thread's, reused) as `to` (row_major(from)). Below
// small_pass's size a plain permuted view is moved by direct::transpose_copy on this thread (L1
// tiles: a 512x256 transpose in ~0.05 ms, oneDNN's jit:uni reorder ~0.2 ms); larger ones, or
// other strides, by a oneDNN reorder on the team.
dnnl::memory row_major_copy(const dnnl::memory& from, const dnnl::memory::desc& to, std::vector<float>& scratch) {
  const size_t floats = (to.get_size() + sizeof(float) - 1) / sizeof(float);
  if (scratch.size() < floats) scratch.resize(floats);
  dnnl::memory copy(to, engine(), scratch.data());
  int64_t elements = 1;
  for (auto d : to.get_dims()) elements *= d;
  std::vector<int64_t> stored, perm;
  if (small_pass(elements) && stored_permutation(from.get_desc(), stored, perm)) {
    direct::transpose_copy(from.get_data_handle(), scratch.data(), dnnl::memory::data_type_size(to.get_data_type()),
                           stored, perm);
    return copy;
  }
  ThreadScope threads(small_pass(elements));
  std::string key = std::string("matmul-a-reorder") + threads.key();
  append_key(key, from.get_desc());
  append_key(key, to);
  auto prim = cached_primitive(key, [&] {
    return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from.get_desc(), engine(), to, user_scratchpad()));
  });
  execute(*prim, stream(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, copy}});
  return copy;
}

// Big products run as blocks on the task pool (kernels/task_pool.h): output rows (or columns,
// or whole matrices of the outermost batch dim) split into blocks, each a single-threaded oneDNN
// matmul on its slice of the operands, taken dynamically by the calling thread and the pool's
// workers. A thread that lost its core holds one block, not the whole product (an OpenMP team of
// two waits at its barrier for it).
//
// The blocks depend on the product's shape alone, never on the thread count or timing, and the
// same blocks run on one thread (in order, on the caller): the bits of a product do not depend on
// the load or on OMP_NUM_THREADS. Their count is a power of two up to kMaxBlocks, so two, four or
// eight threads get equal shares (three blocks on two threads, 96+96+64 rows of a 256-row
// product, left one thread 160 rows against 96: the MLP step's 256-row products ran at 80% of
// two cores); no block under kMinBlockMacs multiply-adds (~25 us on one AVX2 core: a block's
// fixed cost, a primitive call and its arguments, stays ~1%) or kMinBlockRows rows (every row
// block re-reads the whole right operand, K x N, from L2/L3: ~2/rows of the block's time). Block
// sizes are multiples of kBlockUnit rows/columns (whole AVX2 register panels), spread evenly: a
// product of U units in n blocks gives U % n blocks one unit more than the others and the last
// block what is left (784 rows in 8 blocks: 112, 6 x 96, 96). Columns are split only where the
// rows cannot make two blocks; batched products split whole matrices where there are enough.
constexpr double kMinBlockMacs = double(int64_t{1} << 21);
constexpr int64_t kMaxBlocks = 8;
constexpr int64_t kMinBlockRows = 64;
constexpr int64_t kMinBlockCols = 64;
constexpr int64_t kBlockUnit = 16;

struct Split {
  int dim = 0;         // the output dim split: 0 (batch), r - 2 (rows) or r - 1 (columns)
  int64_t count = 1;   // blocks
  int64_t extent = 0;  // the split dim's extent
  int64_t unit = 1;    // block sizes are multiples of unit (but the last block's)
  int64_t base = 0;    // units per block; the first `extra` blocks have one more
  int64_t extra = 0;
  int64_t start(int64_t i) const { return (i * base + std::min(i, extra)) * unit; }
  int64_t size(int64_t i) const { return std::min(start(i + 1), extent) - start(i); }
};

// On an AVX-512 host (oneDNN's brgemm kernels) a block's efficiency still grows past 64 rows:
// one Zen 4 core, GFLOP/s of the best of 61 repeats (benchmarks/cpp/bench_matmul.cpp), the product
// as 64-row blocks -> 128-row blocks -> 128-column blocks: 512x128 @ 128x512 104 -> 108 -> 112,
// 512x512 @ 512x128 109 -> 112, 256x784 @ 784x512 99 -> 103 -> 108, 256x512 @ 512x512 102 -> 108
// -> 110, 784x256 (ta) @ 256x512 110 -> 111 -> 113 (one call: 102-113; 1024^3: 105). On both
// cores (team of 2) the gap is wider: 256x512 @ 512x512 164 -> 185 -> 205, 256x784 @ 784x512
// 149 -> 175 -> 185. There blocks are at least kWideBlock rows (or else columns) wherever that
// leaves min(want, 4) blocks: four blocks still let a thread beside a busy process hand its
// share to the other (columns only where 64-row blocks would make that many too, or none).
// Elsewhere the AVX2 rule below. The choice depends on the shape and the
// machine's ISA only (never the thread count): the same bits on one thread as on two.
constexpr int64_t kWideBlock = 128;

bool wide_blocks() {
  static const bool on = [] {
    const char* v = std::getenv("FN_MATMUL_WIDE_BLOCKS");  // 0: the AVX2 rule (A/B timings)
    if (v && std::string(v) == "0") return false;
    return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  }();
  return on;
}

// FN_MATMUL_POOL=0 runs big products as one oneDNN call on the OpenMP team instead (A/B timings).
bool pool_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FN_MATMUL_POOL");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

Split choose_split(int r, int64_t batch, int64_t rows, int64_t cols, double macs) {
  if (!pool_enabled()) return Split{};
  int64_t want = 1;
  while (want * 2 <= kMaxBlocks && double(want * 2) * kMinBlockMacs <= macs) want *= 2;
  Split s;
  if (want < 2) return s;
  // n blocks (a power of two, at most want) of at least min_size along dim.
  auto fit = [&](int dim, int64_t extent, int64_t min_size, int64_t unit) {
    int64_t n = want;
    while (n >= 2 && extent / n < min_size) n /= 2;
    const int64_t units = (extent + unit - 1) / unit;
    if (n < 2 || units < n) return false;
    s.dim = dim;
    s.count = n;
    s.extent = extent;
    s.unit = unit;
    s.base = units / n;
    s.extra = units % n;
    return true;
  };
  if (r >= 3 && batch >= want && fit(0, batch, 1, 1)) return s;
  // AVX-512: blocks of kWideBlock rows or columns where that still gives min(want, 4) blocks.
  // Where 64-row blocks would make fewer (2: counts are powers of two), those rows stay (a weight
  // gradient of 128 rows over a long K: 128x1600 (ta) @ 1600x512 as 2 x 64 rows 95 GFLOP/s, as
  // 4 x 128 columns 85).
  if (wide_blocks()) {
    const int64_t enough = std::min<int64_t>(want, 4);
    if (fit(r - 2, rows, kWideBlock, kBlockUnit) && s.count >= enough) return s;
    s = Split{};
    if (fit(r - 2, rows, kMinBlockRows, kBlockUnit) && s.count < enough) return s;
    s = Split{};
    if (fit(r - 1, cols, kWideBlock, kBlockUnit) && s.count >= enough) return s;
    s = Split{};
  }
  if (fit(r - 2, rows, kMinBlockRows, kBlockUnit)) return s;
  if (r >= 3 && fit(0, batch, 1, 1)) return s;
  if (fit(r - 1, cols, kMinBlockCols, kBlockUnit)) return s;
  return Split{};
}

// `md` with dim `d` of extent `size`, the same strides (a block of it, at an offset the caller adds).
dnnl::memory::desc resized(const dnnl::memory::desc& md, int d, int64_t size) {
  dnnl::memory::dims dims = md.get_dims();
  dims[d] = size;
  return dnnl::memory::desc(dims, md.get_data_type(), md.get_strides());
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

// A block's operands: the whole product's descriptors with the split dim resized, sliced along
// dim d unless an operand does not have that dim (a's columns, b's rows) or broadcasts it (a
// batch dim of 1): then every block reads all of it.
struct BlockOperands {
  const dnnl::memory::desc &ma, &mb, &mo, &mbias;
  const Epilogue* e;
  bool layout;
  int d;
  bool slice_a, slice_b, slice_bias;
};

// The single-threaded primitive of a block of `size` along the split dim (cached); throws Refused
// where a folded layout gets only the reference kernel.
BlockPrim make_block(const BlockOperands& o, int64_t size) {
  using namespace dnnl;
  ThreadScope one(true);
  BlockPrim p;
  p.a = o.slice_a ? resized(o.ma, o.d, size) : o.ma;
  p.b = o.slice_b ? resized(o.mb, o.d, size) : o.mb;
  p.o = resized(o.mo, o.d, size);
  const Epilogue* e = o.e;
  if (e && e->bias) p.bias = o.slice_bias ? resized(o.mbias, 1, size) : o.mbias;
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
    if (o.layout && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) throw Refused{};
    return dnnl::matmul(pd);
  });
  p.scratch = scratchpad_bytes(*p.prim);
  return p;
}

// Runs block primitive `p` on one thread: src, weights and dst at a, b and o, the epilogue's
// bias and residual already offset to the block.
void run_block(const BlockPrim& p, const void* a, const void* b, void* o, const Epilogue* be) {
  using namespace dnnl;
  ThreadScope single(true);
  thread_local std::vector<char> scratch;
  if (scratch.size() < std::max<size_t>(p.scratch, 1)) scratch.resize(std::max<size_t>(p.scratch, 1));
  ArgPtr ptrs[7] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, o}};
  int n = 3;
  if (p.scratch) ptrs[n++] = {DNNL_ARG_SCRATCHPAD, scratch.data()};
  if (be && be->bias) ptrs[n++] = {DNNL_ARG_BIAS, be->bias};
  std::pair<int, const void*> post[2];
  for (int j = 0, m = be ? post_op_pointers(*be, post) : 0; j < m; ++j) ptrs[n++] = {post[j].first, post[j].second};
  Args& args = cached_args(p.prim, ptrs, n, [&] {
    Args made{{DNNL_ARG_SRC, memory(p.a, engine(), const_cast<void*>(a))},
              {DNNL_ARG_WEIGHTS, memory(p.b, engine(), const_cast<void*>(b))},
              {DNNL_ARG_DST, memory(p.o, engine(), o)}};
    if (be && be->bias) made.insert({DNNL_ARG_BIAS, memory(p.bias, engine(), const_cast<float*>(be->bias))});
    if (be) add_post_op_args(*be, p.o, made);
    if (p.scratch)
      made.insert({DNNL_ARG_SCRATCHPAD,
                   memory(memory::desc({static_cast<int64_t>(p.scratch)}, memory::data_type::u8, memory::format_tag::a),
                          engine(), scratch.data())});
    return made;
  });
  p.prim->execute(stream(), args);
  stream().wait();
}

// The product as split.count blocks on the task pool (see choose_split). False, running nothing,
// where oneDNN offers only its reference kernel for a block of a folded layout (as matmul()).
bool blocked_matmul(const dnnl::memory::desc& ma, const dnnl::memory::desc& mb, const dnnl::memory::desc& mo,
                    const dnnl::memory::desc& mbias, const Epilogue* e, bool layout, const std::string& whole_key,
                    const Split& split, int team, const void* a_ptr, const void* b_ptr, void* o_ptr) {
  const int r = static_cast<int>(mo.get_dims().size());
  const int d = split.dim;
  auto sliced = [&](const dnnl::memory::desc& md, int skip) { return d != skip && md.get_dims()[d] > 1; };
  const BlockOperands ops{ma, mb, mo, mbias, e, layout, d, sliced(ma, r - 1), sliced(mb, r - 2), d == r - 1};
  // The primitives of the (at most three) block sizes, made before any block runs: the first
  // block's, the others' and the last's (see Split).
  std::pair<int64_t, BlockPrim> prims[3];
  int made = 0;
  try {
    for (int64_t i : {int64_t{0}, split.count - 2, split.count - 1}) {
      const int64_t size = split.size(i);
      bool have = false;
      for (int j = 0; j < made; ++j) have = have || prims[j].first == size;
      if (!have) prims[made++] = {size, make_block(ops, size)};
    }
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
  const size_t elem = dnnl::memory::data_type_size(mo.get_data_type());
  // Element offsets of block i's slices: rows (or columns) of a (or b), the output, the residual
  // (laid out as the output) and the bias.
  const int64_t a_step = ops.slice_a ? ma.get_strides()[d] : 0, b_step = ops.slice_b ? mb.get_strides()[d] : 0;
  const int64_t o_step = mo.get_strides()[d], bias_step = ops.slice_bias ? 1 : 0;
  auto at = [elem](const void* p, int64_t elements) {
    return const_cast<char*>(static_cast<const char*>(p)) + elements * static_cast<int64_t>(elem);
  };
  std::function<void(int64_t)> task = [&](int64_t i) {
    const int64_t size = split.size(i), start = split.start(i);
    const BlockPrim* p = &prims[0].second;
    for (int j = 1; j < made; ++j)
      if (prims[j].first == size) p = &prims[j].second;
    Epilogue be = e ? *e : Epilogue{};
    if (be.residual) be.residual = reinterpret_cast<const float*>(at(e->residual, start * o_step));
    if (be.bias) be.bias = reinterpret_cast<const float*>(at(e->bias, start * bias_step));
    run_block(*p, at(a_ptr, start * a_step), at(b_ptr, start * b_step), at(o_ptr, start * o_step), e ? &be : nullptr);
  };
  TaskPool::global().run(team, split.count, task);
  return true;
}

// A right operand shared by the blocks is packed once per call into the layout oneDNN's AVX-512
// kernel (brgemm) prefers (blocks of 16 rows x 64 columns for float32), and every block reads the
// packed copy. Read as stored, a right operand whose row stride is a multiple of 512 elements
// (2 KiB) puts the kernel's loads in the same few L1 sets, as right_aliasing describes for the
// AVX2 kernels. One Zen 4 core, the product as its row blocks (CPU ms, min of 6-15, B packed
// inside the timing): 4096x1024 @ 1024x1024 88.2-94.2 -> 84.7-86.7, 4096x512 @ 512x512 21.6 ->
// 20.3, 2048x2048 @ 2048x2048 192 -> 166; row strides 768 and 1000: within 2% either way, so only
// the aliasing strides pack. The padded copy (right_aliasing) gains 1-2% on those shapes. The
// pack moves K x N elements on the calling thread (~0.17 ms for 4 MiB) and saves ~5% of M x K x N
// multiply-adds: it pays from a few hundred rows; kPackMinRows keeps it under ~1.5% of the
// product. The packed kernel is the plain one with another B layout: the same bits.
constexpr int64_t kPackMinRows = 1024;

// True when the blocks of `split` share b (no block slices it) and each of b's matrices is read
// by kPackMinRows output rows or more, with b's rows contiguous at an aliasing stride.
bool pack_candidate(const dnnl::memory::desc& b, const dnnl::memory::desc& o, const Split& split) {
  const auto dims = b.get_dims(), strides = b.get_strides(), odims = o.get_dims();
  const int r = static_cast<int>(dims.size());
  if (split.count < 2 || split.dim == r - 1 || strides.empty() || strides[r - 1] != 1) return false;
  int64_t matrices = 1, rows = 1;
  for (int i = 0; i < r - 2; ++i) matrices *= dims[i];
  for (int i = 0; i < r - 1; ++i) rows *= odims[i];
  if (r >= 3 && split.dim == 0 && dims[0] > 1) return false;  // whole matrices of b per block
  const int64_t ldb = strides[r - 2];
  return rows / matrices >= kPackMinRows && dims[r - 1] >= 64 && ldb >= 512 && ldb % 512 == 0;
}

// The packed layout of b for the blocks of `ops`' product, or an empty descriptor where oneDNN
// has no AVX-512 kernel for it (an AVX2 machine), the layout would pad b by over 1/8 (a narrow
// N) or is b's own (oneDNN 3.2 also refuses `any` for a broadcast batch dim of b: not packed).
// Decided once per product shape.
dnnl::memory::desc packed_layout(const BlockOperands& ops, const Split& split, const std::string& whole_key) {
  static std::mutex mu;
  static std::unordered_map<std::string, dnnl::memory::desc> decided;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = decided.find(whole_key);
    if (it != decided.end()) return it->second;
  }
  dnnl::memory::desc packed;
  try {
    ThreadScope one(true);
    const dnnl::memory::desc any(ops.mb.get_dims(), ops.mb.get_data_type(), dnnl::memory::format_tag::any);
    const int64_t size = split.size(0);
    const auto a = ops.slice_a ? resized(ops.ma, ops.d, size) : ops.ma, o = resized(ops.mo, ops.d, size);
    dnnl::primitive_attr attr = ops.e ? post_op_attr(*ops.e, o) : dnnl::primitive_attr();
    auto pd = ops.e ? dnnl::matmul::primitive_desc(engine(), a, any, ops.mbias, o, attr)
                    : dnnl::matmul::primitive_desc(engine(), a, any, o, attr);
    const auto w = pd.weights_desc();
    if (std::string(pd.impl_info_str()).rfind("brg", 0) == 0 && w.get_inner_nblks() > 0 &&
        8 * w.get_size() <= 9 * ops.mb.get_size())
      packed = w;
  } catch (const dnnl::error&) { packed = dnnl::memory::desc(); }
  std::lock_guard<std::mutex> lock(mu);
  if (decided.size() >= 4096) decided.clear();  // bounded: many shapes only re-decide
  decided.emplace(whole_key, packed);
  return packed;
}

// b (as `from`) reordered into `scratch` as `to` on the calling thread; returns the copy's data.
const void* pack(const void* b, const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                 std::vector<float>& scratch) {
  const size_t floats = (to.get_size() + sizeof(float) - 1) / sizeof(float);
  if (scratch.size() < floats) scratch.resize(floats);
  ThreadScope one(true);
  std::string key = std::string("matmul-b-pack") + one.key();
  append_key(key, from);
  append_key(key, to);
  auto prim = cached_primitive(key, [&] {
    return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to, user_scratchpad()));
  });
  const ArgPtr ptrs[2] = {{DNNL_ARG_FROM, b}, {DNNL_ARG_TO, scratch.data()}};
  dnnl::stream& s = stream();
  Args& args = cached_args(prim, ptrs, 2, [&] {
    return Args{{DNNL_ARG_FROM, dnnl::memory(from, engine(), const_cast<void*>(b))},
                {DNNL_ARG_TO, dnnl::memory(to, engine(), scratch.data())}};
  });
  execute(*prim, s, args);
  s.wait();
  return scratch.data();
}
}  // namespace

MatMulBlocks matmul_blocks(int r, int64_t batch, int64_t rows, int64_t cols, double macs) {
  const Split s = choose_split(r, batch, rows, cols, macs);
  return MatMulBlocks{s.dim, s.count};
}

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
  // Big products always run as blocks (on one thread too: the same blocks, the same bits).
  const Split split =
      small ? Split{} : choose_split(r, mo.get_dims()[0], mo.get_dims()[r - 2], mo.get_dims()[r - 1], macs);
  // Read b through a copy with padded rows where its rows alias (see right_aliasing), judged on
  // one block's rows and columns.
  const memory::desc mb_user = mb;
  const bool copy_b = right_aliasing(mb, split.count > 1 && split.dim == r - 2 ? split.size(0) : mo.get_dims()[r - 2],
                                     split.count > 1 && split.dim == r - 1 ? split.size(0) : mo.get_dims()[r - 1]);
  if (copy_b) mb = padded_rows(mb);
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
  thread_local std::vector<float> a_scratch, b_scratch;
  // The operand copies (see transposed_aliasing, right_aliasing), made once and read by every block.
  const void* a_ptr = a.raw();
  const void* b_ptr = b.raw();
  auto operands = [&] {
    if (copy_a)
      a_ptr = row_major_copy(memory(ma_user, engine(), const_cast<void*>(a.raw())), ma, a_scratch).get_data_handle();
    if (copy_b) b_ptr = padded_copy(b.raw(), mb_user, mb, b_scratch, split.count > 1 ? team : 1);
  };
  if (split.count > 1) {
    if (pack_candidate(mb_user, mo, split)) {
      const int d = split.dim;
      const BlockOperands ops{ma,    mb_user,   mo, mbias, e, layout != nullptr, d, d != r - 1 && ma.get_dims()[d] > 1,
                              false, d == r - 1};
      const memory::desc packed = packed_layout(ops, split, key);
      if (!packed.is_zero()) {
        thread_local std::vector<float> packed_scratch;
        if (copy_a)
          a_ptr =
              row_major_copy(memory(ma_user, engine(), const_cast<void*>(a.raw())), ma, a_scratch).get_data_handle();
        b_ptr = pack(b.raw(), mb_user, packed, packed_scratch);
        std::string packed_key = key + "|packed";
        return blocked_matmul(ma, packed, mo, mbias, e, layout != nullptr, packed_key, split, team, a_ptr, b_ptr,
                              out.raw());
      }
    }
    operands();
    return blocked_matmul(ma, mb, mo, mbias, e, layout != nullptr, key, split, team, a_ptr, b_ptr, out.raw());
  }
  std::shared_ptr<primitive> prim;
  try {
    prim = cached_primitive(key, [&] {
      auto pd = e ? dnnl::matmul::primitive_desc(engine(), ma, mb, mbias, mo, user_scratchpad(post_op_attr(*e, mo)))
                  : dnnl::matmul::primitive_desc(engine(), ma, mb, mo, user_scratchpad());
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
  operands();
  ArgPtr ptrs[6] = {{DNNL_ARG_SRC, a_ptr}, {DNNL_ARG_WEIGHTS, b_ptr}, {DNNL_ARG_DST, out.raw()}};
  int n = 3;
  if (e && e->bias) ptrs[n++] = {DNNL_ARG_BIAS, e->bias};
  std::pair<int, const void*> post[2];
  for (int j = 0, m = e ? post_op_pointers(*e, post) : 0; j < m; ++j) ptrs[n++] = {post[j].first, post[j].second};
  Args& args = cached_args(prim, ptrs, n, [&] {
    Args made{{DNNL_ARG_SRC, memory(ma, engine(), const_cast<void*>(a_ptr))},
              {DNNL_ARG_WEIGHTS, memory(mb, engine(), const_cast<void*>(b_ptr))},
              {DNNL_ARG_DST, memory(mo, engine(), out.raw())}};
    if (e && e->bias) made.insert({DNNL_ARG_BIAS, memory(mbias, engine(), const_cast<float*>(e->bias))});
    if (e) add_post_op_args(*e, mo, made);
    return made;
  });
  execute(*prim, stream(), args);
  stream().wait();
  return true;
}

}  // namespace onednn
}  // namespace fn
