#include "passes/rewriter.h"

#include "core/error.h"

namespace fn {

Rewriter::Rewriter(const Graph& src) : src_(src), dst_(std::make_shared<Graph>(src.name())) {}

void Rewriter::replace_outputs(int index, std::vector<NodeOutput> outs) { map_[index] = std::move(outs); }

std::shared_ptr<Graph> Rewriter::run(const Visit& visit) {
  const int n_src = src_.num_nodes();
  map_.assign(n_src, {});
  dst_->reserve(n_src);
  std::vector<int> node_map(n_src, -1);
  for (int i = 0; i < n_src; ++i) {
    const Node& n = src_.node(i);
    // Field by field: the inputs are remapped, everything else is copied once.
    Node copy;
    copy.op = n.op;
    copy.def = n.def;
    copy.name = n.name;
    copy.inputs.reserve(n.inputs.size());
    // A dropped node (visit returned true without replacing it) reads as node -1: only a node
    // that is dropped too may use it (a fused tree's members).
    bool reads_dropped = false;
    for (const NodeOutput& in : n.inputs) {
      const std::vector<NodeOutput>& m = map_[in.node];
      if (m.empty() && !src_.node(in.node).outputs.empty()) {
        copy.inputs.push_back(NodeOutput{-1, in.index});
        reads_dropped = true;
      } else {
        copy.inputs.push_back(m.at(in.index));
      }
    }
    for (int c : n.control_inputs)
      if (node_map[c] >= 0) copy.control_inputs.push_back(node_map[c]);
    copy.attrs = n.attrs;
    copy.outputs = n.outputs;
    copy.defined_at = n.defined_at;
    if (visit(i, copy, *this)) continue;
    if (reads_dropped) throw_error(Code::Internal, "a pass dropped a node that ", n.name, " uses");
    // The source's names are unique; a node a pass added under one of them (a folded Const
    // takes its node's name) replaced that node, so the name is free here.
    int idx = dst_->add_node_named(std::move(copy));
    node_map[i] = idx;
    std::vector<NodeOutput>& outs = map_[i];
    outs.reserve(n.outputs.size());
    for (size_t k = 0; k < n.outputs.size(); ++k) outs.push_back(NodeOutput{idx, static_cast<int>(k)});
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

std::shared_ptr<Graph> copy_graph(const Graph& src) {
  auto dst = std::make_shared<Graph>(src.name());
  dst->reserve(src.num_nodes());
  for (const Node& n : src.nodes()) dst->add_node_named(n);
  dst->arg_placeholders = src.arg_placeholders;
  dst->capture_placeholders = src.capture_placeholders;
  dst->outputs = src.outputs;
  dst->stateful_nodes = src.stateful_nodes;
  dst->name_scope = src.name_scope;
  return dst;
}

Readers::Readers(const Graph& g)
    : live(g.live_nodes()), uses(g.num_nodes(), 0), consumer(g.num_nodes(), -1), control_target(g.num_nodes(), 0) {
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (!live[i]) continue;
    const Node& node = g.node(i);
    for (const NodeOutput& in : node.inputs) {
      ++uses[in.node];
      consumer[in.node] = i;
    }
    for (int c : node.control_inputs) control_target[c] = 1;
  }
  pinned = control_target;
  for (const NodeOutput& o : g.outputs) pinned[o.node] = 1;
}

bool broadcast_rule(const Shape& in, const Shape& out, int64_t* div, int64_t* mod) {
  int ri = in.rank(), ro = out.rank();
  if (ri > ro) return false;
  int first = -1, last = -1;
  for (int d = 0; d < ro; ++d) {
    int64_t o = out[d], i = d - (ro - ri) >= 0 ? in[d - (ro - ri)] : 1;
    if (o == 1) {
      if (i != 1) return false;
      continue;
    }
    if (i == o) {
      if (last >= 0 && last != d - 1) {
        // a broadcast dim (of size != 1 in out) lies between two matched dims?
        for (int k = last + 1; k < d; ++k)
          if (out[k] != 1) return false;
      }
      if (first < 0) first = d;
      last = d;
    } else if (i != 1) {
      return false;
    }
  }
  *div = 1;
  *mod = 1;
  if (first < 0) return true;
  for (int d = first; d <= last; ++d) *mod *= out[d];
  for (int d = last + 1; d < ro; ++d) *div *= out[d];
  return true;
}

}  // namespace fn
