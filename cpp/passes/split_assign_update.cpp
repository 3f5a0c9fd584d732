// AssignSubVariableOp(h, d) / AssignAddVariableOp(h, d), where `d` is a float32 elementwise
// result, becomes ReadVariableOp(h) -> Sub/AddV2(read, d) -> AssignVariableOp(h)
// at the same place in the stateful order. The update's arithmetic then joins d's fused tree
// (passes/fuse_elementwise.cpp): an optimizer step `p.assign_sub(lr * m / (sqrt(v) + eps))` or
// `p.assign_sub(lr * g)` is one fused kernel per variable instead of a tree plus the update
// kernel's own Sub pass over the variable (ops/state.cpp). Same functor, same operand order:
// the variable's new value is bit-equal. A `d` read elsewhere too (a momentum slot's new value,
// `p.assign_add(m)` after passes/fuse_updates.cpp forwarded m's assignment) is computed in the
// update's tree and written as its extra output, or the Sub is a tree of its own: one pass either
// way, as the update op's.
//
// Only where the result cannot differ from the update op's: the variable's shape is known from
// a ReadVariableOp of the same handle (a variable's shape never changes) and equals d's fully
// defined shape, so the Sub never broadcasts (the update op refuses to), and the dtypes agree
// (else the update op's own error is kept). An update that is a control dependency's target
// stays as it is (its replacement would not inherit the edge).
#include <algorithm>

#include "ops/state.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

const std::string kAssignAdd = "AssignAddVariableOp";
const std::string kAssignSub = "AssignSubVariableOp";
const std::string kAssign = "AssignVariableOp";

// Nodes to split, by index (0: keep).
std::vector<char> splittable(const Graph& g, const Readers& readers) {
  std::vector<char> split(static_cast<size_t>(g.num_nodes()), 0);
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    if ((n.op != kAssignAdd && n.op != kAssignSub) || !readers.live[i] || readers.control_target[i] ||
        n.inputs.size() != 2)
      continue;
    const NodeOutput d = n.inputs[1];
    const Node& producer = g.node(d.node);
    const TensorSpec& spec = producer.outputs.at(static_cast<size_t>(d.index));
    if (spec.dtype != DType::Float32 || !spec.shape.is_fully_defined() || fused_opcode(producer) < 0 ||
        readers.pinned[d.node])
      continue;
    // The variable's shape and dtype, from a read of the same handle.
    bool known = false;
    for (int r = 0; r < g.num_nodes() && !known; ++r) {
      const Node& read = g.node(r);
      known = read.op == kReadVariableOp && !read.inputs.empty() && read.inputs[0] == n.inputs[0] &&
              read.attrs.has("dtype") && read.attrs.get<DType>("dtype") == DType::Float32 &&
              read.attrs.get_or<Shape>("shape", Shape::unknown_rank()) == spec.shape;
    }
    split[static_cast<size_t>(i)] = known;
  }
  return split;
}

}  // namespace

std::shared_ptr<Graph> split_assign_updates_or_null(const Graph& g) {
  bool any = false;
  for (int i = 0; i < g.num_nodes() && !any; ++i) any = g.node(i).op == kAssignAdd || g.node(i).op == kAssignSub;
  if (!any) return nullptr;
  const Readers readers(g);
  const std::vector<char> split = splittable(g, readers);
  if (std::find(split.begin(), split.end(), 1) == split.end()) return nullptr;
  const OpRegistry& reg = OpRegistry::global();
  Rewriter rw(g);
  return rw.run([&](int i, const Node& n, Rewriter& r) {
    if (!split[static_cast<size_t>(i)]) return false;
    Graph& dst = r.target();
    const TensorSpec spec = g.node(g.node(i).inputs[1].node).outputs.at(static_cast<size_t>(n.inputs[1].index));
    // Added in order, so the stateful chain (read, then assign) sits where the update was.
    Node read;
    read.op = kReadVariableOp;
    read.def = &reg.get(kReadVariableOp);
    read.name = n.name + "/read";
    read.inputs = {n.inputs[0]};
    read.control_inputs = n.control_inputs;
    read.attrs.set("dtype", spec.dtype);
    read.attrs.set("shape", spec.shape);
    read.outputs = {spec};
    read.defined_at = n.defined_at;
    const int read_idx = dst.add_node(std::move(read));
    Node math;
    math.op = n.op == kAssignSub ? "Sub" : "AddV2";
    math.def = &reg.get(math.op);
    math.name = n.name + "/update";
    math.inputs = {NodeOutput{read_idx, 0}, n.inputs[1]};
    math.outputs = {spec};
    math.defined_at = n.defined_at;
    const int math_idx = dst.add_node(std::move(math));
    Node assign;
    assign.op = kAssign;
    assign.def = &reg.get(kAssign);
    assign.name = n.name;
    assign.inputs = {n.inputs[0], NodeOutput{math_idx, 0}};
    assign.control_inputs = n.control_inputs;
    assign.attrs = n.attrs;
    assign.defined_at = n.defined_at;
    dst.add_node(std::move(assign));
    r.replace_outputs(i, {});
    return true;
  });
}

}  // namespace fn
