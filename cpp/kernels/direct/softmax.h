// Single-threaded vectorised float32 softmax / log-softmax backward over the last axis of a
// [rows, cols] array. oneDNN 3.2 has no JIT softmax backward on AVX2 (its reference kernel took
// ~2-3 ms for a transformer's 8x4x64x64 attention gradient); the row sums here are the eight
// partial sums in double of direct::sum_f32.
#pragma once
#include <cstdint>

namespace fn {
namespace direct {

// softmax: dx = (dy - sum(dy * y)) * y; log-softmax: dx = dy - exp(y) * sum(dy) (y the forward output).
void softmax_backward_f32(const float* y, const float* dy, float* dx, int64_t rows, int64_t cols, bool log);

}  // namespace direct
}  // namespace fn
