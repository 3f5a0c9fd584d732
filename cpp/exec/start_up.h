// Start-up: the one place the op registry is filled. Every entry point (the Python module, the
// Catch2 main) calls start_up() before anything else; afterwards the registry is read-only.
#pragma once
#include <functional>

#include "graph/op_def.h"

namespace fn {

// Registers every op family of ops/, installs the executor's control-flow kernels, then runs
// `extra` (the bindings' PyCall kernel, a test's own ops) and freezes the registry. Only the
// first call does anything (thread-safe).
void start_up(const std::function<void(OpRegistry&)>& extra = nullptr);

}  // namespace fn
