// Common-subexpression elimination: a stateless node with the same op, inputs and attrs as an
// earlier one reuses the earlier node's outputs.
#include <unordered_map>

#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {
// rep[i]: the earliest node computing what node i computes (i itself when none), comparing
// inputs through their representatives, so chains of duplicates collapse in one sweep.
bool find_duplicates(const Graph& g, std::vector<int>* rep) {
  const int n = g.num_nodes();
  rep->resize(n);
  std::unordered_multimap<size_t, int> seen;   // hash -> representative node
  seen.reserve(static_cast<size_t>(n));
  bool any = false;
  auto same_inputs = [&](const Node& a, const Node& b) {
    if (a.inputs.size() != b.inputs.size()) return false;
    for (size_t k = 0; k < a.inputs.size(); ++k)
      if ((*rep)[a.inputs[k].node] != (*rep)[b.inputs[k].node] || a.inputs[k].index != b.inputs[k].index)
        return false;
    return true;
  };
  for (int i = 0; i < n; ++i) {
    (*rep)[i] = i;
    const Node& node = g.node(i);
    if (!node.def || node.def->stateful || node.op == "Placeholder") continue;
    size_t h = std::hash<std::string>()(node.op) ^ (node.attrs.hash() * 31);
    for (const NodeOutput& in : node.inputs)
      h = h * 1000003 + static_cast<size_t>((*rep)[in.node] * 7 + in.index);
    auto range = seen.equal_range(h);
    bool found = false;
    for (auto it = range.first; it != range.second && !found; ++it) {
      const Node& prev = g.node(it->second);
      if (prev.op == node.op && same_inputs(prev, node) && prev.attrs == node.attrs) {
        (*rep)[i] = it->second;
        found = any = true;
      }
    }
    if (!found) seen.emplace(h, i);
  }
  return any;
}
}  // namespace

std::shared_ptr<Graph> eliminate_common_subexpressions_or_null(const Graph& g) {
  std::vector<int> rep;
  if (!find_duplicates(g, &rep)) return nullptr;
  Rewriter rw(g);
  return rw.run([&](int i, const Node&, Rewriter& r) {
    if (rep[i] == i) return false;
    r.replace_outputs(i, r.outputs_of(rep[i]));
    return true;
  });
}

std::shared_ptr<Graph> eliminate_common_subexpressions(const Graph& g) {
  auto r = eliminate_common_subexpressions_or_null(g);
  return r ? r : copy_graph(g);
}

}  // namespace fn
