// cpp/ops shape, data-movement and random ops: shape rules on partial shapes (with constant
// inputs, and with shape arithmetic folded at trace time), TF node names, kernels, random state.
#include <catch2/catch.hpp>

#include "exec/plan.h"
#include "ops/random.h"
#include "ops/shape_util.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {
constexpr int64_t U = Shape::kUnknown;

TensorPtr c_ints(const std::vector<int64_t>& v) { return const_tensor(int_vector(DType::Int32, v)); }
TensorPtr c_int(int64_t v) { return const_tensor(int_scalar(DType::Int32, v)); }

EagerPtr iota(const Shape& s) {
  auto t = make_tensor(DType::Float32, s);
  for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = static_cast<float>(i);
  return t;
}

std::vector<float> values(const TensorPtr& t) {
  auto e = as_eager(t);
  return std::vector<float>(e->data<float>(), e->data<float>() + e->num_elements());
}

}  // namespace

TEST_CASE("shape rules on partial shapes use constant inputs") {
  Tracing t;
  auto x = t.arg("x", Shape{U, 4});
  CHECK(dispatch1("Reshape", {x, c_ints({-1, 2, 2})})->shape() == Shape{U, 2, 2});
  CHECK(dispatch1("Transpose", {x, c_ints({1, 0})})->shape() == Shape{4, U});
  CHECK(dispatch1("ExpandDims", {x, c_int(-1)})->shape() == Shape{U, 4, 1});
  CHECK(dispatch1("Tile", {x, c_ints({2, 3})})->shape() == Shape{U, 12});
  auto pads = const_tensor(reshaped(int_vector(DType::Int32, {1, 1, 0, 2}), Shape{2, 2}));
  CHECK(dispatch1("Pad", {x, pads})->shape() == Shape{U, 6});
  CHECK(dispatch1("ConcatV2", {x, x, c_int(1)}, Attrs{{"N", int64_t{2}}})->shape() == Shape{U, 8});
  CHECK(dispatch1("ConcatV2", {x, x, c_int(0)}, Attrs{{"N", int64_t{2}}})->shape() == Shape{U, 4});
  CHECK(dispatch1("Pack", {x, x}, Attrs{{"axis", int64_t{1}}})->shape() == Shape{U, 2, 4});
  auto parts = dispatch("Split", {c_int(1), x}, Attrs{{"num_split", int64_t{2}}});
  REQUIRE(parts.size() == 2);
  CHECK(parts[1]->shape() == Shape{U, 2});
  CHECK(parts[1]->name() == "split:1");
  auto rows = dispatch("Unpack", {t.arg("y", Shape{3, U})}, Attrs{{"num", int64_t{3}}});
  CHECK(rows.size() == 3);
  CHECK(rows[0]->shape() == Shape{U});
  CHECK(dispatch1("GatherV2", {x, c_ints({0, 0, 1}), c_int(1)})->shape() == Shape{U, 3});
  CHECK(dispatch1("Where", {x})->shape() == Shape{U, 2});
  CHECK(dispatch1("Range", {c_int(0), c_int(10), c_int(3)})->shape() == Shape{4});
  CHECK(dispatch1("Range", {c_int(0), t.arg("n", Shape{}, DType::Int32), c_int(3)})->shape() == Shape{U});
  auto zero = const_tensor(make_scalar(DType::Float32, 0));
  CHECK(dispatch1("SelectV2", {t.arg("c", Shape{U, 1}, DType::Bool), x, zero})->shape() == Shape{U, 4});
}

TEST_CASE("StridedSlice shape rule: masks, ellipsis, new axes, unknown dims") {
  Tracing t;
  auto x = t.arg("x", Shape{U, 6, 5});
  auto ss = [&](std::vector<int64_t> b, std::vector<int64_t> e, std::vector<int64_t> s, Attrs a) {
    return dispatch1("StridedSlice", {x, c_ints(b), c_ints(e), c_ints(s)}, a);
  };
  CHECK(ss({0}, {1}, {1}, Attrs{{"shrink_axis_mask", int64_t{1}}})->shape() == Shape{6, 5});
  CHECK(ss({0, 1}, {0, 5}, {1, 2}, Attrs{{"begin_mask", int64_t{1}}, {"end_mask", int64_t{1}}})->shape() ==
        Shape{U, 2, 5});
  CHECK(ss({0, 0, -1}, {0, 0, 0}, {1, 1, -1},
           Attrs{{"ellipsis_mask", int64_t{1}}, {"new_axis_mask", int64_t{2}}, {"end_mask", int64_t{4}}})
            ->shape() == Shape{U, 6, 1, 5});
  auto s = ss({0}, {1}, {1}, Attrs{{"shrink_axis_mask", int64_t{1}}});
  CHECK(s->name() == "strided_slice_3:0");
  CHECK_THROWS_AS(ss({0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, Attrs{}), Error);
}

TEST_CASE("shape arithmetic folds at trace time so Reshape(x, Shape(y)) keeps a static shape") {
  Tracing t;
  auto x = t.arg("x", Shape{6});
  auto y = t.arg("y", Shape{2, 3});
  auto shp = dispatch1("Shape", {y});
  CHECK(dispatch1("Reshape", {x, shp})->shape() == Shape{2, 3});
  // stack([shape(y)[0], 3]) is known too; a dynamic shape is not.
  auto d0 =
      dispatch1("StridedSlice", {shp, c_ints({0}), c_ints({1}), c_ints({1})}, Attrs{{"shrink_axis_mask", int64_t{1}}});
  auto packed = dispatch1("Pack", {d0, c_int(3)});
  CHECK(dispatch1("Reshape", {x, packed})->shape() == Shape{2, 3});
  // A partly known shape passes on what it knows (TF's constant_value_as_shape) ...
  auto z = t.arg("z", Shape{U, 3});
  auto zs = dispatch1("Shape", {z});
  CHECK(dispatch1("Reshape", {x, zs})->shape() == Shape{U, 3});
  CHECK(dispatch1("Fill", {zs, const_tensor(make_scalar(DType::Float32, 0))})->shape() == Shape{U, 3});
  // ... through slices, stacks and concatenations of it; a known element becomes a value.
  auto z1 =
      dispatch1("StridedSlice", {zs, c_ints({1}), c_ints({2}), c_ints({1})}, Attrs{{"shrink_axis_mask", int64_t{1}}});
  CHECK(t.b.constant_value(NodeOutput{z1->node, 0}) != nullptr);
  auto z0 =
      dispatch1("StridedSlice", {zs, c_ints({0}), c_ints({1}), c_ints({1})}, Attrs{{"shrink_axis_mask", int64_t{1}}});
  CHECK(dispatch1("Reshape", {x, dispatch1("Pack", {c_int(2), z0, z1})})->shape() == Shape{2, U, 3});
  auto cat = dispatch1("ConcatV2", {c_ints({5}), zs, c_int(0)}, Attrs{{"N", int64_t{2}}});
  CHECK(dispatch1("Reshape", {x, cat})->shape() == Shape{5, U, 3});
}

TEST_CASE("graph-mode shape errors are ValueErrors naming the op") {
  Tracing t;
  auto x = t.arg("x", Shape{2, 3});
  try {
    dispatch1("Reshape", {x, c_ints({4})});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::ValueError);
    CHECK(std::string(e.what()).find("Cannot reshape a tensor with 6 elements to shape [4] (4 elements)") == 0);
  }
  CHECK_THROWS_AS(dispatch1("ConcatV2", {x, t.arg("w", Shape{3, 3}), c_int(1)}), Error);
  CHECK_THROWS_AS(dispatch1("Transpose", {x, c_ints({0, 1, 2})}), Error);
}

TEST_CASE("eager kernels: slices of the leading axis are views, other slices copies") {
  auto x = iota(Shape{3, 4});
  auto row = as_eager(dispatch1(
      "StridedSlice", {x, int_vector(DType::Int32, {1}), int_vector(DType::Int32, {2}), int_vector(DType::Int32, {1})},
      Attrs{{"shrink_axis_mask", int64_t{1}}}));
  CHECK(row->raw() == static_cast<const float*>(x->raw()) + 4);
  CHECK(values(row) == std::vector<float>{4, 5, 6, 7});
  auto col = dispatch1(
      "StridedSlice",
      {x, int_vector(DType::Int32, {0, 3}), int_vector(DType::Int32, {0, 0}), int_vector(DType::Int32, {1, -2})},
      Attrs{{"begin_mask", int64_t{1}}, {"end_mask", int64_t{3}}});
  CHECK(col->shape() == Shape{3, 2});
  CHECK(values(col) == std::vector<float>{3, 1, 7, 5, 11, 9});
  auto tiled = dispatch1("Tile", {iota(Shape{2, 1}), int_vector(DType::Int32, {2, 3})});
  CHECK(values(tiled) == std::vector<float>{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1});
  try {
    dispatch1("GatherV2", {x, int_vector(DType::Int32, {0, 5}), int_scalar(DType::Int32, 0)});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::InvalidArgument);
    CHECK(std::string(e.what()) ==
          "{{function_node __wrapped__GatherV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
          "indices[1] = 5 is not in [0, 3) [Op:GatherV2] name: ");  // TF ends eager op errors with its name tag
  }
}

TEST_CASE("random ops are stateful: each run of a node draws new numbers; seeds reproduce") {
  auto g = std::make_shared<Graph>("f");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto r = dispatch1(
        "RandomUniform", {c_ints({4})},
        Attrs{{"dtype", DType::Float32}, {"seed", int64_t{1}}, {"seed2", int64_t{2}}, {"_state", make_random_state()}});
    CHECK(r->shape() == Shape{4});
    CHECK(r->name() == "RandomUniform:0");
    g->outputs.push_back(NodeOutput{r->node, 0});
  }
  REQUIRE(g->stateful_nodes.size() == 1);
  auto plan = Plan::compile(g);
  auto a = values(plan->run({})[0]), b = values(plan->run({})[0]);
  CHECK(a != b);
  CHECK(a[0] == 0.40639675f);  // TensorFlow's first draw for seeds (1, 2)
  // Without a state attr every run starts the stream afresh.
  Attrs attrs{{"dtype", DType::Float32}, {"seed", int64_t{1}}, {"seed2", int64_t{2}}};
  CHECK(values(dispatch1("RandomUniform", {int_vector(DType::Int32, {4})}, attrs)) == a);
}
