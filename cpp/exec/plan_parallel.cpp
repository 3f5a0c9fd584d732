// The parallel executor (TensorFlow's inter-op executor): a Plan's steps as a dependency graph,
// run by the calling thread and the inter-op worker (exec/inter_op.h), each taking the ready step
// earliest in the sequential order.
//
// Dependencies: data edges, control edges (through Const nodes, which are not steps), and program
// order among every step whose order is observable: stateful ops (variable reads and writes, RNG,
// iterators, the If/While ops running stateful bodies), collectives (every worker issues them in
// the same order, issue 23), and any op taking or making a resource handle.
//
// Values: the sequential run hands a value over to its last reader (`move_in`) and frees it after
// (`release`). Here the reads of a slot are counted down per run: every reader copies the value
// first, and the one whose count-down ends the reads clears the slot, so a kernel sees a value it
// may update in place (one reference) only when no other reader still holds it. Each thread
// recycles the storage of what it drops into its own pool.
//
// Results are the sequential run's bits: every kernel's arithmetic is fixed by its shapes and the
// thread counts it is configured with (the task pool's blocks, oneDNN's team size, copied to the
// worker), never by which threads actually took part. Errors: a failing step stops the steps after
// it in the sequential order; those before it still run, and the run raises the earliest failure,
// so the error is the one the sequential run raises.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "exec/control_flow.h"
#include "exec/inter_op.h"
#include "exec/plan.h"
#include "kernels/onednn/threads.h"

namespace fn {

namespace {

constexpr int kNeverRelease = INT_MAX / 2;  // a plan output's slot: the caller gets it

// Elements of a fully known shape, else 0.
int64_t known_elements(const Shape& s) {
  if (!s.has_rank()) return 0;
  int64_t n = 1;
  for (int i = 0; i < s.rank(); ++i) {
    if (s[i] < 0) return 0;
    if (s[i] > 0 && n > (INT64_MAX >> 1) / s[i]) return INT64_MAX >> 1;
    n *= s[i];
  }
  return n;
}

// Overlappable work (element reads and writes) a plan needs to be run in parallel: a hand-off to
// the worker costs 10-50 us, about as long as ~2^17 elements' memory-bound passes.
// FN_INTER_OP_MIN_WORK overrides (0: every plan with independent steps).
int64_t min_work() {
  static const int64_t v = [] {
    const char* e = std::getenv("FN_INTER_OP_MIN_WORK");
    if (e && *e) {
      char* end = nullptr;
      long long x = std::strtoll(e, &end, 10);
      if (end && *end == '\0' && x >= 0) return static_cast<int64_t>(x);
    }
    return int64_t{1} << 18;
  }();
  return v;
}

// A step's cost in element reads and writes, plus a step's dispatch (~1 us).
constexpr int64_t kStepCost = 1024;
// A step whose kernel splits over every core itself (oneDNN's and the task pool's size limits,
// kernels/onednn/threads.h): it runs with no other step beside it.
constexpr int64_t kWideElements = int64_t{1} << 18;

bool is_ordered(const Graph& g, const Node& node) {
  if (node.def && (node.def->stateful || node.def->needs_host || node.def->collective != Collective::None)) return true;
  for (const NodeOutput& in : node.inputs)
    if (g.node(in.node).outputs[in.index].dtype == DType::Resource) return true;
  for (const TensorSpec& o : node.outputs)
    if (o.dtype == DType::Resource) return true;
  return false;
}

}  // namespace

void Plan::compile_parallel(const Graph& g, const std::vector<int>& step_node) {
  const int n = static_cast<int>(steps_.size());
  if (needs_host_ || n < 3) return;  // host callbacks take the GIL: in order on the caller
  std::vector<int> node_step(g.num_nodes(), -1);
  for (int k = 0; k < n; ++k) node_step[step_node[k]] = k;
  // The steps a non-step node (a Const, a placeholder) waits for through its control inputs
  // (nodes come after their inputs, so those are known when a node is reached).
  std::vector<std::vector<int>> via(g.num_nodes());
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (node_step[i] >= 0) continue;
    const Node& nd = g.node(i);
    std::vector<int>& v = via[i];
    auto add = [&](int s) {
      if (s >= i) return;
      if (node_step[s] >= 0)
        v.push_back(node_step[s]);
      else
        v.insert(v.end(), via[s].begin(), via[s].end());
    };
    for (const NodeOutput& in : nd.inputs) add(in.node);
    for (int c : nd.control_inputs) add(c);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  auto waits_for = [&](int node, std::vector<int>& preds) {
    if (node_step[node] >= 0)
      preds.push_back(node_step[node]);
    else
      preds.insert(preds.end(), via[node].begin(), via[node].end());
  };
  std::vector<int64_t> cost(n), finish(n);
  int64_t total = 0, critical = 0;
  int last_ordered = -1;
  std::vector<int> preds;
  for (int k = 0; k < n; ++k) {
    Step& st = steps_[k];
    const Node& node = g.node(step_node[k]);
    preds.clear();
    for (const NodeOutput& in : node.inputs) waits_for(in.node, preds);
    for (int c : node.control_inputs) waits_for(c, preds);
    if (is_ordered(g, node)) {
      if (last_ordered >= 0) preds.push_back(last_ordered);
      last_ordered = k;
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    if (!preds.empty() && preds.back() >= k) return;  // not in dependency order: run in order
    int64_t elements = 0, widest = 0;
    for (const NodeOutput& in : node.inputs) {
      int64_t e = known_elements(g.node(in.node).outputs[in.index].shape);
      elements += e;
      widest = std::max(widest, e);
    }
    for (const TensorSpec& o : node.outputs) {
      int64_t e = known_elements(o.shape);
      elements += e;
      widest = std::max(widest, e);
    }
    st.wide = widest >= kWideElements;
    cost[k] = kStepCost + std::min<int64_t>(elements, INT64_MAX >> 8);
    int64_t start = 0;
    for (int p : preds) {
      steps_[p].users.push_back(k);
      start = std::max(start, finish[p]);
    }
    st.deps = static_cast<int>(preds.size());
    if (st.deps == 0) initial_ready_.push_back(k);
    finish[k] = start + cost[k];
    total += cost[k];
    critical = std::max(critical, finish[k]);
  }
  // Worth a second thread only when enough work lies off the critical path.
  if (total - critical < min_work()) {
    for (Step& st : steps_) st.users.clear();
    initial_ready_.clear();
    return;
  }
  read_count_.assign(num_slots_, 0);
  for (Step& st : steps_) {
    for (int s : st.in_slots) ++read_count_[s];
    for (int s : st.in_slots) {
      auto it =
          std::find_if(st.reads.begin(), st.reads.end(), [&](const std::pair<int, int>& r) { return r.first == s; });
      if (it == st.reads.end())
        st.reads.emplace_back(s, 1);
      else
        ++it->second;
    }
  }
  for (int s : output_slots_) read_count_[s] = kNeverRelease;
  parallel_ = true;
}

// One parallel run of a plan: the caller's part (run) and the worker's (work).
class ParallelRun final : public InterOpJob {
 public:
  ParallelRun(const Plan& plan, std::vector<EagerPtr>& slots, RunState& state)
      : p_(plan), slots_(slots), pending_(state.pending), ready_(state.ready), threads_(onednn::max_threads()) {
    const int n = static_cast<int>(p_.steps_.size());
    pending_.resize(n);
    for (int k = 0; k < n; ++k) pending_[k] = p_.steps_[k].deps;
    ready_.assign(p_.initial_ready_.rbegin(), p_.initial_ready_.rend());  // latest first: take from the back
    const size_t ns = p_.read_count_.size();
    if (state.reads_size < ns) {
      state.reads = std::make_unique<std::atomic<int>[]>(ns);
      state.reads_size = ns;
    }
    reads_ = state.reads.get();
    for (size_t s = 0; s < ns; ++s) reads_[s].store(p_.read_count_[s], std::memory_order_relaxed);
  }

  // The caller's part: returns when every step has run, or rethrows the earliest failure.
  void run(PooledRun& pooled) {
    InterOpScope nested(false);  // plans inside the steps (loop bodies) run in order
    InterOpWorker& worker = InterOpWorker::global();
    const bool helped = worker.post(this);
    unsigned polled = 0;
    std::vector<EagerPtr>& in = pooled.in();
    for (;;) {
      int k = take(true);
      if (k < 0) break;
      run_step(k, in, pooled, true);
      if ((++polled & 7u) == 0) poll(true);
    }
    if (helped) worker.retract();
    if (error_) std::rethrow_exception(error_);
  }

  // The worker's part: runs with its own storage pool and the caller's oneDNN team size.
  void work() override {
    PooledRun pooled(p_.worker_pools_, 0);
    InterOpScope nested(false);
    onednn::ThreadCount team(threads_);
    std::vector<EagerPtr>& in = pooled.in();
    for (;;) {
      int k = take(false);
      if (k < 0) break;
      run_step(k, in, pooled, false);
    }
  }

 private:
  // Checks for interrupts (the caller only: Python's signal check); an interrupt stops the run.
  void poll(bool caller) {
    if (!caller) return;
    try {
      poll_interrupt();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_step_ = -1;
      error_ = std::current_exception();
    }
  }

  // The next step this thread may run (waiting while the running steps may still free one), or
  // -1 when the run is over: every step ran, or none before the first failure is left.
  int take(bool caller) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      while (!ready_.empty() && ready_.front() > error_step_) ready_.erase(ready_.begin());
      int pick = choose(caller);
      if (pick >= 0) {
        int k = ready_[pick];
        ready_.erase(ready_.begin() + pick);
        ++in_flight_;
        if (p_.steps_[k].wide) wide_running_ = true;
        return k;
      }
      if (in_flight_ == 0) {
        if (waiting_[!caller]) cv_.notify_all();  // the run is over: the other thread leaves too
        return -1;
      }
      waiting_[caller] = true;
      if (caller) {
        cv_.wait_for(lock, std::chrono::milliseconds(20));
        waiting_[caller] = false;
        lock.unlock();
        poll(true);
        lock.lock();
      } else {
        cv_.wait(lock);
        waiting_[caller] = false;
      }
    }
  }

  // The index in `ready_` of the earliest step this thread may start now, or -1. A wide step (its
  // kernel splits over every core itself) runs alone and on the caller, whose OpenMP team is the
  // warm one; nothing starts beside it.
  int choose(bool caller) const {
    if (wide_running_) return -1;
    for (size_t i = ready_.size(); i-- > 0;) {
      if (!p_.steps_[ready_[i]].wide) return static_cast<int>(i);
      if (caller && in_flight_ == 0) return static_cast<int>(i);
    }
    return -1;
  }

  // Whether the thread `caller` could start a ready step other than ready_[skip].
  int startable(bool caller, int skip) const {
    if (wide_running_) return 0;
    for (size_t i = ready_.size(); i-- > 0;)
      if (static_cast<int>(i) != skip && (!p_.steps_[ready_[i]].wide || (caller && in_flight_ == 0))) return 1;
    return 0;
  }

  void run_step(int k, std::vector<EagerPtr>& in, PooledRun& pooled, bool caller) {
    const Plan::Step& st = p_.steps_[k];
    in.clear();
    for (int s : st.in_slots) in.push_back(slots_[s]);
    // Copied before counted down: the last reader clears the slot once every reader holds its copy.
    for (const auto& r : st.reads)
      if (reads_[r.first].fetch_sub(r.second, std::memory_order_acq_rel) == r.second) slots_[r.first].reset();
    std::exception_ptr err;
    std::vector<EagerPtr> out;
    try {
      out = Plan::run_step_kernel(st, in);
    } catch (...) { err = std::current_exception(); }
    for (EagerPtr& v : in) pooled.recycle(v);
    in.clear();
    for (size_t i = 0; i < out.size(); ++i) slots_[st.out_base + i] = std::move(out[i]);
    finish(k, err, caller);
  }

  void finish(int k, std::exception_ptr err, bool caller) {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
    if (p_.steps_[k].wide) wide_running_ = false;
    if (err) {
      if (k < error_step_) {
        error_step_ = k;
        error_ = err;
      }
    } else {
      for (int u : p_.steps_[k].users)
        if (--pending_[u] == 0) {
          // `ready_` is sorted latest first: the earliest step is at the back.
          auto at = std::lower_bound(ready_.begin(), ready_.end(), u, [](int a, int b) { return a > b; });
          ready_.insert(at, u);
        }
    }
    // Wake the other thread only for work this one leaves it: a thread finishing a step takes
    // the next ready one itself, so a wake per step would cost the run a futex call per step.
    const bool other = !caller;
    if (!waiting_[other]) return;
    const bool over = in_flight_ == 0 && ready_.empty();
    if (over || startable(other, choose(caller)) > 0) cv_.notify_all();
  }

  const Plan& p_;
  std::vector<EagerPtr>& slots_;
  std::vector<int>& pending_;
  std::vector<int>& ready_;
  std::atomic<int>* reads_ = nullptr;
  const int threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_ = 0;
  bool waiting_[2] = {false, false};  // [caller]: that thread sleeps in take()
  bool wide_running_ = false;
  int error_step_ = INT_MAX;
  std::exception_ptr error_;
};

bool Plan::run_parallel(std::vector<EagerPtr>& slots, PooledRun& pooled) const {
  ParallelRun run(*this, slots, pooled.state());
  run.run(pooled);
  return true;
}

}  // namespace fn
