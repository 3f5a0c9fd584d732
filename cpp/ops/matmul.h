// MatMul / BatchMatMulV2 with transposes folded in by passes/fold_transpose.cpp: attrs perm_a and
// perm_b (the operand is transpose(input, perm), read through strides) and perm_out (the node's
// output is transpose(product, perm_out), written through strides). adj_x/adj_y (transpose_a/b)
// apply to the permuted operands. Only optimised graphs carry these attrs.
#pragma once
#include <string>
#include <vector>

#include "kernels/epilogue.h"
#include "ops/op.h"

namespace fn {

// Op types passes that rewrite matmul patterns name (fold_transpose, fuse_contraction, fuse_epilogue).
inline const std::string kMatMulOp = "MatMul";
inline const std::string kBatchMatMulV2Op = "BatchMatMulV2";

bool has_folded_perms(const Attrs& attrs);
// The product on oneDNN with permuted strides where the unfolded graph would run oneDNN and oneDNN
// keeps a fast kernel; otherwise the transposes are copied and the plain kernel runs. `e`: a
// scale only (_FusedBatchMatMulV2), float32.
std::vector<EagerPtr> folded_matmul(const std::string& op, const Attrs& attrs, const std::vector<EagerPtr>& in,
                                    const Epilogue* e);

}  // namespace fn
