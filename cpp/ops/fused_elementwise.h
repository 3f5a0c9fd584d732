// _FusedElementwise: a tree of float32 elementwise ops (each op's OpDef::fusion opcode) run as one
// tiled pass over the data (kernels/fused/elementwise.h), optionally ending in a Sum/Mean over
// trailing axes. Made by passes/fuse_elementwise.cpp in optimised graphs users never see, so not
// registered (as _FusedMatMul, ops/fused_contraction.h). Attrs: "program" (3 ints per
// instruction: opcode, operands), "bcast" (div, mod per input), "shape" (the program's shape), and
// with a reduction "reduce" (fused::Reduce kind, reduced length, and the column count when the
// reduced axes are not the trailing ones) and "out_shape". Optional "extra_outputs": instruction
// indices whose full-size results are outputs 1, 2, ... too (an intermediate read elsewhere).
#pragma once
#include "ops/op.h"

namespace fn {

const OpDef& fused_elementwise_op();

}  // namespace fn
