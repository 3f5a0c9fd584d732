// If / While kernels: run the sub-graphs' compiled plans, no host language per iteration.
#include "exec/control_flow.h"

#include <atomic>
#include <chrono>
#include <mutex>

#include "core/error.h"
#include "exec/plan.h"
#include "ops/control_flow.h"
#include "passes/passes.h"

namespace fn {

namespace {

std::atomic<void (*)()> g_interrupt_check{nullptr};

// Polls for interrupts at most every 20 ms of loop time (a clock read per iteration).
struct InterruptPoll {
  std::chrono::steady_clock::time_point next = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  void operator()() {
    auto now = std::chrono::steady_clock::now();
    if (now < next) return;
    next = now + std::chrono::milliseconds(20);
    if (auto check = g_interrupt_check.load(std::memory_order_relaxed)) check();
  }
};

}  // namespace

void poll_interrupt() {
  thread_local InterruptPoll poll;
  poll();
}

namespace {

// The compiled plan of sub-graph `attr`, cached in the node's SubgraphCache slot `slot`.
std::shared_ptr<const Plan> subplan(const Attrs& attrs, const char* attr, size_t slot) {
  const auto& graph = attrs.get<std::shared_ptr<Graph>>(attr);
  const AttrValue* c = attrs.find("_compiled");
  auto* host = c ? std::get_if<std::shared_ptr<HostObject>>(c) : nullptr;
  auto* cache = host ? dynamic_cast<SubgraphCache*>(host->get()) : nullptr;
  // Sub-graphs get the same passes as a function's graph (constant folding, CSE).
  if (!cache) return Plan::compile(optimize(*graph));  // a node built without a cache
  std::lock_guard<std::mutex> lock(cache->mu);
  if (cache->compiled.size() <= slot) cache->compiled.resize(slot + 1);
  if (!cache->compiled[slot]) cache->compiled[slot] = Plan::compile(optimize(*graph));
  return std::static_pointer_cast<const Plan>(cache->compiled[slot]);
}

bool truthy(const EagerTensor& t, const char* what) {
  if (t.shape().rank() != 0)
    throw_error(Code::InvalidArgument, "The ", what, " must be a scalar, but it has shape ", t.shape().to_string());
  if (t.dtype() == DType::Bool) return t.data<bool>()[0];
  if (t.dtype() == DType::String) return !t.strings()[0].empty();
  if (!is_pod(t.dtype()))
    throw_error(Code::InvalidArgument, "The ", what, " must be a bool scalar, got ", dtype_name(t.dtype()));
  return t.scalar_as_double() != 0.0;
}

std::vector<EagerPtr> if_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  bool take = truthy(*in.at(0), "predicate of a cond");
  auto plan = take ? subplan(k.attrs, "then_branch", 0) : subplan(k.attrs, "else_branch", 1);
  return plan->run(in.data() + 1, in.size() - 1);
}

std::vector<EagerPtr> while_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  auto cond = subplan(k.attrs, "cond", 0);
  auto body = subplan(k.attrs, "body", 1);
  const size_t n = body->graph().arg_placeholders.size();
  const int64_t max_iter = k.attrs.get_or<int64_t>("maximum_iterations", -1);
  // Loop vars, then captures, taken over from the step's input list (the plan's or a dispatch's
  // own vector, dropped after the call): a value the plan handed over is then held by the loop
  // alone from the first iteration on, so a TensorList it carries is written in place.
  std::vector<EagerPtr> state;
  state.reserve(in.size());
  for (const EagerPtr& v : in) state.push_back(std::move(const_cast<EagerPtr&>(v)));
  InterruptPoll poll;
  // The cond's and the body's result vectors are reused across iterations (no allocation).
  std::vector<EagerPtr> c, next;
  for (int64_t it = 0; max_iter < 0 || it < max_iter; ++it) {
    poll();
    cond->run_into(state.data(), state.size(), 0, c);
    if (!truthy(*c.at(0), "condition of a while loop")) break;
    c.clear();  // the flag's storage is free for the body's run
    // The body takes the loop vars over, so a value only the loop holds (a TensorList) can be
    // updated in place instead of copied every iteration.
    body->run_into(state.data(), state.size(), n, next);
    for (size_t i = 0; i < n; ++i) state[i] = std::move(next[i]);
  }
  state.resize(n);
  return state;
}

}  // namespace

void set_interrupt_check(void (*check)()) { g_interrupt_check.store(check); }

void add_control_flow_kernels(OpRegistry& r) {
  r.set_kernel("If", if_kernel);
  r.set_kernel("StatelessIf", if_kernel);
  r.set_kernel("While", while_kernel);
  r.set_kernel("StatelessWhile", while_kernel);
}

}  // namespace fn
