// Recycled tensor storage. While a Plan runs, the buffers of values that die (their last use
// passed, nothing else holds them) go into the run's BufferPool, and Buffer::allocate takes the
// next output of a matching size from it instead of calling the allocator: outputs reuse the
// storage of dead values by lifetime, and a plan run again (a loop body, a training step)
// allocates no tensor storage once its pool is warm. A pool belongs to one run at a time.
#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace fn {

// Storage of a plan run's large outputs that came back when their caller dropped them (from any
// thread: guarded by `mu`); the pool that made them takes it for later outputs of a matching
// size, as TF's BFC allocator keeps freed memory. Counted in the pools' byte budget.
struct ReturnBin {
  std::mutex mu;
  std::vector<std::pair<void*, size_t>> items;  // (storage, capacity)
  bool open = true;                             // false while its pool clears: storage is freed
  ~ReturnBin();
  // Keeps `p` (returns true) when open and the budget allows; else the caller frees it.
  bool put(void* p, size_t capacity);
};

class BufferPool {
 public:
  BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool() { clear(); }
  // A buffer of at least `bytes` (64-byte multiple) and at most twice that, or nullptr.
  std::shared_ptr<Buffer> take(size_t bytes);
  // Keeps `t`'s storage if `t` is the only reference to its tensor and to its buffer, the
  // buffer owns plain (non-string) storage, and the pools' byte budget allows; resets `t`.
  void recycle(EagerPtr& t);
  void clear();
  size_t size() const { return free_.size(); }
  size_t bytes_held() const { return held_; }

  // Bytes all pools may hold together (FN_BUFFER_POOL_MB, default 512; 0 turns pooling off).
  static size_t budget();
  static void set_budget(size_t bytes);
  static size_t total_held();

  // Outputs of at least this many bytes made in a run return to its pool when dropped.
  static constexpr size_t kReturnMin = size_t{1} << 20;
  // The smallest returned storage that fits `bytes` (at most twice it): {storage, capacity},
  // or {nullptr, 0}. Buffer::allocate makes it a buffer whose owner returns it here again.
  std::pair<void*, size_t> take_returned(size_t bytes);
  const std::shared_ptr<ReturnBin>& bin() const { return bin_; }

 private:
  std::vector<std::shared_ptr<Buffer>> free_;
  size_t held_ = 0;
  std::shared_ptr<ReturnBin> bin_;
};

// Makes `pool` the calling thread's current pool (Buffer::allocate draws from it) for the
// scope's lifetime; nullptr suspends pooling (nested scopes restore the previous pool).
class PoolScope {
 public:
  explicit PoolScope(BufferPool* pool);
  ~PoolScope();
  PoolScope(const PoolScope&) = delete;
  PoolScope& operator=(const PoolScope&) = delete;

 private:
  BufferPool* prev_;
};

BufferPool* current_buffer_pool();

// Where the executor wants the next output of a step made (plan.cpp): the first POD allocation
// of exactly `bytes` on this thread while the scope lives becomes a buffer viewing `data`
// (kept alive by `owner`) instead of fresh or pooled storage. Used to let the producer of a
// TensorList item write it straight into the list's arena row (ops/tensor_list.h). The
// allocation that takes it may be a kernel's temporary: `made` tells the executor which buffer
// got the memory, so it can check whether that was the output it meant.
struct OutputPlacement {
  void* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<void> owner;
  bool taken = false;
  std::weak_ptr<Buffer> made;
};

// Makes `p` the calling thread's placement for the scope's lifetime (nested scopes restore the
// previous one; nullptr suspends it).
class PlacementScope {
 public:
  explicit PlacementScope(OutputPlacement* p);
  ~PlacementScope();
  PlacementScope(const PlacementScope&) = delete;
  PlacementScope& operator=(const PlacementScope&) = delete;

 private:
  OutputPlacement* prev_;
};

OutputPlacement* current_placement();

}  // namespace fn
