// CustomGradient nodes (fn.custom_gradient's IdentityN, ops/host.cpp) pass their first
// `num_outputs` inputs through; the other inputs (the decorated function's arguments) are there
// for the gradient alone, and gradients are taken of the traced graph, never of this execution
// copy. Their readers read the passed-through inputs directly, so an argument's lifetime ends at
// its last real use: an all-reduce wrapped by ReplicaContext.all_reduce's custom gradient then
// holds its input's last reference and reduces it in place (ops/forward.h), and fusion sees
// through the node. A node that is a control dependency stays (its ordering is kept).
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {
const std::string kCustomGradientOp = "CustomGradient";
}  // namespace

std::shared_ptr<Graph> bypass_custom_gradients_or_null(const Graph& g) {
  std::vector<char> bypass(static_cast<size_t>(g.num_nodes()), 0);
  bool any = false;
  for (int i = 0; i < g.num_nodes() && !any; ++i) any = g.node(i).op == kCustomGradientOp;
  if (!any) return nullptr;
  any = false;
  const Readers readers(g);
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    int64_t k = n.attrs.get_or<int64_t>("num_outputs", -1);
    if (n.op != kCustomGradientOp || !readers.live[i] || readers.control_target[i] || k < 0 ||
        k > static_cast<int64_t>(n.inputs.size()) || k != static_cast<int64_t>(n.outputs.size()))
      continue;
    bypass[static_cast<size_t>(i)] = 1;
    any = true;
  }
  if (!any) return nullptr;
  Rewriter rw(g);
  return rw.run([&](int i, const Node& n, Rewriter& r) {
    if (!bypass[static_cast<size_t>(i)]) return false;
    r.replace_outputs(
        i, std::vector<NodeOutput>(n.inputs.begin(), n.inputs.begin() + static_cast<long>(n.outputs.size())));
    return true;
  });
}

}  // namespace fn
