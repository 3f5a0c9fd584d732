#include "passes/rewriter.h"

#include "core/error.h"

namespace fn {

Rewriter::Rewriter(const Graph& src) : src_(src), dst_(std::make_shared<Graph>(src.name())) {}

void Rewriter::replace_outputs(int index, std::vector<NodeOutput> outs) { map_[index] = std::move(outs); }

std::shared_ptr<Graph> Rewriter::run(const Visit& visit) {
  map_.assign(src_.num_nodes(), {});
  std::vector<int> node_map(src_.num_nodes(), -1);
  for (int i = 0; i < src_.num_nodes(); ++i) {
    const Node& n = src_.node(i);
    Node copy = n;
    copy.inputs.clear();
    for (const NodeOutput& in : n.inputs) copy.inputs.push_back(map_[in.node].at(in.index));
    copy.control_inputs.clear();
    for (int c : n.control_inputs)
      if (node_map[c] >= 0) copy.control_inputs.push_back(node_map[c]);
    if (visit(i, copy, *this)) continue;
    std::string name = copy.name;
    int idx = dst_->add_node(std::move(copy));
    dst_->mutable_node(idx).name = name;   // keep the original names (they are unique already)
    node_map[i] = idx;
    std::vector<NodeOutput> outs;
    for (size_t k = 0; k < n.outputs.size(); ++k) outs.push_back(NodeOutput{idx, static_cast<int>(k)});
    map_[i] = std::move(outs);
  }
  auto remap_node = [&](int i) {
    if (node_map[i] < 0) throw_error(Code::Internal, "a pass removed placeholder ", src_.node(i).name);
    return node_map[i];
  };
  for (int p : src_.arg_placeholders) dst_->arg_placeholders.push_back(remap_node(p));
  for (int p : src_.capture_placeholders) dst_->capture_placeholders.push_back(remap_node(p));
  for (const NodeOutput& o : src_.outputs) dst_->outputs.push_back(map_[o.node].at(o.index));
  return dst_;
}

}  // namespace fn
