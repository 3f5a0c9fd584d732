// A graph being traced, for Catch2 tests of shape rules: `Tracing t; t.arg("x", Shape{...})`.
#pragma once

#include <memory>
#include <string>

#include "trace/context.h"

namespace fn {

struct Tracing {
  std::shared_ptr<Graph> g = std::make_shared<Graph>("f");
  GraphBuilder b{g};
  ContextScope scope{&b};
  TensorPtr arg(const std::string& name, Shape s, DType d = DType::Float32) {
    return b.add_placeholder(name, TensorSpec{d, std::move(s)});
  }
};

}  // namespace fn
