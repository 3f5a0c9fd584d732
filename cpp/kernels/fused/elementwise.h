// A fused chain of float32 elementwise ops: one pass over the data in cache-sized tiles, each op
// applied to a tile before the next, so intermediates never reach memory. The program is a
// tree of instructions (passes/fuse_elementwise.cpp builds it); operands are the kernel's
// inputs (each broadcast by a (div, mod) rule) or earlier instructions' results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace fn {
namespace fused {

enum OpCode : int {  // the instructions of a fused program
  kNeg,
  kAbs,
  kSquare,
  kSqrt,
  kRsqrt,
  kExp,
  kTanh,
  kSigmoid,
  kRelu,
  kReciprocal,  // unary
  kCastBool,    // bool (as 0/1) to float: a no-op here
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kSquaredDiff,
  kPow,  // binary
  kGreater,
  kGreaterEqual,
  kLess,
  kLessEqual,  // comparisons, as 1.f / 0.f (only under a Cast)
};
constexpr bool is_binary(int op) { return op >= kAdd; }
constexpr bool is_comparison(int op) { return op >= kGreater; }
// Ops worth computing once rather than again in each tree that reads them (transcendentals,
// roots, divisions: tens of cycles a vector).
constexpr bool is_costly(int op) {
  return op == kSqrt || op == kRsqrt || op == kExp || op == kTanh || op == kSigmoid || op == kReciprocal ||
         op == kDiv || op == kPow;
}
// An op's opcode is a fact of its definition (OpDef::fusion, set where the op is registered with
// .with_fusion(fused::kAdd)); passes read it from there. BiasAdd is kAdd (its bias broadcasts along
// the last dim, for NHWC); Cast is kCastBool (the pass checks it is bool->float).

// run() computes its program tile by tile, tiles of this many elements from the first: a run over
// a range starting at a multiple of it computes the same tiles as a run over the whole.
constexpr int64_t kTileElements = 1024;

// Operand reference: >= 0 is input k, < 0 is the result of an earlier instruction -(ref + 1).
// Most results are read once (a tree); one may be read by several later instructions (a value
// a tree needs twice, written as an extra output: computed once).
struct Instr {
  int op;
  int a, b;  // b unused for unary ops
};
// Input k's element for output element i is data[(i / div) % mod].
struct Operand {
  const float* data;
  int64_t div, mod;
  // Set by run() for a short repeating operand (div 1, mod < one tile): `data` repeated to one
  // tile plus mod values, so any tile's elements are one contiguous span of it.
  const float* tiled = nullptr;
};

// A reduction of the program's result over one run of axes, seen as (outer, mid, inner): the
// `mid` elements of each (outer, inner) pair, `inner` apart, are summed (kSum) or averaged (kMean)
// into one output each, in direct::sum_f32's order (bit for bit). inner 1: rows of `mid`
// consecutive elements (a layer norm's statistics); inner > 1: columns (a batch norm's moments
// over N, H, W; a bias gradient).
// Columns are summed in direct::sum_f32's row-block order (direct::column_block_rows rows a block,
// each block from zero, blocks added in order), each block's rows run as tiles from its start.
// Columns only: [col_begin, col_end) of the inner columns are computed and written (col_end < 0:
// all), each row's part of them as its own run of tiles (kernels/fused/blocks.h splits a wide
// column reduction this way); a column's sum is the same either way.
struct Reduce {
  enum Kind : int { kNone = 0, kSum = 1, kMean = 2 };
  int kind = kNone;
  int64_t mid = 1;
  int64_t inner = 1;
  int64_t col_begin = 0, col_end = -1;
};

// Throws Internal unless every instruction of `prog` is well formed for `num_inputs` inputs
// (checked once, before any thread runs it).
void validate(const std::vector<Instr>& prog, size_t num_inputs);
// Runs `prog` over n elements; the last instruction's result goes to `out` (n elements, or n /
// mid with a reduction), which may be a non-broadcast input (each tile reads its elements
// before writing them). `stores` (empty, or one pointer per instruction): an instruction whose
// pointer is set also writes its n results there (an intermediate someone else reads: a value
// stacked for the gradient), from the same tile, so the bits the later instructions read; such
// a buffer is never an input.
void run(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, float* out, int64_t n,
         const Reduce& reduce = Reduce{}, const std::vector<float*>& stores = {});

// A column reduction (reduce.kind set, reduce.inner > 1; all columns) as independent row blocks,
// which threads may compute in any order: column_blocks() is their count (0: not a column
// reduction), run_column_block() writes block `block`'s double column sums to partial[0, inner),
// and finish_column_blocks() adds the blocks' partials (block b at partials + b * inner) in
// block order into `out`: the bits run() computes.
int64_t column_blocks(int64_t n, const Reduce& reduce);
void run_column_block(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, int64_t n,
                      const Reduce& reduce, int64_t block, double* partial, const std::vector<float*>& stores = {});
void finish_column_blocks(const double* partials, int64_t n, const Reduce& reduce, float* out);

// tanh with TensorFlow's CPU formula (Eigen's rational approximation, a few ulp), vectorised.
void tanh(const float* x, float* y, int64_t n);
// sigmoid with TensorFlow's CPU formula (Eigen's packet logistic, no FMA), vectorised.
void sigmoid(const float* x, float* y, int64_t n);

}  // namespace fused
}  // namespace fn
