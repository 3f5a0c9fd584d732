// The per-op-instance state of stateful random ops: how far into its Philox stream the op has
// drawn. Held by the op through the "_state" attr (a HostObject), so each graph node, and each
// (op, dtype, seeds) eager kernel, continues its own sequence; atomically advanced, so one node
// run from several threads never hands out the same numbers twice.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "graph/attrs.h"

namespace fn {

struct RandomState : HostObject {
  RandomState();
  std::atomic<uint64_t> offset{0};   // blocks of 128 bits used so far
  uint64_t fresh_seed, fresh_seed2;  // used when the op's seeds are both 0 (nondeterministic)
};

std::shared_ptr<HostObject> make_random_state();

}  // namespace fn
