// Buffer reuse for Plan runs (the memory plan). Values die at their last use (Plan::compile
// computes it); a run hands their storage to its BufferPool (core/buffer_pool.h) and the kernels'
// outputs draw from that pool, so storage is reused by lifetime, first fit by size, without
// kernels knowing: every kernel allocates through make_tensor. A value is recycled only when the
// run holds the sole reference to it and to its buffer, so outputs returned to the caller,
// constants, variables' buffers and views (Reshape, ReadVariableOp, slices, TensorList
// elements) are never reused while anything can still see them.
#pragma once
#include <atomic>
#include <memory>

#include "core/buffer_pool.h"

namespace fn {

// The warm pool a Plan keeps between runs (one slot, taken by an atomic exchange): a run takes
// it, or starts an empty pool when another thread's run of the same plan has it, and puts it
// back at the end (a second pool coming back is dropped). Loop bodies and training steps thus
// allocate no tensor storage once warm.
class PlanPools {
 public:
  PlanPools() = default;
  PlanPools(const PlanPools&) = delete;
  PlanPools& operator=(const PlanPools&) = delete;
  ~PlanPools() { delete idle_.exchange(nullptr); }
  std::unique_ptr<BufferPool> acquire();
  void release(std::unique_ptr<BufferPool> pool);
  bool has_idle() const { return idle_.load() != nullptr; }

 private:
  std::atomic<BufferPool*> idle_{nullptr};
};

// One run's pool: taken from `pools` and made the thread's current pool for the scope
// (nullptr, and no pooling, when the budget is 0).
class PooledRun {
 public:
  explicit PooledRun(PlanPools& pools);
  ~PooledRun();
  PooledRun(const PooledRun&) = delete;
  PooledRun& operator=(const PooledRun&) = delete;
  // Drops `t`, keeping its storage for later outputs of this run when nothing else holds it.
  void recycle(EagerPtr& t) {
    if (pool_) pool_->recycle(t);
    else t.reset();
  }
  BufferPool* pool() const { return pool_.get(); }

 private:
  PlanPools& pools_;
  std::unique_ptr<BufferPool> pool_;
  PoolScope scope_;
};

}  // namespace fn
