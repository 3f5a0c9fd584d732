// Common-subexpression elimination: a stateless node with the same op, inputs and attrs as an
// earlier one reuses the earlier node's outputs.
#include <unordered_map>

#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

std::shared_ptr<Graph> eliminate_common_subexpressions(const Graph& g) {
  Rewriter rw(g);
  std::unordered_multimap<size_t, int> seen;   // hash -> node index in the new graph
  return rw.run([&](int i, const Node& n, Rewriter& r) {
    if (!n.def || n.def->stateful || n.op == "Placeholder") return false;
    size_t h = std::hash<std::string>()(n.op) ^ (n.attrs.hash() * 31);
    for (const NodeOutput& in : n.inputs) h = h * 1000003 + static_cast<size_t>(in.node * 7 + in.index);
    auto range = seen.equal_range(h);
    for (auto it = range.first; it != range.second; ++it) {
      const Node& prev = r.target().node(it->second);
      if (prev.op == n.op && prev.inputs == n.inputs && prev.attrs == n.attrs) {
        std::vector<NodeOutput> outs;
        for (size_t k = 0; k < prev.outputs.size(); ++k) outs.push_back(NodeOutput{it->second, static_cast<int>(k)});
        r.replace_outputs(i, std::move(outs));
        return true;
      }
    }
    seen.emplace(h, r.target().num_nodes());   // index the copy will get
    return false;
  });
}

}  // namespace fn
