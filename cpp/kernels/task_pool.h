// A task pool for big contractions: a job of independent blocks runs on the calling thread and
// the pool's workers, each taking the next unclaimed block from a shared counter. The calling
// thread never waits for a block nobody has started: while blocks remain it takes them itself,
// and at the end it waits only for blocks a worker has already claimed. A worker the scheduler
// has descheduled (a busy process on its core) or that wakes late delays nothing but the block
// it holds, unlike an OpenMP team whose static partition waits at a barrier for its slowest
// thread. TensorFlow's Eigen contraction schedules its blocks the same way.
//
// Which block a thread runs depends on timing, so a block's result must not depend on the thread
// that runs it (each block writes its own part of the output). One job at a time: a second
// caller arriving while a job runs (another thread) runs its blocks itself, in order.
#pragma once
#include <cstdint>
#include <functional>

namespace fn {

class TaskPool {
 public:
  // The process's pool (its workers are created on first use and live until exit).
  static TaskPool& global();

  // Runs task(0) .. task(blocks - 1), each exactly once, on the calling thread and up to
  // `threads - 1` workers; returns when all have finished. The first exception a task threw is
  // rethrown here after every claimed block has finished.
  void run(int threads, int64_t blocks, const std::function<void(int64_t)>& task);

  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

 private:
  TaskPool() = default;
  struct Impl;
  Impl* impl();
};

// Runs body(begin, end) over the rows [0, rows) (each `row_elements` long) as blocks of whole rows
// on the task pool: blocks of about `block_elements` elements (at least one row), split only with
// two threads or more (`threads`, the caller included) and `min_blocks` blocks or more, else one
// call body(0, rows) on the calling thread. For row-independent kernels (a softmax, its gradient):
// a row's result does not depend on the block it falls in, so the bits depend neither on the
// thread count nor on timing. Returns the number of blocks run.
int64_t run_row_blocks(int threads, int64_t rows, int64_t row_elements, int64_t block_elements, int64_t min_blocks,
                       const std::function<void(int64_t, int64_t)>& body);

}  // namespace fn
