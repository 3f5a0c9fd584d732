// passes/fuse_elementwise.cpp: fused graphs give the unfused graph's results (the reference
// kernels, op by op), with broadcasting inputs, across tile boundaries, and never fuse a value
// someone else needs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "exec/plan.h"
#include "kernels/fused/elementwise.h"
#include "passes/passes.h"
#include "test_ops.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {
EagerPtr random_tensor(const Shape& s, uint32_t seed, float lo = -3.f, float hi = 3.f) {
  auto t = make_tensor(DType::Float32, s);
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    x = x * 1664525u + 1013904223u;
    t->data<float>()[i] = lo + (hi - lo) * static_cast<float>(x >> 8) / static_cast<float>(1u << 24);
  }
  return t;
}

TensorPtr op1(const char* op, TensorPtr x) { return dispatch1(op, {std::move(x)}); }
TensorPtr op2(const char* op, TensorPtr x, TensorPtr y) { return dispatch1(op, {std::move(x), std::move(y)}); }

void check_close(const EagerTensor& a, const EagerTensor& b, float rtol) {
  REQUIRE(a.shape() == b.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    float x = a.data<float>()[i], y = b.data<float>()[i];
    if (std::isnan(x) || std::isnan(y)) {
      CHECK(std::isnan(x) == std::isnan(y));
      continue;
    }
    CHECK(std::fabs(x - y) <= rtol * std::fabs(y) + 1e-6f);
  }
}

// Two test-only copies of Neg: one whose definition states Neg's fusion opcode, one stating none.
// The fuser must go by the definition, never by the op's name.
void add_fusion_test_ops(OpRegistry& r) {
  OpDef fusable = r.get("Neg");
  fusable.name = fusable.default_name = "TestFusableNeg";
  r.add(std::move(fusable));
  OpDef plain = r.get("Neg");
  plain.name = plain.default_name = "TestUnfusableNeg";
  plain.fusion = Fusion{};
  r.add(std::move(plain));
}
const testing::TestOps fusion_test_ops(add_fusion_test_ops);

// Two test-only copies of BroadcastTo: one stating the broadcast-view fact, one not. The fuser reads
// through a broadcast by the fact, never by the op's name.
void add_broadcast_test_ops(OpRegistry& r) {
  OpDef view = r.get("BroadcastTo");
  view.name = view.default_name = "TestBroadcastView";
  r.add(std::move(view));
  OpDef plain = r.get("BroadcastTo");
  plain.name = plain.default_name = "TestPlainBroadcast";
  plain.broadcast_view = false;
  r.add(std::move(plain));
}
const testing::TestOps broadcast_test_ops(add_broadcast_test_ops);

// Instructions with opcode `code` over every fused program of g.
int count_instr(const Graph& g, int code) {
  int c = 0;
  for (const Node& node : g.nodes()) {
    if (node.op != "_FusedElementwise") continue;
    const auto& prog = node.attrs.get<std::vector<int64_t>>("program");
    for (size_t k = 0; k < prog.size(); k += 3) c += prog[k] == code;
  }
  return c;
}

// Extra outputs written by the graph's fused trees (intermediates read elsewhere too).
size_t extra_outputs_of(const Graph& g) {
  size_t k = 0;
  for (const Node& n : g.nodes())
    if (n.op == "_FusedElementwise" && n.attrs.has("extra_outputs"))
      k += n.attrs.get<std::vector<int64_t>>("extra_outputs").size();
  return k;
}

// Runs graph g unfused (Plan of g) and fused (Plan of fuse_elementwise(g)) on `inputs`.
std::pair<std::vector<EagerPtr>, std::vector<EagerPtr>> both(const std::shared_ptr<Graph>& g,
                                                             const std::vector<EagerPtr>& inputs,
                                                             std::shared_ptr<Graph>* fused = nullptr) {
  auto f = fuse_elementwise(*g);
  if (fused) *fused = f;
  return {Plan::compile(g)->run(inputs), Plan::compile(f)->run(inputs)};
}
}  // namespace

TEST_CASE("fusion: a layer-norm-like tree with scalar, row and column broadcasts is one node") {
  for (Shape s : {Shape{7, 45}, Shape{33, 130}, Shape{1, 1}}) {
    auto g = std::make_shared<Graph>("f");
    int64_t rows = s[0], cols = s[1];
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, s});
      auto mean = b.add_placeholder("mean", TensorSpec{DType::Float32, Shape{rows, 1}});
      auto gamma = b.add_placeholder("gamma", TensorSpec{DType::Float32, Shape{cols}});
      auto beta = b.add_placeholder("beta", TensorSpec{DType::Float32, Shape{cols}});
      auto two = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 2.0)}, {"dtype", DType::Float32}});
      auto c = op2("Sub", x, mean);
      auto y = op2("Mul", op2("Mul", c, op1("Rsqrt", op2("AddV2", op1("Square", c), two))), gamma);
      y = dispatch1("BiasAdd", {y, beta});
      y = op2("Maximum", op1("Tanh", y), op1("Sigmoid", op1("Neg", y)));
      y = op2("RealDiv", op2("SquaredDifference", op1("Relu", y), op1("Exp", x)), two);
      g->outputs.push_back(NodeOutput{y->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] = both(g,
                           {random_tensor(s, 1), random_tensor(Shape{rows, 1}, 2), random_tensor(Shape{cols}, 3),
                            random_tensor(Shape{cols}, 4)},
                           &f);
    auto plan = Plan::compile(f);
    CHECK(plan->num_steps() <= 3);  // the fused node (c is used twice: Sub stays apart)
    CHECK(count_op(*f, "_FusedElementwise") >= 1);
    check_close(*got[0], *ref[0], 1e-6f);
  }
}

TEST_CASE("fusion: values used elsewhere stay materialised") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{300}});
    auto a = op1("Tanh", op2("Mul", x, x));
    auto b2 = op1("Relu", op2("AddV2", a, x));                        // a: output and input of b2
    auto i = dispatch1("Cast", {b2}, Attrs{{"DstT", DType::Int32}});  // not fusable
    g->outputs.push_back(NodeOutput{a->node, 0});
    g->outputs.push_back(NodeOutput{b2->node, 0});
    g->outputs.push_back(NodeOutput{i->node, 0});
  }
  auto [ref, got] = both(g, {random_tensor(Shape{300}, 5)});
  for (int k = 0; k < 2; ++k) check_close(*got[k], *ref[k], 1e-6f);
  for (int64_t j = 0; j < 300; ++j) CHECK(got[2]->data<int32_t>()[j] == ref[2]->data<int32_t>()[j]);
}

TEST_CASE("fusion: shapes that do not broadcast as one run of dims, or are unknown, are left alone") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{3, 4, 5}});
    auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{3, 1, 5}});
    auto u = b.add_placeholder("u", TensorSpec{DType::Float32, Shape{Shape::kUnknown}});
    auto a = op1("Relu", op2("AddV2", x, y));
    auto c = op1("Relu", op1("Tanh", u));
    g->outputs.push_back(NodeOutput{a->node, 0});
    g->outputs.push_back(NodeOutput{c->node, 0});
  }
  auto f = fuse_elementwise(*g);
  CHECK(count_op(*f, "_FusedElementwise") == 0);
  auto [ref, got] =
      both(g, {random_tensor(Shape{3, 4, 5}, 6), random_tensor(Shape{3, 1, 5}, 7), random_tensor(Shape{9}, 8)});
  check_close(*got[0], *ref[0], 0.f);
}

TEST_CASE("fused tanh matches std::tanh within a few ulp, and keeps NaN, inf and tiny values") {
  std::vector<float> x;
  for (float v = -12.f; v <= 12.f; v += 0.0137f) x.push_back(v);
  for (float v : {0.f, -0.f, 1e-30f, -3e-4f, 1e-4f, INFINITY, -INFINITY, NAN}) x.push_back(v);
  std::vector<float> y(x.size());
  fused::tanh(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    float want = std::tanh(x[i]);
    if (std::isnan(want)) {
      CHECK(std::isnan(y[i]));
      continue;
    }
    CHECK(std::fabs(y[i] - want) <= 4e-7f * std::max(1.f, std::fabs(want)));
    CHECK(std::fabs(y[i]) <= 1.f);
  }
}

TEST_CASE("fusion: a relu gradient (comparison -> bool->float Cast -> Mul) is one node") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{17, 40}});
    auto d = b.add_placeholder("d", TensorSpec{DType::Float32, Shape{17, 40}});
    auto zero = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 0.0)}, {"dtype", DType::Float32}});
    auto mask = dispatch1("Cast", {op2("Greater", y, zero)}, Attrs{{"DstT", DType::Float32}});
    auto m2 = dispatch1("Cast", {op2("LessEqual", d, y)}, Attrs{{"DstT", DType::Float32}});
    auto out = op2("AddV2", op2("Mul", d, mask), m2);
    auto kept = op2("Less", y, d);  // a comparison someone else reads stays bool
    g->outputs.push_back(NodeOutput{out->node, 0});
    g->outputs.push_back(NodeOutput{kept->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto y = random_tensor(Shape{17, 40}, 9);
  y->data<float>()[3] = NAN;
  auto [ref, got] = both(g, {y, random_tensor(Shape{17, 40}, 10)}, &f);
  CHECK(Plan::compile(f)->num_steps() == 2);  // the fused node and the kept Less
  check_close(*got[0], *ref[0], 0.f);
  for (int64_t j = 0; j < 17 * 40; ++j) CHECK(got[1]->data<bool>()[j] == ref[1]->data<bool>()[j]);
}

TEST_CASE("fusion: runs in place only over a dying intermediate, never over a caller's input") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{20, 30}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{30, 30}});
    auto bias = b.add_placeholder("bias", TensorSpec{DType::Float32, Shape{30}});
    auto a = dispatch1("MatMul", {x, w});                   // an intermediate that dies
    auto y = op1("Relu", dispatch1("BiasAdd", {a, bias}));  // fused, in place over a
    auto z = op1("Tanh", op2("Mul", x, x));                 // fused over the caller's x
    g->outputs.push_back(NodeOutput{y->node, 0});
    g->outputs.push_back(NodeOutput{z->node, 0});
  }
  auto x = random_tensor(Shape{20, 30}, 11);
  std::vector<float> x_before(x->data<float>(), x->data<float>() + 600);
  auto [ref, got] = both(g, {x, random_tensor(Shape{30, 30}, 12), random_tensor(Shape{30}, 13)});
  check_close(*got[0], *ref[0], 0.f);
  check_close(*got[1], *ref[1], 0.f);
  for (int64_t j = 0; j < 600; ++j) CHECK(x->data<float>()[j] == x_before[j]);
}

TEST_CASE("fusion: a chain of 60,000 ops is one node, built without deep recursion") {
  // x = x * c + d, 30,000 times: one tree 60,000 ops deep (a recursive walk overflowed the stack).
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{3}});
    auto c = b.add_placeholder("c", TensorSpec{DType::Float32, Shape{}});
    auto d = b.add_placeholder("d", TensorSpec{DType::Float32, Shape{3}});
    TensorPtr y = x;
    for (int i = 0; i < 30000; ++i) y = op2("AddV2", op2("Mul", y, c), d);
    g->outputs.push_back(NodeOutput{y->node, 0});
  }
  REQUIRE(fuse_elementwise_or_null(*g) != nullptr);
  std::shared_ptr<Graph> f;
  auto x = make_tensor(DType::Float32, Shape{3});
  for (int i = 0; i < 3; ++i) x->data<float>()[i] = 0.5f * static_cast<float>(i) - 1.f;
  auto c = make_scalar(DType::Float32, 0.999);
  auto d = random_tensor(Shape{3}, 11, -0.01f, 0.01f);
  auto [ref, got] = both(g, {x, c, d}, &f);
  CHECK(count_op(*f, "_FusedElementwise") == 1);
  CHECK(Plan::compile(f)->num_steps() == 1);
  check_close(*got[0], *ref[0], 0.f);  // the same functors in the same order: bit for bit
}

TEST_CASE("fusion: a fused node with thousands of distinct constant inputs compiles and matches") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4}});
    TensorPtr y = x;
    for (int i = 0; i < 3000; ++i) {
      auto c = dispatch1("Const", {},
                         Attrs{{"value", make_scalar(DType::Float32, 1.0 + 1e-6 * i)}, {"dtype", DType::Float32}});
      y = op2("Mul", y, c);
    }
    g->outputs.push_back(NodeOutput{y->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{4}, 5)}, &f);
  CHECK(count_op(*f, "_FusedElementwise") == 1);
  check_close(*got[0], *ref[0], 0.f);
}

namespace {
TensorPtr int_const(const std::vector<int32_t>& v) {
  auto t = make_tensor(DType::Int32, Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t->data<int32_t>()[i] = v[i];
  return dispatch1("Const", {}, Attrs{{"value", t}, {"dtype", DType::Int32}});
}
TensorPtr reduce(const char* op, TensorPtr x, const std::vector<int32_t>& axes, bool keep) {
  return dispatch1(op, {std::move(x), int_const(axes)}, Attrs{{"keep_dims", keep}});
}
int fused_reductions(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == "_FusedElementwise" && node.attrs.has("reduce");
  return n;
}
}  // namespace

TEST_CASE("fusion: a layer norm is three passes, bit for bit the unfused graph") {
  // mean; var = mean(square(x - mean)); (x - mean) * rsqrt(var + eps) * g + b. `x - mean` has
  // two readers: each recomputes it; the variance's square and mean are one pass.
  struct Case {
    Shape s;
    std::vector<int32_t> axes;
    int64_t rows, cols;
  };
  for (const Case& t :
       {Case{Shape{7, 45}, {-1}, 7, 45}, Case{Shape{33, 600}, {1}, 33, 600}, Case{Shape{64, 256}, {-1}, 64, 256},
        Case{Shape{5, 3, 17}, {1, 2}, 5, 51}, Case{Shape{4, 1, 9}, {2, 1}, 4, 9}, Case{Shape{2, 6, 1}, {1}, 2, 6},
        Case{Shape{3, 2501}, {-1}, 3, 2501}}) {  // rows longer than a tile, with a tail
    auto g = std::make_shared<Graph>("f");
    Shape stat = t.s;  // keep_dims shape of the statistics
    std::vector<int64_t> sd = t.s.dims();
    for (int32_t a : t.axes) sd[a < 0 ? a + t.s.rank() : a] = 1;
    stat = Shape(sd);
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, t.s});
      auto gamma = b.add_placeholder("gamma", TensorSpec{DType::Float32, stat});
      auto eps = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 1e-5)}, {"dtype", DType::Float32}});
      auto mean = reduce("Mean", x, t.axes, true);
      auto var = reduce("Mean", op1("Square", op2("Sub", x, mean)), t.axes, true);
      auto y = op2("Mul", op2("Mul", op2("Sub", x, mean), op1("Rsqrt", op2("AddV2", var, eps))), x);
      y = op2("AddV2", y, gamma);
      g->outputs.push_back(NodeOutput{y->node, 0});
      g->outputs.push_back(NodeOutput{var->node, 0});
    }
    // CSE first, as the pass manager does: the two `x - mean` are one node with two readers.
    auto cse = eliminate_common_subexpressions(*g);
    std::shared_ptr<Graph> f;
    auto [ref, got] = both(cse, {random_tensor(t.s, 21), random_tensor(stat, 22)}, &f);
    CHECK(count_op(*f, "Sub") == 0);
    CHECK(count_op(*f, "Square") == 0);
    CHECK(count_op(*f, "Mean") == 1);  // the first mean reads x itself: nothing to fuse
    CHECK(fused_reductions(*f) == 1);
    check_close(*got[0], *ref[0], 0.f);
    check_close(*got[1], *ref[1], 0.f);
  }
}

TEST_CASE("fusion: a Sum/Mean over one run of axes ends a tree, bit for bit; other reductions stay apart") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{3, 4, 300}});
    auto e = op1("Exp", op2("Mul", x, x));
    auto s = reduce("Sum", e, {1, 2}, false);              // trailing (rows): fused, shape [3]
    auto lead = reduce("Sum", op1("Tanh", x), {0}, true);  // leading axis (columns): fused
    auto mid = reduce("Mean", op1("Neg", x), {1}, false);  // a middle axis (outer 3, inner 300): fused
    auto bn = reduce("Mean", op2("SquaredDifference", x, op1("Neg", x)), {0, 1}, false);  // moments' variance
    auto gap = reduce("Sum", op1("Relu", x), {0, 2}, false);                              // not one run: stays a Sum
    auto mx = reduce("Max", op1("Square", x), {0}, false);                                // not a sum: stays
    for (auto& t : {s, lead, mid, bn, gap, mx}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{3, 4, 300}, 23, -1.f, 1.f)}, &f);
  CHECK(fused_reductions(*f) == 4);
  CHECK(count_op(*f, "Sum") == 1);
  CHECK(count_op(*f, "Mean") == 0);
  CHECK(count_op(*f, "Max") == 1);
  CHECK(got[0]->shape() == Shape{3});
  CHECK(got[1]->shape() == (Shape{1, 4, 300}));
  CHECK(got[2]->shape() == (Shape{3, 300}));
  CHECK(got[3]->shape() == Shape{300});
  for (int k = 0; k < 6; ++k) {
    REQUIRE(got[k]->shape() == ref[k]->shape());
    CHECK(std::memcmp(got[k]->raw(), ref[k]->raw(), sizeof(float) * static_cast<size_t>(ref[k]->num_elements())) == 0);
  }
}

TEST_CASE("fusion: a column reduction across many tiles (a batch norm's moments over N, H, W) is bit-exact") {
  // 16x32x32x16 NHWC: 16 columns of 16384 rows, the rows crossing every 1024-element tile; and
  // 37 columns (not dividing the tile) with a per-channel operand.
  for (int64_t c : {int64_t{16}, int64_t{37}}) {
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4, 32, 32, c}});
      auto m = b.add_placeholder("m", TensorSpec{DType::Float32, Shape{c}});
      auto var = reduce("Mean", op2("SquaredDifference", x, m), {0, 1, 2}, false);
      auto dsum = reduce("Sum", op2("Mul", op1("Relu", x), op2("Sub", x, m)), {0, 1, 2}, true);
      g->outputs.push_back(NodeOutput{var->node, 0});
      g->outputs.push_back(NodeOutput{dsum->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] = both(g, {random_tensor(Shape{4, 32, 32, c}, 61), random_tensor(Shape{c}, 62)}, &f);
    CHECK(fused_reductions(*f) == 2);
    CHECK(Plan::compile(f)->num_steps() == 2);
    for (int k = 0; k < 2; ++k) {
      REQUIRE(got[k]->shape() == ref[k]->shape());
      CHECK(std::memcmp(got[k]->raw(), ref[k]->raw(), sizeof(float) * static_cast<size_t>(ref[k]->num_elements())) ==
            0);
    }
  }
}

TEST_CASE("fusion: a shared value is recomputed only when small and read only by fused trees") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{16, 16}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{16, 16}});
    // big: six ops, read by two fused trees -> computed once, kept.
    auto big = op1("Tanh", op2("Mul", op1("Exp", op2("Sub", op1("Neg", x), w)), op1("Relu", x)));
    auto r1 = op1("Sigmoid", op2("AddV2", big, w));
    auto r2 = op1("Relu", op2("Mul", big, x));
    // small: read by a fused tree and by a MatMul -> kept for the MatMul (the tree may recompute).
    auto small = op2("Sub", x, w);
    auto r3 = op1("Tanh", op2("Mul", small, small));
    auto m = dispatch1("MatMul", {small, w});
    for (auto& t : {r1, r2, r3, m}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{16, 16}, 24), random_tensor(Shape{16, 16}, 25)}, &f);
  // big's fused node is a root (read by two trees); small's Sub is computed once in r3's tree (it
  // reads it twice) and written there for the MatMul.
  CHECK(count_op(*f, "Sub") == 0);
  CHECK(extra_outputs_of(*f) == 2);  // big (r1's tree, for r2) and small
  CHECK(count_op(*f, "Tanh") == 0);
  for (int k = 0; k < 4; ++k) check_close(*got[k], *ref[k], 0.f);
  // Exp appears once in the fused program set (big is not duplicated).
  int exp_instr = 0;
  for (const Node& node : f->nodes()) {
    if (node.op != "_FusedElementwise") continue;
    const auto& prog = node.attrs.get<std::vector<int64_t>>("program");
    for (size_t i = 0; i < prog.size(); i += 3) exp_instr += prog[i] == fused::kExp;
  }
  CHECK(exp_instr == 1);
}

TEST_CASE("fusion: readers no output needs (left behind by earlier passes) do not block a tree") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{40}});
    auto a = op1("Neg", x);
    auto y = op1("Tanh", op2("Mul", a, x));
    dispatch1("Cast", {a}, Attrs{{"DstT", DType::Int32}});  // dead: no output reads it
    g->outputs.push_back(NodeOutput{y->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{40}, 31)}, &f);
  CHECK(Plan::compile(f)->num_steps() == 1);  // Neg joined the tree; the dead Cast is pruned
  check_close(*got[0], *ref[0], 0.f);
}

TEST_CASE("fusion: a small shared value with a costly op (exp, tanh, division) is computed once") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{8, 33}});
    auto e = op1("Exp", x);                 // one op, but costly: not recomputed
    auto d = op2("Sub", x, op1("Neg", x));  // two cheap ops: recomputed by both readers
    auto r1 = op1("Relu", op2("Mul", e, d));
    auto r2 = op2("AddV2", op2("Mul", e, x), d);
    g->outputs.push_back(NodeOutput{r1->node, 0});
    g->outputs.push_back(NodeOutput{r2->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{8, 33}, 41)}, &f);
  CHECK(count_op(*f, "Exp") == 0);  // in r1's tree, which writes it as an extra output for r2's
  CHECK(count_op(*f, "Sub") == 0);
  CHECK(count_op(*f, "Neg") == 0);
  CHECK(Plan::compile(f)->num_steps() == 2);  // the two fused trees
  CHECK(extra_outputs_of(*f) == 1);
  for (int k = 0; k < 2; ++k) check_close(*got[k], *ref[k], 0.f);
}

TEST_CASE("fusion: a BroadcastTo read by trees is read through, with no copy; read by anything else it stays") {
  auto bits_equal = [](const EagerTensor& a, const EagerTensor& b) {
    REQUIRE(a.shape() == b.shape());
    for (int64_t i = 0; i < a.num_elements(); ++i) CHECK(std::memcmp(a.data<float>() + i, b.data<float>() + i, 4) == 0);
  };
  {  // a mean's gradient: BroadcastTo(dy, x's shape) / count, then the rest of the backward chain
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{6, 1100}});
      auto dy = b.add_placeholder("dy", TensorSpec{DType::Float32, Shape{6, 1}});
      auto ds = b.add_placeholder("ds", TensorSpec{DType::Float32, Shape{}});
      auto count =
          dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 1100.0)}, {"dtype", DType::Float32}});
      auto rows = op2("RealDiv", dispatch1("BroadcastTo", {dy, int_const({6, 1100})}), count);
      auto all = op2("RealDiv", dispatch1("BroadcastTo", {ds, int_const({6, 1100})}), count);  // a lone op
      g->outputs.push_back(NodeOutput{op2("Mul", op1("Tanh", x), rows)->node, 0});
      g->outputs.push_back(NodeOutput{all->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] =
        both(g, {random_tensor(Shape{6, 1100}, 31), random_tensor(Shape{6, 1}, 32), random_tensor(Shape{}, 33)}, &f);
    CHECK(count_op(*f, "BroadcastTo") == 0);
    CHECK(count_op(*f, "_FusedElementwise") == 2);
    CHECK(Plan::compile(f)->num_steps() == 2);
    for (int k = 0; k < 2; ++k) bits_equal(*got[k], *ref[k]);
  }
  {  // read by a non-elementwise op (a Sum) and by a tree: the copy stays for the Sum; a BroadcastTo
     // whose input does not broadcast as one run of dims ([3, 1, 5] -> [3, 4, 5]) stays
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4, 50}});
      auto d = b.add_placeholder("d", TensorSpec{DType::Float32, Shape{50}});
      auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{3, 1, 5}});
      auto bd = dispatch1("BroadcastTo", {d, int_const({4, 50})});
      g->outputs.push_back(NodeOutput{op2("Mul", op1("Exp", x), bd)->node, 0});
      g->outputs.push_back(NodeOutput{reduce("Sum", bd, {0}, false)->node, 0});
      auto by = dispatch1("BroadcastTo", {y, int_const({3, 4, 5})});
      g->outputs.push_back(NodeOutput{op1("Neg", op1("Tanh", by))->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] =
        both(g, {random_tensor(Shape{4, 50}, 34), random_tensor(Shape{50}, 35), random_tensor(Shape{3, 1, 5}, 36)}, &f);
    CHECK(count_op(*f, "BroadcastTo") == 2);
    for (int k = 0; k < 3; ++k) bits_equal(*got[k], *ref[k]);
  }
}

TEST_CASE("fusion: a lone binary op that broadcasts an operand runs as a fused node; same-shape lone ops stay") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{9, 70}});
    auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{9, 70}});
    auto row = b.add_placeholder("row", TensorSpec{DType::Float32, Shape{9, 1}});
    auto col = b.add_placeholder("col", TensorSpec{DType::Float32, Shape{70}});
    g->outputs.push_back(NodeOutput{op2("Sub", x, row)->node, 0});      // x - max(x) of a row
    g->outputs.push_back(NodeOutput{op2("Maximum", col, x)->node, 0});  // the broadcast operand first
    g->outputs.push_back(NodeOutput{op2("Mul", x, y)->node, 0});        // nothing to gain: stays
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g,
                         {random_tensor(Shape{9, 70}, 41), random_tensor(Shape{9, 70}, 42),
                          random_tensor(Shape{9, 1}, 43), random_tensor(Shape{70}, 44)},
                         &f);
  CHECK(count_op(*f, "_FusedElementwise") == 2);
  CHECK(count_op(*f, "Sub") == 0);
  CHECK(count_op(*f, "Mul") == 1);
  for (int k = 0; k < 3; ++k)
    for (int64_t i = 0; i < ref[k]->num_elements(); ++i)
      CHECK(std::memcmp(got[k]->data<float>() + i, ref[k]->data<float>() + i, 4) == 0);
}

TEST_CASE("fusion: an op joins a fused tree by its definition's fusion fact, not by its name") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{5, 70}});
    auto y = op2("Mul", op1("TestFusableNeg", op2("AddV2", x, x)), x);  // one tree
    auto z = op2("Mul", op1("TestUnfusableNeg", op2("Sub", x, y)), y);  // stops at the plain copy
    g->outputs.push_back(NodeOutput{z->node, 0});
  }
  REQUIRE(OpRegistry::global().get("TestFusableNeg").fusion.opcode == fused::kNeg);
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{5, 70}, 41)}, &f);
  CHECK(count_op(*f, "TestFusableNeg") == 0);
  CHECK(count_op(*f, "TestUnfusableNeg") == 1);
  CHECK(count_op(*f, "_FusedElementwise") == 2);  // below and above the unfusable op
  check_close(*got[0], *ref[0], 0.f);
}

TEST_CASE("fused kernel: short repeating operands (per-channel, bias) read from one repeated buffer, same values") {
  // x * scale + shift with scale and shift of `mod` values repeating along the output (NHWC
  // channels) over several tiles, mod dividing the 1024-element tile or not; and the same
  // program ending in a row sum. Each element is exactly the unfused x[i] * s[i % mod] + t[i % mod].
  const std::vector<fused::Instr> prog{{fused::kMul, 0, 1}, {fused::kAdd, -1, 2}};
  for (int64_t mod : {2, 3, 16, 100, 1000, 1023}) {
    for (int64_t n : {int64_t{1024}, int64_t{5000}, int64_t{3 * 1024 + 7}}) {
      const int64_t rows_n = n / mod * mod;  // a whole number of rows for the reduction
      auto x = random_tensor(Shape{n}, 1), s = random_tensor(Shape{mod}, 2), t = random_tensor(Shape{mod}, 3);
      std::vector<fused::Operand> ops{{x->data<float>(), 1, n}, {s->data<float>(), 1, mod}, {t->data<float>(), 1, mod}};
      std::vector<float> out(static_cast<size_t>(n));
      fused::run(prog, ops, out.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        volatile float prod = x->data<float>()[i] * s->data<float>()[i % mod];  // rounded, as the kernel does
        REQUIRE(out[static_cast<size_t>(i)] == prod + t->data<float>()[i % mod]);
      }
      if (rows_n == 0) continue;
      std::vector<float> sums(static_cast<size_t>(rows_n / mod));
      fused::Reduce red;
      red.kind = fused::Reduce::kSum;
      red.mid = mod;
      ops[0].mod = rows_n;
      fused::run(prog, ops, sums.data(), rows_n, red);
      std::vector<float> row(static_cast<size_t>(mod));
      for (int64_t r = 0; r < rows_n / mod; ++r) {
        std::vector<fused::Operand> one{{x->data<float>() + r * mod, 1, mod}, ops[1], ops[2]};
        fused::Reduce red1 = red;
        float want = 0;
        fused::run(prog, one, &want, mod, red1);  // one row alone: no repeated buffer
        REQUIRE(sums[static_cast<size_t>(r)] == want);
      }
    }
  }
}

TEST_CASE("fusion: an AddN (a gradient's accumulation) joins a tree as its adds in AddN's order, same bits") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{3, 700}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{3, 700}});
    // Four addends, two of them fused subtrees, one an outside input; the sum feeds a Relu.
    auto s4 = dispatch1("AddN", {op2("Mul", x, w), op1("Neg", x), w, op1("Tanh", w)});
    auto y = op1("Relu", s4);
    // Two addends: an AddN of two is a plain add; a lone AddN of x with itself reads x twice.
    auto s2 = op1("Neg", dispatch1("AddN", {op1("Square", x), x}));
    auto s3 = dispatch1("AddN", {x, x, w});
    for (auto& t : {y, s2, s3}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto x = random_tensor(Shape{3, 700}, 51), w = random_tensor(Shape{3, 700}, 52);
  auto [ref, got] = both(g, {x, w}, &f);
  CHECK(count_op(*f, "AddN") == 1);  // s3: a lone AddN of plain inputs is no tree (nothing to fuse)
  CHECK(count_op(*f, "Tanh") == 0);
  CHECK(count_op(*f, "_FusedElementwise") == 2);
  for (int k = 0; k < 3; ++k) {
    REQUIRE(got[k]->shape() == ref[k]->shape());
    CHECK(std::memcmp(got[k]->raw(), ref[k]->raw(), sizeof(float) * static_cast<size_t>(ref[k]->num_elements())) == 0);
  }
  // The sum's chain: three adds, the first over the first two addends.
  int adds = 0;
  for (const Node& node : f->nodes())
    if (node.op == "_FusedElementwise") {
      const auto& prog = node.attrs.get<std::vector<int64_t>>("program");
      for (size_t i = 0; i < prog.size(); i += 3) adds += prog[i] == fused::kAdd;
    }
  CHECK(adds == 4);  // three in y's tree, one in s2's
}

TEST_CASE("fusion: a shared cheap value is recomputed by its readers only when it reads one full-size tensor") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{8, 300}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{8, 300}});
    auto row = b.add_placeholder("row", TensorSpec{DType::Float32, Shape{300}});
    auto both_full = dispatch1("AddN", {op1("Neg", x), w});  // two full-size reads: computed once
    auto centred = op2("Sub", x, row);                       // one, plus a row: each reader recomputes it
    auto r1 = op1("Relu", op2("Mul", both_full, centred));
    auto r2 = op2("Maximum", op2("AddV2", both_full, x), centred);
    for (auto& t : {r1, r2}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] =
      both(g, {random_tensor(Shape{8, 300}, 71), random_tensor(Shape{8, 300}, 72), random_tensor(Shape{300}, 73)}, &f);
  CHECK(count_op(*f, "Sub") == 0);
  // AddN (with Neg) computed once, in r1's tree, written as its extra output for r2's tree
  CHECK(count_op(*f, "_FusedElementwise") == 2);
  CHECK(count_op(*f, "AddN") == 0);
  CHECK(extra_outputs_of(*f) == 1);
  CHECK(Plan::compile(f)->num_steps() == 2);
  for (int k = 0; k < 2; ++k)
    CHECK(std::memcmp(got[k]->raw(), ref[k]->raw(), sizeof(float) * static_cast<size_t>(ref[k]->num_elements())) == 0);
}

TEST_CASE("fusion: a broadcast is read through by its definition's broadcast-view fact, not by its name") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{6, 300}});
    auto dy = b.add_placeholder("dy", TensorSpec{DType::Float32, Shape{6, 1}});
    auto view = dispatch1("TestBroadcastView", {dy, int_const({6, 300})});
    auto plain = dispatch1("TestPlainBroadcast", {dy, int_const({6, 300})});
    g->outputs.push_back(NodeOutput{op2("Mul", op1("Tanh", x), view)->node, 0});
    g->outputs.push_back(NodeOutput{op2("Mul", op1("Exp", x), plain)->node, 0});
  }
  REQUIRE(OpRegistry::global().get("TestBroadcastView").broadcast_view);
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{6, 300}, 51), random_tensor(Shape{6, 1}, 52)}, &f);
  CHECK(count_op(*f, "TestBroadcastView") == 0);   // read through by the tree
  CHECK(count_op(*f, "TestPlainBroadcast") == 1);  // materialised: a plain op to the fuser
  for (int k = 0; k < 2; ++k) check_close(*got[k], *ref[k], 0.f);
}

namespace {
bool same_bits(const EagerTensor& a, const EagerTensor& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.raw(), b.raw(), sizeof(float) * static_cast<size_t>(a.num_elements())) == 0;
}
}  // namespace

TEST_CASE("fusion: an LSTM cell whose gates and state are stacked for the gradient is one node with extra outputs") {
  for (Shape s : {Shape{37, 130}, Shape{1, 1}, Shape{32, 128}}) {
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      std::vector<TensorPtr> z;
      for (const char* name : {"zi", "zf", "zg", "zo", "c"})
        z.push_back(b.add_placeholder(name, TensorSpec{DType::Float32, s}));
      auto i = op1("Sigmoid", z[0]), f = op1("Sigmoid", z[1]), gg = op1("Tanh", z[2]), o = op1("Sigmoid", z[3]);
      auto c = op2("AddV2", op2("Mul", f, z[4]), op2("Mul", i, gg));
      auto tc = op1("Tanh", c);
      auto h = op2("Mul", o, tc);
      for (auto& t : {h, c, i, f, gg, o, tc}) g->outputs.push_back(NodeOutput{t->node, 0});  // all stacked
    }
    std::vector<EagerPtr> in;
    for (uint32_t k = 0; k < 5; ++k) in.push_back(random_tensor(s, 80 + k, -4.f, 4.f));
    std::shared_ptr<Graph> f;
    auto [ref, got] = both(g, in, &f);
    CHECK(Plan::compile(f)->num_steps() == 1);
    CHECK(count_op(*f, "_FusedElementwise") == 1);
    CHECK(extra_outputs_of(*f) == 6);
    for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
  }
}

TEST_CASE("fusion: an intermediate joins its reader's tree as an extra output only when its other readers come after") {
  for (bool reader_first : {true, false}) {
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{20, 30}});
      auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{30, 30}});
      auto t = op1("Tanh", op2("Mul", x, x));
      TensorPtr m;
      if (reader_first) m = dispatch1("MatMul", {t, w});  // reads t before the tree's root
      auto a = op1("Relu", op2("Mul", t, x));
      if (!reader_first) m = dispatch1("MatMul", {t, w});  // after it: reads the extra output
      g->outputs.push_back(NodeOutput{a->node, 0});
      g->outputs.push_back(NodeOutput{m->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] = both(g, {random_tensor(Shape{20, 30}, 90), random_tensor(Shape{30, 30}, 91)}, &f);
    CHECK(extra_outputs_of(*f) == (reader_first ? 0u : 1u));
    CHECK(count_op(*f, "_FusedElementwise") == 2 - (reader_first ? 0 : 1));  // t's own tree (with x * x) or none
    for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
  }
}

TEST_CASE("fusion: a reduction's tree writes its data or an intermediate as extra outputs, bit for bit") {
  for (int axis : {1, 0}) {
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{40, 300}});
      auto m = b.add_placeholder("m", TensorSpec{DType::Float32, axis == 1 ? Shape{40, 1} : Shape{300}});
      auto d = op2("Sub", x, m);
      auto e = op2("RealDiv", d, x);  // costly, read by the square's tree and by the output
      auto sq = op2("Mul", op1("Square", d), e);
      auto axes = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Int32, axis)}, {"dtype", DType::Int32}});
      auto var = dispatch1("Mean", {sq, axes}, Attrs{{"keep_dims", true}});
      for (auto& t : {var, e, sq}) g->outputs.push_back(NodeOutput{t->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] =
        both(g, {random_tensor(Shape{40, 300}, 92), random_tensor(axis == 1 ? Shape{40, 1} : Shape{300}, 93)}, &f);
    CHECK(Plan::compile(f)->num_steps() == 1);
    CHECK(extra_outputs_of(*f) == 2);  // e, and sq (the reduction's data)
    for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
  }
}

TEST_CASE("fusion: at most eight extra outputs a tree; a shared subtree recomputed elsewhere reads an extra output") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{9, 130}});
    std::vector<TensorPtr> s;
    for (int k = 0; k < 11; ++k) {
      auto c =
          dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 0.25 * k)}, {"dtype", DType::Float32}});
      s.push_back(op1("Sigmoid", op2("AddV2", x, c)));
      g->outputs.push_back(NodeOutput{s.back()->node, 0});
    }
    auto total = dispatch1("AddN", {s});
    auto half = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 0.5)}, {"dtype", DType::Float32}});
    auto d = op2("AddV2", s[10], half);  // cheap, shared by two trees below: recomputed, reading s[10]
    auto r1 = op2("Mul", d, x), r2 = op1("Relu", d);
    for (auto& t : {total, r1, r2}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{9, 130}, 94)}, &f);
  CHECK(count_op(*f, "Sigmoid") == 0);
  size_t most = 0;
  for (const Node& n : f->nodes())
    if (n.attrs.has("extra_outputs")) most = std::max(most, n.attrs.get<std::vector<int64_t>>("extra_outputs").size());
  CHECK(most == 8);
  CHECK(extra_outputs_of(*f) == 8);  // three sigmoids are trees of their own (with their add)
  for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
}

TEST_CASE(
    "fusion: a control dependency's target is no extra output; a value read twice by one tree only is computed once, not written") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{50}});
    auto t = op1("Tanh", x);
    auto u = op2("Mul", t, op1("Relu", t));  // t read twice by one tree
    auto e = op1("Exp", x);
    auto v = op2("Mul", op1("Neg", e), x);
    g->mutable_node(v->node).control_inputs.push_back(e->node);
    for (auto& o : {u, v, e}) g->outputs.push_back(NodeOutput{o->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{50}, 95)}, &f);
  CHECK(extra_outputs_of(*f) == 0);
  CHECK(count_op(*f, "Tanh") == 0);
  CHECK(count_instr(*f, fused::kTanh) == 1);
  CHECK(count_op(*f, "Exp") == 1);
  for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
}

TEST_CASE("fusion: a dead node reading a member is dropped, not kept as a copy of it") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{3, 70}});
    auto a = op2("AddV2", x, x);  // an output, and read by b
    auto bb = op1("Abs", a);
    auto axes = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Int32, -1)}, {"dtype", DType::Int32}});
    auto s = dispatch1("Sum", {bb, axes}, Attrs{{"keep_dims", true}});
    op1("Abs", bb);  // nothing reads it (a pass left it behind)
    g->outputs.push_back(NodeOutput{s->node, 0});
    g->outputs.push_back(NodeOutput{a->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{3, 70}, 96)}, &f);
  CHECK(extra_outputs_of(*f) == 1);  // a, an output, written by the Sum's tree
  CHECK(count_op(*f, "Abs") == 0);
  CHECK(count_op(*f, "AddV2") == 0);
  for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
}

TEST_CASE("fusion: a value two trees read is written by the first tree even when the second reads it early") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{6, 200}});
    auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{6, 200}});
    auto dc = op2("Mul", op1("Tanh", x), y);  // an LSTM backward's dc, read by every gate's gradient
    auto m1 = op2("Mul", dc, x);
    auto m2 = op2("Mul", dc, y);  // a member of the second tree, before the first tree's root
    auto r1 = op1("Sigmoid", m1);
    auto r2 = op1("Relu", op2("AddV2", m2, x));
    for (auto& t : {r1, r2}) g->outputs.push_back(NodeOutput{t->node, 0});
  }
  std::shared_ptr<Graph> f;
  auto [ref, got] = both(g, {random_tensor(Shape{6, 200}, 97), random_tensor(Shape{6, 200}, 98)}, &f);
  CHECK(count_op(*f, "_FusedElementwise") == 2);
  CHECK(extra_outputs_of(*f) == 1);
  CHECK(Plan::compile(f)->num_steps() == 2);
  for (size_t k = 0; k < ref.size(); ++k) CHECK(same_bits(*got[k], *ref[k]));
}

TEST_CASE("fusion: a big value read twice by a column sum's tree, else only by dead nodes, is computed once there") {
  // A gelu gradient's shape: v = 0.5 x dy (1 - (-x)^2) (six ops: too big to recompute) read twice by
  // the bias gradient's tree sum_rows(v * x + (v + dy)), whose sum's data is also a graph output
  // (the MatMul's input); a dead node reads v too. One fused node, one Neg instruction, v never
  // written; the same bits as the ops one by one (Neg for tanh: a big unfused Tanh is oneDNN's).
  for (const Shape& shape : {Shape{64, 48}, Shape{517, 389}}) {
    auto g = std::make_shared<Graph>("f");
    {
      GraphBuilder b(g);
      ContextScope scope(&b);
      auto x = b.add_placeholder("x", TensorSpec{DType::Float32, shape});
      auto dy = b.add_placeholder("dy", TensorSpec{DType::Float32, shape});
      auto half = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 0.5)}, {"dtype", DType::Float32}});
      auto one = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, 1.0)}, {"dtype", DType::Float32}});
      auto t = op1("Neg", x);
      auto v = op2("Mul", op2("Mul", op2("Mul", x, half), dy), op2("Sub", one, op1("Square", t)));
      op2("Mul", v, x);  // dead
      auto data = op2("AddV2", op2("Mul", v, x), op2("AddV2", v, dy));
      auto axes = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Int32, 0)}, {"dtype", DType::Int32}});
      auto s = dispatch1("Sum", {data, axes}, Attrs{{"keep_dims", false}});
      auto m = dispatch1("MatMul", {data, x}, Attrs{{"transpose_a", true}});
      for (auto& o : {s, m}) g->outputs.push_back(NodeOutput{o->node, 0});
    }
    std::shared_ptr<Graph> f;
    auto [ref, got] = both(g, {random_tensor(shape, 97), random_tensor(shape, 98)}, &f);
    INFO("shape " << shape.to_string());
    CHECK(fused_reductions(*f) == 1);
    CHECK(count_op(*f, "_FusedElementwise") == 1);
    CHECK(count_instr(*f, fused::kNeg) == 1);
    CHECK(extra_outputs_of(*f) == 1);  // the sum's data, for the MatMul
    CHECK(count_op(*f, "Mul") == 0);
    for (size_t k = 0; k < ref.size(); ++k) {
      INFO("output " << k);
      CHECK(same_bits(*got[k], *ref[k]));
    }
  }
}
