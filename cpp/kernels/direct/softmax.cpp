#include "kernels/direct/softmax.h"

#include <cmath>

#include "kernels/multiversion.h"

namespace fn {
namespace direct {

namespace {
// sum over c of a[c] * (b ? b[c] : 1): eight partial sums in double, added in order, then the tail.
template <bool kProduct>
__attribute__((always_inline)) inline double row_sum(const float* a, const float* b, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t c = 0;
  for (; c + 8 <= n; c += 8)
    for (int q = 0; q < 8; ++q) acc[q] += kProduct ? static_cast<double>(a[c + q] * b[c + q]) : a[c + q];
  double s = 0;
  for (int q = 0; q < 8; ++q) s += acc[q];
  for (; c < n; ++c) s += kProduct ? static_cast<double>(a[c] * b[c]) : a[c];
  return s;
}
}  // namespace

FN_MULTIVERSION
void softmax_backward_f32(const float* y, const float* dy, float* dx, int64_t rows, int64_t cols, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *yr = y + r * cols, *dyr = dy + r * cols;
    float* dxr = dx + r * cols;
    if (log) {
      const float s = static_cast<float>(row_sum<false>(dyr, nullptr, cols));
      for (int64_t c = 0; c < cols; ++c) dxr[c] = dyr[c] - std::exp(yr[c]) * s;
    } else {
      const float s = static_cast<float>(row_sum<true>(dyr, yr, cols));
      for (int64_t c = 0; c < cols; ++c) dxr[c] = (dyr[c] - s) * yr[c];
    }
  }
}

}  // namespace direct
}  // namespace fn
