// What op definitions share: the op interface (graph/op_def.h, below the graph so every layer
// can name ops) and the helpers the families' shape rules use. Op families register themselves
// in ops/registry.cpp.
#pragma once
#include <utility>
#include <vector>

#include "graph/op_def.h"

namespace fn {

// Spec helpers for shape rules.
inline std::vector<TensorSpec> one(DType d, Shape s) { return {TensorSpec{d, std::move(s)}}; }

}  // namespace fn
