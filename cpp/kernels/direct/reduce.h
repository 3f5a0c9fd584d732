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
// A column sum's (inner > 1) rows in blocks of this many elements' worth: each block of rows is
// summed from zero into its own double per column (rows in increasing order), and the blocks'
// sums are added in block order, then rounded to float. The order depends only on (mid, inner),
// so a fused column reduction (kernels/fused/elementwise.h) computes the same bits however many
// threads share the blocks, and the same bits as sum_f32.
constexpr int64_t kColumnBlockElements = int64_t{1} << 15;
// Rows per block of a column sum over `inner` columns (1 from 32,768 columns: the plain
// increasing-row order).
inline int64_t column_block_rows(int64_t inner) {
  return inner >= kColumnBlockElements ? 1 : kColumnBlockElements / inner;
}

// out[o, j] = sum over m of x[o, m, j] (divided by mid when `mean`); columns (inner > 1) in the
// row-block order above.
void sum_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool mean);
// out[o, j] = max (or min) over m of x[o, m, j], exactly as the reference fold computes it from
// -inf (+inf): the first NaN met wins, and of equal extremes the first (which decides the sign
// of a zero). A row's lanes are compared eight at a time; a row holding a NaN or whose extreme
// is a zero is folded again in order. mid >= 1.
void extreme_f32(const float* x, float* out, int64_t outer, int64_t mid, int64_t inner, bool max);

}  // namespace direct
}  // namespace fn
