#include "kernels/direct/reduce.h"

#include <algorithm>
#include <cstddef>

#include "kernels/multiversion.h"

namespace fn {
namespace direct {

bool contiguous_reduction(const std::vector<int64_t>& dims, const std::vector<bool>& reduced, int64_t* outer,
                          int64_t* mid, int64_t* inner) {
  int first = -1, last = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1 || !reduced[d]) continue;
    if (first < 0) first = static_cast<int>(d);
    last = static_cast<int>(d);
  }
  *outer = *mid = *inner = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    int i = static_cast<int>(d);
    if (first >= 0 && i >= first && i <= last) {
      if (!reduced[d] && dims[d] != 1) return false;  // a kept axis inside the run
      *mid *= dims[d];
    } else if (first >= 0 && i > last) {
      *inner *= dims[d];
    } else {
      *outer *= dims[d];
    }
  }
  return true;
}

FN_MULTIVERSION
void sum_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool mean) {
  const double scale = mean && mid > 0 ? static_cast<double>(mid) : 1.0;
  std::vector<double> acc(static_cast<size_t>(inner > 1 ? inner : 8));
  for (int64_t o = 0; o < outer; ++o) {
    const float* base = x + o * mid * inner;
    std::fill(acc.begin(), acc.end(), 0.0);
    if (inner == 1) {  // a row: eight partial sums, then added in order
      int64_t m = 0;
      for (; m + 8 <= mid; m += 8)
        for (int q = 0; q < 8; ++q) acc[q] += base[m + q];
      double s = 0;
      for (int q = 0; q < 8; ++q) s += acc[q];
      for (; m < mid; ++m) s += base[m];
      out[o] = static_cast<float>(mean ? s / scale : s);
      continue;
    }
    double* a = acc.data();
    for (int64_t m = 0; m < mid; ++m) {  // columns: in the reference loop's order, vectorised across j
      const float* row = base + m * inner;
      for (int64_t j = 0; j < inner; ++j) a[j] += row[j];
    }
    float* dst = out + o * inner;
    for (int64_t j = 0; j < inner; ++j) dst[j] = static_cast<float>(mean ? a[j] / scale : a[j]);
  }
}

}  // namespace direct
}  // namespace fn
