// kernels/fused/blocks.h: a fused program run as blocks on the task pool computes the same bits
// as one run over the whole, for any thread count, broadcast, row reduction and extra output.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/direct/reduce.h"
#include "kernels/fused/blocks.h"

using namespace fn;

namespace {

std::vector<float> random_values(int64_t n, unsigned seed, bool specials = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  if (specials && n > 40) {
    v[3] = std::numeric_limits<float>::quiet_NaN();
    v[17] = std::numeric_limits<float>::infinity();
    v[static_cast<size_t>(n) - 2] = -std::numeric_limits<float>::infinity();
    v[30] = 0.f;
  }
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// gelu-tanh-like tree over x with a scale (`s`, operand 1) and a power whose exponent is
// operand 2: 0.5 * x * (1 + tanh(c * (x + k * x ** e))) * s, with c, k, 0.5 and 1 as operands
// 3..6 (scalars).
const std::vector<fused::Instr> kTree{
    {fused::kPow, 0, 2},  {fused::kMul, -1, 4}, {fused::kAdd, 0, -2},  {fused::kMul, -3, 3}, {fused::kTanh, -4, 0},
    {fused::kAdd, -5, 6}, {fused::kMul, 0, 5},  {fused::kMul, -7, -6}, {fused::kMul, -8, 1},
};

struct Inputs {
  std::vector<float> x, s, e;
  float c = 0.79788456f, k = 0.044715f, half = 0.5f, one = 1.f;
};

std::vector<fused::Operand> operands(Inputs& in, int64_t n, int64_t s_div, int64_t s_mod, int64_t e_div,
                                     int64_t e_mod) {
  return {{in.x.data(), 1, n},
          {in.s.data(), s_div, s_mod},
          {in.e.data(), e_div, e_mod},
          {&in.c, 1, 1},
          {&in.k, 1, 1},
          {&in.half, 1, 1},
          {&in.one, 1, 1}};
}

}  // namespace

TEST_CASE("fused blocks: elementwise trees give run()'s bits on 2, 3 and 8 threads, any broadcast") {
  // (s_div, s_mod): a bias-like period, a per-row value, a period no block is a multiple of;
  // the exponent: a scalar (small-integer Pow), a per-row value (3 or 2.5: gathered vs one).
  // `split`: blocks run on the pool (the broadcasts fit a block), else one run over the whole.
  struct Case {
    int64_t n, s_div, s_mod, e_div;
    bool split;
  };
  const std::vector<Case> cases{
      {131072, 1, 512, 0, true},        {131072 + 1, 1, 100, 0, true},     {100003, 1, 37, 0, false},
      {262144, 128, 2048, 128, true},   {262144 + 96, 96, 2731, 0, false}, {131072, 1, 131072, 0, true},
      {200000, 1000, 200, 1000, false}, {140000, 1, 1, 0, true},           {65536 * 3, 3000, 66, 0, false},
      {65536 * 3, 64, 3072, 0, true},   {65536 * 5, 64, 5120, 0, true},    {65536, 1, 512, 0, false},
  };
  for (const Case& c : cases) {
    Inputs in;
    in.x = random_values(c.n, 1, true);
    const int64_t s_len = c.s_mod;
    in.s = random_values(s_len, 2);
    const int64_t e_mod = c.e_div > 0 ? (c.n + c.e_div - 1) / c.e_div : 1;
    in.e.assign(static_cast<size_t>(e_mod), 3.f);
    for (size_t i = 1; i < in.e.size(); i += 3) in.e[i] = 2.5f;
    const auto ops = operands(in, c.n, c.s_div, c.s_mod, c.e_div > 0 ? c.e_div : 1, e_mod);
    std::vector<float> want(static_cast<size_t>(c.n));
    fused::run(kTree, ops, want.data(), c.n);
    for (int threads : {1, 2, 3, 8}) {
      std::vector<float> got(static_cast<size_t>(c.n), -7.f);
      const int64_t blocks = fused::run_blocks(kTree, ops, got.data(), c.n, fused::Reduce{}, {}, threads);
      INFO("n " << c.n << " s " << c.s_div << "x" << c.s_mod << " threads " << threads);
      CHECK(same_bits(got, want));
      CHECK((blocks > 1) == (c.split && threads > 1));
    }
  }
}

TEST_CASE("fused blocks: in place over an input, and extra outputs, give run()'s bits") {
  const int64_t n = 5 * fused::kBlockElements + 5;
  Inputs in;
  in.x = random_values(n, 3, true);
  in.s = random_values(64, 4);
  in.e.assign(1, 3.f);
  auto ops = operands(in, n, 1, 64, 1, 1);
  std::vector<float> want(static_cast<size_t>(n)), want_a(want.size()), want_b(want.size());
  std::vector<float*> stores(kTree.size(), nullptr);
  stores[1] = want_a.data();
  stores[4] = want_b.data();
  fused::run(kTree, ops, want.data(), n, fused::Reduce{}, stores);
  std::vector<float> got_a(want.size()), got_b(want.size());
  stores[1] = got_a.data();
  stores[4] = got_b.data();
  std::vector<float> x = in.x;  // the output overwrites its own input, tile by tile
  ops[0].data = x.data();
  CHECK(fused::run_blocks(kTree, ops, x.data(), n, fused::Reduce{}, stores, 2) == 6);
  CHECK(same_bits(x, want));
  CHECK(same_bits(got_a, want_a));
  CHECK(same_bits(got_b, want_b));
}

TEST_CASE("fused blocks: row reductions split by whole rows give run()'s bits") {
  // (x - mean_row) ** 2 summed or averaged per row (a layer norm's variance): rows of 128 (many
  // per block), 1000 (not a tile multiple), 40000 (a row longer than a block: one thread).
  const std::vector<fused::Instr> prog{{fused::kSquaredDiff, 0, 1}};
  for (int64_t mid : {128, 1000, 40000}) {
    for (int kind : {fused::Reduce::kSum, fused::Reduce::kMean}) {
      const int64_t rows = mid == 40000 ? 4 : mid == 128 ? 2000 : 700, n = rows * mid;
      const std::vector<float> x = random_values(n, 5, true), mean = random_values(rows, 6);
      const std::vector<fused::Operand> ops{{x.data(), 1, n}, {mean.data(), mid, rows}};
      fused::Reduce red;
      red.kind = kind;
      red.mid = mid;
      std::vector<float> want(static_cast<size_t>(rows)), data_want(static_cast<size_t>(n));
      fused::run(prog, ops, want.data(), n, red, {data_want.data()});
      for (int threads : {2, 3}) {
        std::vector<float> got(static_cast<size_t>(rows)), data_got(static_cast<size_t>(n));
        const int64_t blocks = fused::run_blocks(prog, ops, got.data(), n, red, {data_got.data()}, threads);
        INFO("mid " << mid << " kind " << kind << " threads " << threads);
        CHECK((blocks > 1) == (mid != 40000));  // a row longer than a block: whole
        CHECK(same_bits(got, want));
        CHECK(same_bits(data_got, data_want));
      }
    }
  }
}

TEST_CASE("fused blocks: column reductions split by column groups or row blocks give run()'s bits") {
  // g * (x > 0) summed over rows (a relu's bias gradient) with the relu mask kept as an extra
  // output, a per-column scale (bias-like) and a per-row one; 4096 and 2500 columns (groups of
  // one tile and of more than one), 3 x 100 x 2048 (outer blocks); 512 x 512 and 4096 x 33 (fewer
  // than 2,048 columns: row blocks summed apart, added in order). Sum and mean.
  const std::vector<fused::Instr> prog{
      {fused::kGreater, 0, 3}, {fused::kMul, -1, 1}, {fused::kMul, -2, 2}, {fused::kMul, -3, 4}};
  struct Case {
    int64_t outer, mid, inner;
  };
  for (const Case& c :
       {Case{1, 64, 4096}, Case{1, 80, 2500}, Case{3, 100, 2048}, Case{1, 512, 512}, Case{1, 4096, 33}}) {
    for (int kind : {fused::Reduce::kSum, fused::Reduce::kMean}) {
      const int64_t n = c.outer * c.mid * c.inner;
      const std::vector<float> x = random_values(n, 11, true), g = random_values(n, 12, true);
      const std::vector<float> col = random_values(c.inner, 13), row = random_values(c.outer * c.mid, 14);
      const float zero = 0.f;
      const std::vector<fused::Operand> ops{{x.data(), 1, n},
                                            {g.data(), 1, n},
                                            {col.data(), 1, c.inner},
                                            {&zero, 1, 1},
                                            {row.data(), c.inner, c.outer * c.mid}};
      fused::Reduce red;
      red.kind = kind;
      red.mid = c.mid;
      red.inner = c.inner;
      std::vector<float> want(static_cast<size_t>(c.outer * c.inner)), mask_want(static_cast<size_t>(n));
      std::vector<float*> stores(prog.size(), nullptr);
      stores[1] = mask_want.data();
      fused::run(prog, ops, want.data(), n, red, stores);
      for (int threads : {2, 3}) {
        std::vector<float> got(want.size(), -7.f), mask_got(mask_want.size(), -7.f);
        stores[1] = mask_got.data();
        const int64_t groups = fused::run_blocks(prog, ops, got.data(), n, red, stores, threads);
        INFO("outer " << c.outer << " mid " << c.mid << " inner " << c.inner << " kind " << kind);
        CHECK(groups > 1);
        CHECK(same_bits(got, want));
        CHECK(same_bits(mask_got, mask_want));
      }
    }
  }
  // A Pow reading a per-row exponent (3 or 2.5: small-integer product or powf by tile) stays whole.
  const int64_t mid = 64, inner = 4096, n = mid * inner;
  const std::vector<float> x = random_values(n, 7);
  std::vector<float> e(static_cast<size_t>(mid), 3.f);
  for (size_t i = 1; i < e.size(); i += 2) e[i] = 2.5f;
  const std::vector<fused::Operand> ops{{x.data(), 1, n}, {e.data(), inner, mid}};
  fused::Reduce red;
  red.kind = fused::Reduce::kSum;
  red.mid = mid;
  red.inner = inner;
  const std::vector<fused::Instr> pw{{fused::kAbs, 0, 0}, {fused::kPow, -1, 1}};
  std::vector<float> want(static_cast<size_t>(inner)), got(want.size());
  fused::run(pw, ops, want.data(), n, red);
  CHECK(fused::run_blocks(pw, ops, got.data(), n, red, {}, 2) == 1);
  CHECK(same_bits(got, want));
}

TEST_CASE("fused blocks: narrow column reductions split by row blocks equal direct::sum_f32 on any thread count") {
  // x * 1 summed over rows (direct::sum_f32's input) next to a tree with a per-column scale, a
  // per-row shift and a per-row exponent (3 or 2.5: Pow's small-integer path per tile); odd sizes
  // (517 x 389), one row per slab (300 x 1 x 500), two columns (70000 x 2), two slabs, NaN and
  // infinities. Every thread count and a repeated call give the same bits; the double
  // reference (rows in plain order) agrees within float rounding.
  const float one = 1.f;
  struct Case {
    int64_t outer, mid, inner;
  };
  for (const Case& c : {Case{1, 517, 389}, Case{300, 1, 500}, Case{1, 70000, 2}, Case{2, 300, 389}, Case{1, 40, 33}}) {
    const int64_t n = c.outer * c.mid * c.inner;
    const std::vector<float> x = random_values(n, 21, true), col = random_values(c.inner, 22);
    const std::vector<float> row = random_values(c.outer * c.mid, 23);
    std::vector<float> e(static_cast<size_t>(c.outer * c.mid), 3.f);
    for (size_t i = 1; i < e.size(); i += 2) e[i] = 2.5f;
    const std::vector<fused::Operand> ops{{x.data(), 1, n},
                                          {&one, 1, 1},
                                          {col.data(), 1, c.inner},
                                          {row.data(), c.inner, c.outer * c.mid},
                                          {e.data(), c.inner, c.outer * c.mid}};
    const std::vector<fused::Instr> copy{{fused::kMul, 0, 1}};
    const std::vector<fused::Instr> tree{
        {fused::kAbs, 0, 0}, {fused::kPow, -1, 4}, {fused::kMul, -2, 2}, {fused::kAdd, -3, 3}};
    for (int kind : {fused::Reduce::kSum, fused::Reduce::kMean}) {
      fused::Reduce red;
      red.kind = kind;
      red.mid = c.mid;
      red.inner = c.inner;
      INFO("outer " << c.outer << " mid " << c.mid << " inner " << c.inner << " kind " << kind);
      std::vector<float> direct_sum(static_cast<size_t>(c.outer * c.inner));
      direct::sum_f32(x.data(), direct_sum.data(), c.outer, c.mid, c.inner, kind == fused::Reduce::kMean);
      for (size_t i = 0; i < direct_sum.size(); ++i) {  // the order's sums are the sums
        const int64_t o = static_cast<int64_t>(i) / c.inner, j = static_cast<int64_t>(i) % c.inner;
        double s = 0;
        for (int64_t m = 0; m < c.mid; ++m) s += x[static_cast<size_t>((o * c.mid + m) * c.inner + j)];
        if (kind == fused::Reduce::kMean) s /= static_cast<double>(c.mid);
        if (std::isnan(s))
          CHECK(std::isnan(direct_sum[i]));
        else if (std::isinf(s))
          CHECK(direct_sum[i] == static_cast<float>(s));
        else
          CHECK(std::fabs(direct_sum[i] - s) <= 1e-6 * (1 + std::fabs(s)));
      }
      for (const auto* prog : {&copy, &tree}) {
        std::vector<float> want(direct_sum.size());
        fused::run(*prog, ops, want.data(), n, red);
        if (prog == &copy) CHECK(same_bits(want, direct_sum));
        const int64_t expect_blocks = fused::column_blocks(n, red);
        for (int threads : {1, 2, 3, 4, 2}) {
          std::vector<float> got(want.size(), -7.f);
          const int64_t blocks = fused::run_blocks(*prog, ops, got.data(), n, red, {}, threads);
          CHECK(same_bits(got, want));
          CHECK(blocks == (threads > 1 && n >= 4 * fused::kBlockElements ? expect_blocks : 1));
        }
      }
    }
  }
  // The blocks: whole rows of about 32,768 elements, per slab.
  fused::Reduce red;
  red.kind = fused::Reduce::kSum;
  red.mid = 517;
  red.inner = 389;
  CHECK(direct::column_block_rows(389) == 84);
  CHECK(fused::column_blocks(517 * 389 * 2, red) == 2 * 7);
  CHECK(fused::column_blocks(517 * 389, fused::Reduce{}) == 0);
  CHECK_THROWS(fused::run_column_block({{fused::kNeg, 0, 0}}, {{nullptr, 1, 1}}, 517 * 389, red, 7, nullptr));
}

TEST_CASE("fused blocks: a result read by two instructions is computed once, same bits on any thread count") {
  // v = tanh(x) * s[col] read twice: v * x + (v + x), stored (an extra output) or not, whole or
  // summed over rows (517 x 389: row blocks) or per row; equal to the tree that computes v twice.
  const int64_t rows = 517, cols = 389, n = rows * cols;
  const std::vector<float> x = random_values(n, 31, true), s = random_values(cols, 32);
  const std::vector<fused::Operand> ops{{x.data(), 1, n}, {s.data(), 1, cols}};
  const std::vector<fused::Instr> dag{
      {fused::kTanh, 0, 0}, {fused::kMul, -1, 1}, {fused::kMul, -2, 0}, {fused::kAdd, -2, 0}, {fused::kAdd, -3, -4}};
  const std::vector<fused::Instr> tree{{fused::kTanh, 0, 0}, {fused::kMul, -1, 1}, {fused::kMul, -2, 0},
                                       {fused::kTanh, 0, 0}, {fused::kMul, -4, 1}, {fused::kAdd, -5, 0},
                                       {fused::kAdd, -3, -6}};
  for (int kind : {fused::Reduce::kNone, fused::Reduce::kSum, fused::Reduce::kMean}) {
    for (int64_t inner : {int64_t{cols}, int64_t{1}}) {
      if (kind == fused::Reduce::kNone && inner == 1) continue;
      fused::Reduce red;
      red.kind = kind;
      red.mid = inner == 1 ? cols : rows;
      red.inner = inner;
      const size_t outs = kind == fused::Reduce::kNone ? static_cast<size_t>(n) : static_cast<size_t>(n / red.mid);
      INFO("kind " << kind << " inner " << inner);
      std::vector<float> want(outs), v_want(static_cast<size_t>(n));
      fused::run(tree, ops, want.data(), n, red);
      std::vector<float*> stores(dag.size(), nullptr);
      stores[1] = v_want.data();
      std::vector<float> got(outs, -7.f);
      fused::run(dag, ops, got.data(), n, red);
      CHECK(same_bits(got, want));
      for (int threads : {1, 2, 3}) {
        std::vector<float> got_t(outs, -7.f), v_got(static_cast<size_t>(n), -7.f);
        stores[1] = v_got.data();
        fused::run_blocks(dag, ops, got_t.data(), n, red, stores, threads);
        CHECK(same_bits(got_t, want));
        std::vector<float> v(static_cast<size_t>(n));
        fused::run({{fused::kTanh, 0, 0}, {fused::kMul, -1, 1}}, ops, v.data(), n);
        CHECK(same_bits(v_got, v));
      }
    }
  }
  // A reference to itself or a later instruction is still refused.
  std::vector<float> out(static_cast<size_t>(n));
  CHECK_THROWS(fused::run({{fused::kNeg, 0, 0}, {fused::kAdd, -1, -2}}, ops, out.data(), n));
}

TEST_CASE("fused blocks: a streaming program splits from eight blocks, a compute-bound one from two") {
  // x * s + t with a bias-like s and t of 192 values: memory-bound, worth a second thread only
  // over a long pass; the same with a sqrt is compute-bound (four blocks suffice).
  const std::vector<fused::Instr> axpb{{fused::kMul, 0, 1}, {fused::kAdd, -1, 2}};
  const std::vector<fused::Instr> root{
      {fused::kMul, 0, 1}, {fused::kAdd, -1, 2}, {fused::kAbs, -2, 0}, {fused::kSqrt, -3, 0}};
  for (int64_t n : {4 * fused::kBlockElements, 8 * fused::kBlockElements + 3 * 192}) {
    const std::vector<float> x = random_values(n, 8, true), s = random_values(192, 9), t = random_values(192, 10);
    const std::vector<fused::Operand> ops{{x.data(), 1, n}, {s.data(), 1, 192}, {t.data(), 1, 192}};
    for (const auto* prog : {&axpb, &root}) {
      std::vector<float> want(static_cast<size_t>(n)), got(want.size());
      fused::run(*prog, ops, want.data(), n);
      const int64_t blocks = fused::run_blocks(*prog, ops, got.data(), n, fused::Reduce{}, {}, 2);
      INFO("n " << n << " instructions " << prog->size());
      CHECK(same_bits(got, want));
      CHECK((blocks > 1) == (prog == &root || n > 8 * fused::kBlockElements));
    }
  }
}

TEST_CASE("fused blocks: a malformed program throws before any block runs") {
  const int64_t n = 4 * fused::kBlockElements;
  std::vector<float> x(static_cast<size_t>(n), 1.f), out(x.size());
  const std::vector<fused::Operand> ops{{x.data(), 1, n}};
  CHECK_THROWS(fused::run_blocks({{fused::kAdd, 0, 5}}, ops, out.data(), n, fused::Reduce{}, {}, 2));
  CHECK_THROWS(fused::run_blocks({{fused::kNeg, -1, 0}}, ops, out.data(), n, fused::Reduce{}, {}, 2));
}
