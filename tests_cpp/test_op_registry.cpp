// graph/op_def.h + exec/start_up.h: the op registry is filled once at start-up (the ops/ families,
// the executor's control-flow kernels, then the caller's extras) and read-only afterwards.
#include <catch2/catch.hpp>

#include <type_traits>

#include "exec/start_up.h"
#include "test_ops.h"

using namespace fn;

namespace {

void add_registry_test_op(OpRegistry& r) {
  r.add(OpDef{"TestRegistryOp",
              "",
              1,
              [](const InferContext& c) { return std::vector<TensorSpec>{c.inputs[0]}; },
              [](KernelContext&, const std::vector<EagerPtr>& in) { return std::vector<EagerPtr>{in[0]}; },
              {}});
}
const testing::TestOps test_ops(add_registry_test_op);

}  // namespace

// Nothing can add or change an op once graphs may run: the registry everyone reads is const.
static_assert(std::is_same<decltype(OpRegistry::global()), const OpRegistry&>::value,
              "OpRegistry::global() must hand out a read-only registry");

TEST_CASE("start-up registers every family, the executor's kernels and the extras") {
  const OpRegistry& r = OpRegistry::global();
  for (const char* op : {"AddV2", "Placeholder", "Const", "If", "StatelessIf", "While", "StatelessWhile"})
    CHECK(r.find(op) != nullptr);
  const OpDef* t = r.find("TestRegistryOp");
  REQUIRE(t != nullptr);
  CHECK(t->default_name == "TestRegistryOp");  // an empty default name is the op's type
  // The control-flow ops' kernels come from exec/ at start-up.
  for (const char* op : {"If", "StatelessIf", "While", "StatelessWhile"}) CHECK(static_cast<bool>(r.get(op).kernel));
}

TEST_CASE("start-up runs once: a second call adds nothing") {
  const size_t before = OpRegistry::global().names().size();
  bool ran = false;
  start_up([&](OpRegistry&) { ran = true; });
  CHECK_FALSE(ran);
  CHECK(OpRegistry::global().names().size() == before);
}

TEST_CASE("an unknown op is NotFound") {
  CHECK_THROWS_WITH(OpRegistry::global().get("NoSuchOp"), Catch::Contains("Op type not registered 'NoSuchOp'"));
}
