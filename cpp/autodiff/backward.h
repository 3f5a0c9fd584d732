// The backward pass over a tape: reverse-mode differentiation of recorded ops. Gradient rules
// are the OpDefs' `grad` functions; every op they emit goes through dispatch(), so the pass
// works eagerly and while tracing, and outer tapes record it (higher-order gradients).
#pragma once
#include <vector>

#include "trace/tape.h"

namespace fn {

struct GradientRequest {
  std::vector<TensorPtr> targets;
  std::vector<TensorPtr> sources;
  // One per target, or empty; nullptr entries (and an empty list) seed with ones_like(target).
  std::vector<TensorPtr> output_gradients;
  // Unconnected sources get zeros_like(source) instead of nullptr (None).
  bool unconnected_zero = false;
};

// d(sum of targets)/d(source) for each source: nullptr when the source is unconnected (not
// watched, not reached, or not floating) unless unconnected_zero. `entries` is a snapshot of the
// tape (new ops recorded while differentiating are not revisited).
std::vector<TensorPtr> compute_gradients(const std::vector<TapeEntry>& entries, const Tape& tape,
                                         const GradientRequest& request);

class GraphBuilder;
// tf.gradients while tracing: d(sum of targets)/d(source) through the nodes of the graph being
// built (targets and sources are its tensors), adding the gradient ops to that graph.
std::vector<TensorPtr> symbolic_gradients(GraphBuilder* builder, const GradientRequest& request);

}  // namespace fn
