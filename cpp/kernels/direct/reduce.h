// Single-threaded vectorised float32 sum/mean over one contiguous run of axes, accumulated in
// double as the reference loop does. oneDNN 3.2 has no JIT reduction for many of these shapes
// (a bias gradient's sum over the batch ran its reference implementation, ~1 ms for 256x512).
#pragma once
#include <cstdint>
#include <vector>

namespace fn {
namespace direct {

// Views `dims` as [outer, mid, inner] where mid is the product of the reduced axes (ignoring
// axes of size 1); false when the reduced axes are not one contiguous run.
bool contiguous_reduction(const std::vector<int64_t>& dims, const std::vector<bool>& reduced, int64_t* outer,
                          int64_t* mid, int64_t* inner);
// out[o, j] = sum over m of x[o, m, j] (divided by mid when `mean`).
void sum_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool mean);
// out[o, j] = max (or min) over m of x[o, m, j], exactly as the reference fold computes it from
// -inf (+inf): the first NaN met wins, and of equal extremes the first (which decides the sign
// of a zero). A row's lanes are compared eight at a time; a row holding a NaN or whose extreme
// is a zero is folded again in order. mid >= 1.
void extreme_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool max);

}  // namespace direct
}  // namespace fn
