// cpp/function: trace types (subtyping, supertypes), the function cache's lookup and LRU.
#include <catch2/catch.hpp>

#include <thread>

#include "function/cache.h"
#include "function/concrete.h"
#include "function/trace_type.h"

using namespace fn;

namespace {
TypePtr tensor(DType d, Shape s) { return std::make_shared<TensorType>(d, std::move(s)); }
TypePtr lit(int v) { return std::make_shared<LiteralType>(LiteralType::PyKind::Int, std::to_string(v), v); }
TypePtr tuple(std::vector<TypePtr> e) { return std::make_shared<SequenceType>("tuple", std::move(e)); }
constexpr int64_t U = Shape::kUnknown;
}  // namespace

TEST_CASE("tensor trace types: fixed dims are subtypes of unknown dims, ranked of unranked") {
  auto fixed = tensor(DType::Int32, Shape{3}), open = tensor(DType::Int32, Shape{U});
  auto unranked = tensor(DType::Int32, Shape::unknown_rank());
  CHECK(fixed->is_subtype_of(*open));
  CHECK_FALSE(open->is_subtype_of(*fixed));
  CHECK(open->is_subtype_of(*unranked));
  CHECK(fixed->is_subtype_of(*unranked));
  CHECK_FALSE(tensor(DType::Float32, Shape{3})->is_subtype_of(*open));
  auto sup = tensor(DType::Int32, Shape{3, 4})->common_supertype(*tensor(DType::Int32, Shape{5, 4}), nullptr);
  REQUIRE(sup);
  CHECK(sup->equals(*tensor(DType::Int32, Shape{U, 4})));
  CHECK(tensor(DType::Int32, Shape{3})->common_supertype(*tensor(DType::Float32, Shape{3}), nullptr) == nullptr);
}

TEST_CASE("variables are keyed by their resource id too") {
  auto a = std::make_shared<TensorType>(DType::Float32, Shape{}, 1);
  auto b = std::make_shared<TensorType>(DType::Float32, Shape{}, 2);
  CHECK_FALSE(a->equals(*b));
  CHECK(a->equals(*std::make_shared<TensorType>(DType::Float32, Shape{}, 1)));
}

TEST_CASE("literals by value, sequences by order, dicts ignore insertion order") {
  CHECK(lit(3)->equals(*lit(3)));
  CHECK_FALSE(lit(3)->equals(*lit(4)));
  CHECK_FALSE(std::make_shared<LiteralType>(LiteralType::PyKind::Bool, "True", 1)
                  ->equals(*std::make_shared<LiteralType>(LiteralType::PyKind::Int, "1", 1)));
  CHECK_FALSE(tuple({lit(1), lit(2)})->equals(*tuple({lit(2), lit(1)})));
  auto list12 = std::make_shared<SequenceType>("list", std::vector<TypePtr>{lit(1), lit(2)});
  CHECK_FALSE(list12->equals(*tuple({lit(1), lit(2)})));
  DictType d1({{lit(1), lit(2)}, {lit(3), lit(4)}}), d2({{lit(3), lit(4)}, {lit(1), lit(2)}});
  CHECK(d1.equals(d2));
  CHECK(d1.hash() == d2.hash());
  CHECK(
      tuple({tensor(DType::Int32, Shape{2}), lit(1)})->is_subtype_of(*tuple({tensor(DType::Int32, Shape{U}), lit(1)})));
  CHECK_FALSE(
      tuple({tensor(DType::Int32, Shape{2}), lit(1)})->is_subtype_of(*tuple({tensor(DType::Int32, Shape{U}), lit(2)})));
}

TEST_CASE("the cache picks the exact entry, else the most specific supertype") {
  FunctionCache<int> cache;
  cache.insert(tuple({tensor(DType::Int32, Shape::unknown_rank())}), std::make_shared<int>(1));
  cache.insert(tuple({tensor(DType::Int32, Shape{U})}), std::make_shared<int>(2));
  cache.insert(tuple({tensor(DType::Int32, Shape{3})}), std::make_shared<int>(3));
  CHECK(*cache.lookup(tuple({tensor(DType::Int32, Shape{3})})) == 3);
  CHECK(*cache.lookup(tuple({tensor(DType::Int32, Shape{5})})) == 2);
  CHECK(*cache.lookup(tuple({tensor(DType::Int32, Shape{5, 5})})) == 1);
  CHECK(cache.lookup(tuple({tensor(DType::Float32, Shape{5})})) == nullptr);
  auto s = cache.stats();
  CHECK(s.hits == 3);
  CHECK(s.misses == 1);
}

TEST_CASE("a bounded cache evicts the least recently used entry") {
  FunctionCache<int> cache(2);
  cache.insert(lit(1), std::make_shared<int>(1));
  cache.insert(lit(2), std::make_shared<int>(2));
  CHECK(cache.lookup(lit(1)));  // 1 is now most recent
  cache.insert(lit(3), std::make_shared<int>(3));
  CHECK(cache.size() == 2);
  CHECK(cache.lookup(lit(2)) == nullptr);
  CHECK(cache.lookup(lit(1)));
  CHECK(cache.stats().evictions == 1);
}

TEST_CASE("the cache is safe under concurrent lookups and inserts") {
  FunctionCache<int> cache(50);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        cache.insert(lit((i * 7 + t) % 100), std::make_shared<int>(i));
        cache.lookup(lit(i % 100));
      }
    });
  for (auto& th : threads) th.join();
  CHECK(cache.size() <= 50);
}

TEST_CASE("a concrete function runs its graph eagerly and checks argument dtypes") {
  auto g = std::make_shared<Graph>("double");
  {
    GraphBuilder b(g);
    ContextScope scope(&b);
    auto a = b.add_placeholder("a", TensorSpec{DType::Float32, Shape{}});
    auto y = dispatch1("AddV2", {a, a});
    auto out = dispatch1("Identity", {y});
    g->outputs.push_back(NodeOutput{out->node, 0});
  }
  ConcreteFunction f(g, {});
  f.name = "__inference_double_1";
  auto r = f.call({make_scalar(DType::Float32, 2.5)});
  CHECK(as_eager(r[0])->scalar_as_double() == 5.0);
  try {
    f.call({make_scalar(DType::Int32, 1)});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::InvalidArgument);
    CHECK(std::string(e.what()).find("was expected to be a float tensor but is a int32 tensor") != std::string::npos);
  }
}
