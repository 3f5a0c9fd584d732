#include "mpi/mapped_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace fnmpi {

namespace {
// An anonymous private mapping of `length` bytes (a multiple of kAlign) starting on a kAlign
// boundary: map kAlign more and unmap the ends.
void* map_aligned(size_t length) {
  constexpr size_t a = MappedPool::kAlign;
  if (length > SIZE_MAX - a) return nullptr;
  void* raw = mmap(nullptr, length + a, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t start = (base + a - 1) / a * a;
  const uintptr_t end = start + length, raw_end = base + length + a;
  if (start > base) munmap(raw, start - base);
  if (raw_end > end) munmap(reinterpret_cast<void*>(end), raw_end - end);
#if defined(MADV_HUGEPAGE)
  madvise(reinterpret_cast<void*>(start), length, MADV_HUGEPAGE);  // advice: fine if refused
#endif
  return reinterpret_cast<void*>(start);
}
}  // namespace

void* MappedPool::acquire(size_t bytes, size_t* length) {
  *length = 0;
  if (bytes < kMin || bytes > (size_t{1} << 62)) return nullptr;
  const size_t want = (bytes + kAlign - 1) / kAlign * kAlign;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The most recently released block that fits without wasting more than its request (warm
    // pages first, as a LIFO free list).
    for (size_t i = idle_.size(); i-- > 0;) {
      auto [p, len] = idle_[i];
      if (len < want || len / 2 > want) continue;
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
      --stats_.idle;
      stats_.idle_bytes -= len;
      ++stats_.reuses;
      ++stats_.leased;
      *length = len;
      return p;
    }
  }
  void* p = map_aligned(want);
  if (!p) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.maps;
  ++stats_.leased;
  *length = want;
  return p;
}

void MappedPool::release(void* p, size_t length) noexcept {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --stats_.leased;
    if (idle_.size() < kMaxIdleBlocks && stats_.idle_bytes + length <= kMaxIdleBytes) {
      try {
        idle_.emplace_back(p, length);
        ++stats_.idle;
        stats_.idle_bytes += length;
        return;
      } catch (...) {  // no room to remember it: unmap below
      }
    }
    ++stats_.unmaps;
  }
  munmap(p, length);
}

MappedPool::Stats MappedPool::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

MappedPool::~MappedPool() {
  for (auto& [p, len] : idle_) munmap(p, len);
}

std::shared_ptr<MappedPool> process_pool() {
  static const std::shared_ptr<MappedPool> pool = std::make_shared<MappedPool>();
  return pool;
}

namespace {
struct Lease {
  std::shared_ptr<MappedPool> pool;
  void* p;
  size_t length;
};
}  // namespace

void* lease_output(size_t bytes, size_t* capacity, void** handle) {
  *capacity = 0;
  *handle = nullptr;
  if (bytes < MappedPool::kMin) return nullptr;  // before touching the pool: small outputs are most
  std::shared_ptr<MappedPool> pool = process_pool();
  size_t length = 0;
  void* p = pool->acquire(bytes, &length);
  if (!p) return nullptr;
  std::unique_ptr<Lease> lease;
  try {
    lease = std::make_unique<Lease>(Lease{pool, p, length});
  } catch (...) {  // the lease cannot be recorded: the block goes back and fn allocates instead
    pool->release(p, length);
    return nullptr;
  }
  *capacity = length;
  *handle = lease.release();  // owned by the output's deleter until release_output
  return p;
}

void release_output(void* handle) {
  std::unique_ptr<Lease> lease(static_cast<Lease*>(handle));
  if (lease) lease->pool->release(lease->p, lease->length);
}

bool stress_pool(int threads, int rounds, const std::vector<size_t>& sizes) {
  std::atomic<bool> ok{true};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int r = 0; r < rounds && ok; ++r) {
        for (size_t i = 0; i < sizes.size(); ++i) {
          size_t cap = 0;
          void* handle = nullptr;
          auto* p = static_cast<unsigned char*>(lease_output(sizes[i], &cap, &handle));
          if (!p) continue;  // below the pool's minimum: fn's allocator's
          const auto mark = static_cast<unsigned char>(t * 31 + r * 7 + static_cast<int>(i) + 1);
          bool good = cap >= sizes[i] && reinterpret_cast<uintptr_t>(p) % MappedPool::kAlign == 0;
          std::memset(p, mark, sizes[i]);
          std::this_thread::yield();  // let the others lease meanwhile
          for (size_t k = 0; good && k < sizes[i]; k += 4093) good = p[k] == mark;
          good = good && p[sizes[i] - 1] == mark;
          if (!good) ok = false;
          release_output(handle);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  return ok.load();
}

}  // namespace fnmpi
