// Array ops (cumulative sums and products, top-k, reverse, roll, broadcast, unique) at the C++
// level: kernels against hand-computed values, and shape rules on partial shapes while tracing.
#include <catch2/catch.hpp>

#include "ops/shape_util.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {
constexpr int64_t U = Shape::kUnknown;

EagerPtr floats(const Shape& s, const std::vector<float>& v) {
  auto t = make_tensor(DType::Float32, s);
  std::copy(v.begin(), v.end(), t->data<float>());
  return t;
}
std::vector<float> fvals(const TensorPtr& t) {
  auto e = as_eager(t);
  return std::vector<float>(e->data<float>(), e->data<float>() + e->num_elements());
}
std::vector<int64_t> ivals(const TensorPtr& t) { return read_int_list(*as_eager(t)); }

}  // namespace

TEST_CASE("Cumsum and Cumprod: exclusive and reverse") {
  auto x = floats(Shape{4}, {1, 2, 3, 4});
  auto axis = int_scalar(DType::Int32, 0);
  CHECK(fvals(dispatch1("Cumsum", {x, axis}, Attrs{{"exclusive", false}, {"reverse", false}})) ==
        std::vector<float>{1, 3, 6, 10});
  CHECK(fvals(dispatch1("Cumsum", {x, axis}, Attrs{{"exclusive", true}, {"reverse", true}})) ==
        std::vector<float>{9, 7, 4, 0});
  CHECK(fvals(dispatch1("Cumprod", {x, axis}, Attrs{{"exclusive", true}, {"reverse", false}})) ==
        std::vector<float>{1, 1, 2, 6});
  CHECK_THROWS_AS(dispatch1("Cumsum", {x, int_scalar(DType::Int32, 1)}), Error);
}

TEST_CASE("TopKV2: larger first, ties by lower index, NaN largest") {
  auto x = floats(Shape{2, 4}, {1, 3, 2, 3, 0, std::nanf(""), -1, 5});
  auto out = dispatch("TopKV2", {x, int_scalar(DType::Int32, 2)});
  CHECK(ivals(out[1]) == std::vector<int64_t>{1, 3, 1, 3});
  auto v = fvals(out[0]);
  CHECK(v[0] == 3);
  CHECK(std::isnan(v[2]));
  CHECK(v[3] == 5);
}

TEST_CASE("ReverseV2, Roll and BroadcastTo kernels") {
  auto x = floats(Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  CHECK(fvals(dispatch1("ReverseV2", {x, int_vector(DType::Int32, {1})})) == std::vector<float>{2, 1, 0, 5, 4, 3});
  CHECK(fvals(dispatch1("Roll", {x, int_vector(DType::Int32, {1, -1}), int_vector(DType::Int32, {0, 1})})) ==
        std::vector<float>{4, 5, 3, 1, 2, 0});
  auto row = floats(Shape{3}, {7, 8, 9});
  auto b = dispatch1("BroadcastTo", {row, int_vector(DType::Int32, {2, 3})});
  CHECK(b->shape() == Shape{2, 3});
  CHECK(fvals(b) == std::vector<float>{7, 8, 9, 7, 8, 9});
}

TEST_CASE("scan, sort and loss ops' shape rules on partial shapes") {
  Tracing t;
  auto x = t.arg("x", Shape{U, 5});
  CHECK(dispatch("TopKV2", {x, const_tensor(int_scalar(DType::Int32, 2))})[0]->shape() == Shape({U, 2}));
  CHECK_THROWS_AS(dispatch("TopKV2", {x, const_tensor(int_scalar(DType::Int32, 6))}), Error);
  CHECK(dispatch1("Cumsum", {x, const_tensor(int_scalar(DType::Int32, 1))})->shape() == Shape({U, 5}));
  CHECK(dispatch1("ReverseV2", {x, const_tensor(int_vector(DType::Int32, {0}))})->shape() == Shape({U, 5}));
  auto labels = t.arg("labels", Shape{U}, DType::Int32);
  auto loss = dispatch("SparseSoftmaxCrossEntropyWithLogits", {x, labels});
  CHECK(loss[0]->shape() == Shape({U}));
  CHECK(loss[1]->shape() == Shape({U, 5}));
  auto v = t.arg("v", Shape{U}, DType::Int32);
  auto u = dispatch("Unique", {v});
  CHECK(u[0]->shape() == Shape({U}));
  CHECK(u[1]->shape() == Shape({U}));
}
