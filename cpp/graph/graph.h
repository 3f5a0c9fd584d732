// A flat SSA graph: nodes in creation (= topological) order, each naming its inputs as
// (node, output index). Sub-graphs of control flow and calls hang off attrs.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "graph/attrs.h"

namespace fn {

struct OpDef;

// The graph a symbolic tensor was made in (nullptr when eager or when the graph is gone).
class Graph;
std::shared_ptr<Graph> graph_of(const Tensor& t);

struct NodeOutput {
  int node = -1;
  int index = 0;
  bool operator==(const NodeOutput& o) const { return node == o.node && index == o.index; }
};

struct Node {
  std::string op;
  const OpDef* def = nullptr;
  std::string name;
  std::vector<NodeOutput> inputs;
  std::vector<int> control_inputs;
  Attrs attrs;
  std::vector<TensorSpec> outputs;
  // The user's frames while tracing, outermost first, a `  File "f", line n, in g` line each
  // (leak errors and TF's "Detected at node ... defined at" of run-time errors).
  std::string defined_at;
};

// The innermost user frame of a node's defined_at (its last line).
inline std::string innermost_frame(const std::string& defined_at) {
  const size_t nl = defined_at.rfind('\n');
  return nl == std::string::npos ? defined_at : defined_at.substr(nl + 1);
}

// The text of an error `node` raised at run time, as TF tags it: `\n\t [[{{node N}}]]` after the
// message; an error tagged inside a loop or branch keeps its tags, under the control-flow node's
// name (TF lowers those into their caller's graph: `{{node while/GatherV2}}`); one tagged in a
// graph Python ran (a PyCall running tf.data's functions) gets the op's own line: `[[N]]`.
std::string tag_node_error(const std::string& msg, const Node& node);
// The frames the error's first tagged node was defined at: `stack` (the error's) when the error
// was tagged inside, none (kStackUnavailable) for a graph Python ran, else `node`'s.
std::string node_error_stack(const std::string& msg, const std::string& stack, const Node& node);
inline const char* const kStackUnavailable = "<stack traces unavailable>";

class Graph : public NodeSource, public std::enable_shared_from_this<Graph> {
 public:
  explicit Graph(std::string name = "graph");
  const std::string& node_name(int i) const override { return nodes_[i].name; }
  int node_count() const override { return num_nodes(); }
  uint64_t id() const { return id_; }
  const std::string& name() const { return name_; }

  int add_node(Node node);  // uniquifies node.name, returns the index
  // Keeps node.name, which the caller knows is not taken (a pass copying a graph's nodes).
  int add_node_named(Node node);
  void reserve(int n) {
    nodes_.reserve(static_cast<size_t>(n));
    name_index_.reserve(static_cast<size_t>(n));
  }
  std::string unique_name(const std::string& hint);
  std::string peek_unique_name(const std::string& hint) const;  // what unique_name would return
  const Node& node(int i) const { return nodes_[i]; }
  Node& mutable_node(int i) { return nodes_[i]; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const std::vector<Node>& nodes() const { return nodes_; }
  int find_node(const std::string& name) const;  // -1 if absent

  // Inputs of the graph as a function: placeholders for the arguments, then captures.
  std::vector<int> arg_placeholders;
  std::vector<int> capture_placeholders;
  std::vector<NodeOutput> outputs;
  // Ops with side effects in creation order (executed in this order, never pruned).
  std::vector<int> stateful_nodes;
  // The active tf.name_scope while tracing ("" or "outer/inner/"): prefixes new op names.
  std::string name_scope;

  std::string to_text() const;  // readable listing, one node a line
  void verify() const;          // throws Internal on malformed graphs
  // live[i]: node i is reachable backwards (inputs, control inputs) from the outputs or the
  // stateful nodes; passes leave replaced nodes behind and Plan::compile prunes the rest.
  std::vector<char> live_nodes() const;

 private:
  static std::atomic<uint64_t> next_id_;
  uint64_t id_;
  std::string name_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> name_index_;
  std::unordered_map<std::string, int> name_counts_;
};

}  // namespace fn
