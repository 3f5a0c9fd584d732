#include "kernels/task_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fn {

namespace {

// One run(): lives on the caller's stack until no worker refers to it.
struct Job {
  const std::function<void(int64_t)>* task = nullptr;
  int64_t blocks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int> helpers{0};  // workers that may still join
  std::atomic<int> inside{0};   // workers holding a reference
  std::mutex error_mu;
  std::exception_ptr error;

  // Claims and runs blocks until none is left.
  void work() {
    for (;;) {
      const int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= blocks) return;
      try {
        (*task)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
    }
  }
};

constexpr int kMaxWorkers = 63;

}  // namespace

struct TaskPool::Impl {
  std::mutex mu;
  std::condition_variable wake;  // workers: a job was posted
  std::condition_variable idle;  // the caller: the last worker left its job
  Job* job = nullptr;
  uint64_t generation = 0;
  std::vector<std::thread> workers;  // never joined: the pool lives until the process exits
  std::atomic<bool> busy{false};     // a caller owns the pool

  void worker_loop() {
    uint64_t seen = 0;
    for (;;) {
      Job* j = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [&] { return job != nullptr && generation != seen; });
        seen = generation;
        if (job->helpers.fetch_sub(1, std::memory_order_relaxed) <= 0) continue;
        j = job;
        j->inside.fetch_add(1, std::memory_order_relaxed);
      }
      j->work();
      // The job may be gone once `inside` reaches 0: touch it no more after the decrement.
      if (j->inside.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu);
        idle.notify_all();
      }
    }
  }

  void ensure_workers(int n) {
    n = std::min(n, kMaxWorkers);
    std::lock_guard<std::mutex> lock(mu);
    while (static_cast<int>(workers.size()) < n) workers.emplace_back([this] { worker_loop(); });
  }
};

TaskPool& TaskPool::global() {
  static TaskPool* pool = new TaskPool();  // never destroyed: workers may sleep in it at exit
  return *pool;
}

TaskPool::Impl* TaskPool::impl() {
  static Impl* i = new Impl();
  return i;
}

void TaskPool::run(int threads, int64_t blocks, const std::function<void(int64_t)>& task) {
  if (blocks <= 0) return;
  Impl* p = impl();
  if (threads <= 1 || blocks == 1 || p->busy.exchange(true, std::memory_order_acquire)) {
    for (int64_t i = 0; i < blocks; ++i) task(i);  // alone, or another caller owns the workers
    return;
  }
  Job j;
  j.task = &task;
  j.blocks = blocks;
  const int helpers = static_cast<int>(std::min<int64_t>(threads - 1, blocks - 1));
  j.helpers.store(helpers, std::memory_order_relaxed);
  try {
    p->ensure_workers(helpers);
  } catch (...) {  // no thread could be started: run alone
    p->busy.store(false, std::memory_order_release);
    for (int64_t i = 0; i < blocks; ++i) task(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(p->mu);
    p->job = &j;
    ++p->generation;
  }
  p->wake.notify_all();
  j.work();
  {
    // Late workers find no job; those inside finish the blocks they claimed.
    std::unique_lock<std::mutex> lock(p->mu);
    p->job = nullptr;
    p->idle.wait(lock, [&] { return j.inside.load(std::memory_order_acquire) == 0; });
  }
  p->busy.store(false, std::memory_order_release);
  if (j.error) std::rethrow_exception(j.error);
}

int64_t run_row_blocks(int threads, int64_t rows, int64_t row_elements, int64_t block_elements, int64_t min_blocks,
                       const std::function<void(int64_t, int64_t)>& body) {
  if (rows <= 0) return 0;
  const int64_t per_row = std::max<int64_t>(1, row_elements);
  const int64_t rows_per_block = std::max<int64_t>(1, std::max<int64_t>(1, block_elements) / per_row);
  const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  if (threads < 2 || blocks < std::max<int64_t>(2, min_blocks)) {
    body(0, rows);
    return 1;
  }
  TaskPool::global().run(threads, blocks, [&](int64_t b) {
    const int64_t begin = b * rows_per_block;
    body(begin, std::min(rows, begin + rows_per_block));
  });
  return blocks;
}

}  // namespace fn
