// Micro benchmark of kernels/fused/elementwise.h: typical fused trees (gelu-tanh forward and
// backward, a layer norm's normalisation and variance, an Adam update, a relu backward with a
// broadcast bias and its bias gradient) and every op alone, through fused::run on the calling
// thread. Prints ns per element, the fastest of the rounds. Not a test: build target
// bench_fused_elementwise (docs/notes/perf11v.md has its numbers).
//   build/dev/bench_fused_elementwise [rounds [tree [threads [rows]]]]  (rows x 512; tree "all": every tree)
// threads > 0: through fused::run_blocks with that many threads (the task pool) instead.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/fused/blocks.h"
#include "kernels/fused/elementwise.h"
#include "kernels/fused/log.h"
#include "kernels/fused/pow.h"

using namespace fn;
using fused::Instr;

namespace {

// Builds a tree: each call appends one instruction and returns its operand reference.
struct Tree {
  std::vector<Instr> prog;
  int op1(int op, int a) { return push(op, a, 0); }
  int op2(int op, int a, int b) { return push(op, a, b); }
  int push(int op, int a, int b) {
    prog.push_back(Instr{op, a, b});
    return -static_cast<int>(prog.size());
  }
};

struct Case {
  std::string name;
  std::vector<Instr> prog;
  std::vector<fused::Operand> ops;
  int64_t n, outs;
  fused::Reduce red;
};

std::vector<float> values(int64_t n, unsigned seed, float lo = -3.f, float hi = 3.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

// Scalars live here (stable addresses).
std::vector<float> g_scalars(64);
int g_next_scalar = 0;
fused::Operand scalar(float v) {
  float* p = &g_scalars[static_cast<size_t>(g_next_scalar++)];
  *p = v;
  return fused::Operand{p, 1, 1};
}

// gelu-tanh: 0.5 x (1 + tanh(c (x + k x^3))). Inputs: x, then scalars.
int gelu_fwd(Tree& t, int x, int three, int c, int k, int half, int one) {
  int x3 = t.op2(fused::kPow, x, three);
  int kx3 = t.op2(fused::kMul, x3, k);
  int in = t.op2(fused::kAdd, x, kx3);
  int th = t.op1(fused::kTanh, t.op2(fused::kMul, in, c));
  int p1 = t.op2(fused::kAdd, th, one);
  int hx = t.op2(fused::kMul, x, half);
  return t.op2(fused::kMul, hx, p1);
}

// The float32 Log kernel and the fused Pow with one non-integer exponent: fused::log/pow against
// the loops they ran before (std::log/std::pow per element), over 16,384 L2-resident values
// spanning many binades; fastest of `rounds`, ns/element.
void bench_log(int rounds) {
  const int64_t m = 16384;
  std::vector<float> x(static_cast<size_t>(m)), out(x.size());
  std::mt19937 gen(22);
  std::uniform_real_distribution<float> e(-30.f, 30.f);
  for (float& v : x) v = std::exp2(e(gen));
  auto time = [&](auto&& body) {
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      body();
      const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, ns / static_cast<double>(m));
    }
    return best;
  };
  const double fused_ns = time([&] { fused::log(x.data(), out.data(), m); });
  const double libm_ns = time([&] {
    for (int64_t i = 0; i < m; ++i) out[static_cast<size_t>(i)] = std::log(x[static_cast<size_t>(i)]);
  });
  for (float e : {-0.5f, 1.5f}) {  // Pow with one non-integer exponent: fused::pow against std::pow
    const double pow_ns = time([&] { fused::pow(x.data(), &e, 0, out.data(), m); });
    const double libm_pow_ns = time([&] {
      for (int64_t i = 0; i < m; ++i) out[static_cast<size_t>(i)] = std::pow(x[static_cast<size_t>(i)], e);
    });
    std::printf("pow %-18g %6d %10.3f\n%-22s %6d %10.3f\n", e, 1, pow_ns, "std::pow loop", 1, libm_pow_ns);
  }
  std::printf("%-22s %6d %10.3f\n%-22s %6d %10.3f\n", "log (fused::log)", 1, fused_ns, "std::log loop", 1, libm_ns);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  std::string only = argc > 2 ? argv[2] : "";  // a tree's name: time only that one
  if (only == "all") only.clear();
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  auto run = [threads](const Case& c, float* out) {
    if (threads > 0)
      fused::run_blocks(c.prog, c.ops, out, c.n, c.red, {}, threads);
    else
      fused::run(c.prog, c.ops, out, c.n, c.red);
  };
  const int64_t rows = argc > 4 ? std::atoll(argv[4]) : 512, d = 512, n = rows * d;  // an MLP's activations
  std::vector<std::vector<float>> keep;
  auto data = [&](int64_t len, unsigned seed, float lo = -3.f, float hi = 3.f) {
    keep.push_back(values(len, seed, lo, hi));
    return keep.back().data();
  };
  keep.reserve(64);
  std::vector<Case> cases;
  {  // gelu-tanh forward
    Tree t;
    Case c{"gelu_tanh_fwd",
           {},
           {{data(n, 1), 1, n}, scalar(3.f), scalar(0.7978845608f), scalar(0.044715f), scalar(0.5f), scalar(1.f)},
           n,
           n,
           {}};
    gelu_fwd(t, 0, 1, 2, 3, 4, 5);
    c.prog = t.prog;
    cases.push_back(c);
  }
  {  // gelu-tanh backward: dy * (0.5 (1 + th) + 0.5 x (1 - th^2) c (1 + 3 k x^2)), th recomputed
    Tree t;
    Case c{"gelu_tanh_bwd",
           {},
           {{data(n, 2), 1, n},
            {data(n, 3), 1, n},
            scalar(3.f),
            scalar(0.7978845608f),
            scalar(0.044715f),
            scalar(0.5f),
            scalar(1.f),
            scalar(0.134145f),
            scalar(2.f)},
           n,
           n,
           {}};
    auto th = [&]() {
      int x3 = t.op2(fused::kPow, 0, 2);
      int in = t.op2(fused::kAdd, 0, t.op2(fused::kMul, x3, 4));
      return t.op1(fused::kTanh, t.op2(fused::kMul, in, 3));
    };
    int a = t.op2(fused::kMul, t.op2(fused::kAdd, th(), 6), 5);
    int sech2 = t.op2(fused::kSub, 6, t.op1(fused::kSquare, th()));
    int poly = t.op2(fused::kAdd, t.op2(fused::kMul, t.op2(fused::kPow, 0, 8), 7), 6);
    int b = t.op2(fused::kMul, t.op2(fused::kMul, t.op2(fused::kMul, t.op2(fused::kMul, 0, 5), sech2), 3), poly);
    t.op2(fused::kMul, 1, t.op2(fused::kAdd, a, b));
    c.prog = t.prog;
    cases.push_back(c);
    Case g = c;  // an MLP's bias gradient: the same tree summed over rows (512 columns)
    g.name = "gelu_tanh_bwd_colsum";
    g.outs = d;
    g.red.kind = fused::Reduce::kSum;
    g.red.inner = d;
    g.red.mid = rows;
    cases.push_back(g);
  }
  {  // layer norm: (x - mean[row]) * rstd[row] * gamma[col] + beta[col]
    Tree t;
    Case c{"layernorm_norm",
           {},
           {{data(n, 4), 1, n},
            {data(rows, 5), d, rows},
            {data(rows, 6, 0.5f, 2.f), d, rows},
            {data(d, 7), 1, d},
            {data(d, 8), 1, d}},
           n,
           n,
           {}};
    int v = t.op2(fused::kMul, t.op2(fused::kSub, 0, 1), 2);
    t.op2(fused::kAdd, t.op2(fused::kMul, v, 3), 4);
    c.prog = t.prog;
    cases.push_back(c);
  }
  {  // layer norm variance: mean over a row of (x - mean[row])^2
    Tree t;
    Case c{"layernorm_var", {}, {{data(n, 9), 1, n}, {data(rows, 10), d, rows}}, n, rows, {}};
    t.op2(fused::kSquaredDiff, 0, 1);
    c.prog = t.prog;
    c.red.kind = fused::Reduce::kMean;
    c.red.mid = d;
    cases.push_back(c);
  }
  {  // Adam: p - lr * (b1 m + (1 - b1) g) / (sqrt(b2 v + (1 - b2) g g) + eps)
    Tree t;
    Case c{"adam_update",
           {},
           {{data(n, 11), 1, n},
            {data(n, 12), 1, n},
            {data(n, 13), 1, n},
            {data(n, 14, 0.f, 1.f), 1, n},
            scalar(0.9f),
            scalar(0.1f),
            scalar(0.999f),
            scalar(0.001f),
            scalar(1e-7f),
            scalar(0.001f)},
           n,
           n,
           {}};
    int m = t.op2(fused::kAdd, t.op2(fused::kMul, 2, 4), t.op2(fused::kMul, 1, 5));
    int v = t.op2(fused::kAdd, t.op2(fused::kMul, 3, 6), t.op2(fused::kMul, t.op2(fused::kMul, 1, 1), 7));
    int den = t.op2(fused::kAdd, t.op1(fused::kSqrt, v), 8);
    t.op2(fused::kSub, 0, t.op2(fused::kMul, t.op2(fused::kDiv, m, den), 9));
    c.prog = t.prog;
    cases.push_back(c);
  }
  {  // relu backward through a bias: dy * (x + b[col] > 0)
    Tree t;
    Case c{"relu_bwd_bias", {}, {{data(n, 15), 1, n}, {data(n, 16), 1, n}, {data(d, 17), 1, d}, scalar(0.f)}, n, n, {}};
    t.op2(fused::kMul, 0, t.op1(fused::kCastBool, t.op2(fused::kGreater, t.op2(fused::kAdd, 1, 2), 3)));
    c.prog = t.prog;
    cases.push_back(c);
    Case g = c;  // its bias gradient: the same tree summed over rows
    g.name = "relu_bwd_bias_colsum";
    g.outs = d;
    g.red.kind = fused::Reduce::kSum;
    g.red.inner = d;
    g.red.mid = rows;
    cases.push_back(g);
  }
  {  // a softmax's denominator: sum over a row of exp(x - max[row])
    Tree t;
    Case c{"softmax_exp_sum", {}, {{data(n, 18), 1, n}, {data(rows, 19, 2.f, 3.f), d, rows}}, n, rows, {}};
    t.op1(fused::kExp, t.op2(fused::kSub, 0, 1));
    c.prog = t.prog;
    c.red.kind = fused::Reduce::kSum;
    c.red.mid = d;
    cases.push_back(c);
  }
  {  // every op alone over an L2-resident tensor: x op y (y a tensor, or the scalar 3 for Pow)
    const int64_t m = 16384;
    const char* names[] = {"neg",  "abs",        "square",   "sqrt",    "rsqrt",      "exp",  "tanh",   "sigmoid",
                           "relu", "reciprocal", "castbool", "add",     "sub",        "mul",  "div",    "max",
                           "min",  "sqdiff",     "pow3",     "greater", "greater_eq", "less", "less_eq"};
    const float* x = data(m, 20, 0.1f, 3.f);
    const float* y = data(m, 21, 0.1f, 3.f);
    for (int op = fused::kNeg; op <= fused::kLessEqual; ++op) {
      Case c{std::string("op_") + names[op],
             {{op, 0, op == fused::kPow ? 2 : 1}},
             {{x, 1, m}, {y, 1, m}, scalar(3.f)},
             m,
             m,
             {}};
      cases.push_back(c);
    }
  }
  std::printf("%-22s %6s %10s\n", "tree", "instrs", "ns/el");
  for (const Case& c : cases) {
    if (!only.empty() && c.name != only) continue;
    std::vector<float> out(static_cast<size_t>(c.outs));
    run(c, out.data());  // warm
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
      const int reps = 3;
      auto t0 = std::chrono::steady_clock::now();
      for (int q = 0; q < reps; ++q) run(c, out.data());
      const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, ns / reps / static_cast<double>(c.n));
    }
    std::printf("%-22s %6zu %10.3f\n", c.name.c_str(), c.prog.size(), best);
    if (c.name == "op_exp") {  // the loop the kernel ran before fused::exp: std::exp per element
      const float* x = c.ops[0].data;
      double before = 1e30;
      for (int r = 0; r < rounds; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int64_t i = 0; i < c.n; ++i) out[static_cast<size_t>(i)] = std::exp(x[i]);
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        before = std::min(before, ns / static_cast<double>(c.n));
      }
      std::printf("%-22s %6d %10.3f\n", "std::exp loop", 1, before);
    }
  }
  if (only.empty() || only == "log") bench_log(rounds);
  return 0;
}
