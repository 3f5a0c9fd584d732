// Fused elementwise kernel. Every op but tanh applies the reference functor (so a fused chain
// computes bit for bit what the unfused ops do); the tile loops are compiled for AVX-512, AVX2
// and baseline x86-64 and picked at load time (target_clones).
#pragma GCC optimize("no-math-errno")   // lets sqrt vectorise (no errno is ever read)
#include "kernels/fused/elementwise.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/error.h"
#include "kernels/reference/elementwise.h"

#include "kernels/multiversion.h"

namespace fn {
namespace fused {

int opcode_of(const std::string& tf_op) {
  static const std::unordered_map<std::string, int> codes = {
      {"Neg", kNeg}, {"Abs", kAbs}, {"Square", kSquare}, {"Sqrt", kSqrt}, {"Rsqrt", kRsqrt},
      {"Exp", kExp}, {"Tanh", kTanh}, {"Sigmoid", kSigmoid}, {"Relu", kRelu},
      {"Reciprocal", kReciprocal}, {"AddV2", kAdd}, {"Add", kAdd}, {"BiasAdd", kAdd}, {"Sub", kSub},
      {"Mul", kMul}, {"RealDiv", kDiv}, {"Maximum", kMax}, {"Minimum", kMin},
      {"SquaredDifference", kSquaredDiff}, {"Cast", kCastBool}, {"Greater", kGreater},
      {"GreaterEqual", kGreaterEqual}, {"Less", kLess}, {"LessEqual", kLessEqual}};
  auto it = codes.find(tf_op);
  return it == codes.end() ? -1 : it->second;
}

namespace {

constexpr int64_t kTile = 256;   // 1 KiB per intermediate: a program's tiles stay in L1/L2

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

template <typename F>
__attribute__((always_inline)) inline void map1(const float* a, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(a[i]);
}
template <typename F>
__attribute__((always_inline)) inline void map2(const float* a, const float* b, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
}

FN_MULTIVERSION
void apply(int op, const float* a, const float* b, float* y, int64_t n) {
  switch (op) {
    case kNeg: map1(a, y, n, [](float v) { return -v; }); break;
    case kAbs: map1(a, y, n, [](float v) { return std::fabs(v); }); break;
    case kSquare: map1(a, y, n, [](float v) { return v * v; }); break;
    case kSqrt: map1(a, y, n, [](float v) { return std::sqrt(v); }); break;
    case kRsqrt: map1(a, y, n, [](float v) { return 1.f / std::sqrt(v); }); break;
    case kExp: map1(a, y, n, [](float v) { return ref::Exp::apply(v); }); break;
    case kTanh: map1(a, y, n, tanh1); break;
    case kSigmoid: map1(a, y, n, [](float v) { return ref::Sigmoid::apply(v); }); break;
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
    case kSquaredDiff: map2(a, b, y, n, [](float u, float v) { float d = u - v; return d * d; }); break;
    default: throw_error(Code::Internal, "fused elementwise: bad opcode ", op);
  }
}

// Input `o`'s elements for outputs [i0, i0 + n): a pointer into the input when it is not
// broadcast, else gathered into `buf`.
const float* load(const Operand& o, int64_t i0, int64_t n, float* buf) {
  if (o.div == 1 && o.mod >= i0 + n) return o.data + i0;
  if (o.mod == 1) {
    std::fill(buf, buf + n, o.data[0]);
    return buf;
  }
  int64_t q = i0 / o.div, r = i0 % o.div, idx = q % o.mod;
  for (int64_t j = 0; j < n; ++j) {
    buf[j] = o.data[idx];
    if (++r == o.div) { r = 0; if (++idx == o.mod) idx = 0; }
  }
  return buf;
}

}  // namespace

void run(const std::vector<Instr>& prog, const std::vector<Operand>& inputs, float* out, int64_t n) {
  const size_t ni = prog.size();
  // Each instruction's result lives in a tile slot; a program is a tree (every result is used
  // once), so a slot is free again once its user has run.
  std::vector<int> slot(ni, -1);
  std::vector<int> free_slots;
  int nslots = 0;
  for (size_t k = 0; k < ni; ++k) {
    for (int ref : {prog[k].a, is_binary(prog[k].op) ? prog[k].b : 0})
      if (ref < 0) free_slots.push_back(slot[-(ref + 1)]);
    if (free_slots.empty()) slot[k] = nslots++;
    else { slot[k] = free_slots.back(); free_slots.pop_back(); }
  }
  std::vector<float> scratch(static_cast<size_t>(nslots + 2) * kTile);
  float* gather_a = scratch.data() + static_cast<size_t>(nslots) * kTile;
  float* gather_b = gather_a + kTile;
  for (int64_t i0 = 0; i0 < n; i0 += kTile) {
    int64_t len = std::min(kTile, n - i0);
    for (size_t k = 0; k < ni; ++k) {
      const Instr& in = prog[k];
      auto operand = [&](int ref, float* buf) -> const float* {
        if (ref >= 0) return load(inputs[ref], i0, len, buf);
        return scratch.data() + static_cast<size_t>(slot[-(ref + 1)]) * kTile;
      };
      const float* a = operand(in.a, gather_a);
      const float* b = is_binary(in.op) ? operand(in.b, gather_b) : nullptr;
      float* y = k + 1 == ni ? out + i0 : scratch.data() + static_cast<size_t>(slot[k]) * kTile;
      apply(in.op, a, b, y, len);
    }
  }
}

void tanh(const float* x, float* y, int64_t n) { apply(kTanh, x, nullptr, y, n); }

}  // namespace fused
}  // namespace fn
