// Gradients through sub-graphs: backpropagation over a traced graph (each op's own gradient
// rule, dispatched in the current context) and If's gradient, an If whose branches are the
// gradient graphs of the forward branches.
#include "core/error.h"
#include "ops/control_flow.h"
#include "ops/op.h"
#include "ops/shape_util.h"

namespace fn {

namespace {

// Gradients flow into floating values, into variables' handles (reads inside a branch pass
// their value's gradient to the handle, as ReadVariableOp's rule does) and into TensorLists
// (a list of the elements' gradients).
bool differentiable(DType d) { return is_floating(d) || d == DType::Resource || d == DType::Variant; }

// Zeros standing for "no gradient" of input `in` in one branch, when the other branch's
// gradient for it is `other` (for a variable handle: zeros like the variable's value).
TensorPtr zero_gradient(const TensorPtr& in, const TensorPtr& other) {
  if (in->dtype() != DType::Resource) return zeros_like(in);
  auto value = dispatch1("ReadVariableOp", {in}, Attrs{{"dtype", other->dtype()}, {"shape", other->shape()}});
  return zeros_like(value);
}

TensorPtr accumulate(const TensorPtr& acc, const TensorPtr& g) {
  if (!acc) return g;
  if (!g) return acc;
  if (acc->dtype() == DType::Variant) return dispatch1("AddN", {acc, g}, Attrs{{"N", int64_t{2}}});
  return dispatch1("AddV2", {acc, g});
}

}  // namespace

std::vector<TensorPtr> graph_gradients(const Graph& g, const std::vector<TensorPtr>& inputs,
                                       const std::vector<TensorPtr>& out_grads,
                                       const std::vector<TensorPtr>& known_outputs, ForwardValues* values) {
  const int n = g.num_nodes();
  std::vector<int> input_nodes = g.arg_placeholders;
  input_nodes.insert(input_nodes.end(), g.capture_placeholders.begin(), g.capture_placeholders.end());
  if (inputs.size() != input_nodes.size() || out_grads.size() != g.outputs.size())
    throw_error(Code::Internal, "graph_gradients: wrong number of inputs or output gradients");
  // Which nodes a gradient can flow through: reachable from an input, reaching a graded output.
  std::vector<char> from_input(n, 0), to_output(n, 0);
  for (int p : input_nodes) from_input[p] = 1;
  for (int i = 0; i < n; ++i)
    for (const NodeOutput& in : g.node(i).inputs)
      if (from_input[in.node]) from_input[i] = 1;
  for (size_t k = 0; k < g.outputs.size(); ++k)
    if (out_grads[k]) to_output[g.outputs[k].node] = 1;
  for (int i = n - 1; i >= 0; --i)
    if (to_output[i])
      for (const NodeOutput& in : g.node(i).inputs) to_output[in.node] = 1;
  std::vector<char> active(n, 0), needed(n, 0);
  for (int i = 0; i < n; ++i) active[i] = from_input[i] && to_output[i];
  std::vector<std::vector<TensorPtr>> value(n);
  for (size_t k = 0; k < input_nodes.size(); ++k) value[input_nodes[k]] = {inputs[k]};
  if (values && values->known.size() == static_cast<size_t>(n))
    for (int i = 0; i < n; ++i)
      if (value[i].empty() && values->known[i].size() == g.node(i).outputs.size()) value[i] = values->known[i];
  for (size_t k = 0; k < known_outputs.size() && k < g.outputs.size(); ++k) {
    const NodeOutput& o = g.outputs[k];
    const TensorPtr& v = known_outputs[k];
    // Only a single-output node that is no input, and a value of its exact dtype.
    if (v && value[o.node].empty() && g.node(o.node).outputs.size() == 1 &&
        v->dtype() == g.node(o.node).outputs[0].dtype)
      value[o.node] = {v};
  }
  // Forward values the gradient rules read: the active nodes, their inputs, and what those
  // depend on up to the known values.
  for (int i = n - 1; i >= 0; --i) {
    if (active[i]) needed[i] = 1;
    if (active[i] || (needed[i] && value[i].empty()))
      for (const NodeOutput& in : g.node(i).inputs) needed[in.node] = 1;
  }
  for (int i = 0; i < n; ++i) {
    if (!needed[i] || !value[i].empty()) continue;
    const Node& node = g.node(i);
    std::vector<TensorPtr> in;
    in.reserve(node.inputs.size());
    for (const NodeOutput& o : node.inputs) in.push_back(value[o.node][o.index]);
    value[i] = dispatch(*node.def, in, node.attrs, node.name);
  }
  if (values) values->forward = value;
  std::vector<std::vector<TensorPtr>> grad(n);
  for (int i = 0; i < n; ++i) grad[i].resize(g.node(i).outputs.size());
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const NodeOutput& o = g.outputs[k];
    if (out_grads[k] && active[o.node]) grad[o.node][o.index] = accumulate(grad[o.node][o.index], out_grads[k]);
  }
  std::vector<char> is_input(n, 0);
  for (int p : input_nodes) is_input[p] = 1;
  for (int i = n - 1; i >= 0; --i) {
    if (!active[i] || is_input[i]) continue;
    const Node& node = g.node(i);
    bool any = false;
    for (auto& t : grad[i]) any = any || t;
    if (!any || !node.def->grad) continue;
    std::vector<TensorPtr> in;
    for (const NodeOutput& o : node.inputs) in.push_back(value[o.node][o.index]);
    GradContext gc{in, value[i], grad[i], node.attrs};
    std::vector<TensorPtr> in_grads = node.def->grad(gc);
    for (size_t k = 0; k < node.inputs.size() && k < in_grads.size(); ++k) {
      const NodeOutput& o = node.inputs[k];
      if (!in_grads[k] || !active[o.node]) continue;
      if (!differentiable(g.node(o.node).outputs[o.index].dtype)) continue;
      grad[o.node][o.index] = accumulate(grad[o.node][o.index], in_grads[k]);
    }
  }
  std::vector<TensorPtr> result;
  result.reserve(input_nodes.size());
  for (int p : input_nodes) result.push_back(differentiable(g.node(p).outputs[0].dtype) ? grad[p][0] : nullptr);
  return result;
}

GradFn if_gradient() {
  return [](const GradContext& gc) -> std::vector<TensorPtr> {
    std::vector<TensorPtr> result(gc.inputs.size());
    bool any = false;
    for (auto& t : gc.out_grads) any = any || t;
    if (!any) return result;
    auto branch_graph = [&](const char* attr) { return gc.attrs.get<std::shared_ptr<Graph>>(attr); };
    std::shared_ptr<Graph> fwd[2] = {branch_graph("then_branch"), branch_graph("else_branch")};
    const char* names[2] = {"cond_true_grad", "cond_false_grad"};
    std::vector<std::unique_ptr<GraphBuilder>> builders;
    std::vector<std::vector<TensorPtr>> ins(2), grads(2);
    for (int b = 0; b < 2; ++b) {
      builders.push_back(std::make_unique<GraphBuilder>(std::make_shared<Graph>(names[b])));
      GraphBuilder& gb = *builders.back();
      ContextScope scope(&gb);
      // The gradient branch takes the forward inputs and the incoming gradients as captures.
      for (size_t k = 1; k < gc.inputs.size(); ++k) {
        NodeOutput o = gb.capture_by_reference(gc.inputs[k], "input");
        ins[b].push_back(gb.symbolic(o.node, o.index));
      }
      std::vector<TensorPtr> og(gc.out_grads.size());
      for (size_t k = 0; k < og.size(); ++k) {
        if (!gc.out_grads[k]) continue;
        NodeOutput o = gb.capture_by_reference(gc.out_grads[k], "grad");
        og[k] = gb.symbolic(o.node, o.index);
      }
      grads[b] = graph_gradients(*fwd[b], ins[b], og);
    }
    std::vector<size_t> flowing;
    for (size_t k = 0; k < grads[0].size(); ++k)
      if (grads[0][k] || grads[1][k]) flowing.push_back(k);
    if (flowing.empty()) return result;
    for (int b = 0; b < 2; ++b) {
      GraphBuilder& gb = *builders[b];
      ContextScope scope(&gb);
      std::vector<NodeOutput> outs;
      for (size_t k : flowing) {
        TensorPtr t = grads[b][k] ? grads[b][k] : zero_gradient(ins[b][k], grads[1 - b][k]);
        if (t->graph_id != gb.graph()->id()) t = dispatch1("Identity", {t});
        outs.push_back(NodeOutput{t->node, t->index});
      }
      gb.graph()->outputs = outs;
    }
    std::vector<TensorPtr> out = build_if(gc.inputs[0], *builders[0], *builders[1], "gradients/cond_grad");
    for (size_t j = 0; j < flowing.size(); ++j) result[flowing[j] + 1] = out[j];
    return result;
  };
}

}  // namespace fn
