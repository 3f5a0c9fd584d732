#include "kernels/direct/matmul.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vector types cross no ABI boundary here

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/multiversion.h"

namespace fn {
namespace direct {

namespace {
constexpr int64_t kRows = 4, kCols = 64;  // accumulator block: 4 x 64 floats (16 AVX-512 registers)

// 16 floats as one GCC vector: zmm in the AVX-512 clone, pairs/quads of ymm/xmm in the others.
typedef float v16 __attribute__((vector_size(64)));
__attribute__((always_inline)) inline v16 load16(const float* p) {
  v16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

typedef int v16i __attribute__((vector_size(64)));

// In-register transpose of the 16 x 16 tile at src (row stride ss) into dst (row stride ds):
// four butterfly stages, each swapping bit d of the row index with bit d of the lane index.
__attribute__((always_inline)) inline void transpose16(const float* src, int64_t ss, float* dst, int64_t ds) {
  v16 r[16];
  for (int i = 0; i < 16; ++i) r[i] = load16(src + i * ss);
#define FN_STAGE(d, LO, HI)                           \
  for (int i = 0; i < 16; ++i)                        \
    if (!(i & d)) {                                   \
      v16 lo = __builtin_shuffle(r[i], r[i + d], LO); \
      v16 hi = __builtin_shuffle(r[i], r[i + d], HI); \
      r[i] = lo;                                      \
      r[i + d] = hi;                                  \
    }
  FN_STAGE(8, (v16i{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23}),
           (v16i{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31}))
  FN_STAGE(4, (v16i{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27}),
           (v16i{4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31}))
  FN_STAGE(2, (v16i{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29}),
           (v16i{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31}))
  FN_STAGE(1, (v16i{0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30}),
           (v16i{1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31}))
#undef FN_STAGE
  for (int i = 0; i < 16; ++i) std::memcpy(dst + i * ds, &r[i], sizeof(v16));
}

// x in every lane.
__attribute__((always_inline)) inline v16 splat(float x) { return v16{} + x; }

// Rows [i, i + R) x columns [j0, j0 + 64) of c; b row-major [k, n] (already untransposed).
// R and TA are compile-time so the R x 4 accumulators stay in registers (a runtime row loop
// or transpose test made GCC keep them on the stack: a load and a store per FMA).
template <int64_t R, bool TA>
__attribute__((always_inline)) inline void block64(const float* a, const float* b, float* c, int64_t i, int64_t j0,
                                                   int64_t m, int64_t n, int64_t k, const float* add) {
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
  if (add) {  // the residual post-op while the block is in registers: the same single add
#pragma GCC unroll 4
    for (int64_t r = 0; r < R; ++r) {
      const float* ar = add + (i + r) * n + j0;
      acc[r][0] += load16(ar);
      acc[r][1] += load16(ar + 16);
      acc[r][2] += load16(ar + 32);
      acc[r][3] += load16(ar + 48);
    }
  }
#pragma GCC unroll 4
  for (int64_t r = 0; r < R; ++r) std::memcpy(c + (i + r) * n + j0, acc[r], sizeof acc[r]);
}

template <bool TA>
__attribute__((always_inline)) inline void columns64(const float* a, const float* b, float* c, int64_t j0, int64_t m,
                                                     int64_t n, int64_t k, const float* add) {
  int64_t i = 0;
  for (; i + kRows <= m; i += kRows) block64<kRows, TA>(a, b, c, i, j0, m, n, k, add);
  for (; i < m; ++i) block64<1, TA>(a, b, c, i, j0, m, n, k, add);
}

// Any block shape (the ragged right edge): plain loops over an accumulator row.
__attribute__((always_inline)) inline void block_any(const float* a, const float* b, float* c, int64_t i, int64_t j0,
                                                     int64_t cols, int64_t m, int64_t n, int64_t k, bool ta,
                                                     const float* add) {
  float acc[kCols] = {};
  for (int64_t p = 0; p < k; ++p) {
    const float* brow = b + p * n + j0;
    float av = ta ? a[p * m + i] : a[i * k + p];
    for (int64_t j = 0; j < cols; ++j) acc[j] += av * brow[j];
  }
  if (add)
    for (int64_t j = 0; j < cols; ++j) acc[j] += add[i * n + j0 + j];
  std::copy(acc, acc + cols, c + i * n + j0);
}
}  // namespace

FN_MULTIVERSION
void matmul_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                const float* add) {
  thread_local std::vector<float> bt;  // reused: no allocation or zero-fill per call
  if (tb) {                            // small: one transposed copy makes every inner loop contiguous
    if (bt.size() < static_cast<size_t>(k * n)) bt.resize(static_cast<size_t>(k * n));
    if (n % 16 == 0 && k % 16 == 0) {
      for (int64_t j = 0; j < n; j += 16)
        for (int64_t p = 0; p < k; p += 16) transpose16(b + j * k + p, k, bt.data() + p * n + j, n);
    } else {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) bt[p * n + j] = b[j * k + p];
    }
    b = bt.data();
  }
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    int64_t cols = std::min(kCols, n - j0);
    int64_t i = 0;
    if (cols == kCols) {
      if (ta)
        columns64<true>(a, b, c, j0, m, n, k, add);
      else
        columns64<false>(a, b, c, j0, m, n, k, add);
    } else {
      for (; i < m; ++i) block_any(a, b, c, i, j0, cols, m, n, k, ta, add);
    }
  }
}

}  // namespace direct
}  // namespace fn
