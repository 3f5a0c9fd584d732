// A row program: fused elementwise programs (kernels/fused/elementwise.h) over one row structure
// (`rows` rows of `len` elements) chained through last-axis reductions and their per-row results
// broadcast back along the row: a layer norm (mean, variance, normalisation), a softmax written by
// hand (max, exp and sum, division), an RMS norm, their gradients' row sums. The stages run block
// of rows by block of rows, each block's intermediates in thread-local scratch while the rows are
// in L1/L2, instead of one full pass over memory per stage. passes/fuse_rows.cpp builds it from
// the graph's _FusedElementwise trees and plain Sum/Mean/Max/Min nodes.
//
// Bits: each stage computes what its unfused node computes, element for element (elementwise ops
// do not depend on where a tile starts) and row for row (a Sum/Mean row goes through the same
// fused::run row reduction or direct::sum_f32, a Max/Min row through direct::extreme_f32), so
// the result is the unfused graph's, on any thread count and block split.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/fused/elementwise.h"

namespace fn {
namespace fused {

struct RowStage {
  // What a stage's last instruction's result becomes: kept as is, or reduced along the row.
  enum Reduce : int { kNone = 0, kSum = 1, kMean = 2, kMax = 3, kMin = 4 };
  struct Input {
    int stage;  // -1: the program's external input `index`; else that stage's output `index`
    int index;
    int64_t div, mod;  // broadcast rule over the stage's elements (fused::Operand)
  };
  bool row_level = false;  // elements: one per row (rows); else rows * len
  int reduce = kNone;      // a reduction maps rows * len elements to one per row
  std::vector<Instr> prog;
  std::vector<Input> inputs;
  std::vector<int> extra;  // instructions whose results are outputs 1, 2, ... (full-size)
  // Per output (the result, then the extras): the row program's output it is written to, or -1
  // (a value read only by later stages: block scratch).
  std::vector<int> out;
};

// Throws Internal unless the stages are well formed (operands refer to earlier stages' outputs of
// the right size, programs valid, outputs in range).
void validate_rows(const std::vector<RowStage>& stages, size_t num_inputs, size_t num_outputs);

// Runs the stages over rows x len elements. `inputs`: the external inputs' data; `outputs`: the
// row program's outputs, each rows * len or rows floats as its stage says. Blocks of rows run on
// the task pool (kernels/task_pool.h) when there is enough work; `threads` 0: the default team.
void run_rows(const std::vector<RowStage>& stages, const std::vector<const float*>& inputs,
              const std::vector<float*>& outputs, int64_t rows, int64_t len, int threads = 0);

}  // namespace fused
}  // namespace fn
