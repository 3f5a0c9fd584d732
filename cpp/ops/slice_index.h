// _StridedSliceIndex(x, index): x[index], x[:, index], ... for a scalar int32/int64 index: the
// StridedSlice a loop body's `xs[t]` traces to (begin and end stacked from t and t + 1, strides 1,
// the axis shrunk, the others whole), without the two Pack steps that build begin and end every
// iteration. Attrs: the StridedSlice's (its masks), "index_axis" (the shrunk entry) and
// "num_indices" (begin's length). On the first axis a view of the row when index is in bounds
// (negative counts from the end); otherwise StridedSlice's own region and errors. Made by
// passes/fold_index_slice.cpp in optimised graphs users never see, so not registered (as
// _FusedMatMul, ops/fused_contraction.h).
#pragma once
#include "ops/op.h"

namespace fn {

const OpDef& strided_slice_index_op();

}  // namespace fn
