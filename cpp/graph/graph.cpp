#include "graph/graph.h"

#include <sstream>

#include "core/error.h"
#include "graph/op_def.h"

namespace fn {

namespace {
const std::string kTag = "{{node ";

bool is_control_flow(const std::string& op) {
  return op == "While" || op == "StatelessWhile" || op == "If" || op == "StatelessIf" || op == "Case" ||
         op == "StatelessCase";
}
}  // namespace

std::string tag_node_error(const std::string& msg, const Node& node) {
  if (msg.find(kTag) == std::string::npos) return msg + "\n\t [[" + kTag + node.name + "}}]]";
  if (node.op == "PyCall") return msg + "\n\t [[" + node.name + "]]";
  if (!is_control_flow(node.op)) return msg;
  // A trailing op line (`[[IteratorGetNext]]`) names the op of this graph: only it moves under
  // the scope; the tags above it are the other graph's.
  const size_t line = msg.rfind("\n\t [[");
  if (line != std::string::npos && msg.compare(line + 5, 2, "{{") != 0)
    return msg.substr(0, line + 5) + node.name + "/" + msg.substr(line + 5);
  std::string out;
  size_t copied = 0;
  for (size_t at = msg.find(kTag); at != std::string::npos; at = msg.find(kTag, at + kTag.size())) {
    out.append(msg, copied, at + kTag.size() - copied);
    out.append(node.name).push_back('/');
    copied = at + kTag.size();
  }
  out.append(msg, copied, std::string::npos);
  return out;
}

std::string node_error_stack(const std::string& msg, const std::string& stack, const Node& node) {
  if (msg.find(kTag) == std::string::npos) return node.defined_at;
  if (node.op == "PyCall" && stack.empty()) return kStackUnavailable;
  return stack.empty() ? node.defined_at : stack;
}

std::shared_ptr<Graph> graph_of(const Tensor& t) { return std::dynamic_pointer_cast<Graph>(t.graph.lock()); }

std::atomic<uint64_t> Graph::next_id_{1};

Graph::Graph(std::string name) : id_(next_id_++), name_(std::move(name)) {}

std::string Graph::unique_name(const std::string& hint) {
  // TensorFlow's scheme: first use keeps the name, later ones get _1, _2, ... (skipping taken ones).
  std::string base = hint.empty() ? "node" : hint;
  auto it = name_counts_.find(base);
  if (it == name_counts_.end()) {
    // A name taken by add_node_named has no count yet: its first suffix is _1, as TF's.
    bool taken = name_index_.count(base) != 0;
    it = name_counts_.emplace(base, 1).first;
    if (!taken) return base;
  }
  int& count = it->second;
  std::string candidate;
  do { candidate = base + "_" + std::to_string(count++); } while (name_index_.count(candidate));
  return candidate;
}

int Graph::add_node(Node node) {
  node.name = unique_name(node.name);
  return add_node_named(std::move(node));
}

int Graph::add_node_named(Node node) {
  int idx = static_cast<int>(nodes_.size());
  name_index_.emplace(node.name, idx);
  if (node.def && node.def->stateful) stateful_nodes.push_back(idx);
  nodes_.push_back(std::move(node));
  return idx;
}

std::string Graph::peek_unique_name(const std::string& hint) const {
  std::string base = hint.empty() ? "node" : hint;
  auto it = name_counts_.find(base);
  if (it == name_counts_.end() && !name_index_.count(base)) return base;
  int count = it == name_counts_.end() ? 1 : it->second;
  std::string candidate;
  do { candidate = base + "_" + std::to_string(count++); } while (name_index_.count(candidate));
  return candidate;
}

int Graph::find_node(const std::string& name) const {
  auto it = name_index_.find(name);
  return it == name_index_.end() ? -1 : it->second;
}

std::string Graph::to_text() const {
  std::ostringstream os;
  auto ref = [&](const NodeOutput& o) {
    return "%" + nodes_[o.node].name + (o.index ? ":" + std::to_string(o.index) : "");
  };
  for (const Node& n : nodes_) {
    os << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (i) os << ", ";
      os << "%" << n.name << (i ? ":" + std::to_string(i) : "") << ": " << dtype_name(n.outputs[i].dtype)
         << n.outputs[i].shape.to_string();
    }
    if (n.outputs.empty()) os << "()";
    os << " = " << n.op << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << ref(n.inputs[i]);
    os << ")";
    bool first = true;
    for (auto& kv : n.attrs.items()) {
      if (kv.first == "_user_specified_name") continue;  // the node's name says it (TF's GraphDef keeps it)
      os << (first ? " {" : ", ") << kv.first << "=" << attr_to_string(kv.second);
      first = false;
    }
    if (!first) os << "}";
    os << "\n";
  }
  os << "  return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << ref(outputs[i]);
  os << ")\n";
  return os.str();
}

void Graph::verify() const {
  for (int i = 0; i < num_nodes(); ++i) {
    const Node& n = nodes_[i];
    for (const NodeOutput& in : n.inputs) {
      if (in.node < 0 || in.node >= i)
        throw_error(Code::Internal, "node ", n.name, " uses ", in.node, " which is not before it");
      if (in.index < 0 || in.index >= static_cast<int>(nodes_[in.node].outputs.size()))
        throw_error(Code::Internal, "node ", n.name, " uses missing output ", in.index, " of ", nodes_[in.node].name);
    }
    for (int c : n.control_inputs)
      if (c < 0 || c >= i) throw_error(Code::Internal, "bad control input on ", n.name);
  }
  for (const NodeOutput& o : outputs)
    if (o.node < 0 || o.node >= num_nodes()) throw_error(Code::Internal, "bad graph output");
}

std::vector<char> Graph::live_nodes() const {
  std::vector<char> live(nodes_.size(), 0);
  std::vector<int> work(stateful_nodes.begin(), stateful_nodes.end());
  for (const NodeOutput& o : outputs) work.push_back(o.node);
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    if (live[i]) continue;
    live[i] = 1;
    for (const NodeOutput& in : nodes_[i].inputs) work.push_back(in.node);
    for (int c : nodes_[i].control_inputs) work.push_back(c);
  }
  return live;
}

}  // namespace fn
