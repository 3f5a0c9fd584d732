// cpp/exec: compiled plans run graphs, prune dead nodes, and free buffers.
#include <catch2/catch.hpp>

#include "exec/plan.h"
#include "trace/context.h"

using namespace fn;

TEST_CASE("a plan runs a traced graph and prunes unused nodes") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{2, 2}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{2, 2}});
    auto unused = dispatch1("AddV2", {x, x});
    auto y = dispatch1("MatMul", {x, w});
    auto z = dispatch1("AddV2", {y, x});
    g->outputs.push_back(NodeOutput{z->node, 0});
    (void)unused;
  }
  auto plan = Plan::compile(g);
  CHECK(plan->num_steps() == 2);  // MatMul and add_1, not the unused add
  auto x = make_tensor(DType::Float32, Shape{2, 2}), w = make_tensor(DType::Float32, Shape{2, 2});
  float xv[] = {1, 2, 3, 4}, wv[] = {1, 0, 0, 1};
  std::copy(xv, xv + 4, x->data<float>());
  std::copy(wv, wv + 4, w->data<float>());
  auto out = plan->run({x, w});
  REQUIRE(out.size() == 1);
  for (int i = 0; i < 4; ++i) CHECK(out[0]->data<float>()[i] == 2 * xv[i]);
  CHECK_THROWS(plan->run({x}));
}

TEST_CASE("run_into writes a plan's outputs into a reused vector, as run returns them") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{3}});
    auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{3}});
    auto s = dispatch1("AddV2", {x, y});
    auto p = dispatch1("Mul", {s, x});
    g->outputs.push_back(NodeOutput{p->node, 0});
    g->outputs.push_back(NodeOutput{s->node, 0});
  }
  auto plan = Plan::compile(g);
  auto x = make_tensor(DType::Float32, Shape{3}), y = make_tensor(DType::Float32, Shape{3});
  for (int i = 0; i < 3; ++i) {
    x->data<float>()[i] = static_cast<float>(i + 1);
    y->data<float>()[i] = static_cast<float>(10 * i);
  }
  std::vector<EagerPtr> out{x, x, x};  // stale contents are replaced, the capacity kept
  const EagerPtr* storage = out.data();
  std::vector<EagerPtr> in{x, y};
  for (int run = 0; run < 3; ++run) {
    plan->run_into(in.data(), in.size(), 0, out);
    REQUIRE(out.size() == 2);
    CHECK(out.data() == storage);  // no new result vector per run (a loop's cond/body)
    auto ref = plan->run(in);
    for (int i = 0; i < 3; ++i) {
      CHECK(out[0]->data<float>()[i] == ref[0]->data<float>()[i]);
      CHECK(out[1]->data<float>()[i] == x->data<float>()[i] + y->data<float>()[i]);
    }
  }
  CHECK(in[0] == x);  // n_move 0: the inputs stay with the caller
  CHECK_THROWS(plan->run_into(in.data(), 1, 0, out));
}
