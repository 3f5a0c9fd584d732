#include "exec/plan.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "exec/control_flow.h"
#include "exec/inter_op.h"
#include "exec/plan_profile.h"
#include "ops/tensor_list.h"
#include "trace/context.h"

namespace fn {

namespace {
// A node calls back into the host if its op does or a sub-graph (If/While branch) has one that does.
bool node_needs_host(const Node& node) {
  if (node.def->needs_host) return true;
  for (auto& kv : node.attrs.items())
    if (auto* sub = std::get_if<std::shared_ptr<Graph>>(&kv.second))
      if (*sub)
        for (const Node& n : (*sub)->nodes())
          if (node_needs_host(n)) return true;
  return false;
}
Collective collective(const Node& n) { return n.def ? n.def->collective : Collective::None; }
// The order the steps run in: program order, unless the graph has split collectives (starts and
// dones by their op's Collective fact: CollectiveAllReduceStart/Done, the gradient buckets of a multi-worker strategy). Then a list
// schedule overlaps communication with computation: among the steps ready to run, a start goes
// first (as soon as its bucket is ready; the transport reduces it on its own thread), then those a
// start depends on (the backprop producing the buckets), then the rest, and a done as late as
// possible (just before what reads its result). Stateful nodes keep their program order (each waits for the
// previous one), so every worker issues its collectives in the same order; the schedule depends
// on the graph alone, so it is the same on every worker.
std::vector<int> step_order(const Graph& g, const std::vector<char>& live) {
  int n = g.num_nodes();
  std::vector<int> order;
  bool split = false;
  for (int i = 0; i < n && !split; ++i) split = live[i] && collective(g.node(i)) == Collective::Start;
  if (!split) {
    for (int i = 0; i < n; ++i) order.push_back(i);
    return order;
  }
  std::vector<std::vector<int>> users(n), preds(n);
  std::vector<int> waiting(n, 0);
  auto edge = [&](int from, int to) {
    users[from].push_back(to);
    preds[to].push_back(from);
    ++waiting[to];
  };
  std::vector<char> stateful(n, 0);
  for (int i : g.stateful_nodes) stateful[i] = 1;
  int previous_stateful = -1;
  for (int i = 0; i < n; ++i) {
    if (!live[i]) continue;
    const Node& node = g.node(i);
    for (const NodeOutput& in : node.inputs) edge(in.node, i);
    for (int c : node.control_inputs) edge(c, i);
    if (stateful[i]) {
      if (previous_stateful >= 0) edge(previous_stateful, i);
      previous_stateful = i;
    }
  }
  // 0: a start (at once when ready); 1: feeds a start; 2: the rest; 3: a done (late).
  std::vector<int> rank(n, 2);
  std::vector<int> work;
  for (int i = 0; i < n; ++i)
    if (live[i] && collective(g.node(i)) == Collective::Start) work.push_back(i);
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    if (rank[i] == 1) continue;
    rank[i] = 1;
    for (int p : preds[i]) work.push_back(p);
  }
  for (int i = 0; i < n; ++i) {
    if (!live[i]) continue;
    if (collective(g.node(i)) == Collective::Start) rank[i] = 0;
    if (collective(g.node(i)) == Collective::Done) rank[i] = 3;
  }
  std::set<std::pair<int, int>> ready;
  for (int i = 0; i < n; ++i)
    if (live[i] && waiting[i] == 0) ready.insert({rank[i], i});
  while (!ready.empty()) {
    int i = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(i);
    for (int u : users[i])
      if (--waiting[u] == 0) ready.insert({rank[u], u});
  }
  if (static_cast<int>(order.size()) != static_cast<int>(std::count(live.begin(), live.end(), 1)))
    throw_error(Code::Internal, "step_order: the graph's dependencies form a cycle");
  return order;
}
}  // namespace

std::shared_ptr<const Plan> Plan::compile(std::shared_ptr<const Graph> graph) {
  graph->verify();
  auto plan = std::make_shared<Plan>();
  const Graph& g = *graph;
  int n = g.num_nodes();
  // Liveness: everything reachable backwards from the outputs and the stateful nodes.
  const std::vector<char> live = g.live_nodes();
  std::vector<int> base(n, -1);
  int slots = 0;
  for (int i = 0; i < n; ++i) {
    base[i] = slots;
    slots += static_cast<int>(g.node(i).outputs.size());
  }
  plan->num_slots_ = slots;
  std::vector<char> is_input(n, 0);
  for (int p : g.arg_placeholders) {
    plan->input_slots_.push_back(base[p]);
    is_input[p] = 1;
  }
  for (int p : g.capture_placeholders) {
    plan->input_slots_.push_back(base[p]);
    is_input[p] = 1;
  }
  for (const NodeOutput& o : g.outputs) plan->output_slots_.push_back(base[o.node] + o.index);
  std::vector<int> last_use(slots, -1);
  std::vector<int> step_node;  // per step: its node
  for (int i : step_order(g, live)) {
    if (!live[i] || is_input[i]) continue;
    const Node& node = g.node(i);
    if (node.def && node.def->constant) {  // no kernel call: the value goes straight into its slot
      plan->consts_.emplace_back(base[i], node.attrs.get<EagerPtr>("value"));
      continue;
    }
    Step st{node.def, &node, {}, {}, base[i], {}, {}, {}, 0, false};
    for (const NodeOutput& in : node.inputs) {
      int s = base[in.node] + in.index;
      st.in_slots.push_back(s);
      last_use[s] = static_cast<int>(plan->steps_.size());
    }
    if (node_needs_host(node)) plan->needs_host_ = true;
    plan->max_inputs_ = std::max(plan->max_inputs_, st.in_slots.size());
    plan->steps_.push_back(std::move(st));
    step_node.push_back(i);
  }
  for (int s : plan->output_slots_) last_use[s] = -2;  // outputs are never released
  // Inputs no step or output reads are not loaded (a function of 100 arguments using 2).
  for (int s : plan->input_slots_) plan->input_used_.push_back(last_use[s] != -1);
  for (int s = 0; s < slots; ++s)
    if (last_use[s] >= 0) plan->steps_[last_use[s]].release.push_back(s);
  // A value whose last use is a step moves into that step's inputs (one reference fewer to
  // count, and kernels may see they hold the only reference), unless the step reads it twice.
  for (size_t k = 0; k < plan->steps_.size(); ++k) {
    Step& st = plan->steps_[k];
    st.move_in.assign(st.in_slots.size(), 0);
    std::unordered_map<int, int> times;  // a wide step (a fused node's 10,000 inputs): counted once
    if (st.in_slots.size() > 16)
      for (int s : st.in_slots) ++times[s];
    for (size_t j = 0; j < st.in_slots.size(); ++j) {
      int s = st.in_slots[j];
      if (last_use[s] != static_cast<int>(k)) continue;
      auto n = times.empty() ? std::count(st.in_slots.begin(), st.in_slots.end(), s) : times[s];
      if (n == 1) st.move_in[j] = 1;
    }
  }
  plan->plan_placements();
  plan->compile_parallel(g, step_node);
  plan->graph_ = std::move(graph);
  return plan;
}

std::vector<EagerPtr> Plan::run(const std::vector<EagerPtr>& inputs) const { return run(inputs.data(), inputs.size()); }

std::vector<EagerPtr> Plan::run(const EagerPtr* inputs, size_t count) const {
  return run_consuming(const_cast<EagerPtr*>(inputs), count, 0);  // moves nothing
}

namespace {
// An op the graph accepts but no kernel runs for its dtype: eagerly TF's NotFoundError ("Could
// not find device for node: {{node Op}} = Op[T=DT_HALF]"), in a graph the InvalidArgumentError
// of TF's kernel lookup when the function is instantiated.
void no_kernel_in_graph(const Error& e, const std::string& op, const std::string& node) {
  static const std::string head = "Could not find device for node: ";
  std::string msg = e.what();
  if (e.code() != Code::NotFound || msg.rfind(head, 0) != 0) return;
  std::string attrs;
  size_t open = msg.find(" = " + op + "[");
  if (open != std::string::npos) {
    size_t start = open + 4 + op.size(), close = msg.find(']', start);
    if (close != std::string::npos) attrs = msg.substr(start, close - start);
  }
  throw_error(Code::InvalidArgument, "No OpKernel was registered to support Op '", op, "' used by {{node ", node,
              "}} with these attrs: [", attrs, "]\nRegistered devices: [CPU]\n\t [[{{node ", node, "}}]]");
}
}  // namespace

std::vector<EagerPtr> Plan::run_step_kernel(const Step& st, const std::vector<EagerPtr>& in) {
  try {
    return run_kernel(*st.def, in, st.node->attrs, st.node->name);
  } catch (const Error& e) {
    no_kernel_in_graph(e, st.node->op, st.node->name);
    const std::string msg = e.what();
    throw Error(e.code(), tag_node_error(msg, *st.node), node_error_stack(msg, e.node_stack(), *st.node));
  }
}

void Plan::plan_placements() {
  std::vector<int> reads(num_slots_, 0), producer(num_slots_, -1);
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& st = steps_[k];
    for (int s : st.in_slots) ++reads[s];
    for (size_t o = 0; o < st.node->outputs.size(); ++o) producer[st.out_base + o] = static_cast<int>(k);
  }
  for (int s : output_slots_) ++reads[s];  // returned: seen by the caller
  for (const Step& st : steps_) {
    if (st.node->op != "TensorListSetItem" || st.in_slots.size() != 3 || !st.move_in[0] || !st.move_in[2]) continue;
    // The SetItem alone reads the handle, so nothing between the producer and it can take a
    // second reference to the list (which would make the SetItem copy the list and leave the
    // item in a row of a list someone else may write). Other readers of the item may run before
    // or after: the row is written once, and no kernel writes over an input it does not hold
    // alone (the slot or the list holds the item too).
    const int item = st.in_slots[2], p = producer[item];
    if (p < 0 || reads[st.in_slots[0]] != 1 || steps_[p].node->outputs.size() != 1) continue;
    steps_[p].place_list = st.in_slots[0];
    steps_[p].place_index = st.in_slots[1];
  }
}

std::vector<EagerPtr> Plan::run_placed(const Step& st, const std::vector<EagerPtr>& slots,
                                       const std::vector<EagerPtr>& in) {
  OutputPlacement p;
  const EagerPtr& list = slots[st.place_list];
  if (!arena_row_placement(list, slots[st.place_index], st.node->outputs[0], p)) return run_step_kernel(st, in);
  std::vector<EagerPtr> out;
  {
    PlacementScope scope(&p);
    out = run_step_kernel(st, in);
  }
  settle_arena_placement(list, p, out.empty() ? nullptr : out[0]);
  return out;
}

std::vector<EagerPtr> Plan::run_consuming(EagerPtr* inputs, size_t count, size_t n_move) const {
  std::vector<EagerPtr> result;
  run_into(inputs, count, n_move, result);
  return result;
}

void Plan::run_into(EagerPtr* inputs, size_t count, size_t n_move, std::vector<EagerPtr>& result) const {
  if (count != input_slots_.size())
    throw_error(Code::InvalidArgument, "expected ", input_slots_.size(), " inputs, got ", count);
  PooledRun pooled(pools_, num_slots_);  // slots and pool reused from the previous run
  std::vector<EagerPtr>& slots = pooled.slots();
  for (size_t i = 0; i < count; ++i) {
    if (!input_used_[i]) continue;
    if (i < n_move)
      slots[input_slots_[i]] = std::move(inputs[i]);
    else
      slots[input_slots_[i]] = inputs[i];
  }
  for (const auto& c : consts_) slots[c.first] = c.second;
  // Profiling times each step alone: the steps run in order on this thread.
  const bool profiling = plan_profile::enabled();
  if (parallel_ && !profiling && inter_op_allowed() && run_parallel(slots, pooled)) {
    result.clear();
    result.reserve(output_slots_.size());
    for (int s : output_slots_) result.push_back(slots[s]);
    return;
  }
  std::vector<EagerPtr>& in = pooled.in();
  in.reserve(max_inputs_);
  unsigned polled = 0;
  for (const Step& st : steps_) {
    // Interrupts every 8 steps (control_flow.h); loops poll per iteration themselves.
    if ((++polled & 7u) == 0) poll_interrupt();
    in.clear();
    for (size_t j = 0; j < st.in_slots.size(); ++j) {
      EagerPtr& v = slots[st.in_slots[j]];
      if (st.move_in[j])
        in.push_back(std::move(v));
      else
        in.push_back(v);
    }
    const auto start = profiling ? plan_profile::Clock::now() : plan_profile::Clock::time_point{};
    std::vector<EagerPtr> out = st.place_list >= 0 ? run_placed(st, slots, in) : run_step_kernel(st, in);
    if (profiling) plan_profile::record(st.node->op, st.node->name, out, start);
    // Inputs handed over and not reused in place by the kernel, and slots past their last use:
    // their storage goes to the run's pool for the next outputs.
    for (size_t j = 0; j < in.size(); ++j)
      if (st.move_in[j]) pooled.recycle(in[j]);
    for (size_t k = 0; k < out.size(); ++k) slots[st.out_base + k] = std::move(out[k]);
    for (int s : st.release) pooled.recycle(slots[s]);
  }
  result.clear();
  result.reserve(output_slots_.size());
  for (int s : output_slots_) result.push_back(slots[s]);
}

}  // namespace fn
