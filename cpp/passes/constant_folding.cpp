// Constant folding: a stateless node whose inputs are all Const nodes is computed once at
// compile time (when its result is small) and becomes a Const.
#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"
#include "trace/context.h"

namespace fn {

namespace {
constexpr int64_t kMaxFoldedElements = 1 << 12;
}

namespace {
bool foldable(const Node& n) {
  return n.def && !n.def->stateful && !n.def->needs_host && !n.inputs.empty() && !is_constant(n);
}
}  // namespace

std::shared_ptr<Graph> fold_constants(const Graph& g) {
  auto r = fold_constants_or_null(g);
  return r ? r : copy_graph(g);
}

std::shared_ptr<Graph> fold_constants_or_null(const Graph& g) {
  // Folding starts at a node whose inputs are all Consts already; without one, nothing folds.
  bool any = false;
  for (int i = 0; i < g.num_nodes() && !any; ++i) {
    const Node& n = g.node(i);
    if (!foldable(n)) continue;
    any = true;
    for (const NodeOutput& in : n.inputs) any = any && is_constant(g.node(in.node));
  }
  if (!any) return nullptr;
  Rewriter rw(g);
  const OpDef& const_def = OpRegistry::global().get(kConstOp);
  return rw.run([&](int i, const Node& n, Rewriter& r) {
    if (!foldable(n)) return false;
    std::vector<EagerPtr> values;
    for (const NodeOutput& in : n.inputs) {
      const Node& src = r.target().node(in.node);
      if (!is_constant(src)) return false;
      values.push_back(src.attrs.get<EagerPtr>("value"));
    }
    for (const TensorSpec& s : n.outputs)
      if (s.shape.num_elements() < 0 || s.shape.num_elements() > kMaxFoldedElements || s.dtype == DType::Resource ||
          s.dtype == DType::Variant)
        return false;
    std::vector<EagerPtr> out;
    try {
      out = run_kernel(*n.def, values, n.attrs, n.name);
    } catch (const Error&) {
      return false;  // leave it to fail at run time, with the run-time error
    }
    std::vector<NodeOutput> outs;
    for (size_t k = 0; k < out.size(); ++k) {
      Node c;
      c.op = kConstOp;
      c.def = &const_def;
      c.name = n.name + (k ? "_" + std::to_string(k) : "");
      c.attrs.set("value", out[k]);
      c.attrs.set("dtype", out[k]->dtype());
      c.outputs = {out[k]->spec()};
      outs.push_back(NodeOutput{r.target().add_node(std::move(c)), 0});
    }
    r.replace_outputs(i, std::move(outs));
    return true;
  });
}

}  // namespace fn
