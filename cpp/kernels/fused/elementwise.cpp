// Fused elementwise kernel. Every op but tanh and sigmoid (TensorFlow's Eigen formulas) applies the reference functor (so a fused chain
// computes bit for bit what the unfused ops do; Exp through fused::exp, std::exp's bits vectorised); the tile loops are compiled for AVX-512, AVX2
// and baseline x86-64 and picked at load time (target_clones).
#pragma GCC optimize("no-math-errno", "no-trapping-math")  // lets sqrt and selects vectorise (no errno or FP
// exception flag is ever read; the values are unchanged)
#include "kernels/fused/elementwise.h"
#include "kernels/fused/exp.h"
#include "kernels/fused/pow.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "kernels/direct/reduce.h"
#include "kernels/reference/elementwise.h"

#include "kernels/multiversion.h"

namespace fn {
namespace fused {

namespace {

constexpr int64_t kTile = kTileElements;  // 4 KiB per intermediate: a program's tiles stay in L1/L2

__attribute__((always_inline)) inline float tanh1(float x) {
  // Eigen's generic_fast_tanh_float (TensorFlow's CPU Tanh): odd rational 13/6 on [-c, c].
  const float c = 7.90531110763549805f;
  float xc = x < -c ? -c : (x > c ? c : x);
  float x2 = xc * xc;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  p = p * xc;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  float r = p / q;
  return std::fabs(x) < 0.0004f ? x : r;
}

// Eigen's scalar_logistic_op<float>::packetOp, TensorFlow's CPU Sigmoid: exp(x) / (1 + exp(x))
// from a degree-5 polynomial of exp(x / 2), squared. Multiplies and adds round separately, as in
// TF's wheel (built without FMA; this file has -ffp-contract=off), and a denormal exp(x) flushed
// to zero as TF's threads do (flush-to-zero mode): sigmoid(-100) is 0, as in TF. TF's bits.
__attribute__((always_inline)) inline float sigmoid1(float v) {
  const bool zero = v < -104.f;
  float x = 16.6355324f < v ? 16.6355324f : v;  // pmin: a NaN stays NaN
  x = x * 0.5f;
  const float m = std::floor(x * 1.44269504088896341f + 0.5f);
  float r = m * -0.693359375f + x;
  r = m * 2.12194440e-4f + r;
  const float r2 = r * r;
  const float p_even = r2 * 4.1898667812347412109375e-2f + 0.49999141693115234375f;
  const float p_odd = r2 * 8.33471305668354034423828125e-3f + 0.16666877269744873046875f;
  float p = r * p_odd + p_even;
  p = r2 * p + (r + 1.f);
  float b = m + 127.f;  // pldexp_fast: 2^m as a float's exponent bits, clamped to [0, 255]
  b = b < 0.f ? 0.f : b;
  b = b > 255.f ? 255.f : b;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(b)) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float e = p * scale;
  e = e * e;
  return zero || e < std::numeric_limits<float>::min() ? 0.f : e / (1.f + e);
}

// An operand's elements for one tile: n values, or one value standing for all of them (a
// scalar, or a per-row statistic constant across the tile), which the loops read once.
struct Span {
  const float* p;
  bool one;
};

template <typename F>
__attribute__((always_inline)) inline void map1(Span a, float* y, int64_t n, F f) {
  if (a.one) {
    const float r = f(*a.p);
    for (int64_t i = 0; i < n; ++i) y[i] = r;
    return;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = f(a.p[i]);
}
template <typename F>
__attribute__((always_inline)) inline void map2(Span a, Span b, float* y, int64_t n, F f) {
  if (b.one) {
    const float v = *b.p;
    if (a.one) {
      const float r = f(*a.p, v);
      for (int64_t i = 0; i < n; ++i) y[i] = r;
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = f(a.p[i], v);
    }
  } else if (a.one) {
    const float u = *a.p;
    for (int64_t i = 0; i < n; ++i) y[i] = f(u, b.p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a.p[i], b.p[i]);
  }
}

// Pow: a loop-invariant small integer exponent (x ** 3, its gradient's x ** 2) takes the
// vectorisable product in double, as ref::Pow does for it; any other exponent is libm's powf.
template <int N>
__attribute__((always_inline)) inline void pow_n(Span a, float* y, int64_t n) {
  map1(a, y, n, [](float v) { return ref::pow_small_int<N>(v); });
}
__attribute__((always_inline)) inline void pow_map(Span a, Span b, float* y, int64_t n) {
  int e;
  if (!b.one || !ref::small_int_exponent(*b.p, &e)) {
    // One exponent that is not a small integer: std::pow's bits, vectorised (kernels/fused/pow.h).
    // (Per-element exponents keep ref::Pow: its small-integer path is per element.)
    if (!a.one && b.one)
      fused::pow(a.p, b.p, 0, y, n);
    else
      map2(a, b, y, n, [](float u, float v) { return ref::Pow::apply(u, v); });
    return;
  }
  switch (e) {
    case -4: pow_n<-4>(a, y, n); break;
    case -3: pow_n<-3>(a, y, n); break;
    case -2: pow_n<-2>(a, y, n); break;
    case -1: pow_n<-1>(a, y, n); break;
    case 0: pow_n<0>(a, y, n); break;
    case 1: pow_n<1>(a, y, n); break;
    case 2: pow_n<2>(a, y, n); break;
    case 3: pow_n<3>(a, y, n); break;
    default: pow_n<4>(a, y, n); break;
  }
}

FN_MULTIVERSION
void apply(int op, Span a, Span b, float* y, int64_t n) {
  switch (op) {
    case kNeg: map1(a, y, n, [](float v) { return -v; }); break;
    case kAbs: map1(a, y, n, [](float v) { return std::fabs(v); }); break;
    case kSquare: map1(a, y, n, [](float v) { return v * v; }); break;
    case kSqrt: map1(a, y, n, [](float v) { return std::sqrt(v); }); break;
    case kRsqrt: map1(a, y, n, [](float v) { return 1.f / std::sqrt(v); }); break;
    case kExp:
      if (a.one)
        map1(a, y, n, [](float v) { return ref::Exp::apply(v); });
      else
        exp(a.p, y, n);  // std::exp's bits, vectorised (kernels/fused/exp.h)
      break;
    case kTanh: map1(a, y, n, tanh1); break;
    case kSigmoid: map1(a, y, n, sigmoid1); break;
    case kRelu: map1(a, y, n, [](float v) { return v > 0.f ? v : (v == v ? 0.f : v); }); break;
    case kReciprocal: map1(a, y, n, [](float v) { return 1.f / v; }); break;
    case kCastBool: map1(a, y, n, [](float v) { return v; }); break;
    case kGreater: map2(a, b, y, n, [](float u, float v) { return u > v ? 1.f : 0.f; }); break;
    case kGreaterEqual: map2(a, b, y, n, [](float u, float v) { return u >= v ? 1.f : 0.f; }); break;
    case kLess: map2(a, b, y, n, [](float u, float v) { return u < v ? 1.f : 0.f; }); break;
    case kLessEqual: map2(a, b, y, n, [](float u, float v) { return u <= v ? 1.f : 0.f; }); break;
    case kAdd: map2(a, b, y, n, [](float u, float v) { return u + v; }); break;
    case kSub: map2(a, b, y, n, [](float u, float v) { return u - v; }); break;
    case kMul: map2(a, b, y, n, [](float u, float v) { return u * v; }); break;
    case kDiv: map2(a, b, y, n, [](float u, float v) { return u / v; }); break;
    case kMax: map2(a, b, y, n, [](float u, float v) { return ref::Maximum::apply(u, v); }); break;
    case kMin: map2(a, b, y, n, [](float u, float v) { return ref::Minimum::apply(u, v); }); break;
    case kSquaredDiff:
      map2(a, b, y, n, [](float u, float v) {
        float d = u - v;
        return d * d;
      });
      break;
    case kPow: pow_map(a, b, y, n); break;
    default: break;  // validate() rejected it before any tile ran
  }
}

// Input `o`'s elements for outputs [i0, i0 + n): a pointer into the input when they are
// contiguous there, one value when they are all the same, else gathered into `buf` run by run.
Span load(const Operand& o, int64_t i0, int64_t n, float* buf) {
  if (o.mod == 1) return Span{o.data, true};
  if (o.div == 1) {
    int64_t r = i0 % o.mod;
    if (r + n <= o.mod) return Span{o.data + r, false};
    if (o.tiled) return Span{o.tiled + r, false};
    for (int64_t j = 0; j < n; r = 0) {
      int64_t len = std::min(n - j, o.mod - r);
      std::copy(o.data + r, o.data + r + len, buf + j);
      j += len;
    }
    return Span{buf, false};
  }
  int64_t r = i0 % o.div, idx = (i0 / o.div) % o.mod;
  if (r + n <= o.div) return Span{o.data + idx, true};
  for (int64_t j = 0; j < n; r = 0) {
    int64_t len = std::min(n - j, o.div - r);
    std::fill(buf + j, buf + j + len, o.data[idx]);
    j += len;
    if (++idx == o.mod) idx = 0;
  }
  return Span{buf, false};
}

// A div-1 operand of fewer than one tile's values that repeats (run() tiles it).
bool repeats_short(const Operand& o) { return o.div == 1 && o.mod > 1 && o.mod < kTile && !o.tiled; }

// Tile slots of a program: an instruction's slot is free again once its last reader has run
// (most results are read once: a tree; a value read twice is computed once).
struct Slots {
  std::vector<int> of;
  int count = 0;
  explicit Slots(const std::vector<Instr>& prog) : of(prog.size(), -1) {
    std::vector<int> readers(prog.size(), 0), free_slots;
    for (const Instr& in : prog)
      for (int ref : {in.a, is_binary(in.op) ? in.b : 0})
        if (ref < 0) ++readers[static_cast<size_t>(-(ref + 1))];
    for (size_t k = 0; k < prog.size(); ++k) {
      for (int ref : {prog[k].a, is_binary(prog[k].op) ? prog[k].b : 0})
        if (ref < 0 && --readers[static_cast<size_t>(-(ref + 1))] == 0) free_slots.push_back(of[-(ref + 1)]);
      if (free_slots.empty())
        of[k] = count++;
      else {
        of[k] = free_slots.back();
        free_slots.pop_back();
      }
    }
  }
  // Floats of scratch one thread needs: the slots, two gather buffers and the reduction's tile.
  size_t scratch() const { return static_cast<size_t>(count + 3) * kTile; }
};

// The program over elements [i0, i0 + len), len <= kTile; the result goes to y. An instruction
// with a store (stores non-null and stores[k] set) writes its tile there instead of its slot,
// and its readers read it back from there (still in L1).
void run_tile(const std::vector<Instr>& prog, const Slots& slots, const std::vector<Operand>& inputs, float* scratch,
              int64_t i0, int64_t len, float* y, float* const* stores) {
  float* gather_a = scratch + static_cast<size_t>(slots.count) * kTile;
  float* gather_b = gather_a + kTile;
  const size_t ni = prog.size();
  auto result = [&](size_t k) {
    return stores && stores[k] ? stores[k] + i0 : scratch + static_cast<size_t>(slots.of[k]) * kTile;
  };
  for (size_t k = 0; k < ni; ++k) {
    const Instr& in = prog[k];
    auto operand = [&](int ref, float* buf) -> Span {
      if (ref >= 0) return load(inputs[ref], i0, len, buf);
      return Span{result(static_cast<size_t>(-(ref + 1))), false};
    };
    const Span a = operand(in.a, gather_a);
    const Span b = is_binary(in.op) ? operand(in.b, gather_b) : Span{nullptr, false};
    apply(in.op, a, b, k + 1 == ni ? y : result(k), len);
  }
  if (stores && stores[ni - 1]) std::copy(y, y + len, stores[ni - 1] + i0);  // a reduction's data, kept too
}

// One row of a reduction: eight partial sums in double over blocks of eight, then the tail, as
// direct::sum_f32 adds them (tiles are multiples of eight, so blocks never straddle tiles).
FN_MULTIVERSION
float reduce_row(const std::vector<Instr>& prog, const Slots& slots, const std::vector<Operand>& inputs, float* scratch,
                 int64_t row, int64_t mid, bool mean, float* const* stores) {
  float* y = scratch + static_cast<size_t>(slots.count + 2) * kTile;
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t blocks_end = mid / 8 * 8;
  double tail[8];
  int ntail = 0;
  for (int64_t m0 = 0; m0 < mid; m0 += kTile) {
    int64_t len = std::min(kTile, mid - m0);
    run_tile(prog, slots, inputs, scratch, row * mid + m0, len, y, stores);
    int64_t full = std::max<int64_t>(0, std::min(len, blocks_end - m0));
    for (int64_t j = 0; j < full; j += 8)
      for (int q = 0; q < 8; ++q) acc[q] += y[j + q];
    for (int64_t j = full; j < len; ++j) tail[ntail++] = y[j];
  }
  double s = 0;
  for (int q = 0; q < 8; ++q) s += acc[q];
  for (int t = 0; t < ntail; ++t) s += tail[t];
  return static_cast<float>(mean ? s / static_cast<double>(mid) : s);
}

// Rows [m0, m1) of columns [j0, j1) of the column reduction's slab starting at element `base`,
// each column summed from zero in double, rows in increasing order, into part[0, j1 - j0) (one
// row block of direct::sum_f32's order). All columns: the block's rows run as one span of tiles
// from the block's start; some (a column group): each row's part run as its own tiles (same
// elements; a program whose Pow reads a broadcast exponent is never split into groups, as its
// small-integer path depends on where a tile starts).
FN_MULTIVERSION
void column_block(const std::vector<Instr>& prog, const Slots& slots, const std::vector<Operand>& inputs,
                  float* scratch, int64_t base, int64_t m0, int64_t m1, int64_t inner, int64_t j0, int64_t j1,
                  double* part, float* const* stores) {
  float* y = scratch + static_cast<size_t>(slots.count + 2) * kTile;
  const int64_t width = j1 - j0;
  std::fill(part, part + width, 0.0);
  if (width == inner) {
    const int64_t begin = base + m0 * inner, end = base + m1 * inner;
    for (int64_t e0 = begin; e0 < end; e0 += kTile) {
      const int64_t len = std::min(kTile, end - e0);
      run_tile(prog, slots, inputs, scratch, e0, len, y, stores);
      for (int64_t t = 0, j = (e0 - begin) % inner; t < len;) {  // runs of one row's columns
        const int64_t run = std::min(inner - j, len - t);
        for (int64_t q = 0; q < run; ++q) part[j + q] += y[t + q];
        t += run;
        j += run;
        if (j == inner) j = 0;
      }
    }
    return;
  }
  for (int64_t m = m0; m < m1; ++m) {
    const int64_t row = base + m * inner + j0;
    for (int64_t t0 = 0; t0 < width; t0 += kTile) {
      const int64_t len = std::min(kTile, width - t0);
      run_tile(prog, slots, inputs, scratch, row + t0, len, y, stores);
      for (int64_t q = 0; q < len; ++q) part[t0 + q] += y[q];
    }
  }
}

// Columns [j0, j1) of a column reduction (inner > 1): per outer slab, its row blocks
// (direct::column_block_rows) summed apart and added in block order, as direct::sum_f32 does.
FN_MULTIVERSION
void reduce_columns(const std::vector<Instr>& prog, const Slots& slots, const std::vector<Operand>& inputs,
                    float* scratch, float* out, int64_t n, int64_t mid, int64_t inner, int64_t j0, int64_t j1,
                    bool mean, float* const* stores) {
  const int64_t width = j1 - j0, slab = mid * inner, rows = direct::column_block_rows(inner);
  std::vector<double> acc(static_cast<size_t>(width)), part(acc.size());
  double *a = acc.data(), *p = part.data();
  for (int64_t o = 0, outer = n / slab; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t m0 = 0; m0 < mid; m0 += rows) {
      column_block(prog, slots, inputs, scratch, o * slab, m0, std::min(mid, m0 + rows), inner, j0, j1, p, stores);
      for (int64_t j = 0; j < width; ++j) a[j] += p[j];
    }
    float* dst = out + o * inner + j0;
    for (int64_t j = 0; j < width; ++j) dst[j] = static_cast<float>(mean ? a[j] / static_cast<double>(mid) : a[j]);
  }
}

}  // namespace

void validate(const std::vector<Instr>& prog, size_t num_inputs) {
  if (prog.empty()) throw_error(Code::Internal, "fused elementwise: empty program");
  for (size_t k = 0; k < prog.size(); ++k) {
    const Instr& in = prog[k];
    if (in.op < kNeg || in.op > kLessEqual) throw_error(Code::Internal, "fused elementwise: bad opcode ", in.op);
    for (int ref : {in.a, is_binary(in.op) ? in.b : 0}) {
      bool ok =
          ref >= 0 ? static_cast<size_t>(ref) < num_inputs : static_cast<size_t>(-(static_cast<int64_t>(ref) + 1)) < k;
      if (!ok) throw_error(Code::Internal, "fused elementwise: bad operand ", ref, " in instruction ", k);
    }
  }
}

namespace {

// What a run needs besides its program and inputs, checked and set up once per call: the tile
// slots, the thread's scratch and the inputs with short repeating operands tiled.
class Prepared {
 public:
  Prepared(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, int64_t n, const Reduce& reduce,
           const std::vector<float*>& stores)
      : slots(checked(prog, inputs.size())) {
    if (!stores.empty() && stores.size() != prog.size())
      throw_error(Code::Internal, "fused elementwise: ", stores.size(), " stores for ", prog.size(), " instructions");
    st = stores.empty() ? nullptr : stores.data();
    if (reduce.kind != Reduce::kNone && (reduce.mid <= 0 || reduce.inner <= 0 || n % (reduce.mid * reduce.inner) != 0))
      throw_error(Code::Internal, "fused elementwise: bad reduction of ", n, " elements by ", reduce.mid, " x ",
                  reduce.inner);
    // Scratch reused by the thread's next runs (no allocation and zero-fill of (slots + 3) tiles
    // per call, which outweighed the arithmetic of small tensors); an unusually wide program's
    // scratch is its own.
    thread_local std::vector<float> kept;
    std::vector<float>& buf = slots.scratch() <= kKeep ? kept : own_;
    if (buf.size() < slots.scratch()) buf.resize(slots.scratch());
    scratch = buf.data();
    ins = &inputs;
    if (n > kTile) tile_short(inputs);
  }

  Slots slots;
  float* scratch = nullptr;
  const std::vector<Operand>* ins = nullptr;
  float* const* st = nullptr;

 private:
  static constexpr size_t kKeep = size_t{1} << 18;  // floats (1 MiB)

  static const std::vector<Instr>& checked(const std::vector<Instr>& prog, size_t num_inputs) {
    validate(prog, num_inputs);  // before Slots reads the operands
    return prog;
  }

  // A short operand repeating along the output (a per-channel scale or shift over NHWC, a bias)
  // straddles every tile: gathering it run by run cost a memmove per run (16 floats for 16
  // channels: 64 per tile). It is repeated once per call into a buffer instead, each tile reading
  // a span of that (when there are several tiles to read it).
  void tile_short(const std::vector<Operand>& inputs) {
    size_t extra = 0;
    for (const Operand& o : inputs)
      if (repeats_short(o)) extra += static_cast<size_t>(kTile + o.mod);
    if (extra == 0) return;
    thread_local std::vector<float> tiled_kept;
    std::vector<float>& tb = extra <= kKeep ? tiled_kept : tiled_own_;
    if (tb.size() < extra) tb.resize(extra);
    with_tiled_ = inputs;
    float* p = tb.data();
    for (Operand& o : with_tiled_) {
      if (!repeats_short(o)) continue;
      for (int64_t j = 0; j < kTile + o.mod; j += o.mod)
        std::copy(o.data, o.data + std::min(o.mod, kTile + o.mod - j), p + j);
      o.tiled = p;
      p += kTile + o.mod;
    }
    ins = &with_tiled_;
  }

  std::vector<float> own_, tiled_own_;
  std::vector<Operand> with_tiled_;
};

}  // namespace

void run(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, float* out, int64_t n,
         const Reduce& reduce, const std::vector<float*>& stores) {
  const Prepared pr(prog, inputs, n, reduce, stores);
  const bool reducing = reduce.kind != Reduce::kNone, mean = reduce.kind == Reduce::kMean;
  if (reducing && reduce.inner > 1) {
    const int64_t j0 = reduce.col_begin, j1 = reduce.col_end < 0 ? reduce.inner : reduce.col_end;
    if (j0 < 0 || j1 <= j0 || j1 > reduce.inner)
      throw_error(Code::Internal, "fused elementwise: bad column range [", j0, ", ", j1, ") of ", reduce.inner);
    reduce_columns(prog, pr.slots, *pr.ins, pr.scratch, out, n, reduce.mid, reduce.inner, j0, j1, mean, pr.st);
    return;
  }
  if (reducing) {
    for (int64_t row = 0, rows = n / reduce.mid; row < rows; ++row)
      out[row] = reduce_row(prog, pr.slots, *pr.ins, pr.scratch, row, reduce.mid, mean, pr.st);
    return;
  }
  for (int64_t i0 = 0; i0 < n; i0 += kTile)
    run_tile(prog, pr.slots, *pr.ins, pr.scratch, i0, std::min(kTile, n - i0), out + i0, pr.st);
}

int64_t column_blocks(int64_t n, const Reduce& reduce) {
  if (reduce.kind == Reduce::kNone || reduce.inner <= 1 || reduce.mid <= 0 || n % (reduce.mid * reduce.inner) != 0)
    return 0;
  const int64_t rows = direct::column_block_rows(reduce.inner);
  return n / (reduce.mid * reduce.inner) * ((reduce.mid + rows - 1) / rows);
}

void run_column_block(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, int64_t n,
                      const Reduce& reduce, int64_t block, double* partial, const std::vector<float*>& stores) {
  const int64_t count = column_blocks(n, reduce);
  if (block < 0 || block >= count)
    throw_error(Code::Internal, "fused elementwise: column block ", block, " of ", count);
  const Prepared pr(prog, inputs, n, reduce, stores);
  const int64_t rows = direct::column_block_rows(reduce.inner), per_slab = (reduce.mid + rows - 1) / rows;
  const int64_t o = block / per_slab, m0 = block % per_slab * rows;
  column_block(prog, pr.slots, *pr.ins, pr.scratch, o * reduce.mid * reduce.inner, m0, std::min(reduce.mid, m0 + rows),
               reduce.inner, 0, reduce.inner, partial, pr.st);
}

void finish_column_blocks(const double* partials, int64_t n, const Reduce& reduce, float* out) {
  const int64_t inner = reduce.inner, rows = direct::column_block_rows(inner);
  const int64_t per_slab = (reduce.mid + rows - 1) / rows;
  std::vector<double> acc(static_cast<size_t>(inner));
  double* a = acc.data();
  for (int64_t o = 0, outer = n / (reduce.mid * inner); o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t b = 0; b < per_slab; ++b) {
      const double* p = partials + (o * per_slab + b) * inner;
      for (int64_t j = 0; j < inner; ++j) a[j] += p[j];
    }
    float* dst = out + o * inner;
    for (int64_t j = 0; j < inner; ++j)
      dst[j] = static_cast<float>(reduce.kind == Reduce::kMean ? a[j] / static_cast<double>(reduce.mid) : a[j]);
  }
}

void tanh(const float* x, float* y, int64_t n) { apply(kTanh, Span{x, false}, Span{nullptr, false}, y, n); }
void sigmoid(const float* x, float* y, int64_t n) { apply(kSigmoid, Span{x, false}, Span{nullptr, false}, y, n); }

}  // namespace fused
}  // namespace fn
