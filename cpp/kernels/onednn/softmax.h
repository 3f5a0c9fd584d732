// Softmax / log-softmax over the last axis of a [rows, cols] float32 array on oneDNN.
#pragma once
#include <cstdint>

namespace fn {
namespace onednn {
inline bool softmax_worthwhile(int64_t rows, int64_t cols) { return rows * cols >= (int64_t{1} << 14); }
void softmax_forward(const float* x, float* y, int64_t rows, int64_t cols, bool log);
}  // namespace onednn
}  // namespace fn
