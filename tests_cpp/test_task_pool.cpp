// kernels/task_pool.h and the blocked big matmuls built on it (kernels/onednn/matmul.cpp).
#include <catch2/catch.hpp>

#include <atomic>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/onednn/engine.h"
#include "kernels/onednn/matmul.h"
#include "kernels/onednn/threads.h"
#include "kernels/reference/matmul.h"
#include "kernels/task_pool.h"

using namespace fn;

namespace {
EagerPtr random_tensor(const Shape& s, std::mt19937& rng) {
  auto t = make_tensor(DType::Float32, s);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = u(rng);
  return t;
}

// The whole product as one single-threaded oneDNN call (the path before the pool, on one thread).
void one_call(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out,
              const Epilogue* e = nullptr) {
  using namespace dnnl;
  onednn::ThreadScope one(true);
  const Shape &sa = a.shape(), &sb = b.shape();
  auto desc = [](const Shape& s, bool t) {
    memory::dims d{s[0], s[1]}, st{s[1], 1};
    if (t) {
      std::swap(d[0], d[1]);
      std::swap(st[0], st[1]);
    }
    return memory::desc(d, memory::data_type::f32, st);
  };
  memory::desc ma = desc(sa, ta), mb = desc(sb, tb), mo = desc(out.shape(), false);
  primitive_attr attr;
  post_ops po;
  if (e && e->residual) po.append_binary(algorithm::binary_add, mo);
  if (e && e->act == Activation::Relu) po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
  attr.set_post_ops(po);
  memory::desc mbias;
  if (e && e->bias) mbias = memory::desc({1, out.shape()[1]}, memory::data_type::f32, memory::format_tag::ab);
  auto pd = e ? dnnl::matmul::primitive_desc(onednn::engine(), ma, mb, mbias, mo, attr)
              : dnnl::matmul::primitive_desc(onednn::engine(), ma, mb, mo);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(ma, onednn::engine(), const_cast<void*>(a.raw()))},
                                       {DNNL_ARG_WEIGHTS, memory(mb, onednn::engine(), const_cast<void*>(b.raw()))},
                                       {DNNL_ARG_DST, memory(mo, onednn::engine(), out.raw())}};
  if (e && e->bias) args.insert({DNNL_ARG_BIAS, memory(mbias, onednn::engine(), const_cast<float*>(e->bias))});
  if (e && e->residual)
    args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                 memory(mo, onednn::engine(), const_cast<float*>(e->residual))});
  dnnl::matmul(pd).execute(onednn::stream(), args);
  onednn::stream().wait();
}

struct Case {
  int64_t m, k, n;
  bool ta, tb;
};

// a (m x k, or k x m when ta) @ b; the product through onednn::matmul and its reference loop.
void check_against_reference(const Case& c, std::mt19937& rng, EagerPtr* got_out = nullptr) {
  auto a = random_tensor(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, rng);
  auto b = random_tensor(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, rng);
  auto got = make_tensor(DType::Float32, Shape{c.m, c.n});
  onednn::matmul(*a, *b, c.ta, c.tb, *got);
  std::vector<float> want(c.m * c.n);
  ref::matmul2d(a->data<float>(), b->data<float>(), want.data(), c.m, c.n, c.k, c.ta, c.tb);
  const float tol = 2e-5f * static_cast<float>(c.k);
  for (int64_t i = 0; i < c.m * c.n; ++i) REQUIRE(got->data<float>()[i] == Approx(want[i]).margin(tol));
  if (got_out) *got_out = got;
}
}  // namespace

TEST_CASE("task pool runs every block exactly once, on any number of threads") {
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t blocks : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{7}, int64_t{100}, int64_t{1000}}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(blocks));
      for (auto& r : runs) r = 0;
      TaskPool::global().run(threads, blocks, [&](int64_t i) { runs[static_cast<size_t>(i)]++; });
      for (auto& r : runs) REQUIRE(r.load() == 1);
    }
  }
}

TEST_CASE("task pool rethrows a block's exception after the other blocks finished") {
  std::atomic<int> done{0};
  REQUIRE_THROWS_AS(TaskPool::global().run(2, 50,
                                           [&](int64_t i) {
                                             if (i == 17) throw std::runtime_error("block 17");
                                             std::this_thread::sleep_for(std::chrono::microseconds(50));
                                             done++;
                                           }),
                    std::runtime_error);
  REQUIRE(done.load() == 49);
  // The pool is usable afterwards.
  std::atomic<int> again{0};
  TaskPool::global().run(2, 10, [&](int64_t) { again++; });
  REQUIRE(again.load() == 10);
}

TEST_CASE("task pool: concurrent callers each get all their blocks run") {
  std::atomic<bool> ok{true};
  auto caller = [&](int seed) {
    for (int rep = 0; rep < 200; ++rep) {
      const int64_t blocks = 1 + (seed * 31 + rep * 7) % 40;
      std::vector<std::atomic<int>> runs(static_cast<size_t>(blocks));
      for (auto& r : runs) r = 0;
      TaskPool::global().run(2, blocks, [&](int64_t i) { runs[static_cast<size_t>(i)]++; });
      for (auto& r : runs)
        if (r.load() != 1) ok = false;
    }
  };
  std::thread t1(caller, 1), t2(caller, 2);
  caller(3);
  t1.join();
  t2.join();
  REQUIRE(ok.load());
}

TEST_CASE("blocked big matmuls match the reference loop: odd shapes, tail blocks, 1 row, huge K") {
  // Each of these is over the single-thread limit (2^22 multiply-adds), so it runs as blocks on
  // the task pool: rows split with a short tail block, columns split (1 row, 40 rows), a huge K.
  std::mt19937 rng(11);
  for (const Case& c : std::vector<Case>{{1000, 301, 517, false, false},
                                         {1000, 301, 517, true, false},
                                         {1000, 301, 517, false, true},
                                         {517, 301, 1000, true, true},
                                         {1, 4099, 2051, false, false},
                                         {40, 2000, 1500, false, true},
                                         {33, 65536, 70, false, false},
                                         {4099, 16, 100, false, false}})
    check_against_reference(c, rng);
}

TEST_CASE("blocked matmul: the same bits on one thread as on the pool, whatever the shape") {
  // The blocks depend on the shape alone, and one thread runs the same blocks in order: a product's
  // bits do not depend on the thread count or on which thread ran a block. Row splits with equal
  // and uneven blocks (784 rows: 112 + 6 x 96 + 96), transposed operands (the copied one included),
  // a column split and a bias + relu epilogue.
  std::mt19937 rng(12);
  for (const Case& c : std::vector<Case>{{256, 784, 512, false, false},
                                         {784, 256, 512, true, false},
                                         {512, 256, 512, true, false},
                                         {256, 512, 512, false, true},
                                         {200, 512, 300, false, false},
                                         {1000, 301, 517, true, true},
                                         {40, 2000, 1500, false, true}}) {
    auto a = random_tensor(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, rng);
    auto b = random_tensor(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, rng);
    auto bias = random_tensor(Shape{c.n}, rng);
    Epilogue e;
    e.bias = bias->data<float>();
    e.act = Activation::Relu;
    for (const Epilogue* ep : {static_cast<const Epilogue*>(nullptr), static_cast<const Epilogue*>(&e)}) {
      auto pooled = make_tensor(DType::Float32, Shape{c.m, c.n}), single = make_tensor(DType::Float32, Shape{c.m, c.n});
      onednn::matmul(*a, *b, c.ta, c.tb, *pooled, ep);
      {
        onednn::ThreadScope one(true);
        REQUIRE(onednn::max_threads() == 1);
        onednn::matmul(*a, *b, c.ta, c.tb, *single, ep);
      }
      for (int64_t i = 0; i < c.m * c.n; ++i) REQUIRE(pooled->data<float>()[i] == single->data<float>()[i]);
    }
  }
}

TEST_CASE("blocked matmul with bias, residual and relu post-ops on row and column blocks") {
  std::mt19937 rng(13);
  for (const Case& c : std::vector<Case>{{300, 256, 400, false, false}, {8, 4096, 1000, false, false}}) {
    auto a = random_tensor(Shape{c.m, c.k}, rng), b = random_tensor(Shape{c.k, c.n}, rng);
    auto bias = random_tensor(Shape{c.n}, rng), res = random_tensor(Shape{c.m, c.n}, rng);
    Epilogue e;
    e.bias = bias->data<float>();
    e.residual = res->data<float>();
    e.act = Activation::Relu;
    auto got = make_tensor(DType::Float32, Shape{c.m, c.n}), want = make_tensor(DType::Float32, Shape{c.m, c.n});
    onednn::matmul(*a, *b, false, false, *got, &e);
    std::vector<float> prod(c.m * c.n);
    ref::matmul2d(a->data<float>(), b->data<float>(), prod.data(), c.m, c.n, c.k, false, false);
    apply_epilogue(prod.data(), c.m, c.n, e);
    const float tol = 2e-5f * static_cast<float>(c.k);
    for (int64_t i = 0; i < c.m * c.n; ++i) REQUIRE(got->data<float>()[i] == Approx(prod[i]).margin(tol));
    one_call(*a, *b, false, false, *want, &e);
    for (int64_t i = 0; i < c.m * c.n; ++i)
      REQUIRE(got->data<float>()[i] == Approx(want->data<float>()[i]).margin(tol));
  }
}

TEST_CASE("blocked matmul: batched, broadcast batch dims") {
  std::mt19937 rng(14);
  auto a = random_tensor(Shape{3, 200, 300}, rng), b = random_tensor(Shape{1, 300, 250}, rng);
  auto got = make_tensor(DType::Float32, Shape{3, 200, 250});
  onednn::matmul(*a, *b, false, false, *got);
  std::vector<float> want(200 * 250);
  for (int64_t bi = 0; bi < 3; ++bi) {
    ref::matmul2d(a->data<float>() + bi * 200 * 300, b->data<float>(), want.data(), 200, 250, 300, false, false);
    for (int64_t i = 0; i < 200 * 250; ++i)
      REQUIRE(got->data<float>()[bi * 200 * 250 + i] == Approx(want[i]).margin(1e-2));
  }
}

TEST_CASE("matmul blocks: wide blocks on AVX-512 hosts, the AVX2 rule elsewhere") {
  // On AVX-512 blocks of 128 rows or columns or more wherever that leaves min(want, 4) blocks
  // (want: up to 8 blocks of 2^21 multiply-adds or more), columns only where 64-row blocks would
  // not make 2 or 3; else (and on AVX2) rows of 64 or more, then whole matrices, then columns. Split kinds: 'b' batch, 'r' rows, 'c' columns.
  struct Want {
    int r;
    int64_t batch, rows, cols, k;
    char kind512;
    int64_t count512;
    char kind2;
    int64_t count2;
  };
  const bool avx512 = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  for (const Want& w :
       std::vector<Want>{{2, 1, 512, 512, 128, 'r', 4, 'r', 8},     // 33M: 4 x 128 rows (AVX2: 8 x 64)
                         {2, 1, 512, 128, 128, 'r', 4, 'r', 4},     // 8.4M: 4 x 128 rows either way
                         {2, 1, 256, 512, 784, 'c', 4, 'r', 4},     // 256 rows: 4 x 128 columns (AVX2: 4 x 64 rows)
                         {2, 1, 128, 512, 512, 'r', 2, 'r', 2},     // a weight gradient: 2 x 64 rows stay
                         {2, 1, 32, 512, 1600, 'c', 4, 'c', 8},     // 32 rows: 4 x 128 columns (AVX2: 8 x 64)
                         {2, 1, 128, 128, 512, 'r', 2, 'r', 2},     // neither wide enough for 4 blocks: 2 x 64 rows
                         {2, 1, 4096, 1024, 1024, 'r', 8, 'r', 8},  // 8 x 512 rows
                         {2, 1, 784, 512, 256, 'r', 4, 'r', 8},     // 4 x 196 rows (AVX2: 8 x 98)
                         {2, 1, 1, 600, 8192, 'c', 2, 'c', 2},      // one row: 2 x 300 columns
                         {2, 1, 600, 1, 8192, 'r', 2, 'r', 2},      // one column: 2 x 300 rows
                         {3, 32, 64, 64, 32, 'b', 2, 'b', 2},       // attention heads: whole matrices
                         {3, 3, 200, 520, 300, 'r', 2, 'r', 2},     // a batch of 3 under 8 blocks: 2 x 100 rows
                         {3, 3, 256, 520, 300, 'c', 4, 'r', 4},     // 256 rows: 4 x 128 columns (AVX2: 4 x 64 rows)
                         {2, 1, 100, 100, 100, 'r', 1, 'r', 1}}) {  // 1M multiply-adds: one call
    const double macs = double(w.batch) * double(w.rows) * double(w.cols) * double(w.k);
    const auto got = onednn::matmul_blocks(w.r, w.batch, w.rows, w.cols, macs);
    const char kind = avx512 ? w.kind512 : w.kind2;
    INFO(w.batch << " x " << w.rows << "x" << w.cols << " k " << w.k);
    CHECK(got.count == (avx512 ? w.count512 : w.count2));
    if (got.count > 1) CHECK(got.dim == (kind == 'b' ? 0 : kind == 'r' ? w.r - 2 : w.r - 1));
  }
}

TEST_CASE("wide matmul blocks: the reference within tolerance, one thread's bits on the pool") {
  // Column blocks of 128+ (odd tails), transposed operands, a batch broadcast over one right
  // matrix, one row and one column, a bias + relu epilogue: the pool's bits equal one thread's.
  std::mt19937 rng(17);
  for (const Case& c : std::vector<Case>{{256, 784, 520, false, false},
                                         {256, 784, 520, true, true},
                                         {200, 300, 1000, false, true},
                                         {130, 512, 517, true, false},
                                         {1, 8192, 600, false, false},
                                         {600, 8192, 1, false, true},
                                         {520, 129, 136, true, false}}) {
    check_against_reference(c, rng);
    auto a = random_tensor(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, rng);
    auto b = random_tensor(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, rng);
    auto bias = random_tensor(Shape{c.n}, rng);
    Epilogue e;
    e.bias = bias->data<float>();
    e.act = Activation::Relu;
    for (const Epilogue* ep : {static_cast<const Epilogue*>(nullptr), static_cast<const Epilogue*>(&e)}) {
      auto pooled = make_tensor(DType::Float32, Shape{c.m, c.n}), single = make_tensor(DType::Float32, Shape{c.m, c.n});
      auto again = make_tensor(DType::Float32, Shape{c.m, c.n});
      onednn::matmul(*a, *b, c.ta, c.tb, *pooled, ep);
      onednn::matmul(*a, *b, c.ta, c.tb, *again, ep);
      {
        onednn::ThreadScope one(true);
        onednn::matmul(*a, *b, c.ta, c.tb, *single, ep);
      }
      for (int64_t i = 0; i < c.m * c.n; ++i) {
        REQUIRE(pooled->data<float>()[i] == single->data<float>()[i]);
        REQUIRE(pooled->data<float>()[i] == again->data<float>()[i]);
      }
    }
  }
  // A batch of 3 over one broadcast right matrix: column blocks of every matrix.
  auto a = random_tensor(Shape{3, 256, 300}, rng), b = random_tensor(Shape{1, 300, 520}, rng);
  auto got = make_tensor(DType::Float32, Shape{3, 256, 520}), single = make_tensor(DType::Float32, Shape{3, 256, 520});
  onednn::matmul(*a, *b, false, false, *got);
  {
    onednn::ThreadScope one(true);
    onednn::matmul(*a, *b, false, false, *single);
  }
  std::vector<float> want(256 * 520);
  for (int64_t bi = 0; bi < 3; ++bi) {
    ref::matmul2d(a->data<float>() + bi * 256 * 300, b->data<float>(), want.data(), 256, 520, 300, false, false);
    for (int64_t i = 0; i < 256 * 520; ++i) {
      REQUIRE(got->data<float>()[bi * 256 * 520 + i] == Approx(want[i]).margin(2e-5f * 300));
      REQUIRE(got->data<float>()[bi * 256 * 520 + i] == single->data<float>()[bi * 256 * 520 + i]);
    }
  }
}

TEST_CASE("blocked matmuls from two threads at once give each its own product, every time") {
  std::mt19937 rng(15);
  auto a1 = random_tensor(Shape{512, 300}, rng), b1 = random_tensor(Shape{300, 256}, rng);
  auto a2 = random_tensor(Shape{256, 700}, rng), b2 = random_tensor(Shape{700, 300}, rng);
  auto want1 = make_tensor(DType::Float32, Shape{512, 256}), want2 = make_tensor(DType::Float32, Shape{256, 300});
  onednn::matmul(*a1, *b1, false, false, *want1);
  onednn::matmul(*a2, *b2, false, false, *want2);
  std::atomic<bool> ok{true};
  auto run = [&](const EagerPtr& a, const EagerPtr& b, const EagerPtr& want) {
    auto got = make_tensor(DType::Float32, want->shape());
    for (int rep = 0; rep < 20; ++rep) {
      onednn::matmul(*a, *b, false, false, *got);
      for (int64_t i = 0; i < got->num_elements(); ++i)
        if (got->data<float>()[i] != want->data<float>()[i]) ok = false;
    }
  };
  std::thread t(run, a1, b1, want1);
  run(a2, b2, want2);
  t.join();
  REQUIRE(ok.load());
}

TEST_CASE("blocked matmul: many small matrices split by batch, with a broadcast operand") {
  std::mt19937 rng(16);
  for (bool broadcast : {false, true}) {
    auto a = random_tensor(Shape{40, 64, 72}, rng), b = random_tensor(Shape{broadcast ? 1 : 40, 72, 80}, rng);
    auto got = make_tensor(DType::Float32, Shape{40, 64, 80});
    onednn::matmul(*a, *b, false, false, *got);
    std::vector<float> want(64 * 80);
    for (int64_t bi = 0; bi < 40; ++bi) {
      ref::matmul2d(a->data<float>() + bi * 64 * 72, b->data<float>() + (broadcast ? 0 : bi) * 72 * 80, want.data(), 64,
                    80, 72, false, false);
      for (int64_t i = 0; i < 64 * 80; ++i)
        REQUIRE(got->data<float>()[bi * 64 * 80 + i] == Approx(want[i]).margin(2e-3));
    }
  }
}

TEST_CASE("blocked matmul with a packed right operand: the reference, and the plain kernel's bits") {
  // 1024 rows or more sharing a right operand whose rows are 512 / 1024 / 2048 floats apart: the
  // operand is packed once into oneDNN's blocked layout and every block reads it (AVX-512 hosts).
  // The packed kernel is the plain one with another layout: bit for bit the one-call product where
  // that call is the same AVX-512 kernel; against the reference loop within tolerance everywhere.
  // Also a left operand read transposed (copied first), bias/residual/relu post-ops, a tail block,
  // a transposed right operand and narrow/non-aliasing widths (not packed: the same answers).
  std::mt19937 rng(15);
  const bool avx512 = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  for (const Case& c : std::vector<Case>{{1024, 256, 512, false, false},
                                         {2048, 512, 1024, false, false},
                                         {1100, 300, 2048, false, false},
                                         {1024, 512, 512, true, false},
                                         {1024, 512, 512, false, true},
                                         {2048, 512, 10, false, false},
                                         {2048, 300, 520, false, false}}) {
    EagerPtr got;
    check_against_reference(c, rng, &got);
    auto a = random_tensor(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, rng);
    auto b = random_tensor(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, rng);
    auto bias = random_tensor(Shape{c.n}, rng), res = random_tensor(Shape{c.m, c.n}, rng);
    Epilogue e;
    e.bias = bias->data<float>();
    e.residual = res->data<float>();
    e.act = Activation::Relu;
    auto pooled = make_tensor(DType::Float32, Shape{c.m, c.n}), single = make_tensor(DType::Float32, Shape{c.m, c.n});
    auto whole = make_tensor(DType::Float32, Shape{c.m, c.n});
    onednn::matmul(*a, *b, c.ta, c.tb, *pooled, &e);
    {
      onednn::ThreadScope one(true);
      onednn::matmul(*a, *b, c.ta, c.tb, *single, &e);
    }
    one_call(*a, *b, c.ta, c.tb, *whole, &e);
    const float tol = 2e-5f * static_cast<float>(c.k);
    const bool same_kernel = avx512 && !c.ta && !c.tb && c.n >= 64;  // brgemm for the whole call too
    for (int64_t i = 0; i < c.m * c.n; ++i) {
      REQUIRE(pooled->data<float>()[i] == single->data<float>()[i]);
      if (same_kernel)
        REQUIRE(pooled->data<float>()[i] == whole->data<float>()[i]);
      else
        REQUIRE(pooled->data<float>()[i] == Approx(whole->data<float>()[i]).margin(tol));
    }
  }
}

TEST_CASE("blocked matmul with a packed right operand shared by a batch") {
  // A rank-3 left operand over one broadcast right matrix (a dense layer on a sequence) and over a
  // matrix per batch element. oneDNN 3.2 offers no blocked layout for a broadcast batch dim (the
  // primitive descriptor throws), so neither packs: the fallback (padded copy) must answer.
  std::mt19937 rng(16);
  for (int64_t b_batch : {int64_t{1}, int64_t{4}}) {
    auto a = random_tensor(Shape{4, 512, 256}, rng), b = random_tensor(Shape{b_batch, 256, 1024}, rng);
    auto got = make_tensor(DType::Float32, Shape{4, 512, 1024});
    onednn::matmul(*a, *b, false, false, *got);
    std::vector<float> want(512 * 1024);
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t bi = b_batch == 1 ? 0 : i;
      ref::matmul2d(a->data<float>() + i * 512 * 256, b->data<float>() + bi * 256 * 1024, want.data(), 512, 1024, 256,
                    false, false);
      for (int64_t j = 0; j < 512 * 1024; ++j)
        REQUIRE(got->data<float>()[i * 512 * 1024 + j] == Approx(want[j]).margin(2e-5f * 256));
    }
  }
}

TEST_CASE("run_row_blocks covers every row once in whole-row blocks, split only where asked") {
  struct Case {
    int threads;
    int64_t rows, row_elements, block_elements, min_blocks, want_blocks;
  };
  const std::vector<Case> cases = {
      {2, 4096, 128, 32768, 4, 16},   // 256 rows a block
      {2, 1000, 100, 32768, 4, 4},    // 327 rows a block: 327, 327, 327, 19
      {8, 1000, 100, 32768, 4, 4},    // the block count depends on the sizes, not the threads
      {2, 300, 100, 32768, 4, 1},     // 1 block (327 rows) < min_blocks: whole
      {1, 4096, 128, 32768, 4, 1},    // one thread: whole
      {2, 10, 100000, 32768, 4, 10},  // rows longer than a block: one row each
      {2, 7, 3, 1, 2, 7},
      {2, 0, 128, 32768, 4, 0},
  };
  for (const Case& c : cases) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(c.rows));
    for (auto& r : runs) r = 0;
    std::atomic<int64_t> calls{0};
    const int64_t blocks =
        run_row_blocks(c.threads, c.rows, c.row_elements, c.block_elements, c.min_blocks, [&](int64_t b, int64_t e) {
          REQUIRE(b < e);
          calls++;
          for (int64_t r = b; r < e; ++r) runs[static_cast<size_t>(r)]++;
        });
    CHECK(blocks == c.want_blocks);
    CHECK(calls.load() == c.want_blocks);
    for (auto& r : runs) REQUIRE(r.load() == 1);
  }
}
