#include "function/concrete.h"

#include "core/error.h"
#include "ops/helpers.h"
#include "ops/state.h"
#include "passes/passes.h"
#include "trace/tape.h"

namespace fn {

ConcreteFunction::ConcreteFunction(std::shared_ptr<Graph> graph, std::vector<TensorPtr> captures)
    : graph_(std::move(graph)), captures_(std::move(captures)) {
  weak_captures_.resize(captures_.size());
  for (size_t i = 0; i < captures_.size(); ++i) {
    if (captures_[i]->dtype() == DType::Resource) {
      weak_captures_[i] = captures_[i];
      captures_[i] = nullptr;
    }
  }
}

std::vector<TensorPtr> ConcreteFunction::captures() const {
  std::vector<TensorPtr> out(captures_.size());
  for (size_t i = 0; i < captures_.size(); ++i) {
    out[i] = captures_[i] ? captures_[i] : weak_captures_[i].lock();
    if (!out[i])
      throw_error(Code::FailedPrecondition, "Could not find variable captured by ", name,
                  ". This could mean that the variable has been deleted. In TF1, it can also mean the "
                  "variable is uninitialized.");
  }
  return out;
}

std::shared_ptr<const Plan> ConcreteFunction::plan() const {
  std::call_once(compiled_, [this] { plan_ = Plan::compile(optimize(*graph_)); });
  return plan_;
}

namespace {

// The dims either shape knows (they describe the same value; `a` wins where both know a dim).
Shape most_specific(const Shape& a, const Shape& b) {
  if (!a.has_rank()) return b;
  if (!b.has_rank() || a.rank() != b.rank()) return a;
  std::vector<int64_t> dims = a.dims();
  for (int i = 0; i < a.rank(); ++i)
    if (dims[i] < 0) dims[i] = b[i];
  return Shape(dims);
}

}  // namespace

std::vector<TensorPtr> ConcreteFunction::inline_into(GraphBuilder* b, const std::vector<TensorPtr>& args,
                                                     const std::vector<TensorPtr>& caps) const {
  // Copy the callee's nodes into the caller's graph, mapping placeholders to the call's inputs.
  const Graph& g = *graph_;
  std::vector<NodeOutput> base(g.num_nodes(), NodeOutput{-1, 0});
  std::vector<int> remap(g.num_nodes(), -1);
  GraphBuilder* outer = outer_builder_of(b);
  for (size_t i = 0; i < g.arg_placeholders.size(); ++i) {
    NodeOutput o = b->use(args[i], outer);
    base[g.arg_placeholders[i]] = o;
  }
  for (size_t i = 0; i < g.capture_placeholders.size(); ++i) {
    NodeOutput o = b->use(caps[i], outer);
    base[g.capture_placeholders[i]] = o;
  }
  auto map_out = [&](const NodeOutput& o) {
    if (remap[o.node] >= 0) return NodeOutput{remap[o.node], o.index};
    return NodeOutput{base[o.node].node, base[o.node].index + o.index};
  };
  // Each node goes through the caller's shape inference and constant folding with the call's
  // inputs (TF's shape refiner does the same for a function call): a callee traced for
  // (None, None) returns (3, 5) here when the caller's values say so. Names stay the callee's.
  Graph& dst = *b->graph();
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (base[i].node >= 0) continue;
    const Node& n = g.node(i);
    std::vector<NodeOutput> inputs;
    inputs.reserve(n.inputs.size());
    for (const NodeOutput& in : n.inputs) inputs.push_back(map_out(in));
    std::vector<int> controls;
    for (int c : n.control_inputs)
      if (remap[c] >= 0) controls.push_back(remap[c]);
    if (!n.def || n.def->graph_input) {
      Node copy = n;
      copy.inputs = std::move(inputs);
      copy.control_inputs = std::move(controls);
      remap[i] = dst.add_node(std::move(copy));
      continue;
    }
    std::string scope;
    std::swap(scope, dst.name_scope);  // the callee's names as they are (no caller scope prefix)
    int idx = -1;
    try {
      idx = b->add_node(*n.def, inputs, n.attrs, n.name, nullptr).node;
    } catch (...) {
      std::swap(scope, dst.name_scope);
      throw;
    }
    std::swap(scope, dst.name_scope);
    Node& added = dst.mutable_node(idx);
    added.control_inputs = std::move(controls);
    added.defined_at = n.defined_at;
    if (added.outputs.size() == n.outputs.size())
      for (size_t k = 0; k < n.outputs.size(); ++k)
        added.outputs[k].shape = most_specific(added.outputs[k].shape, n.outputs[k].shape);
    remap[i] = idx;
  }
  std::vector<TensorPtr> out;
  for (const NodeOutput& o : g.outputs) {
    NodeOutput m = map_out(o);
    out.push_back(b->symbolic(m.node, m.index));
  }
  return out;
}

namespace {
// TF's InterpolateRuntimeError: each node the message tags ({{node N}}), with the user frames it
// was traced at (frames joined by blank lines, as traceback.format_list's joined), then the
// kernel's message and the function's op tag.
Error graph_execution_error(const Error& e, const std::string& function_name) {
  std::string msg = e.what();
  if (msg.rfind("Graph execution error:", 0) == 0) return e;  // a nested call's, already read so
  std::string out = "Graph execution error:\n\n";
  bool first = true;
  for (size_t pos = msg.find("{{node "); pos != std::string::npos; pos = msg.find("{{node ", pos)) {
    const size_t end = msg.find("}}", pos);
    if (end == std::string::npos) break;
    out += "Detected at node " + msg.substr(pos + 7, end - pos - 7) + " defined at (most recent call last):\n";
    const std::string stack = first ? e.node_stack() : std::string();
    if (stack.empty() || stack == kStackUnavailable) {
      out.append(kStackUnavailable).push_back('\n');
    } else {
      for (size_t a = 0; a < stack.size();) {
        size_t b = stack.find('\n', a);
        if (b == std::string::npos) b = stack.size();
        out.append(stack, a, b - a).append("\n\n");
        a = b + 1;
      }
    }
    first = false;
    pos = end;
  }
  const size_t last = msg.find_last_not_of(" \t\r\n");
  const size_t lead = msg.find_first_not_of(" \t\r\n");
  if (last != std::string::npos) out.append(msg, lead, last + 1 - lead);
  return Error(e.code(), out + " [Op:" + function_name + "]", e.node_stack());
}

// The op a taped call runs: TF's forward function (__forward_f_N) in place of __inference_f_N.
std::string forward_name(const std::string& name) {
  static const std::string kInference = "__inference_";
  return name.rfind(kInference, 0) == 0 ? "__forward_" + name.substr(kInference.size()) : name;
}
}  // namespace

std::vector<TensorPtr> ConcreteFunction::interpret(const std::vector<TensorPtr>& args,
                                                   const std::vector<TensorPtr>& caps) const {
  const Graph& g = *graph_;
  std::vector<std::vector<TensorPtr>> values(g.num_nodes());
  for (size_t i = 0; i < g.arg_placeholders.size(); ++i) values[g.arg_placeholders[i]] = {args[i]};
  for (size_t i = 0; i < g.capture_placeholders.size(); ++i) values[g.capture_placeholders[i]] = {caps[i]};
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (!values[i].empty()) continue;
    const Node& n = g.node(i);
    std::vector<TensorPtr> in;
    for (const NodeOutput& o : n.inputs) in.push_back(values[o.node][o.index]);
    // While tracing the read kernel does not run, so tapes learn of the access here (the
    // eager read kernel notifies them itself).
    if (n.op == kReadVariableOp && current_builder() && !in.empty() && in[0] && in[0]->is_eager() &&
        variable_state(*as_eager(in[0])).trainable())
      notify_variable_accessed(in[0]);
    if (!graph_errors || current_builder()) {
      values[i] = dispatch(*n.def, in, n.attrs, n.name);
      continue;
    }
    try {
      GraphNodeErrors raw;
      values[i] = dispatch(*n.def, in, n.attrs, n.name);
    } catch (const Error& e) {
      if (e.code() >= Code::ValueError) throw;
      const std::string msg = e.what();
      throw graph_execution_error(Error(e.code(), tag_node_error(msg, n), node_error_stack(msg, e.node_stack(), n)),
                                  forward_name(name));
    }
  }
  std::vector<TensorPtr> out;
  for (const NodeOutput& o : g.outputs) out.push_back(values[o.node][o.index]);
  return out;
}

std::vector<TensorPtr> ConcreteFunction::call(const std::vector<TensorPtr>& args) const {
  if (static_cast<int>(args.size()) != num_args())
    throw_error(Code::InvalidArgument, "function ", name, " takes ", num_args(), " tensor inputs but got ",
                args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorSpec& spec = graph_->node(graph_->arg_placeholders[i]).outputs[0];
    if (args[i]->dtype() != spec.dtype)
      throw_error(Code::InvalidArgument, "cannot compute ", name, " as input #", i,
                  "(zero-based) was expected to be a ", tf_type_string(spec.dtype), " tensor but is a ",
                  tf_type_string(args[i]->dtype()), " tensor [Op:", name, "]");
    // Eagerly a shape outside the traced one is refused (docs/DESIGN.md); while tracing, a
    // partly known shape compatible with it is cast to it (TF), and shapes are re-inferred.
    bool fits = args[i]->shape().is_subtype_of(spec.shape) || !args[i]->shape().has_rank() ||
                (current_builder() && args[i]->shape().is_compatible_with(spec.shape));
    if (!fits)
      throw_error(Code::InvalidArgument, "cannot compute ", name, " as input #", i,
                  "(zero-based) was expected to have shape ", spec.shape.to_string(), " but has shape ",
                  args[i]->shape().to_string(), " [Op:", name, "]");
  }
  std::vector<TensorPtr> caps = captures();
  // A recording tape (eager, or inside a Function being traced) must see the callee's ops, so
  // they go through dispatch one by one; otherwise a traced call is inlined as a copy.
  if (!active_tapes().empty() && any_tape_recording()) return interpret(args, caps);
  if (GraphBuilder* b = current_builder()) return inline_into(b, args, caps);
  std::vector<EagerPtr> inputs;
  inputs.reserve(args.size() + captures_.size());
  for (const TensorPtr& a : args) {
    if (!a->is_eager()) throw_out_of_scope(*a);
    inputs.push_back(as_eager(a));
  }
  for (const TensorPtr& c : caps) {
    if (!c->is_eager()) throw_out_of_scope(*c);
    inputs.push_back(as_eager(c));
  }
  std::vector<EagerPtr> out;
  try {
    out = plan()->run(inputs);
  } catch (const Error& e) {
    if (!graph_errors || e.code() >= Code::ValueError) throw;
    throw graph_execution_error(e, name);
  }
  return std::vector<TensorPtr>(out.begin(), out.end());
}

}  // namespace fn
