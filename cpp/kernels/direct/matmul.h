// Single-threaded vectorised float32 matmul for small problems, where oneDNN's fixed cost (and
// waking its thread pool, worse on a loaded machine) exceeds the arithmetic: an RNN step's
// 32x64 @ 64x64 takes a few microseconds here.
#pragma once
#include <cstdint>

namespace fn {
namespace direct {

// Up to this many multiply-adds (m * n * k over all batches) a matmul runs here.
constexpr int64_t kMaxMatMulMacs = int64_t(1) << 18;
// The one choice every float32 matmul kernel makes (plain, fused, folded), so their products
// agree bit for bit: small enough for the direct kernel (no overflow in the product).
inline bool matmul_is_small(int64_t batches, int64_t m, int64_t n, int64_t k) {
  return k <= kMaxMatMulMacs && batches * m * n <= kMaxMatMulMacs / (k > 1 ? k : 1);
}

// c[m, n] = op(a) @ op(b), row-major; a is [m, k] ([k, m] if ta), b is [k, n] ([n, k] if tb).
// Sums over k in ascending order, as the reference loop does. With `add` ([m, n], row-major, may
// alias c), c = (op(a) @ op(b)) + add, rounded exactly as a separate add would be (a residual
// post-op without a pass over c).
void matmul_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                const float* add = nullptr);

// The same at one CPU level's body (4, 3 or 0; above what this CPU supports, its best), for tests
// that compare the levels on one machine.
void matmul_f32_at(int level, const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta,
                   bool tb, const float* add = nullptr);

}  // namespace direct
}  // namespace fn
