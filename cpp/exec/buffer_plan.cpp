#include "exec/buffer_plan.h"

namespace fn {

std::unique_ptr<BufferPool> PlanPools::acquire() {
  if (BufferPool::budget() == 0) return nullptr;
  if (BufferPool* p = idle_.exchange(nullptr, std::memory_order_acquire)) return std::unique_ptr<BufferPool>(p);
  return std::make_unique<BufferPool>();
}

void PlanPools::release(std::unique_ptr<BufferPool> pool) {
  if (!pool) return;
  BufferPool* expected = nullptr;
  if (idle_.compare_exchange_strong(expected, pool.get(), std::memory_order_release)) pool.release();
}

PooledRun::PooledRun(PlanPools& pools) : pools_(pools), pool_(pools.acquire()), scope_(pool_.get()) {}

PooledRun::~PooledRun() { pools_.release(std::move(pool_)); }

}  // namespace fn
