// The thread-local context stack and the one dispatch path for every op call.
// Eager frames run kernels now; graph frames add nodes to the graph being built.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"
#include "graph/op_def.h"

namespace fn {

// The graph being traced plus its bookkeeping: captures of outside values.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::shared_ptr<Graph> graph) : graph_(std::move(graph)) {}
  const std::shared_ptr<Graph>& graph() const { return graph_; }

  // A new placeholder (a function argument); `name` is the Python parameter name.
  TensorPtr add_placeholder(const std::string& name, const TensorSpec& spec);
  // Node output `o` of this graph as a symbolic tensor.
  TensorPtr symbolic(int node, int index) const;
  // Makes `t` usable in this graph: eager tensors become Const nodes (captured by value),
  // tensors of an enclosing graph become capture placeholders; other graphs' tensors are out
  // of scope (TypeError).
  NodeOutput use(const TensorPtr& t, GraphBuilder* outer);
  // Values captured from enclosing graphs, in capture placeholder order.
  const std::vector<TensorPtr>& captured_values() const { return captured_values_; }
  // Capture a value as a placeholder input explicitly (variables' handles, resources).
  NodeOutput capture_by_reference(const TensorPtr& outer_value, const std::string& name);
  // Uses of `outer_value` in this graph read the argument placeholder `input` instead (a
  // Variable argument's handle: the Variable keeps its identity while tracing, its handle is
  // an input, as in TF).
  void bind_input(const TensorPtr& outer_value, NodeOutput input);

  NodeOutput add_node(const OpDef& def, const std::vector<NodeOutput>& inputs, Attrs attrs, const std::string& name,
                      std::vector<TensorSpec>* out_specs);
  // Constant values known for node outputs (for shape rules needing values): Const nodes,
  // and small integer results folded at trace time (shape arithmetic: Shape, Pack, ...).
  EagerPtr constant_value(const NodeOutput& o) const;
  // Graphs built while this one was being traced (bodies, branches, nested functions).
  void note_inner_graph(uint64_t id) { inner_graphs_.insert(id); }

 private:
  std::shared_ptr<Graph> graph_;
  std::unordered_map<const Tensor*, NodeOutput> const_captures_;
  std::unordered_map<const Tensor*, NodeOutput> outer_captures_;
  std::vector<TensorPtr> captured_values_;
  std::vector<TensorPtr> keepalive_;                       // captured eager tensors (keys above are raw pointers)
  std::unordered_map<int, std::vector<EagerPtr>> folded_;  // node -> its folded outputs
  std::unordered_map<int, Shape> partial_;                 // node -> partial value of output 0
  std::unordered_set<uint64_t> inner_graphs_;
  void record_partial(const OpDef& def, int node, const std::vector<TensorSpec>& in_specs,
                      const std::vector<EagerPtr>& values, const std::vector<Shape>& partials);
  void try_fold(const OpDef& def, int node, const std::vector<TensorSpec>& in_specs,
                const std::vector<EagerPtr>& values);
};

struct Frame {
  GraphBuilder* builder = nullptr;  // nullptr: eager
};

// RAII: push a graph-building (or eager, with nullptr) frame on this thread's stack.
class ContextScope {
 public:
  explicit ContextScope(GraphBuilder* builder);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
};

GraphBuilder* current_builder();  // nullptr when eager
bool executing_eagerly();
int context_depth();
// The enclosing graph builder of `b` on this thread's stack (nullptr if none/eager).
GraphBuilder* outer_builder_of(GraphBuilder* b);

// Called while tracing to name the user's source location (set by the Python bindings).
void set_location_provider(std::function<std::string()> provider);
std::string current_location();

// While alive, the thread's next dispatch runs a graph's node eagerly (a Function interpreted
// under a tape): its kernel's errors come untagged, for the caller to tag with the node.
struct GraphNodeErrors {
  GraphNodeErrors();
  ~GraphNodeErrors();
  GraphNodeErrors(const GraphNodeErrors&) = delete;
  GraphNodeErrors& operator=(const GraphNodeErrors&) = delete;
};

// The one entry point for op calls. Name is the node name hint (empty: op's default name).
std::vector<TensorPtr> dispatch(const OpDef& op, const std::vector<TensorPtr>& inputs, Attrs attrs = {},
                                const std::string& name = "");
std::vector<TensorPtr> dispatch(const std::string& op, const std::vector<TensorPtr>& inputs, Attrs attrs = {},
                                const std::string& name = "");
TensorPtr dispatch1(const std::string& op, const std::vector<TensorPtr>& inputs, Attrs attrs = {},
                    const std::string& name = "");

// Runs an op's kernel on eager inputs (no tape, no graph), translating errors into TF's form.
std::vector<EagerPtr> run_kernel(const OpDef& op, const std::vector<EagerPtr>& inputs, const Attrs& attrs,
                                 const std::string& node_name);

// fn.debugging.enable_check_numerics: when on, every kernel's floating outputs are checked for
// NaN and Inf (a process-wide debugging switch, like TensorFlow's).
void set_check_numerics(bool enabled);
bool check_numerics_enabled();

// Out-of-scope error for a graph tensor used where its graph is not being built.
// TypeError as TF's for a tensor of another function or used eagerly; `inner` (a tensor of a
// graph built inside the current one: a loop body, a branch, a nested function) is TF's
// InaccessibleTensorError, a ValueError.
[[noreturn]] void throw_out_of_scope(const Tensor& t, bool inner = false);

}  // namespace fn
