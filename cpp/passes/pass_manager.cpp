#include "passes/passes.h"

namespace fn {

std::shared_ptr<Graph> optimize(const Graph& g) {
  auto pruned = prune_while_loop_vars(g);
  auto folded = fold_constants(*pruned);
  auto cse = eliminate_common_subexpressions(*folded);
  return fuse_elementwise(*cse);
}

}  // namespace fn
