// Kernels of the control-flow ops (If, StatelessIf, While, StatelessWhile): they run compiled
// plans of the nodes' sub-graphs, compiled once per node and shared by every execution.
#pragma once
#include <stdexcept>

#include "graph/op_def.h"

namespace fn {

// Thrown by the interrupt check when a signal handler raised. Not an fn::Error, so nothing on
// the way up (kernel error annotation, constant folding's "leave it for run time") swallows it.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted by a signal") {}
};

// Supplies the kernels of the control-flow ops (defined in ops/control_flow.cpp) while the
// registry is filled (exec/start_up.cpp).
void add_control_flow_kernels(OpRegistry& r);

// Called between While iterations (at most every few milliseconds, so its cost never shows):
// the bindings install a check of Python's pending signals that throws when a handler raised
// (Ctrl-C's KeyboardInterrupt, pytest-timeout's SIGALRM), so a loop that never ends can be
// interrupted.
void set_interrupt_check(void (*check)());

// The same check between the steps of a graph run, at most every 20 ms per thread (one clock
// read per call; a plan run calls it every 8 steps, counted in the run, so a step costs no
// thread-local access): a long straight-line graph (many heavy ops, no loop) stops within 8
// steps; a loop polls once per iteration itself, however short its body.
void poll_interrupt();

}  // namespace fn
