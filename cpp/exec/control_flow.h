// Kernels of the control-flow ops (If, StatelessIf, While, StatelessWhile): they run compiled
// plans of the nodes' sub-graphs, compiled once per node and shared by every execution.
#pragma once

namespace fn {

// Installs the kernels in the op registry (idempotent, thread-safe). Plan::compile and the
// Python module call it; tests that dispatch control flow eagerly call it first.
void install_control_flow_kernels();

// Called between While iterations (at most every few milliseconds, so its cost never shows):
// the bindings install a check of Python's pending signals that throws when a handler raised
// (Ctrl-C's KeyboardInterrupt, pytest-timeout's SIGALRM), so a loop that never ends can be
// interrupted.
void set_interrupt_check(void (*check)());

}  // namespace fn
