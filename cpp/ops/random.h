// The per-op-instance state of stateful random ops: how far into its Philox stream the op has
// drawn. Held by the op through the "_state" attr (a HostObject), so each graph node, and each
// (op, dtype, seeds) eager kernel, continues its own sequence; atomically advanced, so one node
// run from several threads never hands out the same numbers twice.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/tensor.h"
#include "graph/attrs.h"
#include "kernels/reference/philox.h"

namespace fn {

struct InferContext;

struct RandomState : HostObject {
  RandomState();
  std::atomic<uint64_t> offset{0};   // blocks of 128 bits used so far
  uint64_t fresh_seed, fresh_seed2;  // used when the op's seeds are both 0 (nondeterministic)
};

std::shared_ptr<HostObject> make_random_state();

// Draws shared by the stateful, seeded stateless and key/counter ops (TF's distributions):
// the output shape from a shape input; n outputs `per` Philox block via fill(block, out, count);
// uniform [0, 1) and standard normal float32/float64 filling `out` in order.
Shape random_shape_arg(const EagerTensor& s);
// The output shape of input i while inferring (TF's MakeShapeFromShapeTensor): the input must be a
// vector ("Shape must be rank 1 but is rank 2", ValueError while tracing), dims >= -1.
Shape random_shape_input(const InferContext& c, size_t i);
template <typename T, typename F>
void fill_blocks(philox::Philox4x32& gen, T* out, int64_t n, int per, F fill) {
  for (int64_t i = 0; i < n; i += per) {
    philox::Block b = gen.next();
    fill(b, out + i, static_cast<int>(std::min<int64_t>(per, n - i)));
  }
}
void fill_uniform_float(philox::Philox4x32& gen, EagerTensor& out);
void fill_normal_float(philox::Philox4x32& gen, EagerTensor& out);

}  // namespace fn
