// Optimizer steps as one fused pass per variable. An Adam step writes `m.assign(b1*m + ...)`,
// `v.assign(b2*v + ...)` and then `p.assign_sub(lr * m / (sqrt(v) + eps))`, which reads m and v
// back: three trees, three passes over memory per variable. This pass
// - forwards an assigned value to the reads of the same variable that follow the assignment
//   (store-to-load forwarding): such a read returns exactly the assigned tensor, so its readers
//   read that value instead, and the update of p reads m's and v's new values directly;
// - sinks the AssignVariableOp of a fusable value to just after the tree that reads the value
//   (followed through single-use elementwise readers), so passes/fuse_elementwise.cpp computes
//   the value inside that tree as an extra output (its other reader, the assign, runs after the
//   root). m, v and p are then one multi-output kernel reading g, m, v, p once and writing m,
//   v, p once, with the same instructions in the same operand order: bit-equal.
//
// Observable order is kept. A read is forwarded only when the nearest earlier node using the
// same handle is an AssignVariableOp of it (reads in between see the same value) and the read is
// no control dependency's target. An assign moves only past nodes that do not use its handle
// (forwarded reads are gone) and are stateless or variable reads/writes of other handles; it is
// no control dependency's target. Handles must be graph inputs (captured or passed variables):
// as TF's automatic control dependencies, which order ops per resource handle, distinct handle
// inputs are taken to be distinct variables (tf.function gives an aliased variable one input).
#include <algorithm>

#include "ops/state.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

const std::string kAssign = "AssignVariableOp";

bool uses_handle(const Node& n, const NodeOutput& h) {
  return std::find(n.inputs.begin(), n.inputs.end(), h) != n.inputs.end();
}

bool graph_input_handle(const Graph& g, const NodeOutput& h) {
  const Node& src = g.node(h.node);
  return is_graph_input(src) && src.outputs.at(static_cast<size_t>(h.index)).dtype == DType::Resource;
}

// A variable read or write whose handle is a graph input other than `h` (a stateful node an
// assign of `h` may move past).
bool other_variable_op(const Graph& g, const Node& n, const NodeOutput& h) {
  static const std::string kOps[] = {kReadVariableOp, kAssign, "AssignAddVariableOp", "AssignSubVariableOp"};
  if (std::find(std::begin(kOps), std::end(kOps), n.op) == std::end(kOps) || n.inputs.empty()) return false;
  return !(n.inputs[0] == h) && graph_input_handle(g, n.inputs[0]);
}

// For each ReadVariableOp: the AssignVariableOp whose value it returns, or -1.
std::vector<int> forwarded_reads(const Graph& g, const Readers& readers) {
  const int n = g.num_nodes();
  std::vector<int> from(n, -1);
  for (int a = 0; a < n; ++a) {
    const Node& assign = g.node(a);
    if (assign.op != kAssign || !readers.live[a] || assign.inputs.size() != 2 ||
        !graph_input_handle(g, assign.inputs[0]))
      continue;
    const NodeOutput h = assign.inputs[0];
    const TensorSpec& value = g.node(assign.inputs[1].node).outputs.at(static_cast<size_t>(assign.inputs[1].index));
    for (int r = a + 1; r < n; ++r) {
      const Node& node = g.node(r);
      if (!readers.live[r] || !uses_handle(node, h)) continue;
      if (node.op != kReadVariableOp || node.inputs.size() != 1) break;  // another use: the value may change
      const bool same = node.outputs.size() == 1 && node.outputs[0].dtype == value.dtype &&
                        node.outputs[0].shape == value.shape && node.attrs.has("dtype") &&
                        node.attrs.get<DType>("dtype") == value.dtype;
      // Its control inputs and control readers would be lost with it.
      const bool free = node.control_inputs.empty() && !readers.control_target[r];
      if (same && free) from[r] = a;
    }
  }
  return from;
}

// Where the tree reading a value as node `c` ends (the root fuse_elementwise will likely pick):
// c's elementwise readers of the same shape, followed up through the last of them (a value read
// twice, a slot's new value read by its assign and by the parameter's update, ends its tree
// there only when its other readers run first; moving an assign too far only keeps its value
// alive longer).
int tree_end(const Graph& g, const std::vector<std::vector<int>>& readers_of, int c, const Shape& shape) {
  for (;;) {
    int next = -1;
    for (int r : readers_of[static_cast<size_t>(c)]) {
      const Node& node = g.node(r);
      if (fused_opcode(node) >= 0 && node.outputs.size() == 1 && node.outputs[0].shape == shape)
        next = std::max(next, r);
    }
    if (next < 0) return c;
    c = next;
  }
}

// For each AssignVariableOp to sink: the node before which it goes (-1: stays).
std::vector<int> sink_targets(const Graph& g, const Readers& readers, const std::vector<int>& forwarded) {
  const int n = g.num_nodes();
  std::vector<int> before(n, -1);
  std::vector<std::vector<int>> readers_of(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c)
    if (readers.live[c])
      for (const NodeOutput& in : g.node(c).inputs) readers_of[static_cast<size_t>(in.node)].push_back(c);
  for (int a = 0; a < n; ++a) {
    const Node& assign = g.node(a);
    if (assign.op != kAssign || !readers.live[a] || readers.control_target[a] || assign.inputs.size() != 2 ||
        !graph_input_handle(g, assign.inputs[0]))
      continue;
    const NodeOutput v = assign.inputs[1];
    const Node& producer = g.node(v.node);
    if (fused_opcode(producer) < 0 || producer.outputs.size() != 1 || producer.outputs[0].dtype != DType::Float32)
      continue;
    // The end of every fused tree reading the value, directly or through a forwarded read.
    // (A reader may precede the assign: an earlier run of this pass moved the assign past it.)
    int end = -1;
    for (int c = v.node + 1; c < n; ++c) {
      if (!readers.live[c] || forwarded[c] >= 0 || fused_opcode(g.node(c)) < 0) continue;
      for (const NodeOutput& in : g.node(c).inputs)
        if (in == v || (forwarded[in.node] == a)) {
          end = std::max(end, tree_end(g, readers_of, c, producer.outputs[0].shape));
          break;
        }
    }
    if (end <= a || end + 1 >= n) continue;
    bool ok = true;
    for (int x = a + 1; x <= end && ok; ++x) {
      const Node& node = g.node(x);
      if (!readers.live[x] || forwarded[x] == a) continue;
      ok = !uses_handle(node, assign.inputs[0]) &&
           std::find(node.control_inputs.begin(), node.control_inputs.end(), a) == node.control_inputs.end() &&
           (!node.def || !node.def->stateful || other_variable_op(g, node, assign.inputs[0]));
    }
    if (ok) before[a] = end + 1;
  }
  return before;
}

}  // namespace

std::shared_ptr<Graph> forward_variable_updates_or_null(const Graph& g) {
  bool any = false;
  for (int i = 0; i < g.num_nodes() && !any; ++i) any = g.node(i).op == kAssign;
  if (!any) return nullptr;
  const Readers readers(g);
  const std::vector<int> forwarded = forwarded_reads(g, readers);
  const std::vector<int> before = sink_targets(g, readers, forwarded);
  const bool forwards = std::any_of(forwarded.begin(), forwarded.end(), [](int a) { return a >= 0; });
  const bool sinks = std::any_of(before.begin(), before.end(), [](int k) { return k >= 0; });
  if (!forwards && !sinks) return nullptr;
  // Sunk assigns, copied (inputs remapped) when visited, added before the node they wait for.
  std::vector<std::vector<Node>> pending(static_cast<size_t>(g.num_nodes()));
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    for (Node& a : pending[static_cast<size_t>(i)]) r.target().add_node_named(std::move(a));
    if (forwarded[i] >= 0) {
      const NodeOutput v = g.node(forwarded[i]).inputs[1];
      r.replace_outputs(i, {r.outputs_of(v.node).at(static_cast<size_t>(v.index))});
      return true;
    }
    if (before[i] >= 0) {
      pending[static_cast<size_t>(before[i])].push_back(copy);
      r.replace_outputs(i, {});
      return true;
    }
    return false;
  });
}

}  // namespace fn
