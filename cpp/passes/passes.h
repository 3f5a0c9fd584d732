// Graph passes run before a graph is compiled into a plan. Each takes a graph and returns an
// optimised copy (the traced graph users inspect is never changed).
#pragma once
#include <memory>

#include "graph/graph.h"

namespace fn {

std::shared_ptr<Graph> fold_constants(const Graph& g);
std::shared_ptr<Graph> eliminate_common_subexpressions(const Graph& g);
// MatMul/Conv2D + bias (+ residual) (+ Relu/Relu6) -> one _FusedMatMul/_FusedConv2D node.
std::shared_ptr<Graph> fuse_contractions(const Graph& g);
// Trees of float32 elementwise ops -> one _FusedElementwise node (one tiled pass).
std::shared_ptr<Graph> fuse_elementwise(const Graph& g);
// A contraction read only by an elementwise computation over its output -> a _FusedMatMul /
// _FusedConv2D running that computation as its epilogue (passes/fuse_epilogue.cpp).
std::shared_ptr<Graph> fuse_epilogues(const Graph& g);
// Transposes feeding a matmul operand or reading a batched matmul's result -> attrs of the
// matmul (transpose flags, or strides: ops/matmul.h), no copy.
std::shared_ptr<Graph> fold_transposes(const Graph& g);
// While loop vars whose outputs nobody reads and that feed only themselves are dropped.
std::shared_ptr<Graph> prune_while_loop_vars(const Graph& g);
// A While gradient's accumulating forward loop replaces the forward loop it repeats.
std::shared_ptr<Graph> merge_forward_while(const Graph& g);
// CustomGradient nodes' readers read the passed-through inputs (the gradient-only inputs no
// longer extend the arguments' lifetimes); nullptr when there is none to bypass.
std::shared_ptr<Graph> bypass_custom_gradients_or_null(const Graph& g);
// AssignSub/AssignAddVariableOp of a single-use float32 elementwise value -> ReadVariableOp,
// Sub/AddV2 and AssignVariableOp in its place, so the update fuses into the value's tree
// (passes/split_assign_update.cpp); nullptr when there is none.
std::shared_ptr<Graph> split_assign_updates_or_null(const Graph& g);
// Reads of a variable after an AssignVariableOp of it read the assigned value, and the assign of a
// fusable value moves after the tree reading it, so an optimizer's slot and parameter updates of
// one variable fuse into one multi-output pass (passes/fuse_updates.cpp); nullptr when unchanged.
std::shared_ptr<Graph> forward_variable_updates_or_null(const Graph& g);
// The pass manager: CustomGradient bypass, constant folding, CSE, transpose folding, contraction fusion, elementwise fusion,
// contraction epilogues (dead nodes are pruned by Plan::compile).
// Passes with nothing to do are skipped without copying, so a graph is copied about once.
std::shared_ptr<Graph> optimize(const Graph& g);

// The same passes, returning nullptr when they would leave the graph unchanged.
std::shared_ptr<Graph> fold_constants_or_null(const Graph& g);
std::shared_ptr<Graph> eliminate_common_subexpressions_or_null(const Graph& g);
std::shared_ptr<Graph> fuse_contractions_or_null(const Graph& g);
std::shared_ptr<Graph> fuse_elementwise_or_null(const Graph& g);
std::shared_ptr<Graph> fuse_epilogues_or_null(const Graph& g);
// A MaxPool/AvgPool of a convolution nothing else reads: pooled per batch slice by the
// convolution's kernel (passes/fuse_conv_pool.cpp).
std::shared_ptr<Graph> fuse_conv_pools_or_null(const Graph& g);
// Row programs: elementwise trees chained through last-axis reductions (a layer norm) as one node.
std::shared_ptr<Graph> fuse_rows_or_null(const Graph& g);
std::shared_ptr<Graph> fold_transposes_or_null(const Graph& g);
// x[i], x[:, i] by a scalar index (StridedSlice of stacked scalars) -> _StridedSliceIndex(x, i).
std::shared_ptr<Graph> fold_index_slices_or_null(const Graph& g);
// MaxPool(f(x)) -> f(MaxPool(x)) for a monotone non-decreasing elementwise f, as grappler's
// arithmetic optimizer (passes/sink_max_pool.cpp).
std::shared_ptr<Graph> sink_max_pools_or_null(const Graph& g);

}  // namespace fn
