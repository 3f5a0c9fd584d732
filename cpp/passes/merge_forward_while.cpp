// A While gradient runs the forward loop again with accumulators (ops/while_grad.cpp) and
// names the loop it repeats (attr `_forward_while`). When that forward loop has no side effect
// but variable reads, the accumulating loop takes its place: it moves to the forward loop's
// position (with the few constants its extra inputs need) and the forward loop's readers read
// its outputs, so a training step runs the forward loop once, as TF's rewritten While does.
#include <algorithm>

#include "ops/op.h"
#include "ops/state.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool is_while(const Node& n) { return n.def && n.def->control_flow == ControlFlow::Loop; }

// Side effects a replay may repeat or drop: reading a variable.
bool only_reads(const Graph& g) {
  for (int s : g.stateful_nodes)
    if (g.node(s).op != kReadVariableOp) return false;
  return true;
}

// The forward loop of accumulating loop `a`, or -1 when it cannot be merged.
int forward_of(const Graph& g, int a) {
  const Node& acc = g.node(a);
  const AttrValue* v = acc.attrs.find("_forward_while");
  const int64_t* wi = v ? std::get_if<int64_t>(v) : nullptr;
  if (!is_while(acc) || !wi || *wi < 0 || *wi >= a) return -1;
  const int w = static_cast<int>(*wi);
  const Node& fw = g.node(w);
  if (!is_while(fw)) return -1;
  // The accumulating loop's vars: iteration, the forward vars, their stacks, `s` stacks of
  // intermediates (ops/while_grad.cpp); then the forward loop's captures.
  const size_t n = fw.outputs.size();
  const int64_t s = acc.attrs.get_or<int64_t>("_forward_intermediates", 0);
  if (s < 0 || fw.inputs.size() < n || acc.outputs.size() != 1 + 2 * n + static_cast<size_t>(s)) return -1;
  const size_t m = fw.inputs.size() - n, vars = 1 + 2 * n + static_cast<size_t>(s);
  if (acc.inputs.size() != vars + m) return -1;
  for (size_t k = 0; k < n; ++k)
    if (!(acc.inputs[1 + k] == fw.inputs[k])) return -1;
  for (size_t j = 0; j < m; ++j)
    if (!(acc.inputs[vars + j] == fw.inputs[n + j])) return -1;
  if (acc.attrs.get_or<int64_t>("maximum_iterations", -1) != fw.attrs.get_or<int64_t>("maximum_iterations", -1))
    return -1;
  auto cond = fw.attrs.get<std::shared_ptr<Graph>>("cond");
  auto body = fw.attrs.get<std::shared_ptr<Graph>>("body");
  if (!cond || !body || !only_reads(*cond) || !only_reads(*body)) return -1;
  // The index is the traced graph's; the body's id makes sure it still names that loop.
  if (acc.attrs.get_or<int64_t>("_forward_body", -1) != static_cast<int64_t>(body->id())) return -1;
  return w;
}

// One merge of loop `a` into its forward loop `w`'s place, or nullptr when it cannot be done.
std::shared_ptr<Graph> merge(const Graph& g, int a, int w) {
  const int num = g.num_nodes();
  // What `a` needs that comes after `w`: pure nodes only (constants, empty lists).
  std::vector<char> moved(num, 0);
  std::vector<int> work;
  for (const NodeOutput& in : g.node(a).inputs) work.push_back(in.node);
  for (int c : g.node(a).control_inputs) work.push_back(c);
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    if (i < w || moved[i]) continue;
    const Node& node = g.node(i);
    if (i == w || !node.def || node.def->stateful || node.def->graph_input) return nullptr;
    moved[i] = 1;
    for (const NodeOutput& in : node.inputs) work.push_back(in.node);
    for (int c : node.control_inputs) work.push_back(c);
  }
  auto dst = std::make_shared<Graph>(g.name());
  std::vector<std::vector<NodeOutput>> out_map(num);
  std::vector<int> node_map(num, -1);
  auto emit = [&](int i) {
    Node copy = g.node(i);
    for (NodeOutput& in : copy.inputs) in = out_map[in.node].at(in.index);
    copy.control_inputs.clear();
    for (int c : g.node(i).control_inputs)
      if (node_map[c] >= 0) copy.control_inputs.push_back(node_map[c]);
    if (i == a) copy.attrs.set("_forward_while", int64_t{-1});
    int idx = dst->add_node(std::move(copy));
    dst->mutable_node(idx).name = g.node(i).name;
    node_map[i] = idx;
    for (size_t k = 0; k < g.node(i).outputs.size(); ++k) out_map[i].push_back(NodeOutput{idx, static_cast<int>(k)});
  };
  for (int i = 0; i < num; ++i) {
    if (i == w) {
      for (int d = w + 1; d < a; ++d)
        if (moved[d]) emit(d);
      emit(a);
      node_map[w] = node_map[a];
      for (size_t k = 0; k < g.node(w).outputs.size(); ++k)
        out_map[w].push_back(NodeOutput{node_map[a], static_cast<int>(1 + k)});
    } else if (!moved[i] && i != a) {
      emit(i);
    }
  }
  for (int p : g.arg_placeholders) dst->arg_placeholders.push_back(node_map[p]);
  for (int p : g.capture_placeholders) dst->capture_placeholders.push_back(node_map[p]);
  for (const NodeOutput& o : g.outputs) dst->outputs.push_back(out_map[o.node].at(o.index));
  std::vector<int> stateful;
  for (int s : g.stateful_nodes)
    if (s != w) stateful.push_back(node_map[s]);
  std::sort(stateful.begin(), stateful.end());
  stateful.erase(std::unique(stateful.begin(), stateful.end()), stateful.end());
  dst->stateful_nodes = std::move(stateful);
  return dst;
}

}  // namespace

std::shared_ptr<Graph> merge_forward_while(const Graph& g) {
  std::shared_ptr<Graph> cur;
  for (bool again = true; again;) {
    again = false;
    const Graph& src = cur ? *cur : g;
    for (int a = 0; a < src.num_nodes(); ++a) {
      int w = forward_of(src, a);
      if (w < 0) continue;
      if (auto merged = merge(src, a, w)) {
        cur = merged;
        again = true;
        break;
      }
    }
  }
  return cur ? cur : copy_graph(g);  // unchanged: a plain copy
}

}  // namespace fn
