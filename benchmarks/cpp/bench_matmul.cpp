// Micro benchmark of the float32 matmuls the benchmark workloads run (transformer_train,
// mlp_train, mlp_big_infer, gru/lstm, resnet's dense, their gradients), per shape and per way of
// running it:
//   one1 / one2     one oneDNN matmul on 1 / 2 OpenMP threads
//   rR.T / cC.T     fn's scheme (kernels/onednn/matmul.cpp): R-row (C-column) blocks, each a
//   bB.T            single-threaded oneDNN matmul (bB: B blocks of whole matrices), on the task
//                   pool with a team of T threads
//   fn.T            onednn::matmul itself (the split it chooses) on a team of T
//   cpA1            ta products: a copied row-major (oneDNN reorder, 1 thread), then one1
// Prints GFLOP/s of the median and of the best of `reps` repeats, the ways interleaved repeat by
// repeat. Not a test: build target bench_matmul (docs/notes/perf15m.md has its numbers).
//   build/dev/bench_matmul [reps [shape-substring [way-substring]]]
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/onednn/engine.h"
#include "kernels/onednn/matmul.h"
#include "kernels/onednn/threads.h"
#include "kernels/task_pool.h"

using namespace fn;
using dnnl::memory;

namespace {

struct Case {
  std::string name;
  int64_t batch, m, k, n;
  bool ta, tb;
};

// rows x cols (stored cols x rows when t), batch matrices of it (batch > 1).
memory::desc operand(int64_t batch, int64_t rows, int64_t cols, bool t) {
  if (batch > 1)
    return t ? memory::desc({batch, rows, cols}, memory::data_type::f32, {rows * cols, 1, rows})
             : memory::desc({batch, rows, cols}, memory::data_type::f32, {rows * cols, cols, 1});
  return t ? memory::desc({rows, cols}, memory::data_type::f32, {1, rows})
           : memory::desc({rows, cols}, memory::data_type::f32, {cols, 1});
}

memory::desc resized(const memory::desc& md, int d, int64_t size) {
  auto dims = md.get_dims();
  dims[d] = size;
  return memory::desc(dims, md.get_data_type(), md.get_strides());
}

dnnl::matmul make(const memory::desc& a, const memory::desc& b, const memory::desc& o, int threads) {
  onednn::ThreadCount tc(threads);
  return dnnl::matmul(dnnl::matmul::primitive_desc(onednn::engine(), a, b, o));
}

void exec(dnnl::matmul& p, const memory::desc& a, const memory::desc& b, const memory::desc& o, const float* ap,
          const float* bp, float* op) {
  memory ma(a, onednn::engine(), const_cast<float*>(ap)), mb(b, onednn::engine(), const_cast<float*>(bp)),
      mo(o, onednn::engine(), op);
  p.execute(onednn::stream(), {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mo}});
  onednn::stream().wait();
}

struct Way {
  std::string name;
  std::function<void()> run;
  std::vector<double> ms, cpu;  // wall and process CPU ms per repeat
};

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Blocks of `size` along output dim d (0 batch, r-2 rows, r-1 columns) on a team of `team`.
Way blocks(const Case& c, int d, int64_t size, int team, const float* ap, const float* bp, float* op) {
  const memory::desc ma = operand(c.batch, c.m, c.k, c.ta), mb = operand(1, c.k, c.n, c.tb),
                     mo = operand(c.batch, c.m, c.n, false);
  const int r = c.batch > 1 ? 3 : 2;
  const int64_t extent = mo.get_dims()[d], count = (extent + size - 1) / size;
  struct Blk {
    memory::desc a, b, o;
    std::shared_ptr<dnnl::matmul> p;
  };
  auto blk = [&](int64_t s) {
    Blk k;
    k.a = d == r - 1 ? ma : resized(ma, d, s);
    k.b = (d == r - 1) ? resized(mb, r == 3 ? 1 : 1, s) : mb;
    k.o = resized(mo, d, s);
    k.p = std::make_shared<dnnl::matmul>(make(k.a, k.b, k.o, 1));
    return k;
  };
  auto full = std::make_shared<Blk>(blk(size));
  auto last = std::make_shared<Blk>(blk(extent - (count - 1) * size));
  const int64_t as = d == r - 1 ? 0 : ma.get_strides()[d], os = mo.get_strides()[d];
  const int64_t bs = d == r - 1 ? mb.get_strides()[r == 3 ? 1 : 1] : 0;
  std::string name = std::string(d == r - 1         ? "c"
                                 : d == 0 && r == 3 ? "b"
                                                    : "r") +
                     std::to_string(size) + "." + std::to_string(team);
  return Way{name,
             [=] {
               TaskPool::global().run(team, count, [&](int64_t i) {
                 onednn::ThreadScope one(true);
                 Blk& k = i == count - 1 ? *last : *full;
                 exec(*k.p, k.a, k.b, k.o, ap + i * size * as, bp + i * size * bs, op + i * size * os);
               });
             },
             {}};
}

void bench(const Case& c, int reps, const std::string& filter) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const Shape sa = c.batch > 1 ? (c.ta ? Shape{c.batch, c.k, c.m} : Shape{c.batch, c.m, c.k})
                               : (c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k});
  const Shape sb = c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n};
  const Shape so = c.batch > 1 ? Shape{c.batch, c.m, c.n} : Shape{c.m, c.n};
  auto ta = make_tensor(DType::Float32, sa), tb = make_tensor(DType::Float32, sb), to = make_tensor(DType::Float32, so);
  // a batched case's b is batched too (attention), else shared
  const Shape sb3 = c.batch > 1 ? (c.tb ? Shape{c.batch, c.n, c.k} : Shape{c.batch, c.k, c.n}) : sb;
  auto tb3 = make_tensor(DType::Float32, sb3);
  for (auto* t : {ta.get(), tb.get(), tb3.get()})
    for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = u(rng);
  const float* ap = ta->data<float>();
  const float* bp = (c.batch > 1 ? tb3 : tb)->data<float>();
  float* op = to->data<float>();
  const memory::desc ma = operand(c.batch, c.m, c.k, c.ta), mb = operand(c.batch, c.k, c.n, c.tb),
                     mo = operand(c.batch, c.m, c.n, false);
  std::vector<Way> ways;
  for (int t : {1, 2}) {
    auto p = std::make_shared<dnnl::matmul>(make(ma, mb, mo, t));
    ways.push_back({"one" + std::to_string(t),
                    [=] {
                      onednn::ThreadCount tc(t);
                      exec(*p, ma, mb, mo, ap, bp, op);
                    },
                    {}});
  }
  for (int t : {1, 2}) {
    EagerTensor* bt = (c.batch > 1 ? tb3 : tb).get();
    ways.push_back({"fn." + std::to_string(t),
                    [=, &ta, &to] {
                      onednn::ThreadCount tc(t);
                      onednn::matmul(*ta, *bt, c.ta, c.tb, *to);
                    },
                    {}});
  }
  if (c.batch == 1) {
    // pkR.T: b packed once (a oneDNN reorder on the caller, timed) into the layout a block's
    // primitive picks for `any`, then R-row blocks read the packed copy.
    for (int64_t rows : {64, 128, 256})
      if (c.m >= 2 * rows)
        for (int t : {1, 2}) {
          const memory::desc a1 = resized(ma, 0, rows), o1 = resized(mo, 0, rows);
          const memory::desc any(mb.get_dims(), memory::data_type::f32, memory::format_tag::any);
          memory::desc packed;
          {
            onednn::ThreadCount tc(1);
            packed = dnnl::matmul::primitive_desc(onednn::engine(), a1, any, o1).weights_desc();
          }
          const int64_t count = (c.m + rows - 1) / rows, tail = c.m - (count - 1) * rows;
          auto full = std::make_shared<dnnl::matmul>(make(a1, packed, o1, 1));
          const memory::desc a2 = resized(ma, 0, tail), o2 = resized(mo, 0, tail);
          auto last = std::make_shared<dnnl::matmul>(make(a2, packed, o2, 1));
          auto reo = std::make_shared<dnnl::reorder>([&] {
            onednn::ThreadCount tc(1);
            return dnnl::reorder(dnnl::reorder::primitive_desc(onednn::engine(), mb, onednn::engine(), packed));
          }());
          auto buf = std::make_shared<std::vector<float>>(packed.get_size() / sizeof(float) + 1);
          const int64_t as = ma.get_strides()[0], os = mo.get_strides()[0];
          ways.push_back({"pk" + std::to_string(rows) + "." + std::to_string(t),
                          [=] {
                            {
                              onednn::ThreadCount tc(1);
                              memory from(mb, onednn::engine(), const_cast<float*>(bp)),
                                  to(packed, onednn::engine(), buf->data());
                              reo->execute(onednn::stream(), from, to);
                              onednn::stream().wait();
                            }
                            TaskPool::global().run(t, count, [&](int64_t i) {
                              onednn::ThreadScope one(true);
                              const bool l = i == count - 1;
                              exec(l ? *last : *full, l ? a2 : a1, packed, l ? o2 : o1, ap + i * rows * as, buf->data(),
                                   op + i * rows * os);
                            });
                          },
                          {}});
        }
    for (int64_t rows : {32, 64, 128, 256, 512})
      if (c.m >= 2 * rows)
        for (int t : {1, 2}) ways.push_back(blocks(c, 0, rows, t, ap, bp, op));
    for (int64_t cols : {64, 128, 256})
      if (c.n >= 2 * cols)
        for (int t : {1, 2}) ways.push_back(blocks(c, 1, cols, t, ap, bp, op));
  } else {
    // batched: whole matrices per block (b batched as well: sliced along the batch too)
    for (int64_t per : {4, 8, 16})
      if (c.batch >= 2 * per)
        for (int t : {1, 2}) {
          auto pa =
              std::make_shared<dnnl::matmul>(make(resized(ma, 0, per), resized(mb, 0, per), resized(mo, 0, per), 1));
          const int64_t count = c.batch / per, as = ma.get_strides()[0], bs = mb.get_strides()[0],
                        os = mo.get_strides()[0];
          const memory::desc a1 = resized(ma, 0, per), b1 = resized(mb, 0, per), o1 = resized(mo, 0, per);
          ways.push_back({"b" + std::to_string(per) + "." + std::to_string(t),
                          [=] {
                            TaskPool::global().run(t, count, [&](int64_t i) {
                              onednn::ThreadScope one(true);
                              exec(*pa, a1, b1, o1, ap + i * per * as, bp + i * per * bs, op + i * per * os);
                            });
                          },
                          {}});
        }
  }
  if (c.ta && c.batch == 1) {
    const memory::desc rm = operand(1, c.m, c.k, false);
    auto copy = std::make_shared<std::vector<float>>(static_cast<size_t>(c.m * c.k));
    auto reo = std::make_shared<dnnl::reorder>([&] {
      onednn::ThreadCount tc(1);
      return dnnl::reorder(dnnl::reorder::primitive_desc(onednn::engine(), ma, onednn::engine(), rm));
    }());
    auto p = std::make_shared<dnnl::matmul>(make(rm, mb, mo, 1));
    ways.push_back({"cpA1",
                    [=] {
                      onednn::ThreadCount tc(1);
                      memory from(ma, onednn::engine(), const_cast<float*>(ap)), to(rm, onednn::engine(), copy->data());
                      reo->execute(onednn::stream(), from, to);
                      exec(*p, rm, mb, mo, copy->data(), bp, op);
                    },
                    {}});
  }
  std::vector<Way> kept;
  for (auto& w : ways)
    if (filter.empty() || w.name.find(filter) != std::string::npos) kept.push_back(w);
  for (auto& w : kept) w.run();  // warm up (primitives, pool, caches)
  for (int rep = 0; rep < reps; ++rep)
    for (auto& w : kept) {
      const double c0 = cpu_ms();
      auto t0 = std::chrono::steady_clock::now();
      w.run();
      w.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      w.cpu.push_back(cpu_ms() - c0);
    }
  const double gflop = 2.0 * c.batch * c.m * c.k * c.n * 1e-9;
  std::printf("%s  [%lldx%lldx%lld x%lld ta%d tb%d] %.1f MFLOP\n", c.name.c_str(), (long long)c.m, (long long)c.k,
              (long long)c.n, (long long)c.batch, c.ta, c.tb, gflop * 1e3);
  for (auto& w : kept) {
    std::sort(w.ms.begin(), w.ms.end());
    std::sort(w.cpu.begin(), w.cpu.end());
    const double med = w.ms[w.ms.size() / 2], best = w.ms[0], cmed = w.cpu[w.cpu.size() / 2];
    std::printf("  %-8s wall: med %6.1f best %6.1f GFLOP/s (best %.3f ms)  CPU: med %6.1f GFLOP/s per core\n",
                w.name.c_str(), gflop / med * 1e3, gflop / best * 1e3, best, gflop / cmed * 1e3);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 51;
  const std::string only = argc > 2 ? argv[2] : "", way = argc > 3 ? argv[3] : "";
  // {name, batch, m, k, n, ta, tb}: the product is (batch x) m x k @ k x n.
  const std::vector<Case> cases = {
      {"peak_1024", 1, 1024, 1024, 1024, false, false}, {"tt_qkv", 1, 512, 128, 128, false, false},
      {"tt_w1", 1, 512, 128, 512, false, false},        {"tt_w2", 1, 512, 512, 128, false, false},
      {"tt_dx_w1", 1, 512, 512, 128, false, true},  // dy @ w1^T
      {"tt_dx_w2", 1, 512, 128, 512, false, true},  // dy @ w2^T
      {"tt_dx_q", 1, 512, 128, 128, false, true},   // dy @ wq^T
      {"tt_dw_w1", 1, 128, 512, 512, true, false},  // x^T @ dy
      {"tt_dw_w2", 1, 512, 512, 128, true, false},  // h^T @ dy
      {"tt_dw_q", 1, 128, 512, 128, true, false},   // x^T @ dq
      {"tt_qk", 32, 64, 32, 64, false, true},       // q @ k^T per head
      {"tt_av", 32, 64, 64, 32, false, false},      // a @ v
      {"tt_dav_a", 32, 64, 32, 64, false, true},    // do @ v^T
      {"tt_dav_v", 32, 64, 64, 32, true, false},    // a^T @ do
      {"mlp_l1", 1, 256, 784, 512, false, false},       {"mlp_l2", 1, 256, 512, 512, false, false},
      {"mlp_dx2", 1, 256, 512, 512, false, true},       {"mlp_dw1", 1, 784, 256, 512, true, false},
      {"mlp_dw2", 1, 512, 256, 512, true, false},       {"big_l1", 1, 4096, 1024, 1024, false, false},
      {"lstm_dw_x", 1, 32, 1600, 512, true, false},   // xs^T @ dgates over 50 steps
      {"lstm_dw_h", 1, 128, 1600, 512, true, false},  // hs^T @ dgates
      {"gru_dw_h", 1, 128, 1600, 384, true, false},     {"rnn_lstm", 1, 32, 128, 512, false, false},
      {"rnn_dw", 1, 128, 32, 512, true, false},
  };
  for (const auto& c : cases)
    if (only.empty() || c.name.find(only) != std::string::npos) bench(c, reps, way);
  return 0;
}
