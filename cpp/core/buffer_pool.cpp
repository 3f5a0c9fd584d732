#include "core/buffer_pool.h"

#include <cstdlib>
#include <string>

namespace fn {

namespace {
thread_local BufferPool* t_pool = nullptr;
std::atomic<size_t> g_held{0};

size_t budget_from_env() {
  const char* e = std::getenv("FN_BUFFER_POOL_MB");
  if (!e || !*e) return size_t{512} << 20;
  char* end = nullptr;
  unsigned long long mb = std::strtoull(e, &end, 10);
  return static_cast<size_t>(mb) << 20;
}
std::atomic<size_t> g_budget{budget_from_env()};
constexpr size_t kMaxEntries = 256;  // per pool: the linear best-fit scan stays cheap
}  // namespace

BufferPool::BufferPool() : bin_(std::make_shared<ReturnBin>()) {
  free_.reserve(kMaxEntries);  // recycle never reallocates (noexcept use)
}

namespace {
// Adds `cap` to the pools' held bytes if the budget allows.
bool reserve_budget(size_t cap) {
  size_t held = g_held.load(std::memory_order_relaxed);
  do {
    if (held + cap > BufferPool::budget()) return false;
  } while (!g_held.compare_exchange_weak(held, held + cap, std::memory_order_relaxed));
  return true;
}
}  // namespace

bool ReturnBin::put(void* p, size_t capacity) {
  std::lock_guard<std::mutex> lock(mu);
  if (!open || items.size() >= kMaxEntries || !reserve_budget(capacity)) return false;
  items.emplace_back(p, capacity);
  return true;
}

ReturnBin::~ReturnBin() {
  for (auto& [p, cap] : items) {
    g_held.fetch_sub(cap, std::memory_order_relaxed);
    std::free(p);
  }
}

std::pair<void*, size_t> BufferPool::take_returned(size_t bytes) {
  std::pair<void*, size_t> out{nullptr, 0};
  {
    std::lock_guard<std::mutex> lock(bin_->mu);
    auto& items = bin_->items;
    size_t best = items.size();
    for (size_t i = 0; i < items.size(); ++i) {
      size_t c = items[i].second;
      if (c < bytes || c > 2 * bytes) continue;
      if (best == items.size() || c < items[best].second) best = i;
    }
    if (best == items.size()) return out;
    out = items[best];
    items[best] = items.back();
    items.pop_back();
  }
  g_held.fetch_sub(out.second, std::memory_order_relaxed);
  return out;
}

size_t BufferPool::budget() { return g_budget.load(std::memory_order_relaxed); }
void BufferPool::set_budget(size_t bytes) { g_budget.store(bytes, std::memory_order_relaxed); }
size_t BufferPool::total_held() { return g_held.load(std::memory_order_relaxed); }

std::shared_ptr<Buffer> BufferPool::take(size_t bytes) {
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i) {
    size_t cap = free_[i]->capacity();
    if (cap < bytes || cap > 2 * bytes) continue;
    if (best == free_.size() || cap < free_[best]->capacity()) best = i;
    if (cap == bytes) break;
  }
  if (best == free_.size()) return nullptr;
  std::shared_ptr<Buffer> b = std::move(free_[best]);
  free_[best] = std::move(free_.back());
  free_.pop_back();
  held_ -= b->capacity();
  g_held.fetch_sub(b->capacity(), std::memory_order_relaxed);
  return b;
}

void BufferPool::recycle(EagerPtr& t) {
  if (!t) return;
  if (t.use_count() != 1 || t->buffer().use_count() != 1 || t->buffer()->capacity() == 0 ||
      free_.size() >= kMaxEntries) {
    t.reset();
    return;
  }
  std::shared_ptr<Buffer> b = t->buffer();  // the tensor's reference and ours
  t.reset();
  if (b.use_count() != 1) return;  // a deleter elsewhere kept it after all
  // Another thread's last use of the storage happens before its release of the reference;
  // use_count() reads relaxed, so order our later writes after it.
  std::atomic_thread_fence(std::memory_order_acquire);
  size_t cap = b->capacity();
  if (!reserve_budget(cap)) return;  // over budget: freed as usual
  held_ += cap;
  free_.push_back(std::move(b));
}

void BufferPool::clear() {
  g_held.fetch_sub(held_, std::memory_order_relaxed);
  held_ = 0;
  {
    std::lock_guard<std::mutex> lock(bin_->mu);
    bin_->open = false;  // the buffers dropped below are freed, not kept
  }
  free_.clear();
  std::vector<std::pair<void*, size_t>> items;
  {
    std::lock_guard<std::mutex> lock(bin_->mu);
    items.swap(bin_->items);
    bin_->open = true;
  }
  for (auto& [p, cap] : items) {
    g_held.fetch_sub(cap, std::memory_order_relaxed);
    std::free(p);
  }
}

PoolScope::PoolScope(BufferPool* pool) : prev_(t_pool) { t_pool = pool; }
PoolScope::~PoolScope() { t_pool = prev_; }
BufferPool* current_buffer_pool() { return t_pool; }

namespace {
thread_local OutputPlacement* t_placement = nullptr;
}  // namespace
PlacementScope::PlacementScope(OutputPlacement* p) : prev_(t_placement) { t_placement = p; }
PlacementScope::~PlacementScope() { t_placement = prev_; }
OutputPlacement* current_placement() { return t_placement; }

}  // namespace fn
