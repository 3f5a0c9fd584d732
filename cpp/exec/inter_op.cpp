#include "exec/inter_op.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace fn {

namespace {
thread_local bool t_allowed = false;
}  // namespace

namespace {
std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("FN_INTER_OP");
    if (!v || !*v) return kInterOpDefault;
    return std::strcmp(v, "0") != 0;
  }()};
  return on;
}
}  // namespace

bool inter_op_enabled() { return enabled_flag().load(std::memory_order_relaxed); }
void set_inter_op_enabled(bool on) { enabled_flag().store(on, std::memory_order_relaxed); }

InterOpScope::InterOpScope(bool allow) : prev_(t_allowed) { t_allowed = allow; }
InterOpScope::~InterOpScope() { t_allowed = prev_; }

bool inter_op_allowed() { return t_allowed && inter_op_enabled(); }

struct InterOpWorker::Impl {
  std::mutex mu;
  std::condition_variable wake;  // the worker: a job was posted
  std::condition_variable left;  // the caller: the worker left its job
  InterOpJob* job = nullptr;     // posted and not yet withdrawn
  bool inside = false;           // the worker is running `job`
  bool owned = false;            // a caller holds the worker (posted, not yet retracted)
  bool started = false;

  void loop() {
    for (;;) {
      InterOpJob* j = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [&] { return job != nullptr; });
        j = job;
        job = nullptr;  // taken: a retract now waits for `inside`
        inside = true;
      }
      j->work();
      std::lock_guard<std::mutex> lock(mu);
      inside = false;
      left.notify_all();
    }
  }
};

InterOpWorker& InterOpWorker::global() {
  static InterOpWorker* w = new InterOpWorker();  // never destroyed: the worker sleeps in it at exit
  return *w;
}

InterOpWorker::Impl* InterOpWorker::impl() {
  static Impl* i = new Impl();
  return i;
}

bool InterOpWorker::post(InterOpJob* job) {
  Impl* p = impl();
  {
    std::lock_guard<std::mutex> lock(p->mu);
    if (p->owned) return false;
    if (!p->started) {
      try {
        std::thread([p] { p->loop(); }).detach();
      } catch (...) {
        return false;  // no thread: the caller runs alone
      }
      p->started = true;
    }
    p->owned = true;
    p->job = job;
  }
  p->wake.notify_one();
  return true;
}

void InterOpWorker::retract() {
  Impl* p = impl();
  std::unique_lock<std::mutex> lock(p->mu);
  p->job = nullptr;  // not taken yet: the worker will not see it
  p->left.wait(lock, [&] { return !p->inside; });
  p->owned = false;
}

}  // namespace fn
