#include "passes/passes.h"

namespace fn {

std::shared_ptr<Graph> optimize(const Graph& g) {
  auto merged = merge_forward_while(g);
  auto pruned = prune_while_loop_vars(*merged);
  auto folded = fold_constants(*pruned);
  auto cse = eliminate_common_subexpressions(*folded);
  auto contractions = fuse_contractions(*cse);
  return fuse_elementwise(*contractions);
}

}  // namespace fn
