// exec/plan_parallel.cpp: a plan's independent steps on two threads give the sequential run's
// bits, its first error, and leave no value updated in place while another step reads it.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "core/error.h"
#include "exec/inter_op.h"
#include "exec/plan.h"
#include "trace/context.h"

using namespace fn;

namespace {

EagerPtr scalar(float v) {
  auto t = make_tensor(DType::Float32, Shape{});
  t->data<float>()[0] = v;
  return t;
}

EagerPtr ints(std::vector<int32_t> v) {
  auto t = make_tensor(DType::Int32, Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t->data<int32_t>());
  return t;
}

// Sixteen independent branches over one input (each read by many steps), joined at the end:
// elementwise chains, a reduction, a small matmul; big enough to be run in parallel.
// The plan and its capture values (the eager constants used while tracing).
struct Compiled {
  std::shared_ptr<const Plan> plan;
  std::vector<EagerPtr> captures;
};

std::vector<EagerPtr> captures_of(const GraphBuilder& b) {
  std::vector<EagerPtr> c;
  for (const TensorPtr& t : b.captured_values()) c.push_back(std::dynamic_pointer_cast<EagerTensor>(t));
  return c;
}

Compiled branches_plan(int64_t rows, int64_t cols) {
  auto g = std::make_shared<Graph>("branches");
  std::vector<EagerPtr> captures;
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{rows, cols}});
    auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{cols, 8}});
    std::vector<TensorPtr> sums;
    for (int i = 0; i < 16; ++i) {
      auto a = dispatch1("Mul", {x, scalar(0.5f + 0.1f * i)});
      auto t = dispatch1("Tanh", {a});
      auto e = dispatch1("Exp", {t});  // t read twice: by Exp and by Sub
      auto d = dispatch1("Sub", {e, t});
      auto s = dispatch1("Sum", {d, ints({1})}, Attrs{{"keep_dims", true}});
      auto m = dispatch1("MatMul", {d, w});
      auto r = dispatch1("Sum", {m, ints({1})}, Attrs{{"keep_dims", true}});
      sums.push_back(dispatch1("AddV2", {s, r}));
    }
    auto total = dispatch1("AddN", sums, Attrs{{"N", static_cast<int64_t>(sums.size())}});
    g->outputs.push_back(NodeOutput{total->node, 0});
    g->outputs.push_back(NodeOutput{sums[3]->node, 0});
    captures = captures_of(b);
  }
  return {Plan::compile(g), captures};
}

// Sets the executor (parallel or in order) for its lifetime, then restores the previous setting.
struct InterOpSetting {
  bool prev = inter_op_enabled();
  explicit InterOpSetting(bool on) { set_inter_op_enabled(on); }
  ~InterOpSetting() { set_inter_op_enabled(prev); }
};

std::vector<EagerPtr> run_with(const Compiled& c, std::vector<EagerPtr> in, bool parallel) {
  in.insert(in.end(), c.captures.begin(), c.captures.end());
  InterOpSetting setting(parallel);
  InterOpScope scope(true);
  return c.plan->run(in);
}

bool same_bits(const EagerPtr& a, const EagerPtr& b) {
  return a->shape() == b->shape() &&
         std::memcmp(a->data<float>(), b->data<float>(), sizeof(float) * a->num_elements()) == 0;
}

}  // namespace

TEST_CASE("a plan's independent steps run on two threads with the sequential run's bits") {
  auto plan = branches_plan(64, 2048);
  REQUIRE(plan.plan->parallel());
  auto x = make_tensor(DType::Float32, Shape{64, 2048});
  auto w = make_tensor(DType::Float32, Shape{2048, 8});
  for (int64_t i = 0; i < x->num_elements(); ++i) x->data<float>()[i] = static_cast<float>((i * 7919) % 1000) / 997.0f;
  for (int64_t i = 0; i < w->num_elements(); ++i)
    w->data<float>()[i] = static_cast<float>((i * 31) % 17) / 13.0f - 0.6f;
  auto ref = run_with(plan, {x, w}, false);
  for (int run = 0; run < 60; ++run) {
    auto out = run_with(plan, {x, w}, true);
    REQUIRE(out.size() == ref.size());
    for (size_t k = 0; k < out.size(); ++k) {
      INFO("run " << run << " output " << k << ": " << out[k]->data<float>()[0] << " vs " << ref[k]->data<float>()[0]);
      REQUIRE(same_bits(out[k], ref[k]));
    }
  }
  // The inputs are never updated in place (the caller still holds them).
  CHECK(x->data<float>()[1] == static_cast<float>(7919 % 1000) / 997.0f);
}

TEST_CASE("a small plan runs in order (no hand-off for a few tiny steps)") {
  CHECK_FALSE(branches_plan(2, 4).plan->parallel());
}

TEST_CASE("a parallel run raises the error the sequential run raises first") {
  auto g = std::make_shared<Graph>("errors");
  Compiled plan;
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{256, 1024}});
    auto s1 = b.add_placeholder("s1", TensorSpec{DType::Int32, Shape{2}});
    auto s2 = b.add_placeholder("s2", TensorSpec{DType::Int32, Shape{2}});
    std::vector<TensorPtr> parts;
    for (int i = 0; i < 6; ++i)
      parts.push_back(dispatch1("Sum", {dispatch1("Tanh", {dispatch1("Mul", {x, scalar(1.0f + i)})}), ints({0, 1})}));
    // Two failing steps: the first in program order is "first_reshape".
    auto r1 = dispatch1("Reshape", {dispatch1("Exp", {x}), s1}, Attrs{}, "first_reshape");
    auto r2 = dispatch1("Reshape", {x, s2}, Attrs{}, "second_reshape");
    parts.push_back(dispatch1("Sum", {r1, ints({0, 1})}));
    parts.push_back(dispatch1("Sum", {r2, ints({0, 1})}));
    auto total = dispatch1("AddN", parts, Attrs{{"N", static_cast<int64_t>(parts.size())}});
    g->outputs.push_back(NodeOutput{total->node, 0});
    plan.captures = captures_of(b);
  }
  plan.plan = Plan::compile(g);
  REQUIRE(plan.plan->parallel());
  auto x = make_tensor(DType::Float32, Shape{256, 1024});
  std::fill(x->data<float>(), x->data<float>() + x->num_elements(), 0.25f);
  auto good = ints({1024, 256}), bad = ints({3, 5});
  auto message = [&](bool parallel, EagerPtr s1, EagerPtr s2) -> std::string {
    try {
      run_with(plan, {x, s1, s2}, parallel);
    } catch (const Error& e) { return e.what(); }
    return "";
  };
  const std::string both = message(false, bad, bad);
  REQUIRE(both.find("first_reshape") != std::string::npos);
  for (int run = 0; run < 40; ++run) {
    CHECK(message(true, bad, bad) == both);
    CHECK(message(true, good, bad) == message(false, good, bad));
    CHECK(message(true, good, good).empty());
  }
}

// oneDNN's library scratchpad is shared between threads (kernels/onednn/primitive_cache.h): a
// primitive needing one, run from two threads at once, gave wrong results before every primitive
// got its thread's own.
TEST_CASE("a oneDNN matmul run from two threads at once gives the one-thread bits") {
  auto d = make_tensor(DType::Float32, Shape{64, 2048});
  auto w = make_tensor(DType::Float32, Shape{2048, 8});
  for (int64_t i = 0; i < d->num_elements(); ++i) d->data<float>()[i] = static_cast<float>((i * 7919) % 1000) / 997.0f;
  for (int64_t i = 0; i < w->num_elements(); ++i)
    w->data<float>()[i] = static_cast<float>((i * 31) % 17) / 13.0f - 0.6f;
  auto ref = std::dynamic_pointer_cast<EagerTensor>(dispatch1("MatMul", {d, w}));
  std::atomic<int> bad{0};
  auto body = [&] {
    for (int i = 0; i < 300; ++i) {
      auto o = std::dynamic_pointer_cast<EagerTensor>(dispatch1("MatMul", {d, w}));
      if (!same_bits(o, ref)) ++bad;
    }
  };
  std::thread t1(body), t2(body);
  t1.join();
  t2.join();
  CHECK(bad.load() == 0);
}
