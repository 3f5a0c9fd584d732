// A compiled graph: nodes needed for the outputs (plus every stateful node) in program order,
// each with its kernel and input/output slots; slots are freed after their last use.
// Immutable once compiled, so one Plan runs on many threads at once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op.h"

namespace fn {

class Plan {
 public:
  static std::shared_ptr<const Plan> compile(std::shared_ptr<const Graph> graph);
  // `inputs`: one value per arg placeholder, then one per capture placeholder.
  std::vector<EagerPtr> run(const std::vector<EagerPtr>& inputs) const;
  const Graph& graph() const { return *graph_; }
  int num_steps() const { return static_cast<int>(steps_.size()); }
  // Steps that call back into Python (py_function, print to a Python stream).
  bool needs_host() const { return needs_host_; }

 private:
  struct Step {
    const OpDef* def;
    const Node* node;
    std::vector<int> in_slots;
    int out_base;
    std::vector<int> release;   // slots dead after this step
  };
  std::shared_ptr<const Graph> graph_;
  std::vector<Step> steps_;
  std::vector<int> input_slots_;
  std::vector<int> output_slots_;
  int num_slots_ = 0;
  bool needs_host_ = false;
};

}  // namespace fn
