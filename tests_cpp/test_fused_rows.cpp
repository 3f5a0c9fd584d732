// kernels/fused/rows.h: a row program (a layer norm: mean, variance, normalisation with a
// per-column scale and a wrapping operand) computes, on any thread count and row length, the bits
// of its stages run one after the other over the whole tensor (fused::run, direct::sum_f32,
// direct::extreme_f32); malformed stages throw.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/direct/reduce.h"
#include "kernels/fused/rows.h"

using namespace fn;
using fused::RowStage;

namespace {

std::vector<float> values(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("a layer norm row program matches its stages run whole", "[fused_rows]") {
  for (int64_t len : {1, 7, 16, 17, 255, 256, 1000}) {
    for (int64_t rows : {1, 3, 64, 300}) {
      const int64_t n = rows * len;
      const std::vector<float> x = values(n, static_cast<unsigned>(len * 7 + rows));
      const std::vector<float> g = values(len, 3), eps{1e-5f};
      // a per-element operand of period 5 (wraps inside blocks: gathered)
      const std::vector<float> w = values(5, 4);
      // whole: max, mean, var = mean((x - mean)^2), y = (x - mean) * rsqrt(var + eps) * g * w + max
      std::vector<float> mx(static_cast<size_t>(rows)), mean(static_cast<size_t>(rows)), var(mean), r(mean),
          y(static_cast<size_t>(n));
      direct::extreme_f32(x.data(), mx.data(), rows, len, 1, true);
      direct::sum_f32(x.data(), mean.data(), rows, len, 1, true);
      fused::run({{fused::kSub, 0, 1}, {fused::kSquare, -1, 0}}, {{x.data(), 1, n}, {mean.data(), len, rows}},
                 var.data(), n, fused::Reduce{fused::Reduce::kMean, len});
      fused::run({{fused::kAdd, 0, 1}, {fused::kRsqrt, -1, 0}}, {{var.data(), 1, rows}, {eps.data(), 1, 1}}, r.data(),
                 rows);
      const std::vector<fused::Instr> norm{
          {fused::kSub, 0, 1}, {fused::kMul, -1, 2}, {fused::kMul, -2, 3}, {fused::kMul, -3, 4}, {fused::kAdd, -4, 5}};
      fused::run(norm,
                 {{x.data(), 1, n},
                  {mean.data(), len, rows},
                  {r.data(), len, rows},
                  {g.data(), 1, len},
                  {w.data(), 1, 5},
                  {mx.data(), len, rows}},
                 y.data(), n);
      std::vector<RowStage> st(5);
      st[0] = RowStage{false, RowStage::kMax, {{fused::kCastBool, 0, 0}}, {{-1, 0, 1, n}}, {}, {0}};
      st[1] = RowStage{false, RowStage::kMean, {{fused::kCastBool, 0, 0}}, {{-1, 0, 1, n}}, {}, {1}};
      st[2] = RowStage{false,
                       RowStage::kMean,
                       {{fused::kSub, 0, 1}, {fused::kSquare, -1, 0}},
                       {{-1, 0, 1, n}, {1, 0, len, rows}},
                       {},
                       {2}};
      st[3] = RowStage{
          true, RowStage::kNone, {{fused::kAdd, 0, 1}, {fused::kRsqrt, -1, 0}}, {{2, 0, 1, rows}, {-1, 2, 1, 1}}, {},
          {-1}};
      st[4] = RowStage{
          false,
          RowStage::kNone,
          norm,
          {{-1, 0, 1, n}, {1, 0, len, rows}, {3, 0, len, rows}, {-1, 1, 1, len}, {-1, 3, 1, 5}, {0, 0, len, rows}},
          {},
          {3}};
      for (int threads : {1, 2, 3}) {
        std::vector<float> mx2(mx.size()), mean2(mean.size()), var2(var.size()), y2(y.size());
        fused::run_rows(st, {x.data(), g.data(), eps.data(), w.data()},
                        {mx2.data(), mean2.data(), var2.data(), y2.data()}, rows, len, threads);
        INFO("len " << len << " rows " << rows << " threads " << threads);
        CHECK(same_bits(mx, mx2));
        CHECK(same_bits(mean, mean2));
        CHECK(same_bits(var, var2));
        CHECK(same_bits(y, y2));
      }
    }
  }
}

TEST_CASE("malformed row programs throw", "[fused_rows]") {
  const std::vector<float> x(8, 1.f);
  std::vector<float> out(8);
  auto run = [&](const std::vector<RowStage>& st) { fused::run_rows(st, {x.data()}, {out.data()}, 2, 4, 1); };
  const RowStage ok{false, RowStage::kSum, {{fused::kCastBool, 0, 0}}, {{-1, 0, 1, 8}}, {}, {0}};
  CHECK_NOTHROW(run({ok}));
  CHECK_THROWS(run({}));
  RowStage bad = ok;
  bad.inputs[0].index = 1;  // no such input
  CHECK_THROWS(run({bad}));
  bad = ok;
  bad.inputs[0] = {0, 0, 1, 8};  // reads itself
  CHECK_THROWS(run({bad}));
  bad = ok;
  bad.out = {5};  // no such output
  CHECK_THROWS(run({bad}));
  RowStage second{false, RowStage::kNone, {{fused::kNeg, 0, 0}}, {{0, 0, 3, 2}}, {}, {-1}};  // not a row rule
  CHECK_THROWS(run({ok, second}));
}
