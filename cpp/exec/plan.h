// A compiled graph: nodes needed for the outputs (plus every stateful node) in program order,
// each with its kernel and input/output slots; slots are freed after their last use.
// Immutable once compiled, so one Plan runs on many threads at once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "exec/buffer_plan.h"
#include "graph/graph.h"
#include "ops/op.h"

namespace fn {

class Plan {
 public:
  static std::shared_ptr<const Plan> compile(std::shared_ptr<const Graph> graph);
  // `inputs`: one value per arg placeholder, then one per capture placeholder.
  std::vector<EagerPtr> run(const std::vector<EagerPtr>& inputs) const;
  std::vector<EagerPtr> run(const EagerPtr* inputs, size_t count) const;
  // Same, taking over (moving from) the first `n_move` inputs: a value the plan then holds
  // alone can be updated in place by its last user (a TensorList written in a loop body).
  std::vector<EagerPtr> run_consuming(EagerPtr* inputs, size_t count, size_t n_move) const;
  // Same, writing the outputs into `outputs` (cleared first; its capacity is reused): a loop
  // runs its cond and body plans once per iteration without allocating their result vectors.
  void run_into(EagerPtr* inputs, size_t count, size_t n_move, std::vector<EagerPtr>& outputs) const;
  const Graph& graph() const { return *graph_; }
  int num_steps() const { return static_cast<int>(steps_.size()); }
  // The ops of the steps, in the order they run (tests read the collective schedule).
  std::vector<std::string> step_ops() const {
    std::vector<std::string> ops;
    for (const Step& s : steps_) ops.push_back(s.node->op);
    return ops;
  }
  // Steps that call back into Python (py_function, print to a Python stream).
  bool needs_host() const { return needs_host_; }

 private:
  struct Step {
    const OpDef* def;
    const Node* node;
    std::vector<int> in_slots;
    std::vector<char> move_in;  // per input: this step is the slot's last use (hand it over)
    int out_base;
    std::vector<int> release;  // slots dead after this step
  };
  std::vector<std::pair<int, EagerPtr>> consts_;  // Const nodes: slot and value, set per run
  std::shared_ptr<const Graph> graph_;
  std::vector<Step> steps_;
  std::vector<int> input_slots_;
  std::vector<char> input_used_;  // per input: some step or output reads its slot
  std::vector<int> output_slots_;
  int num_slots_ = 0;
  size_t max_inputs_ = 0;  // most inputs of one step (a run reserves that once)
  bool needs_host_ = false;
  mutable PlanPools pools_;  // storage of dead values, reused by the next runs (buffer_plan.h)
};

}  // namespace fn
