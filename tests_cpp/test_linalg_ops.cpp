// Linear-algebra ops at the C++ level: MatrixInverse and MatrixDeterminant against hand-computed
// values, their errors, and their shape rules on partial shapes while tracing.
#include <catch2/catch.hpp>

#include "ops/shape_util.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {
constexpr int64_t U = Shape::kUnknown;

std::vector<float> matrix_values(const TensorPtr& t) {
  auto e = as_eager(t);
  return std::vector<float>(e->data<float>(), e->data<float>() + e->num_elements());
}
EagerPtr matrix(int64_t n, const std::vector<float>& v) {
  auto t = make_tensor(DType::Float32, Shape{n, n});
  std::copy(v.begin(), v.end(), t->data<float>());
  return t;
}
}  // namespace

TEST_CASE("MatrixInverse times its input is the identity; singular raises") {
  auto a = matrix(2, {4, 7, 2, 6});
  auto inv = matrix_values(dispatch1("MatrixInverse", {a}));
  CHECK(inv[0] == Approx(0.6));
  CHECK(inv[1] == Approx(-0.7));
  CHECK(inv[2] == Approx(-0.2));
  CHECK(inv[3] == Approx(0.4));
  CHECK(matrix_values(dispatch1("MatrixDeterminant", {a}))[0] == Approx(10.0));
  CHECK_THROWS_AS(dispatch1("MatrixInverse", {matrix(2, {1, 2, 2, 4})}), Error);
}

TEST_CASE("MatrixInverse and MatrixDeterminant shape rules on partial shapes") {
  Tracing t;
  auto m = t.arg("m", Shape{U, 3, 3});
  CHECK(dispatch1("MatrixDeterminant", {m})->shape() == Shape({U}));
  auto bad = t.arg("bad", Shape{U, 2, 3});
  CHECK_THROWS_AS(dispatch1("MatrixInverse", {bad}), Error);
}
