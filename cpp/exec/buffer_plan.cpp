#include "exec/buffer_plan.h"

namespace fn {

std::unique_ptr<RunState> PlanPools::acquire() {
  if (RunState* p = idle_.exchange(nullptr, std::memory_order_acquire)) return std::unique_ptr<RunState>(p);
  return std::make_unique<RunState>();
}

void PlanPools::release(std::unique_ptr<RunState> state) {
  RunState* expected = nullptr;
  if (idle_.compare_exchange_strong(expected, state.get(), std::memory_order_release)) state.release();
}

PooledRun::PooledRun(PlanPools& pools, size_t num_slots)
    : pools_(pools),
      state_(pools.acquire()),
      pooling_(BufferPool::budget() > 0),
      scope_(pooling_ ? &state_->pool : nullptr) {
  state_->slots.resize(num_slots);
}

PooledRun::~PooledRun() {
  for (EagerPtr& v : state_->slots) recycle(v);
  state_->slots.clear();
  state_->in.clear();
  if (!pooling_) state_->pool.clear();  // the budget went to 0: hold nothing
  pools_.release(std::move(state_));
}

}  // namespace fn
