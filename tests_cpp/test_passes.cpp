// cpp/passes: constant folding and CSE each on their own, then the pass manager.
#include <catch2/catch.hpp>

#include "exec/plan.h"
#include "passes/passes.h"
#include "trace/context.h"

using namespace fn;

namespace {
int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}
}  // namespace

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
