#include "kernels/direct/reduce.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vector types cross no ABI boundary here

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

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

typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

FN_MULTIVERSION
void sum_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool mean) {
  const double scale = mean && mid > 0 ? static_cast<double>(mid) : 1.0;
  if (inner == 1) {  // rows: eight partial sums (two vectors of four doubles), then added in order
    for (int64_t o = 0; o < outer; ++o) {
      const float* base = x + o * mid;
      v4d a0 = v4d{}, a1 = v4d{};
      int64_t m = 0;
      for (; m + 8 <= mid; m += 8) {
        v4f lo, hi;
        std::memcpy(&lo, base + m, sizeof lo);
        std::memcpy(&hi, base + m + 4, sizeof hi);
        a0 += __builtin_convertvector(lo, v4d);
        a1 += __builtin_convertvector(hi, v4d);
      }
      double s = 0;
      for (int q = 0; q < 4; ++q) s += a0[q];
      for (int q = 0; q < 4; ++q) s += a1[q];
      for (; m < mid; ++m) s += base[m];
      out[o] = static_cast<float>(mean ? s / scale : s);
    }
    return;
  }
  std::vector<double> acc(static_cast<size_t>(inner)), part(acc.size());
  const int64_t rows = column_block_rows(inner);
  for (int64_t o = 0; o < outer; ++o) {
    const float* base = x + o * mid * inner;
    std::fill(acc.begin(), acc.end(), 0.0);
    double *a = acc.data(), *p = part.data();
    for (int64_t m0 = 0; m0 < mid; m0 += rows) {  // columns: row blocks, each summed apart, added in order
      std::fill(part.begin(), part.end(), 0.0);
      for (int64_t m = m0, m1 = std::min(mid, m0 + rows); m < m1; ++m) {  // vectorised across j
        const float* row = base + m * inner;
        for (int64_t j = 0; j < inner; ++j) p[j] += row[j];
      }
      for (int64_t j = 0; j < inner; ++j) a[j] += p[j];
    }
    float* dst = out + o * inner;
    for (int64_t j = 0; j < inner; ++j) dst[j] = static_cast<float>(mean ? a[j] / scale : a[j]);
  }
}

namespace {
// ref::Maximum / ref::Minimum on floats: a NaN accumulator stays, a NaN value replaces it, else
// the new value only when strictly beyond (equal extremes keep the first).
template <bool kMax>
__attribute__((always_inline)) inline float pick(float acc, float v) {
  if (acc != acc) return acc;
  if (v != v) return v;
  return (kMax ? acc < v : v < acc) ? v : acc;
}

typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));

template <bool kMax>
__attribute__((always_inline)) inline void extreme_rows(const float* x, float* out, int64_t outer, int64_t mid) {
  const float start = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  for (int64_t o = 0; o < outer; ++o) {
    const float* row = x + o * mid;
    v8f lane = v8f{} + start;  // start is +-inf, never -0
    v8i nan = v8i{};
    int64_t m = 0;
    for (; m + 8 <= mid; m += 8) {  // eight lanes: a lane's extreme and whether it met a NaN
      v8f v;
      std::memcpy(&v, row + m, sizeof v);
      nan |= v != v;
      lane = (kMax ? lane < v : v < lane) ? v : lane;
    }
    float e = start;
    int any_nan = 0;
    for (int q = 0; q < 8; ++q) {
      any_nan |= nan[q];
      e = (kMax ? e < lane[q] : lane[q] < e) ? lane[q] : e;
    }
    for (; m < mid; ++m) {
      any_nan |= row[m] != row[m];
      e = (kMax ? e < row[m] : row[m] < e) ? row[m] : e;
    }
    if (any_nan || e == 0.f) {  // the order decides: fold the row as the reference does
      e = start;
      for (m = 0; m < mid; ++m) e = pick<kMax>(e, row[m]);
    }
    out[o] = e;
  }
}

template <bool kMax>
__attribute__((always_inline)) inline void extreme_columns(const float* x, float* out, int64_t outer, int64_t mid,
                                                           int64_t inner) {
  const float start = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  for (int64_t o = 0; o < outer; ++o) {
    float* acc = out + o * inner;
    std::fill(acc, acc + inner, start);
    for (int64_t m = 0; m < mid; ++m) {  // in the reference loop's order, vectorised across j
      const float* row = x + (o * mid + m) * inner;
      for (int64_t j = 0; j < inner; ++j) acc[j] = pick<kMax>(acc[j], row[j]);
    }
  }
}
}  // namespace

FN_MULTIVERSION
void extreme_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool max) {
  if (inner == 1) {
    if (max)
      extreme_rows<true>(x, out, outer, mid);
    else
      extreme_rows<false>(x, out, outer, mid);
  } else if (max) {
    extreme_columns<true>(x, out, outer, mid, inner);
  } else {
    extreme_columns<false>(x, out, outer, mid, inner);
  }
}

}  // namespace direct
}  // namespace fn
