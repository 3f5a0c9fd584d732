// Reference matmul: C[b] = op(A[b]) @ op(B[b]) with broadcast batch dims, any numeric type.
#pragma once
#include <cstdint>

namespace fn {
namespace ref {

// a: [m, k] (or [k, m] if ta), b: [k, n] (or [n, k] if tb), c: [m, n]; all row-major.
template <typename T, typename Acc = T>
void matmul2d(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      Acc av = ta ? a[p * m + i] : a[i * k + p];
      if (tb) {
        for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<T>(c[i * n + j] + av * b[j * k + p]);
      } else {
        const T* brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<T>(c[i * n + j] + av * brow[j]);
      }
    }
  }
}

}  // namespace ref
}  // namespace fn
