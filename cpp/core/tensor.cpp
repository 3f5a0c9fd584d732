#include "core/tensor.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <vector>

#include "core/buffer_pool.h"
#include "core/error.h"

namespace fn {

namespace {
// Buffers of one 64-byte block (scalars, loop counters, small shapes) recycle through a
// per-thread free list: aligned_alloc costs ~10x a pop, and a graph loop makes a few per
// iteration. Bounded (16 KB a thread); off under AddressSanitizer, which should see each free.
constexpr size_t kBlock = 64;
constexpr size_t kMaxCachedBlocks = 256;
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRecycle = false;
#else
constexpr bool kRecycle = true;
#endif
thread_local bool t_blocks_alive = false;  // trivially destructible: readable at thread exit
struct BlockCache {
  std::vector<void*> free;
  BlockCache() {
    free.reserve(kMaxCachedBlocks);
    t_blocks_alive = true;
  }
  ~BlockCache() {
    t_blocks_alive = false;
    for (void* p : free) std::free(p);
  }
};
// This thread's cache, or nullptr once it was destroyed (buffers freed during thread exit).
BlockCache* block_cache() {
  thread_local BlockCache cache;
  return t_blocks_alive ? &cache : nullptr;
}
}  // namespace

void Buffer::FreeDeleter::operator()(void* p) const {
  if (kRecycle && small) {
    BlockCache* c = block_cache();
    if (c && c->free.size() < kMaxCachedBlocks) {
      c->free.push_back(p);
      return;
    }
  }
  std::free(p);
}

namespace {
std::atomic<uint64_t> g_fresh{0};

// Large buffers ask for transparent huge pages (as NumPy does from 4 MiB up, on kernels whose THP
// mode is "madvise"): a fresh 64 MiB output then takes 32 page faults instead of 16384, which
// glibc's mmap'd large blocks otherwise pay on every allocation (a collective's fresh output per
// call: benchmarks/README.md, dist5). The advice covers the whole pages inside the block.
constexpr size_t kHugePageMin = size_t{4} << 20;
void advise_huge_pages(void* p, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
#else
  (void)p;
  (void)bytes;
#endif
}
}  // namespace
uint64_t Buffer::fresh_allocations() { return g_fresh.load(std::memory_order_relaxed); }

namespace {
// The owner of a run's large output: when the last holder drops it, its storage goes to the bin
// of the pool that made it (while that pool lives and its budget allows), else to free.
struct ReturnToBin {
  std::weak_ptr<ReturnBin> bin;
  size_t capacity;
  void operator()(void* p) const {
    if (auto b = bin.lock(); b && b->put(p, capacity)) return;
    std::free(p);
  }
};

void* fresh_storage(size_t rounded) {
  g_fresh.fetch_add(1, std::memory_order_relaxed);
  void* p = std::aligned_alloc(64, rounded);
  if (p && rounded >= kHugePageMin) advise_huge_pages(p, rounded);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(DType dtype, int64_t n) {
  if (dtype == DType::String) {
    auto b = std::make_shared<Buffer>();
    // The slots alone are sizeof(std::string) bytes each and are all constructed: refuse past
    // 8 GB up front (operator new would abort under a sanitizer, or the OOM killer strike).
    if (n < 0 || static_cast<uint64_t>(n) > (uint64_t{1} << 33) / sizeof(std::string)) throw std::bad_alloc();
    b->strings_.resize(static_cast<size_t>(n));
    return b;
  }
  size_t bytes = 0;
  if (n < 0 || __builtin_mul_overflow(static_cast<size_t>(n), dtype_size(dtype), &bytes) || bytes > (size_t{1} << 62))
    throw std::bad_alloc();
  if (OutputPlacement* pl = current_placement(); pl && !pl->taken && bytes == pl->bytes && bytes > 0) {
    pl->taken = true;  // the executor's placement: a view of memory it owns (capacity 0: never pooled)
    auto b = wrap(pl->data, bytes, pl->owner);
    pl->made = b;
    return b;
  }
  size_t rounded = ((bytes + 63) / 64) * 64;
  if (rounded == 0) rounded = kBlock;
  if (BufferPool* pool = current_buffer_pool()) {  // a plan run recycles dead values' storage
    if (auto r = pool->take(rounded)) {
      r->nbytes_ = bytes;
      return r;
    }
    if (rounded >= BufferPool::kReturnMin) {
      // A large output of a plan run: storage the run's pool got back from an earlier output,
      // or fresh; owned so that it returns to that pool when dropped (TF's BFC allocator keeps
      // freed memory too). If a constructor throws, `owner` already returns or frees p.
      auto [p, cap] = pool->take_returned(rounded);
      if (!p) {
        p = fresh_storage(rounded);
        cap = rounded;
      }
      std::shared_ptr<void> owner(p, ReturnToBin{pool->bin(), cap});
      auto b = std::make_shared<Buffer>();
      b->owner_ = std::move(owner);
      b->data_ = p;
      b->nbytes_ = bytes;
      b->capacity_ = cap;
      return b;
    }
  }
  auto b = std::make_shared<Buffer>();
  void* p = nullptr;
  if (kRecycle && rounded == kBlock) {
    BlockCache* c = block_cache();
    if (c && !c->free.empty()) {
      p = c->free.back();
      c->free.pop_back();
    }
  }
  if (!p) p = fresh_storage(rounded);
  b->storage_ = std::unique_ptr<void, FreeDeleter>(p, FreeDeleter{rounded == kBlock});
  b->data_ = p;
  b->nbytes_ = bytes;
  b->capacity_ = rounded;
  return b;
}

std::shared_ptr<Buffer> Buffer::wrap(void* data, size_t nbytes, std::shared_ptr<void> owner) {
  auto b = std::make_shared<Buffer>();
  b->owner_ = std::move(owner);
  b->data_ = data;
  b->nbytes_ = nbytes;
  return b;
}

std::shared_ptr<Buffer> Buffer::adopt(void* data, size_t nbytes, size_t capacity, std::shared_ptr<void> owner) {
  auto b = wrap(data, nbytes, std::move(owner));
  b->capacity_ = capacity;
  return b;
}

std::string Tensor::name() const {
  auto g = graph.lock();
  if (!g || node < 0 || node >= g->node_count()) return "<dead>:" + std::to_string(index);
  return g->node_name(node) + ":" + std::to_string(index);
}

double EagerTensor::scalar_as_double(int64_t i) const {
  return visit_pod(dtype_, [&](auto tag) -> double {
    using T = decltype(tag);
    return to_double(data<T>()[i]);
  });
}

int64_t EagerTensor::scalar_as_int(int64_t i) const {
  if (dtype_ == DType::Int64) return data<int64_t>()[i];
  if (dtype_ == DType::UInt64) return static_cast<int64_t>(data<uint64_t>()[i]);
  return static_cast<int64_t>(scalar_as_double(i));
}

EagerPtr make_tensor(DType dtype, const Shape& shape) {
  if (!shape.is_fully_defined())
    throw_error(Code::InvalidArgument, "Tensor shape must be fully defined, got ", shape.debug_string());
  int64_t n = shape.num_elements();  // InvalidArgument past 2**63 - 1 elements
  std::shared_ptr<Buffer> buf;
  try {
    buf = Buffer::allocate(dtype, n);
  } catch (const std::bad_alloc&) {
    std::string dims = shape.debug_string();
    throw_error(Code::ResourceExhausted, "OOM when allocating tensor with shape", dims, " and type ",
                dtype == DType::Float32   ? "float"
                : dtype == DType::Float64 ? "double"
                                          : dtype_name(dtype),
                " on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu");
  }
  return std::make_shared<EagerTensor>(dtype, shape, std::move(buf));
}

EagerPtr make_scalar(DType dtype, double value) {
  auto t = make_tensor(dtype, Shape{});
  if (dtype == DType::Complex64 || dtype == DType::Complex128) {  // (value, 0)
    if (dtype == DType::Complex64) {
      float* p = static_cast<float*>(t->raw());
      p[0] = static_cast<float>(value);
      p[1] = 0.0f;
    } else {
      double* p = static_cast<double*>(t->raw());
      p[0] = value;
      p[1] = 0.0;
    }
    return t;
  }
  visit_pod(dtype, [&](auto tag) {
    using T = decltype(tag);
    t->data<T>()[0] = from_double<T>(value);
    return 0;
  });
  return t;
}

EagerPtr make_string_scalar(const std::string& s) {
  auto t = make_tensor(DType::String, Shape{});
  t->strings()[0] = s;
  return t;
}

EagerPtr reshaped(const EagerPtr& t, const Shape& shape) {
  return std::make_shared<EagerTensor>(t->dtype(), shape, t->buffer());
}

EagerPtr cast_tensor(const EagerPtr& t, DType to) {
  if (t->dtype() == to) return t;
  if (!is_pod(t->dtype()) || !is_pod(to))
    throw_error(Code::Unimplemented, "Cast ", dtype_name(t->dtype()), " to ", dtype_name(to), " is not supported");
  auto out = make_tensor(to, t->shape());
  int64_t n = t->num_elements();
  visit_pod(t->dtype(), [&](auto stag) {
    using S = decltype(stag);
    const S* src = t->data<S>();
    return visit_pod(to, [&](auto dtag) {
      using D = decltype(dtag);
      D* dst = out->data<D>();
      constexpr bool ints = std::is_integral<S>::value && std::is_integral<D>::value && !std::is_same<S, bool>::value &&
                            !std::is_same<D, bool>::value;
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (ints)  // modular, exact past 2**53 (int64 <-> uint64)
          dst[i] = static_cast<D>(src[i]);
        else
          dst[i] = from_double<D>(to_double(src[i]));
      }
      return 0;
    });
  });
  return out;
}

}  // namespace fn
