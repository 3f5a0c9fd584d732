// cpp/core: dtypes, shapes, tensors.
#include <catch2/catch.hpp>

#include <set>
#include <thread>

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
  CHECK_FALSE(is_pod(DType::Complex64));  // numeric visitors reject complex
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

TEST_CASE("small buffers recycle per thread: aligned, never shared while alive, freed across threads") {
  std::vector<EagerPtr> live;
  std::set<const void*> seen;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 600; ++i) {  // more than the cache holds
      auto t = make_tensor(DType::Float64, Shape{i % 8});
      CHECK(reinterpret_cast<uintptr_t>(t->raw()) % 64 == 0);
      for (int k = 0; k < t->num_elements(); ++k) t->data<double>()[k] = i + 0.5 * k;
      live.push_back(t);
    }
    seen.clear();
    for (auto& t : live) {
      if (t->num_elements() == 0) continue;
      CHECK(seen.insert(t->raw()).second);  // no two live tensors share a block
    }
    for (size_t i = 0; i < live.size(); ++i)
      for (int k = 0; k < live[i]->num_elements(); ++k)
        CHECK(live[i]->data<double>()[k] == static_cast<double>(i) + 0.5 * k);
    // Free half on another thread (its own cache takes them), half here.
    std::vector<EagerPtr> other(live.begin(), live.begin() + 300);
    live.erase(live.begin(), live.begin() + 300);
    std::thread([v = std::move(other)]() mutable { v.clear(); }).join();
    live.clear();
  }
  auto big = make_tensor(DType::Float32, Shape{1000});  // not a small block
  CHECK(reinterpret_cast<uintptr_t>(big->raw()) % 64 == 0);
  big->data<float>()[999] = 1.f;
  CHECK(big->data<float>()[999] == 1.f);
}
