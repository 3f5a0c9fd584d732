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
  // The plan's independent steps run on two threads when the caller allows it (InterOpScope,
  // exec/inter_op.h): decided at compile time from the steps' sizes (plan_parallel.cpp).
  bool parallel() const { return parallel_; }

 private:
  struct Step {
    const OpDef* def;
    const Node* node;
    std::vector<int> in_slots;
    std::vector<char> move_in;  // per input: this step is the slot's last use (hand it over)
    int out_base;
    std::vector<int> release;  // slots dead after this step
    // The parallel executor's view (plan_parallel.cpp; empty when the plan runs sequentially):
    std::vector<int> users;                  // steps waiting for this one (data, control, order)
    std::vector<std::pair<int, int>> reads;  // distinct input slots and how often this step reads each
    int deps = 0;                            // steps this one waits for
    bool wide = false;                       // big enough for its kernel to use every core itself
    // The step's one output is the item a TensorListSetItem alone reads, and that SetItem is
    // the last use of its list: the list handle's and the index's slots, so the output can be
    // made in the list's arena row (arena_row_placement, ops/tensor_list.h); -1: none.
    int place_list = -1, place_index = -1;
  };
  friend class ParallelRun;
  // Builds the steps' dependency graph and decides `parallel_` (plan_parallel.cpp).
  void compile_parallel(const Graph& g, const std::vector<int>& step_node);
  // Runs the steps on the calling thread and the inter-op worker; false (nothing run) when the
  // worker is busy elsewhere, and the caller runs the steps in order itself.
  bool run_parallel(std::vector<EagerPtr>& slots, PooledRun& pooled) const;
  // Runs step `st`'s kernel on `in`, the error named by its node as TF names it.
  static std::vector<EagerPtr> run_step_kernel(const Step& st, const std::vector<EagerPtr>& in);
  // The same for a step with a placement: its output made in the list's row when it can be.
  static std::vector<EagerPtr> run_placed(const Step& st, const std::vector<EagerPtr>& slots,
                                          const std::vector<EagerPtr>& in);
  // Finds the steps whose output can be placed in a TensorList row (sets place_list/index).
  void plan_placements();
  std::vector<std::pair<int, EagerPtr>> consts_;  // Const nodes: slot and value, set per run
  std::shared_ptr<const Graph> graph_;
  std::vector<Step> steps_;
  std::vector<int> input_slots_;
  std::vector<char> input_used_;  // per input: some step or output reads its slot
  std::vector<int> output_slots_;
  int num_slots_ = 0;
  size_t max_inputs_ = 0;  // most inputs of one step (a run reserves that once)
  bool needs_host_ = false;
  bool parallel_ = false;
  std::vector<int> read_count_;     // per slot: step reads in a run (outputs: never released)
  std::vector<int> initial_ready_;  // steps waiting for none
  mutable PlanPools pools_;         // storage of dead values, reused by the next runs (buffer_plan.h)
  mutable PlanPools worker_pools_;  // the same for the inter-op worker's part of a parallel run
};

}  // namespace fn
