// passes/fold_index_slice.cpp: x[i] traced as StridedSlice(x, Pack(i), Pack(i + 1), [1]) becomes
// _StridedSliceIndex(x, i); the folded graph gives what the traced one does, in bounds (a view),
// for negative indices, and out of bounds (StridedSlice's InvalidArgument text); slices it cannot
// fold (other masks, strides, a non-scalar begin) stay as they are.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "exec/plan.h"
#include "ops/shape_util.h"
#include "passes/passes.h"
#include "trace/context.h"
#include "tracing_fixture.h"

using namespace fn;

namespace {

TensorPtr konst(EagerPtr v) {
  DType d = v->dtype();
  return dispatch1("Const", {}, Attrs{{"value", std::move(v)}, {"dtype", d}});
}

Attrs masks(int64_t shrink, int64_t begin = 0) {
  return Attrs{{"begin_mask", begin},
               {"end_mask", int64_t{0}},
               {"ellipsis_mask", int64_t{0}},
               {"new_axis_mask", int64_t{0}},
               {"shrink_axis_mask", shrink}};
}

// f(x, i) = x[i], traced as TF traces it: begin and end stacked from i and i + 1.
std::shared_ptr<Graph> index_graph(DType index_dtype, const Shape& x_shape, DType x_dtype = DType::Float32,
                                   int64_t shrink = 1, int64_t stride = 1) {
  Tracing t;
  auto x = t.arg("x", x_shape, x_dtype);
  auto i = t.arg("i", Shape{}, index_dtype);
  auto one = konst(make_scalar(index_dtype, 1));
  auto begin = dispatch1("Pack", {i}, Attrs{{"axis", int64_t{0}}, {"N", int64_t{1}}});
  auto end = dispatch1("Pack", {dispatch1("AddV2", {i, one})}, Attrs{{"axis", int64_t{0}}, {"N", int64_t{1}}});
  auto strides = konst(int_vector(index_dtype, {stride}));
  auto y = dispatch1("StridedSlice", {x, begin, end, strides}, masks(shrink));
  t.g->outputs.push_back(NodeOutput{y->node, 0});
  return t.g;
}

EagerPtr iota(DType d, const Shape& s) {
  auto t = make_tensor(d, s);
  for (int64_t k = 0; k < t->num_elements(); ++k) {
    if (d == DType::Float32)
      t->data<float>()[k] = static_cast<float>(k) * 0.5f;
    else
      t->data<int64_t>()[k] = k * 3;
  }
  return t;
}

}  // namespace

TEST_CASE("x[i] by a scalar index folds to _StridedSliceIndex and reads the same row") {
  for (DType id : {DType::Int32, DType::Int64}) {
    auto g = index_graph(id, Shape{5, 3, 2});
    auto opt = optimize(*g);
    CHECK(count_op(*opt, "_StridedSliceIndex") == 1);
    CHECK(count_op(*opt, "StridedSlice") == 0);
    auto ref = Plan::compile(g), got = Plan::compile(opt);
    auto x = iota(DType::Float32, Shape{5, 3, 2});
    for (int64_t i : {0, 1, 4, -1, -5}) {
      auto a = ref->run({x, make_scalar(id, static_cast<double>(i))});
      auto b = got->run({x, make_scalar(id, static_cast<double>(i))});
      REQUIRE(b[0]->shape() == Shape{3, 2});
      for (int64_t k = 0; k < 6; ++k) CHECK(b[0]->data<float>()[k] == a[0]->data<float>()[k]);
    }
  }
}

TEST_CASE("a folded x[i] out of bounds raises StridedSlice's error; other dtypes and ranks fold too") {
  auto opt = Plan::compile(optimize(*index_graph(DType::Int32, Shape{4, 2})));
  auto x = iota(DType::Float32, Shape{4, 2});
  for (int64_t i : {4, -5, 1000}) {
    try {
      opt->run({x, make_scalar(DType::Int32, static_cast<double>(i))});
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == Code::InvalidArgument);
      CHECK(std::string(e.what()).find("of dimension 0 out of bounds.") != std::string::npos);
    }
  }
  // int64 data, a rank-1 x (a scalar row), an empty row.
  auto g1 = optimize(*index_graph(DType::Int64, Shape{6}, DType::Int64));
  CHECK(count_op(*g1, "_StridedSliceIndex") == 1);
  auto out = Plan::compile(g1)->run({iota(DType::Int64, Shape{6}), make_scalar(DType::Int64, 4)});
  REQUIRE(out[0]->shape().rank() == 0);
  CHECK(out[0]->data<int64_t>()[0] == 12);
  auto g2 = optimize(*index_graph(DType::Int32, Shape{3, 0}));
  auto empty = Plan::compile(g2)->run({make_tensor(DType::Float32, Shape{3, 0}), make_scalar(DType::Int32, 2)});
  CHECK(empty[0]->shape() == Shape{0});
}

TEST_CASE("slices that are not x[i] are left alone") {
  // A range (no shrink), a stride of 2, a begin mask.
  CHECK(count_op(*optimize(*index_graph(DType::Int32, Shape{5, 2}, DType::Float32, 0)), "_StridedSliceIndex") == 0);
  CHECK(count_op(*optimize(*index_graph(DType::Int32, Shape{5, 2}, DType::Float32, 1, 2)), "_StridedSliceIndex") == 0);
  Tracing t;
  auto x = t.arg("x", Shape{5, 2});
  auto b = t.arg("b", Shape{1}, DType::Int32);
  auto s = konst(int_vector(DType::Int32, {1}));
  auto y = dispatch1("StridedSlice", {x, b, b, s}, masks(1));  // begin fed whole: not a Pack of a scalar
  auto z = dispatch1(
      "StridedSlice",
      {x, dispatch1("Pack", {t.arg("i", Shape{}, DType::Int32)}, Attrs{{"axis", int64_t{0}}, {"N", int64_t{1}}}), b, s},
      masks(1, 1));  // a begin mask
  t.g->outputs = {NodeOutput{y->node, 0}, NodeOutput{z->node, 0}};
  CHECK(count_op(*optimize(*t.g), "_StridedSliceIndex") == 0);
  // A string x keeps StridedSlice (no view of strings).
  CHECK(count_op(*optimize(*index_graph(DType::Int32, Shape{3}, DType::String)), "_StridedSliceIndex") == 0);
}

TEST_CASE("x[:, i] and x[:, :, i] fold too and read what StridedSlice reads") {
  for (int axis : {1, 2}) {
    Tracing t;
    auto x = t.arg("x", Shape{3, 4, 5});
    auto i = t.arg("i", Shape{}, DType::Int32);
    auto zero = konst(make_scalar(DType::Int32, 0));
    auto one = konst(make_scalar(DType::Int32, 1));
    std::vector<TensorPtr> b(static_cast<size_t>(axis) + 1, zero), e(static_cast<size_t>(axis) + 1, zero);
    b[static_cast<size_t>(axis)] = i;
    e[static_cast<size_t>(axis)] = dispatch1("AddV2", {i, one});
    const int64_t n = axis + 1, whole = ((int64_t{1} << n) - 1) & ~(int64_t{1} << axis);
    Attrs pack{{"axis", int64_t{0}}, {"N", n}};
    auto y = dispatch1("StridedSlice",
                       {x, dispatch1("Pack", b, pack), dispatch1("Pack", e, pack),
                        konst(int_vector(DType::Int32, std::vector<int64_t>(static_cast<size_t>(n), 1)))},
                       Attrs{{"begin_mask", whole},
                             {"end_mask", whole},
                             {"ellipsis_mask", int64_t{0}},
                             {"new_axis_mask", int64_t{0}},
                             {"shrink_axis_mask", int64_t{1} << axis}});
    t.g->outputs.push_back(NodeOutput{y->node, 0});
    auto opt = optimize(*t.g);
    CHECK(count_op(*opt, "_StridedSliceIndex") == 1);
    auto ref = Plan::compile(t.g), got = Plan::compile(opt);
    auto xv = iota(DType::Float32, Shape{3, 4, 5});
    for (int64_t k : {0, 2, -1}) {
      auto a = ref->run({xv, make_scalar(DType::Int32, static_cast<double>(k))});
      auto c = got->run({xv, make_scalar(DType::Int32, static_cast<double>(k))});
      REQUIRE(c[0]->shape() == a[0]->shape());
      for (int64_t q = 0; q < a[0]->num_elements(); ++q) CHECK(c[0]->data<float>()[q] == a[0]->data<float>()[q]);
    }
    try {
      got->run({xv, make_scalar(DType::Int32, 9)});
      FAIL("no error");
    } catch (const Error& err) {
      CHECK(std::string(err.what()).find("slice index 9 of dimension " + std::to_string(axis) + " out of bounds.") !=
            std::string::npos);
    }
  }
}
