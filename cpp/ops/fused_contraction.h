// _FusedMatMul / _FusedConv2D: a MatMul or Conv2D with its bias, a residual add (Conv2D) and a
// Relu/Relu6 applied by the same primitive (oneDNN post-ops), made by passes/fuse_contraction.
// Not registered: only that pass creates them, in optimised graphs users never see.
// Inputs: the contraction's two, the bias (unless attr "bias" is false), then the residual if
// any. Attrs: the contraction's, plus "bias" and "activation" ("", "Relu" or "Relu6"), and for
// _FusedMatMul "tanh" (a Tanh of the result, never with an activation). An elementwise epilogue
// program (attrs epilogue_*, ops/contraction_epilogue.h) and, for _FusedConv2D, a pooling
// (ops/fused_conv2d.h) may follow.
#pragma once
#include "ops/op.h"

namespace fn {

const OpDef& fused_matmul_op();
const OpDef& fused_conv2d_op();
// BatchMatMulV2(x, y) * scale (one element): inputs x, y, scale; BatchMatMulV2's attrs.
const OpDef& fused_batch_matmul_op();

}  // namespace fn
