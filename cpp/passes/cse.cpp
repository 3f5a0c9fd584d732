// Common-subexpression elimination: a stateless node with the same op, inputs and attrs as an
// earlier one reuses the earlier node's outputs; small numeric Consts compare by value.
#include <cstring>
#include <unordered_map>

#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {
constexpr int64_t kMaxConstBytes = 256;

// The value of a small numeric Const (compared by content: Python scalars make one Const per
// use while tracing, `x * 2.0 + 2.0` two of them), or nullptr.
const EagerTensor* small_const_value(const Node& n) {
  const EagerTensor* t = constant_value(n);
  if (!t || !is_pod(t->dtype()) || !t->buffer() || !t->shape().is_fully_defined()) return nullptr;
  int64_t bytes = t->num_elements() * static_cast<int64_t>(dtype_size(t->dtype()));
  return bytes <= kMaxConstBytes ? t : nullptr;
}

size_t content_hash(const EagerTensor& t) {
  const auto* p = static_cast<const unsigned char*>(t.raw());
  size_t n = static_cast<size_t>(t.num_elements()) * dtype_size(t.dtype());
  size_t h = static_cast<size_t>(t.dtype()) * 1000003 + static_cast<size_t>(t.shape().rank());
  for (int d = 0; d < t.shape().rank(); ++d) h = h * 31 + static_cast<size_t>(t.shape()[d]);
  for (size_t i = 0; i < n; ++i) h = h * 131 + p[i];
  return h;
}

// Same dtype, shape and bytes (so 0.0 and -0.0 stay apart, equal NaNs merge), and the other
// attrs equal.
bool same_const(const Node& a, const EagerTensor& va, const Node& b, const EagerTensor& vb) {
  if (va.dtype() != vb.dtype() || !(va.shape() == vb.shape())) return false;
  size_t n = static_cast<size_t>(va.num_elements()) * dtype_size(va.dtype());
  if (std::memcmp(va.raw(), vb.raw(), n) != 0) return false;
  if (a.attrs.items().size() != b.attrs.items().size()) return false;
  for (size_t k = 0; k < a.attrs.items().size(); ++k) {
    const auto& x = a.attrs.items()[k];
    const auto& y = b.attrs.items()[k];
    if (x.first != y.first) return false;
    if (x.first != "value" && !(Attrs{{x.first, x.second}} == Attrs{{y.first, y.second}})) return false;
  }
  return true;
}

// rep[i]: the earliest node computing what node i computes (i itself when none), comparing
// inputs through their representatives, so chains of duplicates collapse in one sweep.
bool find_duplicates(const Graph& g, std::vector<int>* rep) {
  const int n = g.num_nodes();
  rep->resize(n);
  std::unordered_multimap<size_t, int> seen;  // hash -> representative node
  seen.reserve(static_cast<size_t>(n));
  bool any = false;
  auto same_inputs = [&](const Node& a, const Node& b) {
    if (a.inputs.size() != b.inputs.size()) return false;
    for (size_t k = 0; k < a.inputs.size(); ++k)
      if ((*rep)[a.inputs[k].node] != (*rep)[b.inputs[k].node] || a.inputs[k].index != b.inputs[k].index) return false;
    return true;
  };
  for (int i = 0; i < n; ++i) {
    (*rep)[i] = i;
    const Node& node = g.node(i);
    if (!node.def || node.def->stateful || node.def->graph_input) continue;
    if (const EagerTensor* v = small_const_value(node)) {
      size_t h = content_hash(*v);
      auto range = seen.equal_range(h);
      bool found = false;
      for (auto it = range.first; it != range.second && !found; ++it) {
        const Node& prev = g.node(it->second);
        const EagerTensor* pv = small_const_value(prev);
        if (pv && same_const(prev, *pv, node, *v)) {
          (*rep)[i] = it->second;
          found = any = true;
        }
      }
      if (!found) seen.emplace(h, i);
      continue;
    }
    size_t h = std::hash<std::string>()(node.op) ^ (node.attrs.hash() * 31);
    for (const NodeOutput& in : node.inputs) h = h * 1000003 + static_cast<size_t>((*rep)[in.node] * 7 + in.index);
    auto range = seen.equal_range(h);
    bool found = false;
    for (auto it = range.first; it != range.second && !found; ++it) {
      const Node& prev = g.node(it->second);
      if (prev.op == node.op && same_inputs(prev, node) && prev.attrs == node.attrs) {
        (*rep)[i] = it->second;
        found = any = true;
      }
    }
    if (!found) seen.emplace(h, i);
  }
  return any;
}
}  // namespace

std::shared_ptr<Graph> eliminate_common_subexpressions_or_null(const Graph& g) {
  std::vector<int> rep;
  if (!find_duplicates(g, &rep)) return nullptr;
  Rewriter rw(g);
  return rw.run([&](int i, const Node&, Rewriter& r) {
    if (rep[i] == i) return false;
    r.replace_outputs(i, r.outputs_of(rep[i]));
    return true;
  });
}

std::shared_ptr<Graph> eliminate_common_subexpressions(const Graph& g) {
  auto r = eliminate_common_subexpressions_or_null(g);
  return r ? r : copy_graph(g);
}

}  // namespace fn
