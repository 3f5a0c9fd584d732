#include "passes/passes.h"

namespace fn {

std::shared_ptr<Graph> optimize(const Graph& g) {
  auto folded = fold_constants(g);
  auto cse = eliminate_common_subexpressions(*folded);
  return fuse_elementwise(*cse);
}

}  // namespace fn
