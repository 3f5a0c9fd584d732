#include "passes/passes.h"

#include <cstdlib>
#include <cstring>
#include "graph/op_def.h"
#include "passes/rewriter.h"

namespace fn {

namespace {
// FN_FUSE_UPDATES=0 leaves variable updates unfused (one tree per assign): tests compare the two.
bool fuse_updates() {
  const char* v = std::getenv("FN_FUSE_UPDATES");
  return !(v && std::strcmp(v, "0") == 0);
}

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
  apply(fold_transposes_or_null);    // before fusion, as grappler's arithmetic optimizer
  apply(sink_max_pools_or_null);     // the same: MaxPool(Relu(x)) -> Relu(MaxPool(x))
  apply(fold_index_slices_or_null);  // after CSE: an xs[t] per loop body, whatever traced it
  apply(fuse_contractions_or_null);
  // Forwarding a slot's new value first lets `p.assign_add(m)` split (its delta is then m's
  // elementwise value); forwarding after the split moves m's assign past p's update tree.
  const bool updates = fuse_updates();
  if (updates) apply(forward_variable_updates_or_null);
  apply(split_assign_updates_or_null);                   // so a variable update's arithmetic joins its value's tree
  if (updates) apply(forward_variable_updates_or_null);  // m, v, p of one variable: one tree
  apply(fuse_elementwise_or_null);
  apply(fuse_epilogues_or_null);     // after both fusions: the tails it takes are their results
  apply(fuse_conv_pools_or_null);    // after: a pool reads the convolution's epilogue
  apply(fuse_epilogues_or_null);     // again: a tail of the pooled result (a Relu sunk below the pool)
  apply(fuse_rows_or_null);          // after: the trees no contraction took, chained through their rows
  return cur ? cur : copy_graph(g);  // the plan never shares the traced graph
}

}  // namespace fn
