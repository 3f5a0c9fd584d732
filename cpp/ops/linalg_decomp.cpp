// Matrix decompositions and structured-matrix ops on batches (the last two dims), float32 and
// float64, computed per matrix in double: Cholesky, MatrixTriangularSolve, Qr (Householder
// with Eigen's/LAPACK's signs), SelfAdjointEigV2 (cyclic Jacobi, ascending eigenvalues), Svd
// (one-sided Jacobi, descending singular values), LogMatrixDeterminant, Lu (partial pivoting),
// MatrixBandPart and MatrixDiagV3 / MatrixDiagPartV3 / MatrixSetDiagV3 (one diagonal or a range,
// with TF's alignments). Gradients are TF's (linalg_grad.py), composed of ops.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/helpers.h"
#include "ops/broadcast_index.h"
#include "ops/shape_util.h"
#include "ops/linalg_util.h"
#include <cstring>

namespace fn {

namespace {

using namespace linalg;  // NOLINT

// ---- MatrixBandPart(input, num_lower, num_upper) ----

std::vector<EagerPtr> band_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  int r = x.shape().rank();
  if (r < 2) throw_error(Code::InvalidArgument, "input must be at least 2-dim, received shape: ", tf_shape(x.shape()));
  int64_t m = x.shape()[r - 2], n = x.shape()[r - 1];
  int64_t lo = in[1]->scalar_as_int(0), hi = in[2]->scalar_as_int(0);
  if (lo > m)
    throw_error(Code::InvalidArgument, "num_lower must be negative or less or equal to number of rows (", m,
                ") got: ", lo);
  if (hi > n)
    throw_error(Code::InvalidArgument, "num_upper must be negative or less or equal to number of columns (", n,
                ") got: ", hi);
  auto out = make_tensor(x.dtype(), x.shape());
  size_t es = dtype_size(x.dtype());
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out->raw());
  int64_t count = (m > 0 && n > 0) ? x.num_elements() / (m * n) : 0;
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        size_t off = static_cast<size_t>((b * m + i) * n + j) * es;
        bool keep = (lo < 0 || i - j <= lo) && (hi < 0 || j - i <= hi);
        if (keep)
          std::memcpy(dst + off, src + off, es);
        else
          std::memset(dst + off, 0, es);
      }
  return {out};
}

// ---- MatrixDiagPartV3(input, k, padding_value) / MatrixDiagV3 / MatrixSetDiagV3 ----
// k is one diagonal or a range (lo, hi). A range's diagonals are stacked from hi down to lo, each
// padded to the longest one's length; `align` says on which side superdiagonals and
// subdiagonals are padded (RIGHT_LEFT: superdiagonals right-aligned, subdiagonals left-aligned).

struct DiagRange {
  int64_t lo = 0, hi = 0;
  bool left_super = false, left_sub = true;
  bool single() const { return lo == hi; }
  int64_t count() const { return hi - lo + 1; }
};

DiagRange diag_range(const EagerTensor& k, const Attrs& attrs) {
  if (k.shape().rank() > 1)
    throw_error(Code::InvalidArgument, "diag_index must be a scalar or vector, received shape: ", tf_shape(k.shape()));
  int64_t n = k.num_elements();
  if (n < 1 || n > 2)
    throw_error(Code::InvalidArgument, "diag_index must have only one or two elements, received ", n, " elements.");
  DiagRange r;
  r.lo = k.scalar_as_int(0);
  r.hi = n == 2 ? k.scalar_as_int(1) : r.lo;
  if (r.lo > r.hi)
    throw_error(Code::InvalidArgument, "lower_diag_index must not be larger than upper_diag_index: ", r.lo, " > ",
                r.hi);
  std::string align = attrs.get_or("align", std::string("RIGHT_LEFT"));
  r.left_super = align.rfind("LEFT", 0) == 0;
  r.left_sub = align.size() >= 4 && align.compare(align.size() - 4, 4, "LEFT") == 0;
  return r;
}

// Length of diagonal k of an m x n matrix and the (row, col) of its element i.
int64_t diag_len(int64_t m, int64_t n, int64_t k) {
  return std::max<int64_t>(0, std::min(m + std::min<int64_t>(k, 0), n - std::max<int64_t>(k, 0)));
}
std::pair<int64_t, int64_t> diag_at(int64_t k, int64_t i) {
  return k >= 0 ? std::make_pair(i, i + k) : std::make_pair(i - k, i);
}

// The longest diagonal in the range (TF's max_diag_len).
int64_t max_diag_len(int64_t m, int64_t n, const DiagRange& r) {
  return std::min(m + std::min<int64_t>(r.hi, 0), n - std::max<int64_t>(r.lo, 0));
}

// Where diagonal d starts in its padded row of length `width` (TF's ComputeOffset).
int64_t diag_offset(int64_t d, int64_t m, int64_t n, int64_t width, const DiagRange& r) {
  if ((d >= 0 && r.left_super) || (d <= 0 && r.left_sub)) return 0;
  return width - diag_len(m, n, d);
}

// Calls f(slot, row, col) for every element of the range's diagonals in an m x n matrix, slot
// being its position in the packed [count, width] (or [width] for one diagonal) layout.
template <typename F>
void for_each_diag_element(int64_t m, int64_t n, int64_t width, const DiagRange& r, F&& f) {
  for (int64_t d = r.hi; d >= r.lo; --d) {
    int64_t row_slot = (r.hi - d) * width, len = diag_len(m, n, d), off = diag_offset(d, m, n, width, r);
    for (int64_t i = 0; i < len; ++i) {
      auto [row, col] = diag_at(d, i);
      f(row_slot + off + i, row, col);
    }
  }
}

// Every element of `out` set to the one element of `value` (same dtype), byte for byte.
void fill_with(EagerTensor& out, const EagerTensor& value) {
  size_t es = dtype_size(out.dtype());
  char* o = static_cast<char*>(out.raw());
  const char* v = static_cast<const char*>(value.raw());
  for (int64_t i = 0; i < out.num_elements(); ++i) std::memcpy(o + i * es, v, es);
}

std::vector<int64_t> packed_dims(const std::vector<int64_t>& batch, const DiagRange& r, int64_t width) {
  std::vector<int64_t> d(batch);
  if (!r.single()) d.push_back(r.count());
  d.push_back(width);
  return d;
}

// TF's bound check of a diagonal range against an m x n matrix (MatrixDiagPart/SetDiag).
void check_diag_bounds(int64_t m, int64_t n, const DiagRange& r) {
  if (!((-m < r.lo && r.lo < n) || r.lo == 0))
    throw_error(Code::InvalidArgument, "lower_diag_index is out of bound: ", r.lo, ". It must be between ", -m, " and ",
                n);
  if (!((-m < r.hi && r.hi < n) || r.hi == 0))
    throw_error(Code::InvalidArgument, "upper_diag_index is out of bound: ", r.hi, " It must be between ", -m, " and ",
                n);
}

std::vector<EagerPtr> diag_part_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  int rk = x.shape().rank();
  if (rk < 2) throw_error(Code::InvalidArgument, "input must be at least 2-dim, received shape: ", tf_shape(x.shape()));
  int64_t m = x.shape()[rk - 2], n = x.shape()[rk - 1];
  DiagRange r = diag_range(*in[1], ctx.attrs);
  check_diag_bounds(m, n, r);
  int64_t width = std::max<int64_t>(max_diag_len(m, n, r), 0);
  std::vector<int64_t> batch(x.shape().dims().begin(), x.shape().dims().end() - 2);
  auto out = make_tensor(x.dtype(), Shape(packed_dims(batch, r, width)));
  int64_t count = 1;
  for (int64_t b : batch) count *= b;
  int64_t per = r.count() * width;
  size_t es = dtype_size(x.dtype());
  fill_with(*out, *cast_tensor(in[2], x.dtype()));
  char* o = static_cast<char*>(out->raw());
  const char* src = static_cast<const char*>(x.raw());
  for (int64_t b = 0; b < count; ++b)
    for_each_diag_element(m, n, width, r, [&](int64_t slot, int64_t row, int64_t col) {
      std::memcpy(o + (b * per + slot) * es, src + ((b * m + row) * n + col) * es, es);
    });
  return {out};
}

std::vector<EagerPtr> diag_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor& v = *in[0];
  int rk = v.shape().rank();
  DiagRange r = diag_range(*in[1], ctx.attrs);
  int need = r.single() ? 1 : 2;
  if (rk < need)
    throw_error(Code::InvalidArgument, "diagonal must be at least ", need,
                "-dim, received shape: ", tf_shape(v.shape()));
  int64_t width = v.shape()[rk - 1];
  if (!r.single() && v.shape()[rk - 2] != r.count())
    throw_error(Code::InvalidArgument,
                "The number of diagonals provided in the input does not match the lower_diag_index and "
                "upper_diag_index range.");
  int64_t rows = in[2]->scalar_as_int(0), cols = in[3]->scalar_as_int(0);
  int64_t min_rows = width - std::min<int64_t>(r.hi, 0), min_cols = width + std::max<int64_t>(r.lo, 0);
  if (rows != -1 && rows < min_rows) throw_error(Code::InvalidArgument, "The number of rows is too small.");
  if (cols != -1 && cols < min_cols) throw_error(Code::InvalidArgument, "The number of columns is too small.");
  if (rows == -1 && cols == -1) {
    rows = cols = std::max(min_rows, min_cols);  // square, as TF assumes
  } else if (rows == -1) {
    rows = min_rows;
  } else if (cols == -1) {
    cols = min_cols;
  }
  if (rows != min_rows && cols != min_cols)
    throw_error(Code::InvalidArgument,
                "The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal.");
  std::vector<int64_t> d(v.shape().dims().begin(), v.shape().dims().end() - need);
  int64_t count = 1;
  for (int64_t b : d) count *= b;
  d.push_back(rows);
  d.push_back(cols);
  auto out = make_tensor(v.dtype(), Shape(d));
  // Padding: the padding value everywhere, then the diagonals on top.
  fill_with(*out, *cast_tensor(in[4], v.dtype()));
  int64_t per = r.count() * width;
  size_t es = dtype_size(v.dtype());
  char* o = static_cast<char*>(out->raw());
  const char* src = static_cast<const char*>(v.raw());
  for (int64_t b = 0; b < count; ++b)
    for_each_diag_element(rows, cols, width, r, [&](int64_t slot, int64_t row, int64_t col) {
      std::memcpy(o + ((b * rows + row) * cols + col) * es, src + (b * per + slot) * es, es);
    });
  return {out};
}

std::vector<EagerPtr> set_diag_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor &x = *in[0], &v = *in[1];
  int rk = x.shape().rank();
  if (rk < 2) throw_error(Code::InvalidArgument, "input must be at least 2-dim, received shape: ", tf_shape(x.shape()));
  if (x.dtype() != v.dtype()) throw_error(Code::InvalidArgument, "input and diagonal must have the same dtype");
  DiagRange r = diag_range(*in[2], ctx.attrs);
  int64_t m = x.shape()[rk - 2], n = x.shape()[rk - 1];
  check_diag_bounds(m, n, r);
  int64_t width = std::max<int64_t>(max_diag_len(m, n, r), 0);
  std::vector<int64_t> batch(x.shape().dims().begin(), x.shape().dims().end() - 2);
  std::vector<int64_t> want = packed_dims(batch, r, width);
  if (v.shape().dims() != want)
    throw_error(Code::InvalidArgument,
                "Either first dimensions of diagonal don't match input.shape[:-2], or "
                "diagonal.shape[:-1] is not equal to the longests diagonal in range "
                "[lower_diag_index:upper_diag_index].\nInput shape: ",
                tf_shape(x.shape()), "\nDiagonal shape: ", tf_shape(v.shape()),
                "\nExpected diagonal shape: ", tf_shape(Shape(want)));
  auto out = make_tensor(x.dtype(), x.shape());
  size_t es = dtype_size(x.dtype());
  std::memcpy(out->raw(), x.raw(), static_cast<size_t>(x.num_elements()) * es);
  char* dst = static_cast<char*>(out->raw());
  const char* src = static_cast<const char*>(v.raw());
  int64_t count = 1;
  for (int64_t b : batch) count *= b;
  int64_t per = r.count() * width;
  for (int64_t b = 0; b < count; ++b)
    for_each_diag_element(m, n, width, r, [&](int64_t slot, int64_t row, int64_t col) {
      std::memcpy(dst + ((b * m + row) * n + col) * es, src + (b * per + slot) * es, es);
    });
  return {out};
}

// The range of a constant k input, when known at graph time.
bool const_range(const InferContext& c, int input, DiagRange* r) {
  auto k = c.value(input);
  if (!k || k->num_elements() < 1 || k->num_elements() > 2) return false;
  r->lo = k->scalar_as_int(0);
  r->hi = k->num_elements() == 2 ? k->scalar_as_int(1) : r->lo;
  return r->lo <= r->hi;
}

std::vector<TensorSpec> diag_part_infer(const InferContext& c) {
  const Shape& s = c.inputs[0].shape;
  if (!s.has_rank()) return one(c.inputs[0].dtype, s);
  if (s.rank() < 2)
    throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", s.rank(),
                suffix("MatrixDiagPartV3", c));
  DiagRange r;
  if (!const_range(c, 1, &r)) return one(c.inputs[0].dtype, Shape::unknown_rank());
  int64_t width = Shape::kUnknown;
  if (dim(s, 2) >= 0 && dim(s, 1) >= 0) width = std::max<int64_t>(max_diag_len(dim(s, 2), dim(s, 1), r), 0);
  std::vector<int64_t> batch(s.dims().begin(), s.dims().end() - 2);
  return one(c.inputs[0].dtype, Shape(packed_dims(batch, r, width)));
}

std::vector<TensorSpec> diag_infer(const InferContext& c) {
  const Shape& s = c.inputs[0].shape;
  if (!s.has_rank()) return one(c.inputs[0].dtype, s);
  if (s.rank() < 1)
    throw_error(Code::ValueError, "Shape must be at least rank 1 but is rank 0", suffix("MatrixDiagV3", c));
  DiagRange r;
  if (!const_range(c, 1, &r)) return one(c.inputs[0].dtype, Shape::unknown_rank());
  int need = r.single() ? 1 : 2;
  if (s.rank() < need)
    throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", s.rank(), suffix("MatrixDiagV3", c));
  int64_t rows = Shape::kUnknown, cols = Shape::kUnknown, width = s[s.rank() - 1];
  if (c.value(2) && c.value(3) && width >= 0) {
    rows = c.value(2)->scalar_as_int(0);
    cols = c.value(3)->scalar_as_int(0);
    int64_t min_rows = width - std::min<int64_t>(r.hi, 0), min_cols = width + std::max<int64_t>(r.lo, 0);
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
  }
  std::vector<int64_t> d(s.dims().begin(), s.dims().end() - need);
  d.push_back(rows);
  d.push_back(cols);
  return one(c.inputs[0].dtype, Shape(d));
}

Attrs align_of(const GradContext& g) { return Attrs{{"align", g.attrs.get_or("align", std::string("RIGHT_LEFT"))}}; }

// Gradients: diag_part <-> diag of the same k and align; set_diag passes the rest through.
std::vector<TensorPtr> diag_part_grad(const GradContext& g) {
  if (!g.out_grads[0]) return grad::none(3);
  TensorPtr shp = grad::op1("Shape", g.inputs[0]);
  TensorPtr m = dispatch1("StridedSlice", {shp, grad::int_vector({-2}), grad::int_vector({-1}), grad::int_vector({1})},
                          Attrs{{"shrink_axis_mask", int64_t{1}}});
  TensorPtr n = dispatch1("StridedSlice", {shp, grad::int_vector({-1}), grad::int_vector({0}), grad::int_vector({1})},
                          Attrs{{"shrink_axis_mask", int64_t{1}}, {"end_mask", int64_t{1}}});
  m = grad::cast(m, DType::Int32);
  n = grad::cast(n, DType::Int32);
  return {
      dispatch1("MatrixDiagV3", {g.out_grads[0], g.inputs[1], m, n, grad::scalar_like(g.out_grads[0], 0)}, align_of(g)),
      nullptr, nullptr};
}

std::vector<TensorPtr> diag_grad(const GradContext& g) {
  if (!g.out_grads[0]) return grad::none(5);
  return {
      dispatch1("MatrixDiagPartV3", {g.out_grads[0], g.inputs[1], grad::scalar_like(g.out_grads[0], 0)}, align_of(g)),
      nullptr, nullptr, nullptr, nullptr};
}

std::vector<TensorPtr> set_diag_grad(const GradContext& g) {
  if (!g.out_grads[0]) return grad::none(3);
  const TensorPtr& dy = g.out_grads[0];
  TensorPtr dv = dispatch1("MatrixDiagPartV3", {dy, g.inputs[2], grad::scalar_like(dy, 0)}, align_of(g));
  TensorPtr dx = dispatch1("MatrixSetDiagV3", {dy, zeros_like(dv), g.inputs[2]}, align_of(g));
  return {dx, dv, nullptr};
}

// ---- Cholesky ----

std::vector<EagerPtr> cholesky_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  Batch b = batch_of("Cholesky", x, true);
  int64_t n = b.rows;
  auto out = make_tensor(x.dtype(), x.shape());
  for (int64_t t = 0; t < b.count; ++t) {
    Mat a = load(x, t, n * n), l(static_cast<size_t>(n * n), 0.0);
    for (int64_t j = 0; j < n; ++j) {
      double s = a[j * n + j];  // the lower triangle is read, as TF's kernel
      for (int64_t k = 0; k < j; ++k) s -= l[j * n + k] * l[j * n + k];
      if (!(s > 0.0)) {
        // Not positive definite: TF 2.21 logs a warning and fills the lower triangle with NaN.
        for (int64_t r = 0; r < n; ++r)
          for (int64_t c = 0; c < n; ++c) l[r * n + c] = c <= r ? std::nan("") : 0.0;
        break;
      }
      double d = std::sqrt(s);
      l[j * n + j] = d;
      for (int64_t i = j + 1; i < n; ++i) {
        double v = a[i * n + j];
        for (int64_t k = 0; k < j; ++k) v -= l[i * n + k] * l[j * n + k];
        l[i * n + j] = v / d;
      }
    }
    store(*out, t, l);
  }
  return {out};
}

std::vector<TensorPtr> cholesky_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr};
  const TensorPtr& l = g.outputs[0];
  // TF: l^-H phi(l^H grad) l^-1, symmetrized (phi: the lower triangle, diagonal halved).
  TensorPtr l_inv = dispatch1("MatrixInverse", {l});
  TensorPtr middle = matmul(l, g.out_grads[0], true, false);
  middle = grad::sub(band(middle, -1, 0), grad::scale(band(middle, 0, 0), 0.5));
  TensorPtr ga = matmul(matmul(l_inv, middle, true, false), l_inv);
  ga = grad::add(ga, adjoint(ga));
  return {grad::scale(ga, 0.5)};
}

// ---- MatrixTriangularSolve(matrix, rhs; lower, adjoint) ----

std::vector<EagerPtr> trisolve_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor &a = *in[0], &rhs = *in[1];
  Batch ba = batch_of("MatrixTriangularSolve", a, true);
  if (rhs.dtype() != a.dtype())
    throw_error(Code::InvalidArgument,
                "cannot compute MatrixTriangularSolve as input #1(zero-based) was expected to be a ",
                dtype_name(a.dtype()), " tensor but is a ", dtype_name(rhs.dtype()), " tensor");
  Batch bb = batch_of("MatrixTriangularSolve", rhs, false);
  int64_t n = ba.rows, m = bb.cols;
  bool lower = k.attrs.get_or("lower", true), adj = k.attrs.get_or("adjoint", false);
  if (bb.rows != n)
    throw_error(Code::InvalidArgument, "In[0] mismatch In[1] shape: ", n, " vs. ", bb.rows, ": ", tf_shape(a.shape()),
                " ", tf_shape(rhs.shape()), " ", lower ? 1 : 0, " ", adj ? 1 : 0);
  // Batch dims broadcast (BatchMatrixTriangularSolve's rule).
  Shape outer = broadcast_shapes(Shape(ba.outer), Shape(bb.outer));
  std::vector<int64_t> od = outer.dims();
  auto ia = broadcast_flat_index(Shape(ba.outer), outer), ib = broadcast_flat_index(Shape(bb.outer), outer);
  od.push_back(n);
  od.push_back(m);
  auto out = make_tensor(a.dtype(), Shape(od));
  for (size_t t = 0; t < ia.size(); ++t) {
    Mat am = load(a, ia[t], n * n), x = load(rhs, ib[t], n * m);
    // op(A) is lower when (lower xor adjoint); op(A)[i][j] = adj ? A[j][i] : A[i][j].
    auto at = [&](int64_t i, int64_t j) { return adj ? am[j * n + i] : am[i * n + j]; };
    bool fwd = lower != adj;
    for (int64_t s = 0; s < n; ++s) {
      int64_t i = fwd ? s : n - 1 - s;
      double d = at(i, i);
      for (int64_t c = 0; c < m; ++c) {
        double v = x[i * m + c];
        if (fwd)
          for (int64_t j = 0; j < i; ++j) v -= at(i, j) * x[j * m + c];
        else
          for (int64_t j = i + 1; j < n; ++j) v -= at(i, j) * x[j * m + c];
        x[i * m + c] = v / d;
      }
    }
    store(*out, static_cast<int64_t>(t), x);
  }
  return {out};
}

std::vector<TensorPtr> trisolve_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  bool lower = g.attrs.get_or("lower", true), adj = g.attrs.get_or("adjoint", false);
  const TensorPtr& c = g.outputs[0];
  TensorPtr gb =
      dispatch1("MatrixTriangularSolve", {g.inputs[0], g.out_grads[0]}, Attrs{{"lower", lower}, {"adjoint", !adj}});
  TensorPtr ga = adj ? grad::neg(matmul(c, gb, false, true)) : grad::neg(matmul(gb, c, false, true));
  ga = lower ? band(ga, -1, 0) : band(ga, 0, -1);
  return {ga, gb};
}

// ---- LogMatrixDeterminant -> (sign, log|det|) and Lu -> (lu, p) ----

// LU with partial pivoting in place; perm[i]: the input row now at row i. Returns the sign of
// the permutation; a zero pivot leaves its column uneliminated (det 0), as LAPACK's getrf.
int lu_inplace(Mat& a, int64_t n, std::vector<int64_t>& perm) {
  perm.resize(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  int sign = 1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) p = i;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(perm[k], perm[p]);
      sign = -sign;
    }
    if (a[k * n + k] == 0.0) continue;
    for (int64_t i = k + 1; i < n; ++i) {
      double f = a[i * n + k] /= a[k * n + k];
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return sign;
}

std::vector<EagerPtr> logdet_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  Batch b = batch_of("LogMatrixDeterminant", x, true);
  int64_t n = b.rows;
  auto sign_t = make_tensor(x.dtype(), Shape(b.outer)), log_t = make_tensor(x.dtype(), Shape(b.outer));
  Mat signs(static_cast<size_t>(b.count)), logs(static_cast<size_t>(b.count));
  for (int64_t t = 0; t < b.count; ++t) {
    Mat a = load(x, t, n * n);
    std::vector<int64_t> perm;
    double sign = lu_inplace(a, n, perm), logabs = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      double d = a[i * n + i];
      if (d < 0) sign = -sign;
      logabs += std::log(std::abs(d));
    }
    if (std::isinf(logabs) && logabs < 0) sign = 0.0;
    signs[t] = sign;
    logs[t] = logabs;
  }
  store(*sign_t, 0, signs);
  store(*log_t, 0, logs);
  return {sign_t, log_t};
}

std::vector<TensorPtr> logdet_grad(const GradContext& g) {
  if (!g.out_grads[1]) return {nullptr};
  TensorPtr inv_adj = dispatch1("MatrixInverse", {g.inputs[0]}, Attrs{{"adjoint", true}});
  return {grad::mul(expand(expand(g.out_grads[1], -1), -1), inv_adj)};
}

std::vector<EagerPtr> lu_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  Batch b = batch_of("Lu", x, true);
  int64_t n = b.rows;
  DType idx = k.attrs.get_or("output_idx_type", DType::Int32);
  auto lu_t = make_tensor(x.dtype(), x.shape());
  auto p_t = make_tensor(idx, with_tail(b.outer, {n}));
  for (int64_t t = 0; t < b.count; ++t) {
    Mat a = load(x, t, n * n);
    std::vector<int64_t> perm;
    lu_inplace(a, n, perm);
    store(*lu_t, t, a);
    for (int64_t i = 0; i < n; ++i) {
      if (idx == DType::Int32)
        p_t->data<int32_t>()[t * n + i] = static_cast<int32_t>(perm[i]);
      else
        p_t->data<int64_t>()[t * n + i] = perm[i];
    }
  }
  return {lu_t, p_t};
}

}  // namespace

void register_linalg_decomp_ops(OpRegistry& r) {
  auto same = [](const std::string& op, bool square) {
    return [op, square](const InferContext& c) {
      check_rank2_graph(op, c, c.inputs[0].shape, square);
      return std::vector<TensorSpec>{c.inputs[0]};
    };
  };
  r.add(OpDef{
      "MatrixBandPart", "MatrixBandPart", 3, [](const InferContext& c) { return std::vector<TensorSpec>{c.inputs[0]}; },
      band_kernel,
      [](const GradContext& g) {
        if (!g.out_grads[0]) return grad::none(3);
        return std::vector<TensorPtr>{dispatch1("MatrixBandPart", {g.out_grads[0], g.inputs[1], g.inputs[2]}), nullptr,
                                      nullptr};
      }}.with_output_args({"band"}));
  r.add(OpDef{"MatrixDiagPartV3", "MatrixDiagPartV3", 3, diag_part_infer, diag_part_kernel, diag_part_grad}
            .with_output_args({"diagonal"}));
  r.add(OpDef{"MatrixDiagV3", "MatrixDiagV3", 5, diag_infer, diag_kernel, diag_grad});
  r.add(OpDef{"MatrixSetDiagV3", "MatrixSetDiagV3", 3,
              [](const InferContext& c) { return std::vector<TensorSpec>{c.inputs[0]}; }, set_diag_kernel,
              set_diag_grad});
  r.add(OpDef{"Cholesky", "Cholesky", 1, same("Cholesky", true), cholesky_kernel, cholesky_grad});
  r.add(OpDef{"MatrixTriangularSolve", "MatrixTriangularSolve", 2,
              [](const InferContext& c) {
                check_rank2_graph("MatrixTriangularSolve", c, c.inputs[0].shape, true);
                const Shape &a = c.inputs[0].shape, &b = c.inputs[1].shape;
                if (!a.has_rank() || !b.has_rank()) return std::vector<TensorSpec>{c.inputs[1]};
                Shape oa(std::vector<int64_t>(a.dims().begin(), a.dims().end() - 2));
                Shape ob(std::vector<int64_t>(b.dims().begin(), b.dims().end() - 2));
                int64_t n = dim(a, 1), rows = dim(b, 2);
                if (n >= 0 && rows >= 0 && n != rows)
                  throw_error(Code::ValueError, "Dimensions must be equal, but are ", n, " and ", rows,
                              suffix("MatrixTriangularSolve", c));
                std::vector<int64_t> d = broadcast_partial(oa, ob).dims();
                d.push_back(dim(b, 2));
                d.push_back(dim(b, 1));
                return one(c.inputs[1].dtype, Shape(d));
              },
              trisolve_kernel, trisolve_grad});
  r.add(OpDef{"LogMatrixDeterminant", "LogMatrixDeterminant", 1,
              [](const InferContext& c) {
                check_rank2_graph("LogMatrixDeterminant", c, c.inputs[0].shape, true);
                Shape s = graph_tail(c.inputs[0].shape, {});
                return std::vector<TensorSpec>{{c.inputs[0].dtype, s}, {c.inputs[0].dtype, s}};
              },
              logdet_kernel, logdet_grad}
            .with_output_args({"sign", "log_abs_determinant"}));
  r.add(OpDef{
      "Lu", "Lu", 1,
      [](const InferContext& c) {
        check_rank2_graph("Lu", c, c.inputs[0].shape, true);
        const Shape& s = c.inputs[0].shape;
        Shape p =
            s.has_rank() ? Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 1)) : Shape::unknown_rank();
        return std::vector<TensorSpec>{c.inputs[0], {c.attrs.get_or("output_idx_type", DType::Int32), p}};
      },
      lu_kernel,
      // TF registers no gradient for Lu: differentiating through it is TF's LookupError.
      [](const GradContext&) -> std::vector<TensorPtr> {
        throw_error(Code::LookupError, "gradient registry has no entry for: Lu");
      }}.with_output_args({"lu", "p"}));
}

}  // namespace fn
