// fused::run_rows (kernels/fused/rows.h).
#include "kernels/fused/rows.h"

#include <algorithm>

#include "core/error.h"
#include "kernels/direct/reduce.h"
#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"

namespace fn {
namespace fused {

namespace {

// Rows per block: about this many elements per full-size value (64 KiB), so a block's stages
// read and write L1/L2-resident rows.
constexpr int64_t kRowBlockElements = int64_t{1} << 14;
// Split over threads from four blocks (a row program has a root, a division or a reduction per
// element: compute-bound, as fused::run_blocks' threshold for such programs).
constexpr int64_t kMinRowBlocks = 4;

bool reduces(const RowStage& s) { return s.reduce != RowStage::kNone; }
// Elements of output `o` of stage `s` per row: the result of a reduction is one per row; every
// other output has the stage's elements.
bool row_output(const RowStage& s, size_t o) { return o == 0 ? reduces(s) || s.row_level : s.row_level; }
// The stage's program runs over one value per row (a row-level stage) or `len` per row.
bool row_elements(const RowStage& s) { return s.row_level && !reduces(s); }

bool identity_program(const RowStage& s) {
  return s.prog.size() == 1 && s.prog[0].op == kCastBool && s.prog[0].a == 0 && s.extra.empty();
}

// External operand `o` seen from element `first` for `count` elements, re-based where one (data,
// div, mod) rule says it, else gathered into `buf` (count floats).
Operand rebase(const Operand& o, int64_t first, int64_t count, float* buf) {
  if (o.mod == 1) return o;
  if (first % o.div == 0) {
    const int64_t at = (first / o.div) % o.mod;
    if (at == 0) return o;  // the block starts at a period's start (a per-column operand): the same rule
    if (at + (count - 1) / o.div < o.mod) return Operand{o.data + at, o.div, o.mod - at};
  }
  // Rare (a period that is not a whole number of rows): run by run.
  if (o.div == 1) {
    for (int64_t j = 0, at = first % o.mod; j < count; at = 0) {
      const int64_t run = std::min(count - j, o.mod - at);
      std::copy(o.data + at, o.data + at + run, buf + j);
      j += run;
    }
    return Operand{buf, 1, count};
  }
  int64_t r = first % o.div, idx = (first / o.div) % o.mod;
  for (int64_t j = 0; j < count; r = 0) {
    const int64_t run = std::min(count - j, o.div - r);
    std::fill(buf + j, buf + j + run, o.data[idx]);
    j += run;
    if (++idx == o.mod) idx = 0;
  }
  return Operand{buf, 1, count};
}

struct Block {
  const std::vector<RowStage>& stages;
  const std::vector<const float*>& inputs;
  const std::vector<float*>& outputs;
  int64_t rows, len;
};

// Stage results of one block: where output o of stage s lives (block-local: element 0 is the
// block's first).
using Values = std::vector<std::vector<float*>>;

void run_stage(const Block& b, const RowStage& s, Values& vals, size_t si, int64_t r0, int64_t br,
               std::vector<float>& gather, float* tmp) {
  const int64_t count = row_elements(s) ? br : br * b.len;
  const int64_t first = row_elements(s) ? r0 : r0 * b.len;
  size_t need = 0;
  for (const RowStage::Input& in : s.inputs)
    if (in.stage < 0) need += static_cast<size_t>(count);
  if (gather.size() < need) gather.resize(need);
  float* g = gather.data();
  std::vector<Operand> ops;
  ops.reserve(s.inputs.size());
  for (const RowStage::Input& in : s.inputs) {
    if (in.stage >= 0) {  // a block-local value: full-size (1, rows*len), per row (len, rows) or (1, rows)
      ops.push_back(
          Operand{vals[static_cast<size_t>(in.stage)][static_cast<size_t>(in.index)], in.div, in.mod / b.rows * br});
    } else {
      ops.push_back(rebase(Operand{b.inputs[static_cast<size_t>(in.index)], in.div, in.mod}, first, count, g));
      g += count;
    }
  }
  std::vector<float*> stores;
  if (!s.extra.empty()) {
    stores.assign(s.prog.size(), nullptr);
    for (size_t e = 0; e < s.extra.size(); ++e) stores[static_cast<size_t>(s.extra[e])] = vals[si][e + 1];
  }
  float* out = vals[si][0];
  const bool contiguous = identity_program(s) && ops[0].div == 1 && ops[0].mod >= count;
  switch (s.reduce) {
    case RowStage::kNone: run(s.prog, ops, out, count, Reduce{}, stores); break;
    case RowStage::kSum:
    case RowStage::kMean:
      if (contiguous)  // a plain Sum/Mean: its kernel's loop
        direct::sum_f32(ops[0].data, out, br, b.len, 1, s.reduce == RowStage::kMean);
      else
        run(s.prog, ops, out, count, Reduce{s.reduce == RowStage::kSum ? Reduce::kSum : Reduce::kMean, b.len}, stores);
      break;
    default: {  // Max/Min: of a value computed here, or read in place
      const float* x = ops[0].data;
      if (!contiguous) {
        run(s.prog, ops, tmp, count, Reduce{}, stores);
        x = tmp;
      }
      direct::extreme_f32(x, out, br, b.len, 1, s.reduce == RowStage::kMax);
    }
  }
}

void run_block(const Block& b, int64_t r0, int64_t r1) {
  const int64_t br = r1 - r0, m = br * b.len;
  // Scratch: every value no output holds, and one full-size value for a Max/Min's data.
  size_t need = static_cast<size_t>(m);
  for (const RowStage& s : b.stages)
    for (size_t o = 0; o < s.out.size(); ++o)
      if (s.out[o] < 0) need += static_cast<size_t>(row_output(s, o) ? br : m);
  thread_local std::vector<float> scratch, gather;
  if (scratch.size() < need) scratch.resize(need);
  float* next = scratch.data();
  float* tmp = next;
  next += m;
  Values vals(b.stages.size());
  for (size_t si = 0; si < b.stages.size(); ++si) {
    const RowStage& s = b.stages[si];
    for (size_t o = 0; o < s.out.size(); ++o) {
      const bool per_row = row_output(s, o);
      if (s.out[o] >= 0) {
        vals[si].push_back(b.outputs[static_cast<size_t>(s.out[o])] + (per_row ? r0 : r0 * b.len));
      } else {
        vals[si].push_back(next);
        next += per_row ? br : m;
      }
    }
    run_stage(b, s, vals, si, r0, br, gather, tmp);
  }
}

}  // namespace

void validate_rows(const std::vector<RowStage>& stages, size_t num_inputs, size_t num_outputs) {
  if (stages.empty()) throw_error(Code::Internal, "fused rows: no stages");
  for (size_t si = 0; si < stages.size(); ++si) {
    const RowStage& s = stages[si];
    validate(s.prog, s.inputs.size());
    if (s.reduce < RowStage::kNone || s.reduce > RowStage::kMin || (reduces(s) && s.row_level) ||
        s.out.size() != s.extra.size() + 1 || s.inputs.empty())
      throw_error(Code::Internal, "fused rows: malformed stage ", si);
    for (int e : s.extra)
      if (e < 0 || static_cast<size_t>(e) >= s.prog.size())
        throw_error(Code::Internal, "fused rows: bad extra output in stage ", si);
    for (int o : s.out)
      if (o >= static_cast<int>(num_outputs)) throw_error(Code::Internal, "fused rows: bad output in stage ", si);
    for (const RowStage::Input& in : s.inputs) {
      const bool ok = in.stage < 0
                          ? in.index >= 0 && static_cast<size_t>(in.index) < num_inputs && in.div >= 1 && in.mod >= 1
                          : static_cast<size_t>(in.stage) < si && in.index >= 0 &&
                                static_cast<size_t>(in.index) < stages[static_cast<size_t>(in.stage)].out.size();
      if (!ok) throw_error(Code::Internal, "fused rows: bad input of stage ", si);
    }
  }
}

void run_rows(const std::vector<RowStage>& stages, const std::vector<const float*>& inputs,
              const std::vector<float*>& outputs, int64_t rows, int64_t len, int threads) {
  validate_rows(stages, inputs.size(), outputs.size());
  if (rows <= 0 || len <= 0) return;
  // A stage's operand from an earlier stage must be that stage's value element for element or
  // one per row, which re-bases onto any block of rows.
  for (const RowStage& s : stages)
    for (const RowStage::Input& in : s.inputs) {
      if (in.stage < 0) continue;
      const bool from_row = row_output(stages[static_cast<size_t>(in.stage)], static_cast<size_t>(in.index));
      const bool ok = from_row ? in.mod == rows && (in.div == (row_elements(s) ? 1 : len) || in.mod == 1)
                               : !row_elements(s) && in.div == 1 && in.mod == rows * len;
      if (!ok) throw_error(Code::Internal, "fused rows: an operand does not follow the rows");
    }
  const Block b{stages, inputs, outputs, rows, len};
  run_row_blocks(threads > 0 ? threads : onednn::max_threads(), rows, len, kRowBlockElements, kMinRowBlocks,
                 [&](int64_t r0, int64_t r1) {
                   // A thread's share (all rows on one thread) in blocks that stay in cache.
                   const int64_t per = std::max<int64_t>(1, kRowBlockElements / len);
                   for (int64_t r = r0; r < r1; r += per) run_block(b, r, std::min(r1, r + per));
                 });
}

}  // namespace fused
}  // namespace fn
