// cpp/kernels: every oneDNN kernel against its reference loop.
#include <catch2/catch.hpp>

#include <random>

#include "kernels/onednn/binary.h"
#include "kernels/onednn/matmul.h"
#include "kernels/reference/broadcast.h"
#include "kernels/reference/matmul.h"

using namespace fn;

namespace {
EagerPtr random_tensor(const Shape& s, std::mt19937& rng) {
  auto t = make_tensor(DType::Float32, s);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = u(rng);
  return t;
}
}  // namespace

TEST_CASE("oneDNN binary add matches the reference loop, with broadcasting") {
  std::mt19937 rng(1);
  for (auto shapes : std::vector<std::pair<Shape, Shape>>{{Shape{128, 256}, Shape{128, 256}},
                                                          {Shape{128, 256}, Shape{256}},
                                                          {Shape{4, 64, 128}, Shape{64, 1}},
                                                          {Shape{70000}, Shape{}}}) {
    auto a = random_tensor(shapes.first, rng), b = random_tensor(shapes.second, rng);
    Shape out = broadcast_shapes(a->shape(), b->shape());
    REQUIRE(onednn::binary_applicable(*a, *b, out));
    auto got = make_tensor(DType::Float32, out), want = make_tensor(DType::Float32, out);
    onednn::binary(dnnl::algorithm::binary_add, *a, *b, *got);
    ref::binary(a->data<float>(), a->shape(), b->data<float>(), b->shape(), want->data<float>(), out,
                [](float x, float y) { return x + y; });
    for (int64_t i = 0; i < got->num_elements(); ++i)
      REQUIRE(got->data<float>()[i] == Approx(want->data<float>()[i]).margin(1e-6));
  }
}

TEST_CASE("reference broadcast handles leading and middle broadcast dims") {
  float a[] = {1, 2, 3};  // (3, 1)
  float b[] = {10, 20};   // (2,)
  float out[6];
  ref::binary(a, Shape{3, 1}, b, Shape{2}, out, Shape{3, 2}, [](float x, float y) { return x + y; });
  float want[] = {11, 21, 12, 22, 13, 23};
  for (int i = 0; i < 6; ++i) CHECK(out[i] == want[i]);
}

TEST_CASE("oneDNN matmul matches the reference loop (transposes, batches)") {
  std::mt19937 rng(2);
  struct Case {
    Shape a, b;
    bool ta, tb;
    Shape out;
  };
  for (const Case& c : std::vector<Case>{{Shape{64, 32}, Shape{32, 48}, false, false, Shape{64, 48}},
                                         {Shape{32, 64}, Shape{32, 48}, true, false, Shape{64, 48}},
                                         {Shape{64, 32}, Shape{48, 32}, false, true, Shape{64, 48}},
                                         {Shape{3, 16, 32}, Shape{3, 32, 24}, false, false, Shape{3, 16, 24}},
                                         {Shape{3, 16, 32}, Shape{1, 32, 24}, false, false, Shape{3, 16, 24}}}) {
    auto a = random_tensor(c.a, rng), b = random_tensor(c.b, rng);
    REQUIRE(onednn::matmul_applicable(*a, *b));
    auto got = make_tensor(DType::Float32, c.out);
    onednn::matmul(*a, *b, c.ta, c.tb, *got);
    int r = c.out.rank();
    int64_t m = c.out[r - 2], n = c.out[r - 1], k = c.ta ? c.a[r - 2] : c.a[r - 1];
    int64_t batches = got->num_elements() / (m * n);
    std::vector<float> want(m * n);
    for (int64_t bi = 0; bi < batches; ++bi) {
      int64_t ob = c.b.num_elements() == k * n ? 0 : bi;
      ref::matmul2d(a->data<float>() + bi * m * k, b->data<float>() + ob * k * n, want.data(), m, n, k, c.ta, c.tb);
      for (int64_t i = 0; i < m * n; ++i) REQUIRE(got->data<float>()[bi * m * n + i] == Approx(want[i]).margin(1e-4));
    }
  }
}

TEST_CASE("oneDNN matmul reads a transposed operand with a 2 KiB-multiple stride through a row-major copy") {
  // a^T with a's rows 1024 or 2048 floats long (the weight gradient x^T @ dy): the kernel copies
  // a row-major first (matmul.cpp, transposed_aliasing); the result equals the reference loop and,
  // bit for bit, the same product given the row-major operand directly.
  std::mt19937 rng(5);
  struct Case {
    Shape a, b;
    Shape out;
    bool tb;
  };
  // Strides of 1024 and 2048 floats: copied on AVX2 and AVX-512 hosts alike (512: AVX2 only).
  for (const Case& c : std::vector<Case>{{Shape{96, 1024}, Shape{96, 128}, Shape{1024, 128}, false},
                                         {Shape{64, 1024}, Shape{160, 64}, Shape{1024, 160}, true},
                                         {Shape{2, 72, 2048}, Shape{2, 72, 200}, Shape{2, 2048, 200}, false},
                                         {Shape{80, 1024}, Shape{80, 64}, Shape{1024, 64}, false}}) {
    auto a = random_tensor(c.a, rng), b = random_tensor(c.b, rng);
    int r = c.out.rank();
    int64_t m = c.out[r - 2], n = c.out[r - 1], k = c.a[r - 2];
    int64_t batches = c.out.num_elements() / (m * n);
    std::vector<int64_t> at = c.a.dims();  // a transposed, stored row-major
    std::swap(at[r - 1], at[r - 2]);
    auto a_rows = make_tensor(DType::Float32, Shape(at));
    for (int64_t bi = 0; bi < batches; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j)
          a_rows->data<float>()[bi * m * k + i * k + j] = a->data<float>()[bi * m * k + j * m + i];
    auto got = make_tensor(DType::Float32, c.out), plain = make_tensor(DType::Float32, c.out);
    onednn::matmul(*a, *b, true, c.tb, *got);
    onednn::matmul(*a_rows, *b, false, c.tb, *plain);
    std::vector<float> want(m * n);
    for (int64_t bi = 0; bi < batches; ++bi) {
      ref::matmul2d(a->data<float>() + bi * m * k, b->data<float>() + bi * k * n, want.data(), m, n, k, true, c.tb);
      for (int64_t i = 0; i < m * n; ++i) REQUIRE(got->data<float>()[bi * m * n + i] == Approx(want[i]).margin(1e-4));
    }
    for (int64_t i = 0; i < c.out.num_elements(); ++i) REQUIRE(got->data<float>()[i] == plain->data<float>()[i]);
  }
  // The same operand reached through a folded transpose (a layout) rather than ta.
  auto a = random_tensor(Shape{96, 1024}, rng), b = random_tensor(Shape{96, 128}, rng);
  auto got = make_tensor(DType::Float32, Shape{1024, 128}), want = make_tensor(DType::Float32, Shape{1024, 128});
  onednn::MatMulLayout layout{{1, 0}, {}, {}};
  REQUIRE(onednn::matmul(*a, *b, false, false, *got, nullptr, &layout));
  onednn::matmul(*a, *b, true, false, *want);
  for (int64_t i = 0; i < want->num_elements(); ++i) REQUIRE(got->data<float>()[i] == want->data<float>()[i]);
}
