// Inter-op parallelism (TensorFlow's inter-op thread pool): a Plan whose independent steps are big
// enough (Plan::parallel, decided at compile time) runs them on the calling thread and one worker
// thread at once (plan_parallel.cpp). Kernels inside a step still split their own work on the
// task pool (intra-op), whose caller always runs the blocks nobody took, so neither thread waits
// on the other's job.
//
// The worker runs kernels and drops values, and a value wrapping a NumPy array takes the GIL when
// dropped: a caller holding the GIL while it waits for the worker would deadlock. So a plan runs
// in parallel only inside an InterOpScope, which the bindings open where they released the GIL.
#pragma once

namespace fn {

// FN_INTER_OP: "1" lets plans the compiler marked parallel use the worker; "0" (and unset: the
// default, kInterOpDefault) runs every plan's steps in order on the calling thread. Off by default:
// on the shared 2-core machine it sped no benchmark row up (docs/notes/perf12i.md).
constexpr bool kInterOpDefault = false;
bool inter_op_enabled();
// Overrides FN_INTER_OP for the process (tests compare a parallel run's bits with the sequential's).
void set_inter_op_enabled(bool on);

// While alive, plans the calling thread runs may use the inter-op worker (allow = true), or may
// not (false: nested plans inside a parallel step, a caller holding the GIL). Nests.
class InterOpScope {
 public:
  explicit InterOpScope(bool allow);
  ~InterOpScope();
  InterOpScope(const InterOpScope&) = delete;
  InterOpScope& operator=(const InterOpScope&) = delete;

 private:
  bool prev_;
};

// True when a plan run by this thread now may go parallel (enabled and inside an allowing scope).
bool inter_op_allowed();

// A parallel run's part for the worker: work() takes ready steps until the run has none left.
class InterOpJob {
 public:
  virtual void work() = 0;

 protected:
  ~InterOpJob() = default;
};

// The process's inter-op worker: one thread (two cores: the caller and it), started on first use
// and living until exit. One job at a time: a run arriving while another holds it runs alone.
class InterOpWorker {
 public:
  static InterOpWorker& global();
  // Hands `job` to the worker; false when another run holds it or no thread could be started.
  bool post(InterOpJob* job);
  // Withdraws the posted job: returns once the worker has left it (at once if it never joined).
  void retract();

  InterOpWorker(const InterOpWorker&) = delete;
  InterOpWorker& operator=(const InterOpWorker&) = delete;

 private:
  InterOpWorker() = default;
  struct Impl;
  Impl* impl();
};

}  // namespace fn
