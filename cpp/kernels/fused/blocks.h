// A fused elementwise program over a big tensor as blocks on the task pool (kernels/task_pool.h):
// the calling thread and the pool's workers each run fused::run over whole blocks of the output.
// Used for every standalone fused tree (ops/fused_elementwise.cpp: a gelu's gradient, a layer
// norm's normalisation, an optimizer's update) and for contraction epilogues
// (ops/fused_contraction.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/fused/elementwise.h"

namespace fn {
namespace fused {

// Floats per block (128 KiB: a block's tiles and its output stay in L2).
constexpr int64_t kBlockElements = int64_t{1} << 15;

// fused::run(prog, inputs, out, n, reduce, stores), split into blocks when there is more than one
// thread (`threads`, 0: the OpenMP team size, so OMP_NUM_THREADS=1 or FN_FUSED_POOL=0 keeps one) and enough work:
// four blocks or more of a compute-bound program (a transcendental, root, division, power or a row
// reduction), eight or more of a streaming one (a scale, an add). Blocks start at multiples of
// the tile, of every broadcast operand's `div` and of a row reduction's row length, and each
// operand is re-based to the block, so a block computes exactly the tiles (with the same operand
// elements, gathered or not) that one run over the whole computes: the bits depend neither on
// the thread count nor on which thread runs a block. A column reduction (inner > 1) over fewer than
// 2,048 columns (a bias gradient over 512) is split into its row blocks (direct::column_block_rows:
// the order run() and direct::sum_f32 sum in), each block's column sums kept in double and added in
// block order on the calling thread; over 2,048 columns or more into groups of 1,024 columns or
// more, each row's part of a group run as its own tiles and added in the same order (same bits),
// unless a Pow reads a broadcast exponent. Broadcasts a block cannot be re-based onto (an operand that wraps around
// inside a block at an offset) run whole on the calling thread. Returns the number of blocks or
// column groups (1: run whole).
int64_t run_blocks(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, float* out, int64_t n,
                   const Reduce& reduce = Reduce{}, const std::vector<float*>& stores = {}, int threads = 0);

}  // namespace fused
}  // namespace fn
