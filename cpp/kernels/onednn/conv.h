// 2-D convolution on oneDNN (float32): NHWC activations, HWIO filters, any padding/strides/
// dilations. Forward, backward data and backward weights.
#pragma once
#include <cstdint>
#include <functional>

#include "kernels/epilogue.h"
#include "kernels/nn_geom.h"

namespace fn {
namespace onednn {
// Enough work for oneDNN to beat the reference loop.
inline bool conv_worthwhile(const Conv2DGeom& g) {  // in double: no overflow for huge filters
  return double(g.output_size()) * double(g.kh) * double(g.kw) * double(g.ic) >= double(int64_t{1} << 14);
}

// How conv2d_forward cuts a batch: `count` slices of `per` whole images (the last one fewer);
// count 1: one call on oneDNN's own threads. Fixed by the shape alone (and FN_CONV_SLICES=1, off
// by default: conv.cpp), so every call of a shape (eager or in a graph, fused or not, any thread
// count) computes the same bits.
struct ForwardSlices {
  int64_t per = 0, count = 1;
};
ForwardSlices forward_slices(const Conv2DGeom& g);

// Runs on a slice's output right after its convolution, on the thread that computed it (while
// the output is in that core's cache): images [first, first + count) of the batch, `y` their
// output. `sliced`: true on a task-pool slice (run on this thread alone), false for one call over
// the whole batch (the tail may use every thread).
using SliceTail = std::function<void(int64_t first, int64_t count, float* y, bool sliced)>;

// `e`: bias, residual and activation as the primitive's bias and post-ops. A batch worth
// slicing (forward_slices) runs as slices on the task pool (kernels/task_pool.h), each a
// single-threaded oneDNN call: one wake-up per layer, no barrier waiting for a late thread, and
// `tail` (a fused epilogue, a pooling) reads each slice's output from cache. `y` nullptr: each
// slice's output goes to a per-thread buffer only `tail` reads (a pooled layer's).
void conv2d_forward(const float* x, const float* w, float* y, const Conv2DGeom& g, const Epilogue* e = nullptr,
                    const SliceTail* tail = nullptr);
void conv2d_backward_data(const float* dy, const float* w, float* dx, const Conv2DGeom& g);
void conv2d_backward_weights(const float* x, const float* dy, float* dw, const Conv2DGeom& g);
}  // namespace onednn
}  // namespace fn
