// Shared machinery of graph passes: copy a graph node by node into a new one, letting the
// pass replace a node's outputs by existing outputs (CSE) or by a new node (folding).
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "graph/graph.h"
#include "graph/op_def.h"

namespace fn {

class Rewriter {
 public:
  explicit Rewriter(const Graph& src);
  // Decides what node i of the source becomes. Return true after calling replace_outputs()
  // to drop the node (or without, when only dropped nodes use it: their inputs from it read
  // as node -1); return false to copy it unchanged (with remapped inputs).
  using Visit = std::function<bool(int index, const Node& remapped, Rewriter& rw)>;
  std::shared_ptr<Graph> run(const Visit& visit);
  // The new graph's node outputs that replace node `index`'s outputs.
  void replace_outputs(int index, std::vector<NodeOutput> outs);
  // The new graph's outputs standing for source node `index`'s (an earlier node).
  const std::vector<NodeOutput>& outputs_of(int index) const { return map_[index]; }
  Graph& target() { return *dst_; }

 private:
  const Graph& src_;
  std::shared_ptr<Graph> dst_;
  std::vector<std::vector<NodeOutput>> map_;
};

// Who reads each node's outputs, for fusion passes, counting live readers only (passes leave
// the nodes they replaced behind, still reading; Plan::compile prunes them): how many input
// edges read node i, the last node reading it (the only one when uses == 1), whether it is a
// control dependency, and whether it is pinned (a graph output or a control dependency), so it
// must stay materialised.
struct Readers {
  explicit Readers(const Graph& g);
  std::vector<char> live;  // Graph::live_nodes()
  std::vector<int> uses, consumer;
  std::vector<char> control_target, pinned;
};

// Op facts the fusion passes read from a node's definition (OpDef::fusion): its instruction in a
// fused elementwise program (-1: none) and the trailing reduction it may end one with (0: none).
inline int fused_opcode(const Node& n) { return n.def ? n.def->fusion.opcode : -1; }
inline int fused_reduce(const Node& n) { return n.def ? n.def->fusion.reduce : 0; }
// A Const (its value is its "value" attr) and a fed graph input (Placeholder), by their facts.
inline bool is_constant(const Node& n) { return n.def && n.def->constant; }
inline bool is_graph_input(const Node& n) { return n.def && n.def->graph_input; }
// A Const node's value tensor, or nullptr (not a Const, or no tensor in its "value" attr).
inline const EagerTensor* constant_value(const Node& n) {
  if (!is_constant(n)) return nullptr;
  const AttrValue* v = n.attrs.find("value");
  const EagerPtr* t = v ? std::get_if<EagerPtr>(v) : nullptr;
  return t ? t->get() : nullptr;
}
inline bool is_broadcast_view(const Node& n) { return n.def && n.def->broadcast_view; }

// (div, mod) reading input shape `in` for output shape `out` in a fused program (element e of
// the output reads element (e / div) % mod of the input), or false when `in` does not broadcast
// to `out` as one contiguous run of dims.
bool broadcast_rule(const Shape& in, const Shape& out, int64_t* div, int64_t* mod);

// A node-for-node copy (same indices and names) that a pass may edit.
std::shared_ptr<Graph> copy_graph(const Graph& src);

}  // namespace fn
