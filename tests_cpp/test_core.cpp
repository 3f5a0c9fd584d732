// cpp/core: dtypes, shapes, tensors.
#include <catch2/catch.hpp>

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"

using namespace fn;

TEST_CASE("dtype names and sizes") {
  CHECK(std::string(dtype_name(DType::Float32)) == "float32");
  CHECK(dtype_size(DType::Int64) == 8);
  DType d;
  REQUIRE(dtype_from_name("bfloat16", &d));
  CHECK(d == DType::BFloat16);
  REQUIRE(dtype_from_name("complex64", &d));
  CHECK(d == DType::Complex64);
  CHECK(dtype_size(DType::Complex128) == 16);
  CHECK_FALSE(is_pod(DType::Complex64));   // numeric visitors reject complex
  CHECK_FALSE(dtype_from_name("complex32", &d));
}

TEST_CASE("half and bfloat16 round trips") {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 3.140625f}) {
    CHECK(half_to_float(float_to_half(f)) == f);
  }
  CHECK(half_to_float(float_to_half(1e6f)) == std::numeric_limits<float>::infinity());
  CHECK(bf16_to_float(float_to_bf16(1.0f)) == 1.0f);
  CHECK(bf16_to_float(float_to_bf16(3.0f)) == 3.0f);
  CHECK(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
}

TEST_CASE("shape printing and compatibility") {
  CHECK(Shape{2, 3}.to_string() == "(2, 3)");
  CHECK(Shape{Shape::kUnknown, 3}.to_string() == "(None, 3)");
  CHECK(Shape{}.to_string() == "()");
  CHECK(Shape{4}.to_string() == "(4,)");
  CHECK(Shape::unknown_rank().to_string() == "<unknown>");
  CHECK(Shape{2, 3}.is_compatible_with(Shape{Shape::kUnknown, 3}));
  CHECK_FALSE(Shape{2, 3}.is_compatible_with(Shape{2, 4}));
  CHECK(Shape{2, 3}.is_subtype_of(Shape{Shape::kUnknown, 3}));
  CHECK_FALSE(Shape{Shape::kUnknown, 3}.is_subtype_of(Shape{2, 3}));
  CHECK(Shape{2}.is_subtype_of(Shape::unknown_rank()));
  CHECK(Shape{2, 3}.most_specific_common_supertype(Shape{4, 3}) == Shape{Shape::kUnknown, 3});
  CHECK(Shape{2}.most_specific_common_supertype(Shape{2, 3}) == Shape::unknown_rank());
}

TEST_CASE("broadcasting") {
  CHECK(broadcast_shapes(Shape{2, 1}, Shape{3}) == Shape{2, 3});
  CHECK(broadcast_shapes(Shape{}, Shape{5}) == Shape{5});
  CHECK(broadcast_shapes(Shape{Shape::kUnknown, 3}, Shape{3}) == Shape{Shape::kUnknown, 3});
  CHECK_THROWS_AS(broadcast_shapes(Shape{3}, Shape{2}), Error);
}

TEST_CASE("tensors: scalars, casts, reshape shares storage") {
  auto t = make_scalar(DType::Int32, 7);
  CHECK(t->scalar_as_int() == 7);
  auto f = cast_tensor(t, DType::Float16);
  CHECK(f->scalar_as_double() == 7.0);
  auto v = make_tensor(DType::Float32, Shape{2, 3});
  for (int i = 0; i < 6; ++i) v->data<float>()[i] = static_cast<float>(i);
  auto r = reshaped(v, Shape{3, 2});
  CHECK(r->raw() == v->raw());
  CHECK(r->shape() == Shape{3, 2});
  CHECK_THROWS_AS(make_tensor(DType::Float32, Shape{Shape::kUnknown}), Error);
}
