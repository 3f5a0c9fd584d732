#include "kernels/direct/matmul.h"

#include <algorithm>
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

// Rows [i, i + rows) x columns [j0, j0 + cols) of c, b row-major [k, n] (already untransposed).
template <int64_t R>
inline void block(const float* a, const float* b, float* c, int64_t i, int64_t j0, int64_t cols, int64_t m,
                  int64_t n, int64_t k, bool ta) {
  float acc[R][kCols] = {};
  for (int64_t p = 0; p < k; ++p) {
    const float* brow = b + p * n + j0;
    for (int64_t r = 0; r < R; ++r) {
      float av = ta ? a[p * m + i + r] : a[(i + r) * k + p];
      if (cols == kCols) {
        for (int64_t j = 0; j < kCols; ++j) acc[r][j] += av * brow[j];
      } else {
        for (int64_t j = 0; j < cols; ++j) acc[r][j] += av * brow[j];
      }
    }
  }
  for (int64_t r = 0; r < R; ++r) std::copy(acc[r], acc[r] + cols, c + (i + r) * n + j0);
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
    for (; i + kRows <= m; i += kRows) block<kRows>(a, b, c, i, j0, cols, m, n, k, ta);
    for (; i < m; ++i) block<1>(a, b, c, i, j0, cols, m, n, k, ta);
  }
}

}  // namespace direct
}  // namespace fn
