// cpp/ops + cpp/trace: eager dispatch, shape rules on partial shapes, dtype errors.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "ops/op.h"
#include "trace/context.h"

using namespace fn;

TEST_CASE("eager dispatch runs kernels") {
  auto a = make_scalar(DType::Float32, 1.5), b = make_scalar(DType::Float32, 2.0);
  auto r = as_eager(dispatch1("AddV2", {a, b}));
  CHECK(r->scalar_as_double() == 3.5);
  auto dims = make_tensor(DType::Int32, Shape{2});
  dims->data<int32_t>()[0] = 2;
  dims->data<int32_t>()[1] = 3;
  auto f = as_eager(dispatch1("Fill", {dims, make_scalar(DType::Int64, 7)}));
  CHECK(f->shape() == Shape{2, 3});
  CHECK(f->data<int64_t>()[5] == 7);
}

TEST_CASE("mismatched dtypes raise InvalidArgument eagerly, with the op named") {
  auto a = make_scalar(DType::Int32, 1), b = make_scalar(DType::Float32, 1);
  try {
    dispatch1("AddV2", {a, b});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::InvalidArgument);
    CHECK(std::string(e.what()).find("[Op:AddV2]") != std::string::npos);
  }
}

TEST_CASE("graph mode: shape rules on partial shapes, TF node names") {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{Shape::kUnknown, 3}});
  auto y = dispatch1("AddV2", {x, x});
  auto z = dispatch1("AddV2", {y, x});
  CHECK(y->shape() == Shape{Shape::kUnknown, 3});
  CHECK(y->name() == "add:0");
  CHECK(z->name() == "add_1:0");
  auto w = b.add_placeholder("w", TensorSpec{DType::Float32, Shape{3, 4}});
  auto m = dispatch1("MatMul", {x, w});
  CHECK(m->shape() == Shape{Shape::kUnknown, 4});
  auto bad = b.add_placeholder("bad", TensorSpec{DType::Int32, Shape{}});
  CHECK_THROWS_AS(dispatch1("AddV2", {x, bad}), Error);
  CHECK(executing_eagerly() == false);
}

TEST_CASE("a graph tensor used eagerly is out of scope") {
  TensorPtr leaked;
  {
    auto g = std::make_shared<Graph>("f");
    GraphBuilder b(g);
    ContextScope scope(&b);
    leaked = b.add_placeholder("a", TensorSpec{DType::Int32, Shape{}});
  }
  try {
    dispatch1("AddV2", {leaked, make_scalar(DType::Int32, 1)});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::TypeError);
    CHECK(std::string(e.what()).find("is out of scope and cannot be used here") != std::string::npos);
  }
}
