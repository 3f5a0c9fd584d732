// cpp/core/buffer_pool + cpp/exec/buffer_plan: storage of dead values is reused by lifetime,
// never while anything else can see it (outputs, views, constants), and loops stop allocating.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>

#include "core/buffer_pool.h"
#include "exec/control_flow.h"
#include "exec/plan.h"
#include "ops/control_flow.h"
#include "trace/context.h"

using namespace fn;

namespace {

EagerPtr filled(Shape s, float start) {
  auto t = make_tensor(DType::Float32, s);
  for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = start + 0.25f * static_cast<float>(i % 7);
  return t;
}

// Restores the pools' budget after a test changes it.
struct BudgetGuard {
  size_t saved = BufferPool::budget();
  ~BudgetGuard() { BufferPool::set_budget(saved); }
};

// A compiled function graph and the eager values it captured (passed after the arguments).
struct Compiled {
  std::shared_ptr<const Plan> plan;
  std::vector<TensorPtr> captures;
  std::vector<EagerPtr> run(std::vector<EagerPtr> args) const {
    for (auto& c : captures) args.push_back(as_eager(c));
    return plan->run(args);
  }
  const Compiled* operator->() const { return this; }
};

// m1 = x@w; v = reshape(m1); m2 = m1@w; m3 = m2@w; m4 = tanh(m3) + m2 ... outputs (v, out).
Compiled chain_plan(int n) {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{n, n}});
  auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{n, n}});
  auto m1 = dispatch1("MatMul", {x, w});
  auto shape = make_tensor(DType::Int32, Shape{1});
  shape->data<int32_t>()[0] = n * n;
  auto v = dispatch1("Reshape", {m1, shape});  // a view of m1's buffer, returned
  auto m2 = dispatch1("MatMul", {m1, w});
  auto m3 = dispatch1("MatMul", {m2, w});
  auto m4 = dispatch1("MatMul", {dispatch1("Tanh", {m3}), w});
  auto out = dispatch1("AddV2", {m4, m2});
  g->outputs.push_back(NodeOutput{v->node, 0});
  g->outputs.push_back(NodeOutput{out->node, 0});
  return Compiled{Plan::compile(g), b.captured_values()};
}

void check_same(const EagerPtr& a, const EagerPtr& b) {
  REQUIRE(a->shape() == b->shape());
  for (int64_t i = 0; i < a->num_elements(); ++i) REQUIRE(a->data<float>()[i] == b->data<float>()[i]);
}

}  // namespace

TEST_CASE("a pool takes back only storage nothing else holds") {
  BudgetGuard guard;
  BufferPool::set_budget(size_t{64} << 20);
  BufferPool pool;
  auto a = make_tensor(DType::Float32, Shape{100});  // 400 bytes: capacity 448
  const void* pa = a->raw();
  auto view = reshaped(a, Shape{10, 10});
  pool.recycle(a);  // the view still holds the buffer
  CHECK(pool.size() == 0);
  CHECK(!a);
  auto b = make_tensor(DType::Float32, Shape{100});
  auto alias = b;  // a second reference to the tensor
  pool.recycle(b);
  CHECK(pool.size() == 0);
  pool.recycle(alias);  // now the sole reference: kept
  CHECK(pool.size() == 1);
  CHECK(pool.bytes_held() == 448);
  auto s = make_tensor(DType::String, Shape{3});  // strings are never pooled
  pool.recycle(s);
  float data[4];
  auto wrapped = std::make_shared<EagerTensor>(DType::Float32, Shape{4}, Buffer::wrap(data, sizeof data, nullptr));
  pool.recycle(wrapped);  // nor memory the buffer does not own
  CHECK(pool.size() == 1);
  CHECK(!pool.take(1024));  // more than the free buffer has
  CHECK(!pool.take(128));   // far less: not worth pinning 448 bytes
  auto got = pool.take(448);
  REQUIRE(got);
  CHECK(got->capacity() == 448);
  CHECK(pool.size() == 0);
  CHECK(view->data<float>() == pa);  // the view's storage was never handed out
}

TEST_CASE("Buffer::allocate draws from the thread's current pool and respects the budget") {
  BudgetGuard guard;
  BufferPool::set_budget(size_t{64} << 20);
  BufferPool pool;
  auto a = make_tensor(DType::Float32, Shape{16, 16});
  const void* pa = a->raw();
  pool.recycle(a);
  {
    PoolScope outer(&pool);
    {
      PoolScope off(nullptr);  // nested scope: no pool
      auto c = make_tensor(DType::Float32, Shape{16, 16});
      CHECK(c->raw() != pa);
    }
    uint64_t fresh = Buffer::fresh_allocations();
    auto b = make_tensor(DType::Float32, Shape{256});  // same bytes, another shape
    CHECK(b->raw() == pa);
    CHECK(b->buffer()->nbytes() == 1024);
    CHECK(Buffer::fresh_allocations() == fresh);
  }
  CHECK(current_buffer_pool() == nullptr);
  BufferPool::set_budget(0);
  auto d = make_tensor(DType::Float32, Shape{16});
  pool.recycle(d);
  CHECK(pool.size() == 0);  // budget 0: pooling off
}

TEST_CASE("a run's large output dropped by its holder goes back to the pool that made it") {
  BudgetGuard guard;
  BufferPool::set_budget(size_t{64} << 20);
  const int64_t n = (int64_t{2} << 20) / 4;  // 2 MiB: above BufferPool::kReturnMin
  auto pool = std::make_unique<BufferPool>();
  EagerPtr out;
  const void* p = nullptr;
  {
    PoolScope run(pool.get());
    out = make_tensor(DType::Float32, Shape{n});
    p = out->raw();
    auto small = make_tensor(DType::Float32, Shape{16});  // below the threshold: freed as usual
  }
  size_t held = BufferPool::total_held();
  std::thread([&out] { out.reset(); }).join();  // the caller drops it, on another thread
  CHECK(BufferPool::total_held() == held + (size_t{2} << 20));
  uint64_t fresh = Buffer::fresh_allocations();
  {
    PoolScope run(pool.get());
    auto again = make_tensor(DType::Float32, Shape{n - 16});  // fits (at most 2x)
    CHECK(again->raw() == p);
    CHECK(Buffer::fresh_allocations() == fresh);
    CHECK(BufferPool::total_held() == held);
    out = again;
  }
  pool.reset();  // the pool is gone: the output is freed when dropped, not kept
  held = BufferPool::total_held();
  out.reset();
  CHECK(BufferPool::total_held() == held);
  // Over the budget the storage is freed at once.
  pool = std::make_unique<BufferPool>();
  {
    PoolScope run(pool.get());
    out = make_tensor(DType::Float32, Shape{n});
  }
  BufferPool::set_budget(size_t{1} << 20);
  held = BufferPool::total_held();
  out.reset();
  CHECK(BufferPool::total_held() == held);
}

TEST_CASE("a planned run reuses dead values' storage, never outputs or views, same results") {
  BudgetGuard guard;
  auto plan = chain_plan(16);
  auto x = filled(Shape{16, 16}, -1), w = filled(Shape{16, 16}, -0.2f);
  BufferPool::set_budget(0);
  auto ref = plan->run({x, w});
  BufferPool::set_budget(size_t{64} << 20);
  auto first = plan->run({x, w});
  uint64_t fresh = Buffer::fresh_allocations();
  auto second = plan->run({x, w});
  // Warm: only the two values that leave the run need new storage (the view's m1 and out).
  CHECK(Buffer::fresh_allocations() - fresh <= 2);
  for (auto* r : {&first, &second}) {
    check_same((*r)[0], ref[0]);
    check_same((*r)[1], ref[1]);
  }
  // Outputs of different runs never share storage, nor with the inputs.
  std::vector<const void*> ptrs{first[0]->raw(),  first[1]->raw(), second[0]->raw(),
                                second[1]->raw(), x->raw(),        w->raw()};
  std::sort(ptrs.begin(), ptrs.end());
  CHECK(std::adjacent_find(ptrs.begin(), ptrs.end()) == ptrs.end());
  check_same(first[1], ref[1]);  // still intact after the second run
}

TEST_CASE("a plan run on many threads at once gives each run its own pool") {
  BudgetGuard guard;
  BufferPool::set_budget(size_t{64} << 20);
  auto plan = chain_plan(24);
  auto x = filled(Shape{24, 24}, 0.5f), w = filled(Shape{24, 24}, -0.1f);
  auto ref = plan->run({x, w});
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto out = plan->run({x, w});
        for (int k = 0; k < 2; ++k)
          for (int64_t e = 0; e < out[k]->num_elements(); ++e)
            if (out[k]->data<float>()[e] != ref[k]->data<float>()[e]) bad++;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(bad == 0);
}

TEST_CASE("a While body with static shapes allocates no storage per iteration once warm") {
  BudgetGuard guard;
  BufferPool::set_budget(size_t{64} << 20);
  const int64_t n = 8;
  TensorSpec mat{DType::Float32, Shape{n, n}}, i32{DType::Int32, Shape{}};
  auto g = std::make_shared<Graph>("f");
  GraphBuilder fb(g);
  {
    ContextScope scope(&fb);
    auto steps = fb.add_placeholder("steps", i32);
    auto s0 = fb.add_placeholder("s", mat);
    auto w = fb.add_placeholder("w", mat);
    GraphBuilder cond(std::make_shared<Graph>("cond")), body(std::make_shared<Graph>("body"));
    {
      ContextScope cs(&cond);
      auto i = cond.add_placeholder("i", i32);
      cond.add_placeholder("s", mat);
      auto c = dispatch1("Less", {i, steps});
      cond.graph()->outputs.push_back(NodeOutput{c->node, 0});
    }
    {
      ContextScope bs(&body);
      auto i = body.add_placeholder("i", i32);
      auto s = body.add_placeholder("s", mat);
      auto one = make_scalar(DType::Int32, 1);
      auto i1 = dispatch1("AddV2", {i, one});
      auto s1 = dispatch1("Tanh", {dispatch1("MatMul", {s, w})});
      body.graph()->outputs.push_back(NodeOutput{i1->node, 0});
      body.graph()->outputs.push_back(NodeOutput{s1->node, 0});
    }
    auto zero = make_scalar(DType::Int32, 0);
    auto outs = build_while({zero, s0}, cond, body);
    auto id = dispatch1("Identity", {outs[1]});
    g->outputs.push_back(NodeOutput{id->node, 0});
  }
  Compiled plan{Plan::compile(g), fb.captured_values()};
  auto s = filled(Shape{n, n}, 0.1f), w = filled(Shape{n, n}, -0.3f);
  auto run = [&](int steps) {
    uint64_t before = Buffer::fresh_allocations();
    auto out = plan->run({make_scalar(DType::Int32, steps), s, w});
    return std::make_pair(Buffer::fresh_allocations() - before, out[0]);
  };
  run(3);
  auto few = run(10), many = run(110);
  // The cond's bool leaves its plan every iteration (one scalar each); the body's storage is reused.
  CHECK(many.first - few.first <= 100);
  BufferPool::set_budget(0);
  auto unpooled = run(110);
  CHECK(unpooled.first - many.first >= 100);  // the body's matmul and tanh each iteration
  check_same(many.second, unpooled.second);
}
