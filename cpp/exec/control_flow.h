// Kernels of the control-flow ops (If, StatelessIf, While, StatelessWhile): they run compiled
// plans of the nodes' sub-graphs, compiled once per node and shared by every execution.
#pragma once

namespace fn {

// Installs the kernels in the op registry (idempotent, thread-safe). Plan::compile and the
// Python module call it; tests that dispatch control flow eagerly call it first.
void install_control_flow_kernels();

}  // namespace fn
