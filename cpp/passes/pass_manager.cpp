#include "passes/passes.h"
#include "graph/op_def.h"
#include "passes/rewriter.h"

namespace fn {

namespace {
bool has_while(const Graph& g) {
  for (const Node& n : g.nodes())
    if (n.def && n.def->control_flow == ControlFlow::Loop) return true;
  return false;
}
}  // namespace

std::shared_ptr<Graph> optimize(const Graph& g) {
  std::shared_ptr<Graph> cur;  // nullptr while every pass so far left g unchanged
  auto apply = [&](std::shared_ptr<Graph> (*pass)(const Graph&)) {
    if (auto r = pass(cur ? *cur : g)) cur = std::move(r);
  };
  if (has_while(g)) {  // the loop passes only rewrite While nodes
    cur = merge_forward_while(g);
    cur = prune_while_loop_vars(*cur);
  }
  apply(bypass_custom_gradients_or_null);
  apply(fold_constants_or_null);
  apply(eliminate_common_subexpressions_or_null);
  apply(fold_transposes_or_null);  // before fusion, as grappler's arithmetic optimizer
  apply(fuse_contractions_or_null);
  apply(split_assign_updates_or_null);  // so a variable update's arithmetic joins its value's tree
  apply(fuse_elementwise_or_null);
  apply(fuse_epilogues_or_null);     // after both fusions: the tails it takes are their results
  apply(fuse_rows_or_null);          // after: the trees no contraction took, chained through their rows
  return cur ? cur : copy_graph(g);  // the plan never shares the traced graph
}

}  // namespace fn
