// passes/fuse_contraction.cpp: MatMul/Conv2D + bias (+ residual) (+ Relu/Relu6) chains become
// one fused node whose results equal the unfused graph's, except that the fused Relu/Relu6 map
// NaN to 0 (TF's fused kernels: oneDNN post-ops); on both oneDNN and the small-problem loops.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "exec/plan.h"
#include "passes/passes.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {
// Values in [-3, 3), with NaN, +-inf and -0 sprinkled in when `specials`.
EagerPtr random_tensor(const Shape& s, uint32_t seed, bool specials = false) {
  auto t = make_tensor(DType::Float32, s);
  uint32_t x = seed * 2654435761u + 1;
  const float sp[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity(), -0.f};
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    x = x * 1664525u + 1013904223u;
    t->data<float>()[i] = -3.f + 6.f * static_cast<float>(x >> 8) / static_cast<float>(1u << 24);
    if (specials && (x >> 4) % 97 == 0) t->data<float>()[i] = sp[(x >> 12) % 4];
  }
  if (specials) t->data<float>()[0] = sp[0];
  return t;
}

TensorPtr op1(const char* op, TensorPtr x) { return dispatch1(op, {std::move(x)}); }
TensorPtr op2(const char* op, TensorPtr x, TensorPtr y) { return dispatch1(op, {std::move(x), std::move(y)}); }

// The fused result vs the unfused one: equal within rtol, except where the activation saw NaN
// (unfused NaN, fused 0). Returns how many NaNs the fused activation turned into 0.
int check_fused(const EagerTensor& fused, const EagerTensor& ref, float rtol, bool act) {
  REQUIRE(fused.shape() == ref.shape());
  int nan_to_zero = 0;
  for (int64_t i = 0; i < ref.num_elements(); ++i) {
    float f = fused.data<float>()[i], r = ref.data<float>()[i];
    if (std::isnan(r)) {
      if (act) {
        CHECK(f == 0.f);
        CHECK(!std::signbit(f));
        ++nan_to_zero;
      } else {
        CHECK(std::isnan(f));
      }
      continue;
    }
    if (std::isinf(r)) {
      CHECK(f == r);
      continue;
    }
    CHECK(std::fabs(f - r) <= rtol * std::fabs(r) + 1e-5f);
  }
  return nan_to_zero;
}

// x [m, 64] @ w [64, 48], then `tail(product, bias [48], residual [m, 48])` as the graph's
// output; and inputs for it (NaN/inf sprinkled into x and the residual).
std::shared_ptr<Graph> matmul_chain(int64_t m, const std::function<TensorPtr(TensorPtr, TensorPtr, TensorPtr)>& tail) {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{m, 64}});
  auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{64, 48}});
  auto bv = b.add_placeholder("b", TensorSpec{DType::Float32, Shape{48}});
  auto r = b.add_placeholder("r", TensorSpec{DType::Float32, Shape{m, 48}});
  g->outputs.push_back(NodeOutput{tail(dispatch1("MatMul", {x, w}), bv, r)->node, 0});
  return g;
}
std::vector<EagerPtr> matmul_chain_inputs(int64_t m, uint32_t seed) {
  return {random_tensor(Shape{m, 64}, seed, true), random_tensor(Shape{64, 48}, seed + 1),
          random_tensor(Shape{48}, seed + 2), random_tensor(Shape{m, 48}, seed + 3, true)};
}

struct Built {
  std::shared_ptr<Graph> g = std::make_shared<Graph>("f");
};
}  // namespace

TEST_CASE("fuse_contraction: MatMul + bias + Relu/Relu6 on oneDNN and the direct kernel, NaN and inf included") {
  // (m, k, n): the first runs the direct kernel + loop epilogue, the second oneDNN's post-ops.
  for (auto mkn : {std::array<int64_t, 3>{6, 5, 7}, std::array<int64_t, 3>{130, 90, 70}}) {
    for (const char* act : {"Relu", "Relu6", ""}) {
      for (bool biasadd : {true, false}) {
        auto g = std::make_shared<Graph>("f");
        {
          GraphBuilder b(g);
          ContextScope scope(&b);
          auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{mkn[0], mkn[1]}});
          auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{mkn[2], mkn[1]}});
          auto bias = b.add_placeholder("b", TensorSpec{DType::Float32, Shape{mkn[2]}});
          auto y = dispatch1("MatMul", {x, w}, Attrs{{"transpose_b", true}});
          y = biasadd ? dispatch1("BiasAdd", {y, bias}) : op2("AddV2", bias, y);
          if (*act) y = op1(act, y);
          g->outputs.push_back(NodeOutput{y->node, 0});
        }
        auto f = optimize(*g);
        CHECK(count_op(*f, "_FusedMatMul") == 1);
        std::vector<EagerPtr> in{random_tensor(Shape{mkn[0], mkn[1]}, 1, true), random_tensor(Shape{mkn[2], mkn[1]}, 2),
                                 random_tensor(Shape{mkn[2]}, 3, true)};
        auto ref = Plan::compile(g)->run(in), got = Plan::compile(f)->run(in);
        auto plan = Plan::compile(f);
        CHECK(plan->num_steps() == 1);
        int z = check_fused(*got[0], *ref[0], 1e-5f, *act != 0);
        if (*act) CHECK(z > 0);
      }
    }
  }
}

TEST_CASE("fuse_contraction: Conv2D + bias + residual + Relu, on oneDNN and the reference loops") {
  // (n, hw, ic, oc): tiny (reference loop) and oneDNN-sized.
  for (auto p : {std::array<int64_t, 4>{1, 3, 2, 3}, std::array<int64_t, 4>{2, 12, 8, 16}}) {
    for (bool residual : {false, true}) {
      auto g = std::make_shared<Graph>("f");
      Shape xs{p[0], p[1], p[1], p[2]}, ws{3, 3, p[2], p[3]}, ys{p[0], p[1], p[1], p[3]};
      {
        GraphBuilder b(g);
        ContextScope scope(&b);
        auto x = b.add_placeholder("x", TensorSpec{DType::Float32, xs});
        auto w = b.add_placeholder("w", TensorSpec{DType::Float32, ws});
        auto bias = b.add_placeholder("b", TensorSpec{DType::Float32, Shape{p[3]}});
        auto r = b.add_placeholder("r", TensorSpec{DType::Float32, ys});
        auto y = dispatch1("Conv2D", {x, w},
                           Attrs{{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"padding", std::string("SAME")}});
        y = op2("AddV2", y, bias);
        if (residual) y = op2("AddV2", r, y);
        y = op1("Relu", y);
        g->outputs.push_back(NodeOutput{y->node, 0});
      }
      auto f = optimize(*g);
      CHECK(count_op(*f, "_FusedConv2D") == 1);
      CHECK(Plan::compile(f)->num_steps() == 1);
      std::vector<EagerPtr> in{random_tensor(xs, 4, true), random_tensor(ws, 5), random_tensor(Shape{p[3]}, 6),
                               random_tensor(ys, 7, true)};
      auto ref = Plan::compile(g)->run(in), got = Plan::compile(f)->run(in);
      CHECK(check_fused(*got[0], *ref[0], 1e-5f, true) > 0);
    }
  }
}

TEST_CASE("fuse_contraction: intermediates read elsewhere, graph outputs, other dtypes and transpose_a stay unfused") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4, 4}});
    auto bias = b.add_placeholder("b", TensorSpec{DType::Float32, Shape{4}});
    auto bias2 = b.add_placeholder("b2", TensorSpec{DType::Float32, Shape{4, 4}});
    auto xd = b.add_placeholder("xd", TensorSpec{DType::Float64, Shape{4, 4}});
    auto bd = b.add_placeholder("bd", TensorSpec{DType::Float64, Shape{4}});
    auto m1 = dispatch1("MatMul", {x, x});  // read twice
    auto y1 = op1("Relu", op2("AddV2", m1, bias));
    auto y2 = op2("Mul", m1, m1);
    auto m3 = op1("Relu", op2("AddV2", dispatch1("MatMul", {x, x}, Attrs{{"transpose_a", true}}), bias));
    auto y3 = op1("Relu", op2("AddV2", dispatch1("MatMul", {x, x}), bias2));  // a residual, not a bias: no Relu
    auto y4 = op1("Relu", op2("AddV2", dispatch1("MatMul", {xd, xd}), bd));   // float64
    auto y5 = op1("Relu", dispatch1("MatMul", {x, x}, Attrs{{"transpose_a", true}}));  // no bias
    for (auto& t : {y1, y2, m3, y3, y4, y5}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  auto f = fuse_contractions(*g);
  CHECK(count_op(*f, "_FusedMatMul") == 1);  // y3's MatMul + residual only
  for (const Node& node : f->nodes())
    if (node.op == "_FusedMatMul") CHECK(node.attrs.get<std::string>("activation").empty());
}

TEST_CASE("fuse_contraction: a graph output in the middle of a chain ends the fusion there") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4, 4}});
    auto bias = b.add_placeholder("b", TensorSpec{DType::Float32, Shape{4}});
    auto pre = dispatch1("BiasAdd", {dispatch1("MatMul", {x, x}), bias});
    g->outputs.push_back(NodeOutput{pre->node, 0});
    g->outputs.push_back(NodeOutput{op1("Relu", pre)->node, 0});
  }
  auto f = fuse_contractions(*g);
  CHECK(count_op(*f, "_FusedMatMul") == 1);  // MatMul + BiasAdd; the Relu stays (TF: NaN kept)
  auto x = random_tensor(Shape{4, 4}, 8, true), bias = random_tensor(Shape{4}, 9);
  auto ref = Plan::compile(g)->run({x, bias}), got = Plan::compile(optimize(*g))->run({x, bias});
  for (int k = 0; k < 2; ++k) check_fused(*got[k], *ref[k], 1e-6f, false);
}

TEST_CASE("fuse_contraction: MatMul (+ bias) + residual fuse, and a Relu after them is an epilogue (NaN kept)") {
  for (int64_t m : {5, 96}) {  // the direct kernel and oneDNN's binary post-op
    for (bool bias : {false, true}) {
      auto g = matmul_chain(m, [&](TensorPtr y, TensorPtr bv, TensorPtr r) {
        if (bias) y = op2("AddV2", y, bv);
        return op1("Relu", op2("AddV2", r, y));
      });
      CHECK(count_op(*fuse_contractions(*g), "_FusedMatMul") == 1);  // TF's chain: the Relu stays out
      auto f = optimize(*g);
      // passes/fuse_epilogue.cpp then runs the Relu (the standalone op's, NaN kept) in the same step
      CHECK(Plan::compile(f)->num_steps() == 1);
      auto in = matmul_chain_inputs(m, 10);
      auto ref = Plan::compile(g)->run(in), got = Plan::compile(f)->run(in);
      check_fused(*got[0], *ref[0], 1e-5f, false);  // NaN stays NaN
      // on finite rows the bits are the unfused ones
      int64_t same = 0, finite = 0;
      for (int64_t i = 0; i < ref[0]->num_elements(); ++i) {
        float a = got[0]->data<float>()[i], b = ref[0]->data<float>()[i];
        if (std::isfinite(b)) {
          ++finite;
          same += a == b;
        }
      }
      CHECK(same == finite);
    }
  }
}

TEST_CASE("fuse_contraction: BatchMatMulV2 * scalar is one node with the unfused bits") {
  for (int64_t s : {4, 64}) {  // the direct kernel and oneDNN's binary post-op
    for (bool scalar_first : {false, true}) {
      auto g = std::make_shared<Graph>("f");
      Shape qs{2, 3, s, 16};
      {
        GraphBuilder b(g);
        ContextScope scope(&b);
        auto q = b.add_placeholder("q", TensorSpec{DType::Float32, qs});
        auto k = b.add_placeholder("k", TensorSpec{DType::Float32, qs});
        auto c =
            dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 0.125)}, {"dtype", DType::Float32}});
        auto y = dispatch1("BatchMatMulV2", {q, k}, Attrs{{"adj_y", true}});
        y = scalar_first ? op2("Mul", c, y) : op2("Mul", y, c);
        g->outputs.push_back(NodeOutput{y->node, 0});
      }
      auto f = optimize(*g);
      CHECK(count_op(*f, "_FusedBatchMatMulV2") == 1);
      CHECK(Plan::compile(f)->num_steps() == 1);
      std::vector<EagerPtr> in{random_tensor(qs, 20, true), random_tensor(qs, 21)};
      auto ref = Plan::compile(g)->run(in), got = Plan::compile(f)->run(in);
      REQUIRE(got[0]->shape() == ref[0]->shape());
      int64_t same = 0, nans = 0;
      for (int64_t i = 0; i < ref[0]->num_elements(); ++i) {
        float a = got[0]->data<float>()[i], r = ref[0]->data<float>()[i];
        if (std::isnan(r)) {
          ++nans;
          same += std::isnan(a);
        } else
          same += a == r;
      }
      CHECK(nans > 0);
      CHECK(same == ref[0]->num_elements());
    }
  }
}

TEST_CASE("fuse_contraction: a Tanh ending a MatMul chain is fused with the unfused bits") {
  for (int64_t m : {5, 96}) {     // the direct kernel and oneDNN
    for (int kind : {0, 1, 2}) {  // tanh(x @ w), tanh(x @ w + b), tanh(r + x @ w)
      auto g = matmul_chain(m, [&](TensorPtr y, TensorPtr bv, TensorPtr r) {
        if (kind == 1) y = dispatch1("BiasAdd", {y, bv});
        if (kind == 2) y = op2("AddV2", r, y);
        return op1("Tanh", y);
      });
      auto f = optimize(*g);
      CHECK(count_op(*f, "_FusedMatMul") == 1);
      CHECK(Plan::compile(f)->num_steps() == 1);
      auto in = matmul_chain_inputs(m, 30);
      auto ref = Plan::compile(g)->run(in), got = Plan::compile(f)->run(in);
      REQUIRE(got[0]->shape() == ref[0]->shape());
      int64_t same = 0;
      for (int64_t i = 0; i < ref[0]->num_elements(); ++i) {
        float a = got[0]->data<float>()[i], r = ref[0]->data<float>()[i];
        same += std::isnan(r) ? std::isnan(a) : a == r;
      }
      CHECK(same == ref[0]->num_elements());
    }
  }
  // A Tanh after a fused Relu, or reading a graph output, stays apart.
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4, 8}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{8, 8}});
    auto bv = b.add_placeholder("b", TensorSpec{DType::Float32, Shape{8}});
    auto y1 = op1("Tanh", op1("Relu", dispatch1("BiasAdd", {dispatch1("MatMul", {x, w}), bv})));
    auto p = dispatch1("MatMul", {x, w});
    auto y2 = op1("Tanh", p);
    g->outputs.push_back(NodeOutput{y1->node, 0});
    g->outputs.push_back(NodeOutput{y2->node, 0});
    g->outputs.push_back(NodeOutput{p->node, 0});
  }
  auto f = optimize(*g);
  int tanh_attr = 0;
  for (const Node& node : f->nodes()) tanh_attr += node.op == "_FusedMatMul" && node.attrs.get_or("tanh", false);
  CHECK(tanh_attr == 0);
}
