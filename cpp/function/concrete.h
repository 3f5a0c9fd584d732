// A traced graph ready to run: its compiled plan and the values it captured. Called eagerly it
// runs the plan; called while another function is being traced it is inlined into that graph.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/plan.h"
#include "graph/graph.h"
#include "trace/context.h"

namespace fn {

class ConcreteFunction {
 public:
  ConcreteFunction(std::shared_ptr<Graph> graph, std::vector<TensorPtr> captures);
  const std::shared_ptr<Graph>& graph() const { return graph_; }
  // Captured values; variables (resource handles) are held weakly, like TensorFlow's
  // concrete functions: a call after the variable was deleted is a FailedPreconditionError.
  std::vector<TensorPtr> captures() const;
  int num_args() const { return static_cast<int>(graph_->arg_placeholders.size()); }
  // Eager call: args are the flat tensor arguments in placeholder order. Checks dtypes and
  // shapes (InvalidArgumentError as TF's "cannot compute <name> as input #i ...").
  std::vector<TensorPtr> call(const std::vector<TensorPtr>& args) const;
  std::shared_ptr<const Plan> plan() const;  // compiled on first use
  std::string name;                          // "__inference_double_12" style, for error messages
  // A Function's call: run-time op errors read as TF's ("Graph execution error: ... Detected at
  // node N defined at ..." and " [Op:<name>]"); tf.data's functions report theirs as the iterator's.
  bool graph_errors = false;

 private:
  // Runs node by node through dispatch so active gradient tapes record every op.
  std::vector<TensorPtr> interpret(const std::vector<TensorPtr>& args, const std::vector<TensorPtr>& caps) const;
  std::vector<TensorPtr> inline_into(GraphBuilder* b, const std::vector<TensorPtr>& args,
                                     const std::vector<TensorPtr>& caps) const;
  std::shared_ptr<Graph> graph_;
  std::vector<TensorPtr> captures_;  // nullptr where the capture is weak
  std::vector<std::weak_ptr<Tensor>> weak_captures_;
  mutable std::once_flag compiled_;
  mutable std::shared_ptr<const Plan> plan_;
};

}  // namespace fn
