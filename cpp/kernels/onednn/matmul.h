#pragma once
#include <vector>

#include "core/tensor.h"
#include "kernels/epilogue.h"

namespace fn {
namespace onednn {
// Batched matmul with broadcast batch dims; a and b already have equal rank >= 2.
bool matmul_applicable(const EagerTensor& a, const EagerTensor& b);
// The same test on the operands' (logical) shapes, which may differ in rank.
bool matmul_applicable(DType d, const Shape& a, const Shape& b);

// Transposes folded into a matmul (passes/fold_transpose.cpp): operand a is transpose(a_stored,
// a) (view dim i is stored dim a[i], read through the stored strides, no copy), likewise b; the
// result Z is written as transpose(Z, out). An empty perm: as stored.
struct MatMulLayout {
  std::vector<int64_t> a, b, out;
};

// `e` (float32): scale, bias (rank 2 only), residual and activation as post-ops / the bias argument.
// With a layout, a and b may differ in rank (broadcast batch dims) and `out` has the permuted
// shape; returns false, writing nothing, where oneDNN offers only its reference implementation
// for those strides (the caller then copies). Without a layout it always runs.
// How a product of `macs` multiply-adds with output (batch x) rows x cols of rank r runs on the
// task pool: the output dim split (0 batch, r - 2 rows, r - 1 columns) and the block count (1: one
// call). Depends on the shape and the CPU's ISA only. For tests and benchmarks.
struct MatMulBlocks {
  int dim = 0;
  int64_t count = 1;
};
MatMulBlocks matmul_blocks(int r, int64_t batch, int64_t rows, int64_t cols, double macs);

bool matmul(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out, const Epilogue* e = nullptr,
            const MatMulLayout* layout = nullptr);
}  // namespace onednn
}  // namespace fn
