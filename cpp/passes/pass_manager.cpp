#include "passes/passes.h"

namespace fn {

std::shared_ptr<Graph> optimize(const Graph& g) {
  auto folded = fold_constants(g);
  return eliminate_common_subexpressions(*folded);
}

}  // namespace fn
