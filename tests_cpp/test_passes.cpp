// cpp/passes: constant folding and CSE each on their own, then the pass manager.
#include <catch2/catch.hpp>

#include <cmath>

#include "exec/plan.h"
#include "ops/state.h"
#include "passes/passes.h"
#include "passes/rewriter.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

TEST_CASE("CSE merges identical stateless nodes") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{2}});
    auto a = dispatch1("AddV2", {x, x});
    auto c = dispatch1("AddV2", {x, x});
    auto d = dispatch1("AddV2", {a, c});
    g->outputs.push_back(NodeOutput{d->node, 0});
  }
  auto opt = eliminate_common_subexpressions(*g);
  CHECK(count_op(*g, "AddV2") == 3);
  CHECK(count_op(*opt, "AddV2") == 2);
  auto x = make_tensor(DType::Float32, Shape{2});
  x->data<float>()[0] = 1;
  x->data<float>()[1] = 2;
  auto out = Plan::compile(opt)->run({x});
  CHECK(out[0]->data<float>()[1] == 8);
}

TEST_CASE("constant folding computes all-constant subgraphs at compile time") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Int32, Shape{}});
    auto one = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Int32, 1)}, {"dtype", DType::Int32}});
    auto two = dispatch1("AddV2", {one, one});
    auto y = dispatch1("AddV2", {x, two});
    g->outputs.push_back(NodeOutput{y->node, 0});
  }
  auto opt = optimize(*g);
  CHECK(count_op(*opt, "AddV2") == 1);
  auto out = Plan::compile(opt)->run({make_scalar(DType::Int32, 5)});
  CHECK(out[0]->scalar_as_int() == 7);
}

TEST_CASE("passes with nothing to do return nullptr; optimize still returns a separate copy") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Int32, Shape{}});
    auto y = dispatch1("AddV2", {x, x});
    auto z = dispatch1("Mul", {y, x});
    g->outputs.push_back(NodeOutput{z->node, 0});
  }
  CHECK(fold_constants_or_null(*g) == nullptr);
  CHECK(eliminate_common_subexpressions_or_null(*g) == nullptr);
  CHECK(fuse_elementwise_or_null(*g) == nullptr);  // int32: not fusable
  auto opt = optimize(*g);
  REQUIRE(opt);
  CHECK(opt.get() != g.get());
  CHECK(opt->id() != g->id());
  REQUIRE(opt->num_nodes() == g->num_nodes());
  for (int i = 0; i < g->num_nodes(); ++i) CHECK(opt->node(i).name == g->node(i).name);
  CHECK(opt->arg_placeholders == g->arg_placeholders);
  CHECK(Plan::compile(opt)->run({make_scalar(DType::Int32, 3)})[0]->scalar_as_int() == 18);
  // The public passes keep returning a copy.
  CHECK(fold_constants(*g)->num_nodes() == g->num_nodes());
  CHECK(eliminate_common_subexpressions(*g)->num_nodes() == g->num_nodes());
}

TEST_CASE("CSE collapses chains of duplicates in one sweep") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Int32, Shape{}});
    auto a1 = dispatch1("AddV2", {x, x});
    auto a2 = dispatch1("AddV2", {x, x});
    auto b1 = dispatch1("Mul", {a1, x});
    auto b2 = dispatch1("Mul", {a2, x});  // same as b1 once a2 is a1
    auto c1 = dispatch1("Sub", {b1, x});
    auto c2 = dispatch1("Sub", {x, b2});  // operands swapped: not the same
    auto d = dispatch1("AddV2", {c1, c2});
    g->outputs.push_back(NodeOutput{d->node, 0});
  }
  REQUIRE(eliminate_common_subexpressions_or_null(*g) != nullptr);
  auto opt = eliminate_common_subexpressions(*g);
  CHECK(count_op(*opt, "AddV2") == 2);
  CHECK(count_op(*opt, "Mul") == 1);
  CHECK(count_op(*opt, "Sub") == 2);
  // x=3: a=6, b=18, c1=15, c2=-15, d=0; x=2: a=4, b=8, c1=6, c2=-6
  for (int v : {3, 2}) {
    auto ref = Plan::compile(g)->run({make_scalar(DType::Int32, v)})[0]->scalar_as_int();
    CHECK(Plan::compile(opt)->run({make_scalar(DType::Int32, v)})[0]->scalar_as_int() == ref);
  }
}

TEST_CASE("names: add_node_named keeps names; later uses of a taken name get _1, as TF") {
  Graph g("f");
  Node a;
  a.op = "NoOp";
  a.name = "mul";
  g.add_node_named(a);
  CHECK(g.peek_unique_name("mul") == "mul_1");
  CHECK(g.unique_name("mul") == "mul_1");
  CHECK(g.unique_name("mul") == "mul_2");
  CHECK(g.unique_name("add") == "add");
  CHECK(g.unique_name("add") == "add_1");
  CHECK(g.find_node("mul") == 0);
  auto c = copy_graph(g);
  CHECK(c->num_nodes() == 1);
  CHECK(c->node(0).name == "mul");
  CHECK(c->unique_name("mul") == "mul_1");
}

TEST_CASE("CSE merges small Consts by value: same dtype, shape and bits only") {
  auto g = std::make_shared<Graph>("f");
  auto cst = [](EagerPtr v) {
    DType d = v->dtype();
    return dispatch1("Const", {}, Attrs{{"value", std::move(v)}, {"dtype", d}});
  };
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{}});
    auto two_a = cst(make_scalar(DType::Float32, 2.0));
    auto two_b = cst(make_scalar(DType::Float32, 2.0));  // merges with two_a
    auto two_d = cst(make_scalar(DType::Float64, 2.0));  // another dtype
    auto zero = cst(make_scalar(DType::Float32, 0.0));
    auto neg_zero = cst(make_scalar(DType::Float32, -0.0));     // other bits: kept apart
    auto big_a = cst(make_tensor(DType::Float32, Shape{100}));  // 400 bytes: by identity only
    auto big_b = cst(make_tensor(DType::Float32, Shape{100}));
    for (int i = 0; i < 100; ++i) {
      as_eager(g->node(big_a->node).attrs.get<EagerPtr>("value"))->data<float>()[i] = 1.f;
      as_eager(g->node(big_b->node).attrs.get<EagerPtr>("value"))->data<float>()[i] = 1.f;
    }
    auto y = dispatch1("AddV2", {dispatch1("Mul", {x, two_a}), two_b});
    auto z = dispatch1("AddV2", {dispatch1("Mul", {y, zero}), neg_zero});
    auto s = dispatch1("AddV2", {big_a, big_b});
    g->outputs = {NodeOutput{z->node, 0}, NodeOutput{two_d->node, 0}, NodeOutput{s->node, 0}};
  }
  auto opt = eliminate_common_subexpressions(*g);
  CHECK(count_op(*g, "Const") == 7);
  CHECK(count_op(*opt, "Const") == 6);
  auto out = Plan::compile(opt)->run({make_scalar(DType::Float32, 3.0)});
  CHECK(out[0]->data<float>()[0] == 0.f);
  CHECK(std::signbit(out[0]->data<float>()[0]) == false);  // (8 * 0) + -0 = +0
  CHECK(out[1]->dtype() == DType::Float64);
  CHECK(out[2]->data<float>()[99] == 2.f);
}

TEST_CASE("CustomGradient nodes are bypassed in the execution copy: readers read the passed-through input") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Int32, Shape{2}});
    auto y = dispatch1("Neg", {x});
    auto cg = dispatch1("CustomGradient", {y, x}, Attrs{{"num_outputs", int64_t{1}}});
    auto z = dispatch1("AddV2", {cg, cg});
    g->outputs.push_back(NodeOutput{z->node, 0});
    g->outputs.push_back(NodeOutput{cg->node, 0});
  }
  CHECK(bypass_custom_gradients_or_null(*g) != nullptr);
  auto opt = optimize(*g);
  CHECK(count_op(*g, "CustomGradient") == 1);
  CHECK(count_op(*opt, "CustomGradient") == 0);
  // x's last reader is now Neg: nothing reads it after (the node read it for the gradient only).
  for (const Node& n : opt->nodes())
    if (n.op == "AddV2") CHECK(opt->node(n.inputs[0].node).op == "Neg");
  auto x = make_tensor(DType::Int32, Shape{2});
  x->data<int32_t>()[0] = 3;
  x->data<int32_t>()[1] = -4;
  auto out = Plan::compile(opt)->run({x});
  CHECK(out[0]->data<int32_t>()[0] == -6);
  CHECK(out[0]->data<int32_t>()[1] == 8);
  CHECK(out[1]->data<int32_t>()[1] == 4);
  CHECK(x->data<int32_t>()[0] == 3);
  auto plain = std::make_shared<Graph>("g");
  {
    GraphBuilder b(plain);
    ContextScope scope(&b);
    auto x2 = b.add_placeholder("x", TensorSpec{DType::Int32, Shape{}});
    plain->outputs.push_back(NodeOutput{dispatch1("Neg", {x2})->node, 0});
  }
  CHECK(bypass_custom_gradients_or_null(*plain) == nullptr);
}

namespace {
// v.assign_sub(read(v) * x) (sign -1) or v.assign_add(...) (+1) in a graph of args (handle, x);
// `delta_shape` is x's shape; the value is read(v) * x, or x * x.
std::shared_ptr<Graph> update_graph(const char* op, const Shape& delta_shape, bool read_in_delta = true) {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto h = b.add_placeholder("h", TensorSpec{DType::Resource, Shape{}});
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, delta_shape});
  auto r = dispatch1("ReadVariableOp", {h}, Attrs{{"dtype", DType::Float32}, {"shape", Shape{3}}});
  auto d = dispatch1("Mul", {read_in_delta ? r : x, x});
  dispatch(op, {h, d});
  auto after = dispatch1("ReadVariableOp", {h}, Attrs{{"dtype", DType::Float32}, {"shape", Shape{3}}});
  g->outputs.push_back(NodeOutput{after->node, 0});
  return g;
}
}  // namespace

TEST_CASE("assign_sub/assign_add of an elementwise value: the update joins the value's fused tree") {
  for (const char* op : {"AssignSubVariableOp", "AssignAddVariableOp"}) {
    auto g = update_graph(op, Shape{3});
    auto opt = optimize(*g);
    CHECK(count_op(*opt, op) == 0);
    CHECK(count_op(*opt, "AssignVariableOp") == 1);
    auto plan = Plan::compile(opt);
    const float v0[3] = {1.5f, -2.25f, 3.1f}, x0[3] = {0.3f, 7.f, -1.1f};
    auto value = make_tensor(DType::Float32, Shape{3});
    auto x = make_tensor(DType::Float32, Shape{3});
    for (int i = 0; i < 3; ++i) value->data<float>()[i] = v0[i], x->data<float>()[i] = x0[i];
    auto state = std::make_shared<VariableState>(value, true, "v");
    auto out = plan->run({make_variable_handle(state), x});
    const bool sub = std::string(op) == "AssignSubVariableOp";
    for (int i = 0; i < 3; ++i) {
      float d = v0[i] * x0[i];
      float want = sub ? v0[i] - d : v0[i] + d;  // the update op's arithmetic, bit for bit
      CHECK(out[0]->data<float>()[i] == want);
      CHECK(state->read()->data<float>()[i] == want);
    }
  }
  // The value and the plan's fused trees: Mul and the update are one node.
  auto opt = optimize(*update_graph("AssignSubVariableOp", Shape{3}));
  CHECK(count_op(*opt, "Sub") == 0);
  CHECK(count_op(*opt, "Mul") == 0);
}

TEST_CASE("an update whose value could broadcast stays the update op (its shape error is kept)") {
  auto g = update_graph("AssignSubVariableOp", Shape{1}, false);  // x * x: shape [1], v: [3]
  CHECK(split_assign_updates_or_null(*g) == nullptr);
  auto opt = optimize(*g);
  CHECK(count_op(*opt, "AssignSubVariableOp") == 1);
}
