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
#include <vector>

#include "core/buffer_pool.h"

namespace fn {

// What one run of a Plan reuses from the previous run: the storage pool, and the capacity of its
// value slots and of one step's input list (so a loop iteration's plan runs allocate neither).
struct RunState {
  BufferPool pool;
  std::vector<EagerPtr> slots;
  std::vector<EagerPtr> in;
  // A parallel run's bookkeeping (plan_parallel.cpp): per step the steps it still waits for,
  // the ready steps, per slot the reads still to come.
  std::vector<int> pending, ready;
  std::unique_ptr<std::atomic<int>[]> reads;
  size_t reads_size = 0;
};

// The warm RunState a Plan keeps between runs (one slot, taken by an atomic exchange): a run
// takes it, or starts a cold one when another thread's run of the same plan has it, and puts it
// back at the end (a second one coming back is dropped). Loop bodies and training steps thus
// allocate no tensor storage once warm.
class PlanPools {
 public:
  PlanPools() = default;
  PlanPools(const PlanPools&) = delete;
  PlanPools& operator=(const PlanPools&) = delete;
  ~PlanPools() { delete idle_.exchange(nullptr); }
  std::unique_ptr<RunState> acquire();
  void release(std::unique_ptr<RunState> state);

 private:
  std::atomic<RunState*> idle_{nullptr};
};

// One run's state: taken from `pools`, its pool made the thread's current pool for the scope
// (no pool when the budget is 0). At the end the slots' remaining values are dropped (their
// storage recycled) and the state goes back to `pools`.
class PooledRun {
 public:
  PooledRun(PlanPools& pools, size_t num_slots);
  ~PooledRun();
  PooledRun(const PooledRun&) = delete;
  PooledRun& operator=(const PooledRun&) = delete;
  // Drops `t`, keeping its storage for later outputs of this run when nothing else holds it.
  void recycle(EagerPtr& t) {
    if (!t) return;  // most slots at a run's end are empty already
    if (pooling_)
      state_->pool.recycle(t);
    else
      t.reset();
  }
  std::vector<EagerPtr>& slots() { return state_->slots; }
  std::vector<EagerPtr>& in() { return state_->in; }
  RunState& state() { return *state_; }

 private:
  PlanPools& pools_;
  std::unique_ptr<RunState> state_;
  bool pooling_;
  PoolScope scope_;
};

}  // namespace fn
