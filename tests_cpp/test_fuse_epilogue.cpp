// passes/fuse_epilogue.cpp: a contraction whose only reader is an elementwise computation over
// its output runs that computation as its epilogue. Fused and unfused graphs give the same
// bits (NaN and inf included), on oneDNN-sized problems and on the small-problem kernels.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "exec/plan.h"
#include "passes/passes.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {

EagerPtr random_tensor(const Shape& s, uint32_t seed, bool specials = false) {
  auto t = make_tensor(DType::Float32, s);
  uint32_t x = seed * 2654435761u + 7;
  const float sp[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity(), -0.f};
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    x = x * 1664525u + 1013904223u;
    t->data<float>()[i] = -2.f + 4.f * static_cast<float>(x >> 8) / static_cast<float>(1u << 24);
    if (specials && (x >> 4) % 89 == 0) t->data<float>()[i] = sp[(x >> 12) % 4];
  }
  return t;
}

TensorPtr op1(const char* op, TensorPtr x) { return dispatch1(op, {std::move(x)}); }
TensorPtr op2(const char* op, TensorPtr x, TensorPtr y) { return dispatch1(op, {std::move(x), std::move(y)}); }

// Same bits, or NaN in both.
void check_same_bits(const EagerTensor& got, const EagerTensor& want) {
  REQUIRE(got.shape() == want.shape());
  int64_t differ = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    float a = got.data<float>()[i], b = want.data<float>()[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    differ += std::memcmp(&a, &b, sizeof(float)) != 0;
  }
  CHECK(differ == 0);
}

int epilogues(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.attrs.has("epilogue_program");
  return n;
}

using Tail = std::function<TensorPtr(TensorPtr y, TensorPtr vec, TensorPtr full)>;

// Conv2D or MatMul (x, w) -> tail(y, a [channels] vector, a tensor of y's shape) as the output.
struct Case {
  std::shared_ptr<Graph> g = std::make_shared<Graph>("f");
  std::vector<EagerPtr> in;
};

Case conv_case(int64_t n, int64_t hw, int64_t ic, int64_t oc, const Tail& tail) {
  Case c;
  Shape xs{n, hw, hw, ic}, ws{3, 3, ic, oc}, ys{n, hw, hw, oc};
  GraphBuilder b(c.g);
  ContextScope scope(&b);
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, xs});
  auto w = b.add_placeholder("w", TensorSpec{DType::Float32, ws});
  auto v = b.add_placeholder("v", TensorSpec{DType::Float32, Shape{oc}});
  auto r = b.add_placeholder("r", TensorSpec{DType::Float32, ys});
  auto y = dispatch1("Conv2D", {x, w},
                     Attrs{{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"padding", std::string("SAME")}});
  c.g->outputs.push_back(NodeOutput{tail(y, v, r)->node, 0});
  c.in = {random_tensor(xs, 1, true), random_tensor(ws, 2), random_tensor(Shape{oc}, 3), random_tensor(ys, 4, true)};
  return c;
}

Case matmul_case(int64_t m, int64_t k, int64_t n, const Tail& tail) {
  Case c;
  GraphBuilder b(c.g);
  ContextScope scope(&b);
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{m, k}});
  auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{k, n}});
  auto v = b.add_placeholder("v", TensorSpec{DType::Float32, Shape{n}});
  auto r = b.add_placeholder("r", TensorSpec{DType::Float32, Shape{m, n}});
  c.g->outputs.push_back(NodeOutput{tail(dispatch1("MatMul", {x, w}), v, r)->node, 0});
  c.in = {random_tensor(Shape{m, k}, 5, true), random_tensor(Shape{k, n}, 6), random_tensor(Shape{n}, 7),
          random_tensor(Shape{m, n}, 8, true)};
  return c;
}

// The reference is the graph optimised up to the epilogue pass: TF's contraction chains fused
// (their Relu maps NaN to 0, as TF's does) and elementwise trees fused (the fused kernel's
// formulas), the tail a separate step. The epilogue pass must not change a bit of it.
void check_case(Case c, int want_epilogues) {
  auto f = optimize(*c.g);
  CHECK(epilogues(*f) == want_epilogues);
  if (want_epilogues) CHECK(Plan::compile(f)->num_steps() == 1);
  auto ref = Plan::compile(fuse_elementwise(*fuse_contractions(*c.g)))->run(c.in), got = Plan::compile(f)->run(c.in);
  check_same_bits(*got[0], *ref[0]);
}

const std::vector<std::pair<const char*, Tail>>& tails() {
  static const std::vector<std::pair<const char*, Tail>> t = {
      {"relu (no bias)", [](TensorPtr y, TensorPtr, TensorPtr) { return op1("Relu", y); }},
      {"sigmoid(y) * v (a tree)", [](TensorPtr y, TensorPtr v, TensorPtr) { return op2("Mul", op1("Sigmoid", y), v); }},
      {"y * v (per channel)", [](TensorPtr y, TensorPtr v, TensorPtr) { return op2("Mul", y, v); }},
      {"tanh(y * v + r) * y (a tree)",
       [](TensorPtr y, TensorPtr v, TensorPtr r) {
         return op2("Mul", op1("Tanh", op2("AddV2", op2("Mul", y, v), r)), y);
       }},
      {"relu(y + v) + r (bias without TF's chain)",
       [](TensorPtr y, TensorPtr v, TensorPtr r) { return op2("AddV2", op1("Relu", op2("AddV2", y, v)), r); }},
  };
  return t;
}

}  // namespace

TEST_CASE("fuse_epilogue: Conv2D + any elementwise tail, with or without bias, gives the unfused bits") {
  // reference, oneDNN, and an output of 204,800 elements whose tail runs in blocks on the task pool
  for (auto p : {std::array<int64_t, 4>{1, 3, 2, 3}, std::array<int64_t, 4>{2, 12, 8, 16},
                 std::array<int64_t, 4>{4, 40, 8, 32}}) {
    for (const auto& [name, tail] : tails()) {
      INFO(name << " at oc " << p[3]);
      check_case(conv_case(p[0], p[1], p[2], p[3], tail), 1);
    }
  }
}

TEST_CASE("fuse_epilogue: MatMul + any elementwise tail gives the unfused bits (direct kernel and oneDNN)") {
  for (auto mkn : {std::array<int64_t, 3>{6, 5, 7}, std::array<int64_t, 3>{130, 90, 70},
                   std::array<int64_t, 3>{300, 64, 387}}) {  // 116,100 elements: the tail in blocks
    for (const auto& [name, tail] : tails()) {
      INFO(name << " at m " << mkn[0]);
      check_case(matmul_case(mkn[0], mkn[1], mkn[2], tail), 1);
    }
  }
}

TEST_CASE("fuse_epilogue: a tail after TF's fused chain (bias + Relu as oneDNN post-ops) runs after it") {
  // relu(x @ w + v) is TF's _FusedMatMul (NaN -> 0); the tree after it is an epilogue.
  check_case(matmul_case(130, 90, 70,
                         [](TensorPtr y, TensorPtr v, TensorPtr) {
                           return op2("Mul", op1("Sigmoid", op1("Relu", dispatch1("BiasAdd", {y, v}))), v);
                         }),
             1);
}

TEST_CASE("fuse_epilogue: a lone op whose standalone kernel is oneDNN's own formula stays apart") {
  // oneDNN's eltwise_logistic (4096 elements and up) is not the fused kernel's sigmoid: a lone
  // Sigmoid keeps its kernel and bits; exact ops (Relu, Mul, ...) alone are epilogues.
  check_case(matmul_case(130, 90, 70, [](TensorPtr y, TensorPtr, TensorPtr) { return op1("Sigmoid", y); }), 0);
  check_case(matmul_case(130, 90, 70, [](TensorPtr y, TensorPtr, TensorPtr) { return op1("Exp", y); }), 0);
}

TEST_CASE("fuse_epilogue: contractions read elsewhere, reductions and self-products are left alone") {
  // one tree reading the product in two places is one reader: an epilogue
  check_case(
      matmul_case(8, 8, 8,
                  [](TensorPtr y, TensorPtr, TensorPtr r) { return op2("AddV2", op1("Relu", y), op2("Mul", y, r)); }),
      1);
  // two trees reading it; a tail that is a reduction; Mul(y, y); the product also a graph output
  {
    TensorPtr second;
    Case c = matmul_case(8, 8, 8, [&](TensorPtr y, TensorPtr, TensorPtr) {
      second = op1("Neg", y);
      return op1("Relu", y);
    });
    c.g->outputs.push_back(NodeOutput{second->node, 0});
    CHECK(epilogues(*optimize(*c.g)) == 0);
  }
  check_case(matmul_case(8, 8, 8,
                         [](TensorPtr y, TensorPtr, TensorPtr) {
                           return dispatch1(
                               "Sum",
                               {y, dispatch1("Const", {},
                                             Attrs{{"value", make_scalar(DType::Int32, 1)}, {"dtype", DType::Int32}})});
                         }),
             0);
  check_case(matmul_case(8, 8, 8, [](TensorPtr y, TensorPtr, TensorPtr) { return op2("Mul", y, y); }), 0);
  Case c = matmul_case(8, 8, 8, [](TensorPtr y, TensorPtr, TensorPtr) { return op1("Relu", y); });
  c.g->outputs.push_back(NodeOutput{c.g->node(c.g->outputs[0].node).inputs[0].node, 0});  // the product too
  auto f = optimize(*c.g);
  CHECK(epilogues(*f) == 0);
}
