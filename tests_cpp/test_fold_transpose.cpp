// passes/fold_transpose.cpp: Transposes around matmuls become transpose flags or strided oneDNN
// operands; the folded graph computes what the unfolded one does (on oneDNN, where the
// accumulation may be blocked differently with strides, within a float tolerance), on every
// path (oneDNN, the direct kernel, the copying fallback), and graphs it cannot fold stay as they are.
#include <catch2/catch.hpp>

#include <cmath>

#include "exec/plan.h"
#include "ops/shape_util.h"
#include "passes/passes.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {
EagerPtr random_tensor(DType d, const Shape& s, uint32_t seed) {
  auto t = make_tensor(d, s);
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    x = x * 1664525u + 1013904223u;
    double v = -3.0 + 6.0 * static_cast<double>(x >> 8) / static_cast<double>(1u << 24);
    if (d == DType::Float32)
      t->data<float>()[i] = static_cast<float>(v);
    else if (d == DType::Float64)
      t->data<double>()[i] = v;
    else if (d == DType::Int32)
      t->data<int32_t>()[i] = static_cast<int32_t>(std::lround(v * 3));
    else
      FAIL("dtype");
  }
  return t;
}

TensorPtr transpose_node(const TensorPtr& x, const std::vector<int64_t>& perm) {
  return dispatch1("Transpose", {x, const_tensor(int_vector(DType::Int32, perm))});
}

// The optimised graph against the unoptimised one on the same inputs.
void check_same(const std::shared_ptr<Graph>& g, const std::shared_ptr<Graph>& f, const std::vector<EagerPtr>& in,
                double rtol) {
  auto ref = Plan::compile(g)->run(in), got = Plan::compile(f)->run(in);
  REQUIRE(ref.size() == got.size());
  for (size_t o = 0; o < ref.size(); ++o) {
    REQUIRE(got[o]->shape() == ref[o]->shape());
    REQUIRE(got[o]->dtype() == ref[o]->dtype());
    int64_t bad = 0;
    for (int64_t i = 0; i < ref[o]->num_elements(); ++i) {
      double a = 0, b = 0;
      switch (ref[o]->dtype()) {
        case DType::Float32:
          a = got[o]->data<float>()[i];
          b = ref[o]->data<float>()[i];
          break;
        case DType::Float64:
          a = got[o]->data<double>()[i];
          b = ref[o]->data<double>()[i];
          break;
        case DType::Int32:
          a = got[o]->data<int32_t>()[i];
          b = ref[o]->data<int32_t>()[i];
          break;
        default: FAIL("dtype");
      }
      bad += !(std::fabs(a - b) <= rtol * (1 + std::fabs(b)));
    }
    CHECK(bad == 0);
  }
}

struct Case {
  std::shared_ptr<Graph> g = std::make_shared<Graph>("f");
  std::vector<EagerPtr> in;
};
}  // namespace

TEST_CASE("fold_transpose: attention's head transposes fold into the batched matmuls") {
  // (s, d): the direct kernel (copies made in the kernel) and oneDNN (strided operands and dst).
  for (auto sd : {std::array<int64_t, 2>{4, 8}, std::array<int64_t, 2>{64, 32}}) {
    const int64_t b = 2, s = sd[0], h = 3, d = sd[1];
    Case c;
    {
      GraphBuilder gb(c.g);
      ContextScope scope(&gb);
      std::vector<TensorPtr> qkv;
      for (const char* name : {"q", "k", "v"}) {
        auto x = gb.add_placeholder(name, TensorSpec{DType::Float32, Shape{b * s, h * d}});
        auto r = dispatch1("Reshape", {x, const_tensor(int_vector(DType::Int32, {b, s, h, d}))});
        qkv.push_back(transpose_node(r, {0, 2, 1, 3}));
        c.in.push_back(random_tensor(DType::Float32, Shape{b * s, h * d}, static_cast<uint32_t>(qkv.size())));
      }
      auto scale = const_tensor(make_scalar(DType::Float32, 0.125));
      auto a = dispatch1("Mul", {dispatch1("BatchMatMulV2", {qkv[0], qkv[1]}, Attrs{{"adj_y", true}}), scale});
      auto o = transpose_node(dispatch1("BatchMatMulV2", {a, qkv[2]}), {0, 2, 1, 3});
      auto y = dispatch1("Reshape", {o, const_tensor(int_vector(DType::Int32, {b * s, h * d}))});
      c.g->outputs.push_back(NodeOutput{y->node, 0});
    }
    auto f = optimize(*c.g);
    CHECK(count_op(*f, "Transpose") == 0);
    CHECK(count_op(*f, "_FusedBatchMatMulV2") == 1);
    check_same(c.g, f, c.in, 1e-5);
  }
}

TEST_CASE("fold_transpose: a swap of the last two dims flips transpose_a/b or adj_x/adj_y, any real dtype") {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32}) {
    for (bool batched : {false, true}) {
      for (int which = 0; which < 3; ++which) {  // a, b or both transposed
        for (bool flag : {false, true}) {        // composes with the op's own flag
          Case c;
          {
            GraphBuilder gb(c.g);
            ContextScope scope(&gb);
            Shape sa = batched ? Shape{2, 5, 40} : Shape{5, 40}, sb = batched ? Shape{2, 40, 30} : Shape{40, 30};
            std::vector<int64_t> swap = batched ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{1, 0};
            // Stored shapes such that op(transpose(x)) is [.., 5, 40] and [.., 40, 30].
            auto stored = [&](Shape s, bool t, bool f) {
              auto d = s.dims();
              if (t != f) std::swap(d[d.size() - 1], d[d.size() - 2]);
              return Shape(d);
            };
            bool ta = which != 1, tb = which != 0;
            Shape xa = stored(sa, ta, flag), xb = stored(sb, tb, false);
            auto x = gb.add_placeholder("x", TensorSpec{dt, xa}), y = gb.add_placeholder("y", TensorSpec{dt, xb});
            TensorPtr a = ta ? transpose_node(x, swap) : x, bb = tb ? transpose_node(y, swap) : y;
            Attrs at = batched ? Attrs{{"adj_x", flag}} : Attrs{{"transpose_a", flag}};
            auto z = dispatch1(batched ? "BatchMatMulV2" : "MatMul", {a, bb}, at);
            c.g->outputs.push_back(NodeOutput{z->node, 0});
            c.in = {random_tensor(dt, xa, 3), random_tensor(dt, xb, 4)};
          }
          auto f = optimize(*c.g);
          CHECK(count_op(*f, "Transpose") == 0);
          check_same(c.g, f, c.in, dt == DType::Float32 ? 1e-5 : 1e-12);
        }
      }
    }
  }
}

TEST_CASE("fold_transpose: strided operands with broadcast batch dims, adj flags and permuted outputs") {
  Case c;
  {
    GraphBuilder gb(c.g);
    ContextScope scope(&gb);
    auto x = gb.add_placeholder("x", TensorSpec{DType::Float32, Shape{2, 48, 3, 32}});  // -> [2, 3, 48, 32]
    auto w = gb.add_placeholder("w", TensorSpec{DType::Float32, Shape{40, 32}});        // rank 2, broadcast
    auto v = gb.add_placeholder("v", TensorSpec{DType::Float32, Shape{2, 40, 3, 48}});  // -> [2, 3, 48, 40]
    auto a = transpose_node(x, {0, 2, 1, 3});
    auto p = dispatch1("BatchMatMulV2", {a, w}, Attrs{{"adj_y", true}});  // [2, 3, 48, 40]
    auto q = dispatch1("BatchMatMulV2", {transpose_node(v, {0, 2, 3, 1}), p}, Attrs{{"adj_x", true}});  // [2,3,40,40]
    auto o1 = transpose_node(q, {0, 2, 1, 3});                                            // rows stay rows: strided dst
    auto v2 = gb.add_placeholder("v2", TensorSpec{DType::Float32, Shape{2, 3, 40, 48}});  // -> [2, 3, 48, 40]
    auto r = dispatch1("BatchMatMulV2", {a, transpose_node(v2, {0, 1, 3, 2})}, Attrs{{"adj_x", true}});  // [2,3,32,40]
    auto o2 = transpose_node(r, {0, 1, 3, 2});  // a transposed dst (oneDNN's reference kernel): stays
    c.g->outputs.push_back(NodeOutput{o1->node, 0});
    c.g->outputs.push_back(NodeOutput{o2->node, 0});
    c.in = {random_tensor(DType::Float32, Shape{2, 48, 3, 32}, 5), random_tensor(DType::Float32, Shape{40, 32}, 6),
            random_tensor(DType::Float32, Shape{2, 40, 3, 48}, 7),
            random_tensor(DType::Float32, Shape{2, 3, 40, 48}, 8)};
  }
  auto f = optimize(*c.g);
  // x's transpose has two readers and stays, so does o2.
  CHECK(count_op(*f, "Transpose") == 2);
  check_same(c.g, f, c.in, 1e-5);
}

TEST_CASE("fold_transpose: a permuted operand of lower rank than the other (broadcast batch dims)") {
  Case c;
  {
    GraphBuilder gb(c.g);
    ContextScope scope(&gb);
    auto x = gb.add_placeholder("x", TensorSpec{DType::Float32, Shape{2, 3, 48, 32}});
    auto w = gb.add_placeholder("w", TensorSpec{DType::Float32, Shape{40, 3, 32}});                  // -> [3, 40, 32]
    auto y = dispatch1("BatchMatMulV2", {x, transpose_node(w, {1, 0, 2})}, Attrs{{"adj_y", true}});  // [2,3,48,40]
    c.g->outputs.push_back(NodeOutput{y->node, 0});
    c.in = {random_tensor(DType::Float32, Shape{2, 3, 48, 32}, 12),
            random_tensor(DType::Float32, Shape{40, 3, 32}, 13)};
  }
  auto f = optimize(*c.g);
  CHECK(count_op(*f, "Transpose") == 0);
  check_same(c.g, f, c.in, 1e-5);
}

TEST_CASE("fold_transpose: layouts oneDNN runs only in its reference kernel are copied, not run there") {
  // Eager calls with the attrs the pass would set; the kernel declines these strides itself.
  auto a = random_tensor(DType::Float32, Shape{2, 3, 40, 48}, 9),
       b = random_tensor(DType::Float32, Shape{2, 3, 48, 36}, 10);
  auto x = random_tensor(DType::Float32, Shape{3, 40, 2, 48}, 11);
  for (int variant = 0; variant < 2; ++variant) {
    EagerPtr got, want;
    if (variant == 0) {  // a transposed dst
      got = std::static_pointer_cast<EagerTensor>(
          dispatch1("BatchMatMulV2", {a, b}, Attrs{{"perm_out", std::vector<int64_t>{0, 1, 3, 2}}}));
      want = transpose(std::static_pointer_cast<EagerTensor>(dispatch1("BatchMatMulV2", {a, b})), {0, 1, 3, 2});
    } else {  // reordered batch dims (gemm:jit, which runs)
      got = std::static_pointer_cast<EagerTensor>(
          dispatch1("BatchMatMulV2", {x, b}, Attrs{{"perm_a", std::vector<int64_t>{2, 0, 1, 3}}}));
      want = std::static_pointer_cast<EagerTensor>(
          dispatch1("BatchMatMulV2", {transpose(x, std::vector<int64_t>{2, 0, 1, 3}), b}));
    }
    REQUIRE(got->shape() == want->shape());
    int64_t bad = 0;
    for (int64_t i = 0; i < want->num_elements(); ++i)
      bad += !(std::fabs(got->data<float>()[i] - want->data<float>()[i]) <=
               1e-5f * (1 + std::fabs(want->data<float>()[i])));
    CHECK(bad == 0);
  }
}

TEST_CASE("fold_transpose: graphs it cannot fold are left unchanged") {
  auto build = [](DType dt, std::vector<int64_t> perm, int variant) {
    auto g = std::make_shared<Graph>("f");
    GraphBuilder gb(g);
    ContextScope scope(&gb);
    auto x = gb.add_placeholder("x", TensorSpec{dt, Shape{2, 4, 6, 8}});
    TensorPtr t;
    if (variant == 1) {  // a perm computed at run time
      auto p = gb.add_placeholder("p", TensorSpec{DType::Int32, Shape{4}});
      t = dispatch1("Transpose", {x, p});
    } else {
      t = transpose_node(x, perm);
    }
    std::vector<int64_t> ys = t->shape().dims();  // y: [batch of t, t's columns, 5]
    ys[2] = ys[3];
    ys[3] = 5;
    auto y = gb.add_placeholder("y", TensorSpec{dt, Shape(ys)});
    auto z = dispatch1("BatchMatMulV2", {t, y});
    g->outputs.push_back(NodeOutput{z->node, 0});
    if (variant == 2) g->outputs.push_back(NodeOutput{t->node, 0});  // the transpose is an output too
    if (variant == 3) g->outputs.push_back(NodeOutput{dispatch1("Neg", {t})->node, 0});  // a second reader
    return g;
  };
  // float64 runs no oneDNN kernel: only swaps fold
  CHECK(fold_transposes_or_null(*build(DType::Float64, {0, 2, 1, 3}, 0)) == nullptr);
  CHECK(fold_transposes_or_null(*build(DType::Float64, {0, 1, 3, 2}, 0)) != nullptr);
  // the input's innermost dim would leave the matrix (no unit stride in it)
  CHECK(fold_transposes_or_null(*build(DType::Float32, {3, 0, 2, 1}, 0)) == nullptr);
  CHECK(fold_transposes_or_null(*build(DType::Float32, {0, 2, 3, 1}, 0)) != nullptr);
  // reordered batch dims (gemm:jit instead of brgemm)
  CHECK(fold_transposes_or_null(*build(DType::Float32, {1, 0, 2, 3}, 0)) == nullptr);
  CHECK(fold_transposes_or_null(*build(DType::Float32, {0, 1, 3, 2}, 1)) == nullptr);
  // strides only for a Transpose nothing else reads
  CHECK(fold_transposes_or_null(*build(DType::Float32, {0, 2, 1, 3}, 0)) != nullptr);
  CHECK(fold_transposes_or_null(*build(DType::Float32, {0, 2, 1, 3}, 2)) == nullptr);
  CHECK(fold_transposes_or_null(*build(DType::Float32, {0, 2, 1, 3}, 3)) == nullptr);
  // a swap folds into adj_x whatever else reads the Transpose (as TF's grappler), which stays
  for (int variant : {2, 3}) {
    auto f = fold_transposes_or_null(*build(DType::Float32, {0, 1, 3, 2}, variant));
    REQUIRE(f != nullptr);
    CHECK(count_op(*f, "Transpose") == 1);
    for (const Node& node : f->nodes())
      if (node.op == "BatchMatMulV2") CHECK(node.attrs.get_or("adj_x", false));
  }
  // MatMul (rank 2) takes no strides: a swap only
  {
    auto g = std::make_shared<Graph>("f");
    GraphBuilder gb(g);
    ContextScope scope(&gb);
    auto x = gb.add_placeholder("x", TensorSpec{DType::Float32, Shape{4, 4}});
    auto z = dispatch1("MatMul", {x, x});
    g->outputs.push_back(NodeOutput{transpose_node(z, {1, 0})->node, 0});
    CHECK(fold_transposes_or_null(*g) == nullptr);
  }
}
