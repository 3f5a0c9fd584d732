// passes/fuse_updates.cpp: a read after an assign of the same variable reads the assigned value,
// and the assign moves after the tree reading that value, so a momentum step's slot and
// parameter updates are one fused node; what blocks the move keeps program order.
#include <catch2/catch.hpp>

#include "exec/plan.h"
#include "ops/state.h"
#include "passes/passes.h"
#include "passes/rewriter.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {

const Attrs kRead{{"dtype", DType::Float32}, {"shape", Shape{4}}};

TensorPtr scalar(float v) {
  return dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Float32, v)}, {"dtype", DType::Float32}});
}

// m.assign(m * 0.5 + g); [between(m)]; p.assign_sub(m * 0.1), args (p, m, g); returns p's read.
std::shared_ptr<Graph> momentum_graph(bool read_m_between) {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto p = b.add_placeholder("p", TensorSpec{DType::Resource, Shape{}});
  auto m = b.add_placeholder("m", TensorSpec{DType::Resource, Shape{}});
  auto grad = b.add_placeholder("g", TensorSpec{DType::Float32, Shape{4}});
  dispatch1("ReadVariableOp", {p}, kRead);  // p's shape is known
  auto m0 = dispatch1("ReadVariableOp", {m}, kRead);
  auto half = scalar(0.5f);
  auto m1 = dispatch1("AddV2", {dispatch1("Mul", {m0, half}), grad});
  dispatch("AssignVariableOp", {m, m1});
  if (read_m_between) dispatch("AssignAddVariableOp", {m, grad});  // another write: m changes
  auto m_now = dispatch1("ReadVariableOp", {m}, kRead);
  dispatch("AssignSubVariableOp", {p, dispatch1("Mul", {m_now, scalar(0.1f)})});
  g->outputs.push_back(NodeOutput{dispatch1("ReadVariableOp", {p}, kRead)->node, 0});
  return g;
}

std::vector<float> run(const std::shared_ptr<Graph>& g, std::vector<float>* m_out) {
  auto tensor = [](std::vector<float> v) {
    auto t = make_tensor(DType::Float32, Shape{4});
    for (int i = 0; i < 4; ++i) t->data<float>()[i] = v[static_cast<size_t>(i)];
    return t;
  };
  auto p = std::make_shared<VariableState>(tensor({1.f, -2.f, 3.5f, 0.25f}), true, "p");
  auto m = std::make_shared<VariableState>(tensor({0.3f, 0.7f, -1.1f, 2.f}), true, "m");
  auto out = Plan::compile(g)->run({make_variable_handle(p), make_variable_handle(m), tensor({.5f, -1.f, 2.f, .1f})});
  *m_out = std::vector<float>(m->read()->data<float>(), m->read()->data<float>() + 4);
  return std::vector<float>(out[0]->data<float>(), out[0]->data<float>() + 4);
}

}  // namespace

TEST_CASE("fuse_updates: a momentum step's slot and parameter updates are one fused node, bit-equal") {
  auto g = momentum_graph(false);
  auto fused = optimize(*g);
  CHECK(count_op(*fused, "_FusedElementwise") == 1);
  CHECK(count_op(*fused, "AssignVariableOp") == 2);
  std::vector<float> m_fused, m_plain;
  auto p_fused = run(fused, &m_fused);
  auto p_plain = run(copy_graph(*g), &m_plain);  // unoptimised: the ops one by one
  CHECK(p_fused == p_plain);
  CHECK(m_fused == m_plain);
}

TEST_CASE("fuse_updates: a write between the assign and the read keeps the read") {
  auto g = momentum_graph(true);
  auto fwd = forward_variable_updates_or_null(*g);
  auto opt = optimize(*g);
  CHECK(count_op(*opt, "AssignAddVariableOp") == 1);
  std::vector<float> m_opt, m_plain;
  auto p_opt = run(opt, &m_opt);
  auto p_plain = run(copy_graph(*g), &m_plain);
  CHECK(p_opt == p_plain);
  CHECK(m_opt == m_plain);
  if (fwd) CHECK(count_op(*fwd, "ReadVariableOp") >= count_op(*g, "ReadVariableOp") - 1);
}

TEST_CASE("fuse_updates: nothing to do without an AssignVariableOp") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{4}});
    g->outputs.push_back(NodeOutput{dispatch1("Neg", {x})->node, 0});
  }
  CHECK(forward_variable_updates_or_null(*g) == nullptr);
}
