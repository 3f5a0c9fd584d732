// A graph being traced, for Catch2 tests of shape rules: `Tracing t; t.arg("x", Shape{...})`;
// count_op for tests of graph passes.
#pragma once

#include <memory>
#include <string>

#include "trace/context.h"

namespace fn {

// How many nodes of `g` run `op`.
inline int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

struct Tracing {
  std::shared_ptr<Graph> g = std::make_shared<Graph>("f");
  GraphBuilder b{g};
  ContextScope scope{&b};
  TensorPtr arg(const std::string& name, Shape s, DType d = DType::Float32) {
    return b.add_placeholder(name, TensorSpec{d, std::move(s)});
  }
};

}  // namespace fn
