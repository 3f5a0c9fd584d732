// fused::run_blocks (kernels/fused/blocks.h).
#include "kernels/fused/blocks.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"

namespace fn {
namespace fused {

namespace {

int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// lcm(a, b), or -1 past `limit` (no block size fits).
int64_t lcm_upto(int64_t a, int64_t b, int64_t limit) {
  const int64_t g = gcd64(a, b);
  if (a / g > limit / b) return -1;
  const int64_t l = a / g * b;
  return l <= limit ? l : -1;
}

// Operand `o` as seen from element i0 for len elements: element i0 + j of the whole is element j
// of the result. i0 is a multiple of o.div. False when the operand wraps around inside the block
// at an offset (no single (data, div, mod) says it), or when re-basing would turn a varying operand
// into a one-value one (load() would then read it as a scalar where the whole run gathers it).
bool rebase(const Operand& o, int64_t i0, int64_t len, Operand* r) {
  *r = o;
  r->tiled = nullptr;  // run() tiles the re-based operand again
  if (o.mod == 1) return true;
  const int64_t at = (i0 / o.div) % o.mod;
  if (at == 0) return true;                // the block starts at a period's start: the same (div, mod) rule
  const int64_t last = (len - 1) / o.div;  // the block's last index, relative to `at`
  if (at + last >= o.mod || o.mod - at < 2) return false;
  r->data = o.data + at;
  r->mod = o.mod - at;
  return true;
}

struct Plan {
  int64_t block = 0;  // elements per block; 0: run whole
  int64_t blocks = 0;
};

// FN_FUSED_POOL=0 runs every fused program whole on the calling thread (A/B timings in one build).
bool pool_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FN_FUSED_POOL");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

// FN_FUSED_COLUMN_ROWS=0 runs narrow column reductions whole (A/B timings in one build).
bool row_blocks_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FN_FUSED_COLUMN_ROWS");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

// Enough work for a second thread: a compute-bound program (a transcendental, root, division
// or power; a reduction's double sums) of four blocks or more, else a memory-bound pass of
// eight. Beside a busy process a worker can be descheduled holding a claimed block, and the
// caller waits for it: over two blocks (65,536 elements) that lost ~20 us per tree at load ~10
// on 2 cores (a layer norm 56 -> 67-94 us), over eight it gained (a layer norm over 262,144:
// 445-499 -> 255-353 us).
bool worth_splitting(const std::vector<Instr>& prog, int64_t n, const Reduce& reduce) {
  const bool costly = reduce.kind != Reduce::kNone ||
                      std::any_of(prog.begin(), prog.end(), [](const Instr& in) { return is_costly(in.op); });
  // FN_FUSED_SPLIT_COSTLY / FN_FUSED_SPLIT_STREAM: the block counts, for A/B timings in one build.
  static const int64_t costly_min = [] {
    const char* v = std::getenv("FN_FUSED_SPLIT_COSTLY");
    return v ? std::atoll(v) : 4;
  }();
  static const int64_t stream_min = [] {
    const char* v = std::getenv("FN_FUSED_SPLIT_STREAM");
    return v ? std::atoll(v) : 8;
  }();
  return n >= (costly ? costly_min : stream_min) * kBlockElements;
}

Plan plan_blocks(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, int64_t n, const Reduce& reduce,
                 int team) {
  Plan p;
  if (team < 2 || reduce.inner > 1 || !worth_splitting(prog, n, reduce)) return p;
  // A row reduction runs its tiles from each row's start, anything else from multiples of the tile.
  int64_t unit = reduce.kind != Reduce::kNone ? (reduce.mid <= kBlockElements ? reduce.mid : -1) : kTileElements;
  for (const Operand& o : inputs) {
    if (unit < 0 || o.mod == 1) continue;
    // A short period (a bias, a per-channel scale) divides the block: every block starts at a
    // period's start. Else blocks start at a multiple of div and the operand is re-based.
    const int64_t period =
        o.div <= kBlockElements / o.mod ? lcm_upto(unit, o.div * o.mod, kBlockElements) : int64_t{-1};
    unit = period > 0 ? period : lcm_upto(unit, o.div, kBlockElements);
  }
  if (unit < 0) return p;
  const int64_t block = kBlockElements / unit * unit, blocks = (n + block - 1) / block;
  Operand scratch;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t i0 = b * block, len = std::min(block, n - i0);
    for (const Operand& o : inputs)
      if (!rebase(o, i0, len, &scratch)) return p;
  }
  p.block = block;
  p.blocks = blocks;
  return p;
}

// A column reduction's columns in groups of at least a tile's width (each row's part of a group is
// run as its own tiles: narrower groups would pay the per-instruction dispatch on short spans, 2.7x
// slower at 512 x 512 in 64-column groups) and a block's worth of elements: the groups' count, 1
// to run whole. Not when a Pow reads a broadcast input as its
// exponent (its small-integer path depends on where a tile starts; groups tile each row apart).
int64_t column_groups(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, int64_t n,
                      const Reduce& reduce, int team) {
  if (team < 2 || reduce.inner < 2 * kTileElements || !worth_splitting(prog, n, reduce)) return 1;
  for (const Instr& in : prog)
    if (in.op == kPow && in.b >= 0 && inputs[static_cast<size_t>(in.b)].mod > 1) return 1;
  return std::max<int64_t>(1, std::min(n / kBlockElements, reduce.inner / kTileElements));
}

}  // namespace

int64_t run_blocks(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, float* out, int64_t n,
                   const Reduce& reduce, const std::vector<float*>& stores, int threads) {
  const int team = threads > 0 ? threads : pool_enabled() ? onednn::max_threads() : 1;
  if (reduce.kind != Reduce::kNone && reduce.inner > 1 && reduce.inner < 2 * kTileElements) {
    // A narrow column reduction (a bias gradient over 512 columns): its row blocks, each summed
    // apart, then added in block order on the calling thread (the order run() adds them in).
    const int64_t blocks = column_blocks(n, reduce);
    if (team < 2 || blocks < 2 || !row_blocks_enabled() || !worth_splitting(prog, n, reduce)) {
      run(prog, inputs, out, n, reduce, stores);
      return 1;
    }
    validate(prog, inputs.size());
    std::vector<double> partials(static_cast<size_t>(blocks * reduce.inner));
    TaskPool::global().run(team, blocks, [&](int64_t b) {
      run_column_block(prog, inputs, n, reduce, b, partials.data() + b * reduce.inner, stores);
    });
    finish_column_blocks(partials.data(), n, reduce, out);
    return blocks;
  }
  if (reduce.kind != Reduce::kNone && reduce.inner > 1) {
    const int64_t groups = column_groups(prog, inputs, n, reduce, team);
    if (groups < 2) {
      run(prog, inputs, out, n, reduce, stores);
      return 1;
    }
    validate(prog, inputs.size());
    const int64_t width = (reduce.inner / groups + 15) / 16 * 16, count = (reduce.inner + width - 1) / width;
    TaskPool::global().run(team, count, [&](int64_t b) {
      Reduce part = reduce;
      part.col_begin = b * width;
      part.col_end = std::min(reduce.inner, part.col_begin + width);
      run(prog, inputs, out, n, part, stores);
    });
    return count;
  }
  const Plan p = plan_blocks(prog, inputs, n, reduce, team);
  if (p.blocks < 2) {
    run(prog, inputs, out, n, reduce, stores);
    return 1;
  }
  validate(prog, inputs.size());  // before any worker runs it (run() checks again per block)
  const int64_t per_out = reduce.kind == Reduce::kNone ? 1 : reduce.mid;  // input elements per output
  TaskPool::global().run(team, p.blocks, [&](int64_t b) {
    const int64_t i0 = b * p.block, len = std::min(p.block, n - i0);
    std::vector<Operand> mine(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) rebase(inputs[i], i0, len, &mine[i]);
    std::vector<float*> st(stores);
    for (float*& s : st)
      if (s) s += i0;
    run(prog, mine, out + i0 / per_out, len, reduce, st);
  });
  return p.blocks;
}

}  // namespace fused
}  // namespace fn
