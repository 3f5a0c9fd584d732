// Test-only ops: a test file adds its own ops to the registry at start-up (the registry is
// read-only once tests run) by defining `static fn::testing::TestOps reg(add_my_ops);`.
#pragma once
#include <vector>

#include "graph/op_def.h"

namespace fn::testing {

std::vector<void (*)(OpRegistry&)>& test_op_registrars();  // defined in main.cpp

struct TestOps {
  explicit TestOps(void (*add)(OpRegistry&)) { test_op_registrars().push_back(add); }
};

}  // namespace fn::testing
