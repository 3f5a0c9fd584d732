// _StridedSliceIndex(x, index): x[index] along the first axis for a scalar int32/int64 index, the
// StridedSlice(x, [index], [end], [1]) with shrink_axis_mask 1 that a loop body's `xs[t]` traces
// to, without the two Pack steps that build its begin and end vectors every iteration. A view of
// the row when index is in bounds (negative counts from the end); otherwise StridedSlice's own
// kernel runs and raises its error. Made by passes/fold_index_slice.cpp in optimised graphs users
// never see, so not registered (as _FusedMatMul, ops/fused_contraction.h); its attrs are the
// StridedSlice's (the masks).
#pragma once
#include "ops/op.h"

namespace fn {

const OpDef& strided_slice_index_op();

}  // namespace fn
