// cpp/autodiff: the backward pass over tapes, eagerly and while building a graph (the same
// gradient rules, run later by a Plan).
#include <catch2/catch.hpp>

#include <cmath>

#include "autodiff/backward.h"
#include "exec/plan.h"
#include "trace/context.h"

using namespace fn;

namespace {
EagerPtr vec(std::initializer_list<float> v) {
  auto t = make_tensor(DType::Float32, Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t->data<float>());
  return t;
}

// RAII push/pop of a tape on this thread.
struct ActiveTape {
  std::shared_ptr<Tape> tape = std::make_shared<Tape>(false, true);
  ActiveTape() { active_tapes().push_back(tape); }
  ~ActiveTape() { active_tapes().pop_back(); }
};
}  // namespace

TEST_CASE("eager backward: product rule, broadcasting, accumulation, unconnected") {
  auto x = vec({1, 2, 3}), s = make_scalar(DType::Float32, 2.0), u = vec({5, 5, 5});
  TensorPtr y;
  ActiveTape t;
  t.tape->watch(x);
  t.tape->watch(s);
  t.tape->watch(u);
  // y = x * x * s + sin(x)
  y = dispatch1("AddV2", {dispatch1("Mul", {dispatch1("Mul", {x, x}), s}), dispatch1("Sin", {x})});
  auto entries = t.tape->entries();
  auto g = compute_gradients(entries, *t.tape, GradientRequest{{y}, {x, s, u}, {}, false});
  REQUIRE(g[0]);
  for (int i = 0; i < 3; ++i) {
    float xv = static_cast<float>(i + 1);
    CHECK(as_eager(g[0])->data<float>()[i] == Approx(2 * 2 * xv + std::cos(xv)));
  }
  CHECK(g[1]->shape() == Shape{});  // summed over the broadcast
  CHECK(as_eager(g[1])->scalar_as_double() == Approx(1 + 4 + 9));
  CHECK(g[2] == nullptr);
  auto z = compute_gradients(entries, *t.tape, GradientRequest{{y}, {u}, {}, true});
  CHECK(as_eager(z[0])->data<float>()[1] == 0.0f);
}

TEST_CASE("backward while tracing builds gradient nodes that a plan runs") {
  auto g = std::make_shared<Graph>("grad");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{Shape::kUnknown, 3}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{3}});
    ActiveTape t;
    t.tape->watch(x);
    t.tape->watch(w);
    auto axis = dispatch1("Const", {}, Attrs{{"value", make_scalar(DType::Int32, 1)}, {"dtype", DType::Int32}});
    auto y = dispatch1("Sum", {dispatch1("Tanh", {dispatch1("Mul", {x, w})}), axis});
    CHECK(y->shape() == Shape{Shape::kUnknown});
    auto entries = t.tape->entries();
    auto grads = compute_gradients(entries, *t.tape, GradientRequest{{y}, {x, w}, {}, false});
    REQUIRE(grads[0]);
    REQUIRE(grads[1]);
    CHECK(grads[0]->shape() == Shape{Shape::kUnknown, 3});
    CHECK(grads[1]->shape() == Shape{3});
    g->outputs = {NodeOutput{grads[0]->node, grads[0]->index}, NodeOutput{grads[1]->node, grads[1]->index}};
  }
  auto plan = Plan::compile(g);
  auto x = make_tensor(DType::Float32, Shape{2, 3});
  float xv[] = {0.1f, 0.2f, 0.3f, -0.4f, 0.5f, -0.6f};
  std::copy(xv, xv + 6, x->data<float>());
  auto w = vec({1.0f, -2.0f, 0.5f});
  auto out = plan->run({x, w});
  REQUIRE(out.size() == 2);
  for (int i = 0; i < 6; ++i) {
    float wv = w->data<float>()[i % 3], d = 1 - std::tanh(xv[i] * wv) * std::tanh(xv[i] * wv);
    CHECK(out[0]->data<float>()[i] == Approx(d * wv));
  }
  for (int j = 0; j < 3; ++j) {
    float want = 0;
    for (int r = 0; r < 2; ++r) {
      float v = xv[r * 3 + j], wv = w->data<float>()[j];
      want += (1 - std::tanh(v * wv) * std::tanh(v * wv)) * v;
    }
    CHECK(out[1]->data<float>()[j] == Approx(want));
  }
}
