// The Catch2 main of every test executable: fills the op registry once (fn::start_up, with the
// test files' own ops) before any test runs, as the Python module does on import.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "exec/start_up.h"
#include "test_ops.h"

namespace fn::testing {
std::vector<void (*)(OpRegistry&)>& test_op_registrars() {
  static std::vector<void (*)(OpRegistry&)> fns;
  return fns;
}
}  // namespace fn::testing

int main(int argc, char* argv[]) {
  fn::start_up([](fn::OpRegistry& r) {
    for (auto add : fn::testing::test_op_registrars()) add(r);
  });
  return Catch::Session().run(argc, argv);
}
