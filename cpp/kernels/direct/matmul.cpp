#include "kernels/direct/matmul.h"

#pragma GCC diagnostic ignored "-Wpsabi"   // vector types cross no ABI boundary here

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define FN_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FN_MULTIVERSION
#endif

namespace fn {
namespace direct {

namespace {
constexpr int64_t kRows = 4, kCols = 64;   // accumulator block: 4 x 64 floats (16 AVX-512 registers)

// 16 floats as one GCC vector: zmm in the AVX-512 clone, pairs/quads of ymm/xmm in the others.
typedef float v16 __attribute__((vector_size(64)));
__attribute__((always_inline)) inline v16 load16(const float* p) {
  v16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// x in every lane.
__attribute__((always_inline)) inline v16 splat(float x) { return v16{} + x; }

// Rows [i, i + R) x columns [j0, j0 + 64) of c; b row-major [k, n] (already untransposed).
// R and TA are compile-time so the R x 4 accumulators stay in registers (a runtime row loop
// or transpose test made GCC keep them on the stack: a load and a store per FMA).
template <int64_t R, bool TA>
__attribute__((always_inline)) inline void block64(const float* a, const float* b, float* c, int64_t i, int64_t j0,
                                                   int64_t m, int64_t n, int64_t k) {
  v16 acc[R][4] = {};
  for (int64_t p = 0; p < k; ++p) {
    const float* brow = b + p * n + j0;
    v16 b0 = load16(brow), b1 = load16(brow + 16), b2 = load16(brow + 32), b3 = load16(brow + 48);
#pragma GCC unroll 4
    for (int64_t r = 0; r < R; ++r) {
      v16 s = splat(TA ? a[p * m + i + r] : a[(i + r) * k + p]);
      acc[r][0] += s * b0;
      acc[r][1] += s * b1;
      acc[r][2] += s * b2;
      acc[r][3] += s * b3;
    }
  }
#pragma GCC unroll 4
  for (int64_t r = 0; r < R; ++r) std::memcpy(c + (i + r) * n + j0, acc[r], sizeof acc[r]);
}

template <bool TA>
__attribute__((always_inline)) inline void columns64(const float* a, const float* b, float* c, int64_t j0, int64_t m,
                                                     int64_t n, int64_t k) {
  int64_t i = 0;
  for (; i + kRows <= m; i += kRows) block64<kRows, TA>(a, b, c, i, j0, m, n, k);
  for (; i < m; ++i) block64<1, TA>(a, b, c, i, j0, m, n, k);
}

// Any block shape (the ragged right edge): plain loops over an accumulator row.
__attribute__((always_inline)) inline void block_any(const float* a, const float* b, float* c, int64_t i, int64_t j0,
                                                     int64_t cols, int64_t m, int64_t n, int64_t k, bool ta) {
  float acc[kCols] = {};
  for (int64_t p = 0; p < k; ++p) {
    const float* brow = b + p * n + j0;
    float av = ta ? a[p * m + i] : a[i * k + p];
    for (int64_t j = 0; j < cols; ++j) acc[j] += av * brow[j];
  }
  std::copy(acc, acc + cols, c + i * n + j0);
}
}  // namespace

FN_MULTIVERSION
void matmul_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  std::vector<float> bt;
  if (tb) {   // small: one transposed copy makes every inner loop contiguous
    bt.resize(static_cast<size_t>(k * n));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) bt[p * n + j] = b[j * k + p];
    b = bt.data();
  }
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    int64_t cols = std::min(kCols, n - j0);
    int64_t i = 0;
    if (cols == kCols) {
      if (ta) columns64<true>(a, b, c, j0, m, n, k);
      else columns64<false>(a, b, c, j0, m, n, k);
    } else {
      for (; i < m; ++i) block_any(a, b, c, i, j0, cols, m, n, k, ta);
    }
  }
}

}  // namespace direct
}  // namespace fn
