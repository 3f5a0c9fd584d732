// What a fused contraction (_FusedMatMul, _FusedConv2D: ops/fused_contraction.h) computes after
// its product: the oneDNN-style Epilogue (bias, residual, Relu/Relu6) read from its attrs and
// inputs, and the elementwise epilogue program (attrs epilogue_*, made by
// passes/fuse_epilogue.cpp) run over the product, whole or one slice of it at a time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "graph/attrs.h"
#include "kernels/epilogue.h"
#include "kernels/fused/elementwise.h"

namespace fn {

// The bias / residual / activation of a fused contraction whose output has shape `out`. The plan
// was made for these shapes: anything else is a bug (Internal), never a wrong read.
Epilogue epilogue_of(const std::string& op, const Attrs& attrs, const std::vector<EagerPtr>& in, const Shape& out);

// Inputs after the contraction's own that feed its elementwise epilogue, 0 without one.
size_t epilogue_inputs(const std::string& op, const Attrs& a, size_t num_inputs);

// The contraction's inputs (without the epilogue's last `extra`).
std::vector<EagerPtr> contraction_inputs(const std::vector<EagerPtr>& in, size_t extra);

// The elementwise epilogue program over a product of `n` elements: operand `slot` is the product
// itself, the others are the last `extra` inputs.
class EpilogueProgram {
 public:
  EpilogueProgram(const std::string& op, const Attrs& a, const std::vector<EagerPtr>& in, size_t extra, int64_t n);
  // Over the whole product `out` in place, as blocks on the task pool (kernels/fused/blocks.h).
  void run_whole(float* out) const;
  // True when a run over elements [i0, i0 + len) alone computes the bits run_whole computes
  // there: every broadcast operand can be re-based to i0 (a period's start, or no wrap-around
  // inside the range) and no Pow reads a broadcast exponent (its small-integer path depends on
  // where a tile starts).
  bool runs_range(int64_t i0, int64_t len) const;
  // Elements [i0, i0 + len) of the product, held at `at` (len elements), in place, on this
  // thread alone. Requires runs_range(i0, len).
  void run_range(int64_t i0, int64_t len, float* at) const;

 private:
  bool rebase(const fused::Operand& o, int64_t i0, int64_t len, fused::Operand* r) const;
  std::vector<fused::Instr> instrs_;
  std::vector<fused::Operand> ops_;  // the product's slot holds a null pointer
  int64_t slot_ = 0, n_ = 0;
  bool broadcast_pow_ = false;
};

}  // namespace fn
