// Functional control flow: `If` (`StatelessIf`) and `While` (`StatelessWhile`) nodes hold their
// branches / condition and body as sub-graphs in attrs. This layer defines their type rules,
// how they are built from traced sub-graphs, and If's gradient; exec/control_flow.cpp runs them.
//
// Conventions (the executor relies on them):
//   If:    inputs  = pred, then the values every branch captured (one list for both branches);
//          each branch graph has no arg placeholders and one capture placeholder per input
//          after pred, in input order. Outputs: attrs Tout / output_shapes.
//   While: inputs  = loop vars (n), then the captured values of cond and body; both graphs
//          take the n loop vars as arg placeholders and the captures as capture placeholders
//          in input order. cond returns one bool scalar, body returns n values with the loop
//          vars' dtypes and shapes within the vars' shapes (the shape invariants).
//          attr maximum_iterations (int64, -1: unbounded).
// The `If`/`While` variants are stateful (never pruned, run in program order) and are chosen
// when a sub-graph holds a stateful node (fn.print inside a loop).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "trace/context.h"

namespace fn {

// Per-node cache of what the executor derives from the node's sub-graphs (their compiled
// plans), created with the node so it lives exactly as long as the node. Opaque here.
struct SubgraphCache : HostObject {
  std::mutex mu;
  std::vector<std::shared_ptr<const void>> compiled;  // one slot per sub-graph attr
};

// Builds an If node in the current graph from two traced branch graphs (each builder's
// outputs already set). Checks that the branches return the same number of values with the
// same dtypes (TypeError naming both); shapes merge to the most specific common shape.
// `names` (optional, one per output) name the values in errors.
std::vector<TensorPtr> build_if(const TensorPtr& pred, GraphBuilder& then_b, GraphBuilder& else_b,
                                const std::string& name = "cond", const std::vector<std::string>& names = {});

// Builds a While node from the loop vars (in the current graph) and traced cond/body graphs
// whose arg placeholders have the loop vars' invariant shapes. Errors (naming the variable by
// `names[i]` when given, else by the tensor's name): a body output of another dtype
// (TypeError), a body output shape outside the invariant (ValueError, pointing at
// shape_invariants), a cond that is not a bool scalar.
std::vector<TensorPtr> build_while(const std::vector<TensorPtr>& loop_vars, GraphBuilder& cond_b, GraphBuilder& body_b,
                                   int64_t maximum_iterations = -1, const std::string& name = "while",
                                   const std::vector<std::string>& names = {});

// True if `g` (or a graph nested in it) has a stateful node.
bool graph_is_stateful(const Graph& g);

// Gradient of a graph's outputs with respect to its inputs (arg then capture placeholders),
// built in the current context by dispatching each op's gradient rule. `out_grads` has one
// entry per output (nullptr: zero); `inputs` are the values to bind to the placeholders.
// Returns one gradient per input (nullptr: none flows). Forward values are recomputed
// lazily: only the nodes a gradient rule needs are replayed. `known_outputs` (optional, one
// per output, nullptr: unknown) are values the outputs already had (a While gradient's stacked
// next loop vars): the rules read them instead of a replay (tanh's gradient reads its output).
// `values` (optional): `known` in, per node of g, the values of its outputs to use instead of a
// replay (a While gradient's stacked intermediates; empty: replay the node); `forward` out, per
// node, the forward values the gradient was built from (replayed or known).
struct ForwardValues {
  std::vector<std::vector<TensorPtr>> known, forward;
};
std::vector<TensorPtr> graph_gradients(const Graph& g, const std::vector<TensorPtr>& inputs,
                                       const std::vector<TensorPtr>& out_grads,
                                       const std::vector<TensorPtr>& known_outputs = {},
                                       ForwardValues* values = nullptr);

}  // namespace fn
