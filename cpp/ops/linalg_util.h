// Helpers of the linalg op files: batches of matrices loaded as doubles, pieces of TF's shape rules
// and gradient builders (matmul, adjoint, band part, diag) made of ops.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "ops/elementwise_impl.h"
#include "ops/grad_util.h"
#include "ops/helpers.h"
#include "ops/shape_util.h"

namespace fn {
namespace linalg {

inline constexpr unsigned kTypes = bit(DType::Float32) | bit(DType::Float64);
using Mat = std::vector<double>;  // row-major

// TF's op definitions: the dtypes a linalg op accepts (in its OpDef's order) and those fn has a
// CPU kernel for. Accepted without a kernel (float16 for most, complex): NotFound eagerly, the
// graph's "No OpKernel was registered" at run time; not accepted: InvalidArgument eagerly,
// TypeError while tracing (TF's op_def_library).
struct OpTypes {
  std::vector<DType> allowed;
  unsigned kernels;
};

inline const OpTypes& op_types(const std::string& op) {
  using D = DType;
  static const OpTypes dfh{{D::Float64, D::Float32, D::Float16, D::Complex64, D::Complex128}, kTypes};
  static const OpTypes hfd{{D::Float16, D::Float32, D::Float64, D::Complex64, D::Complex128}, kTypes};
  static const OpTypes dfh_half{dfh.allowed, kTypes | bit(D::Float16)};  // CPU kernels for half too
  static const OpTypes bdfh{{D::BFloat16, D::Float64, D::Float32, D::Float16, D::Complex64, D::Complex128}, kTypes};
  if (op == "MatrixDeterminant" || op == "LogMatrixDeterminant") return hfd;
  if (op == "MatrixInverse" || op == "Qr") return dfh_half;
  if (op == "MatrixTriangularSolve") return bdfh;
  static const OpTypes dfh_complex{dfh.allowed, kTypes | bit(D::Complex64) | bit(D::Complex128)};
  if (op == "MatrixSolve") return dfh_complex;  // complex systems too (ops/linalg.cpp)
  return dfh;                                   // MatrixSolve, Cholesky, SelfAdjointEigV2, Svd, Lu
}

inline std::string type_names(const std::vector<DType>& ds, bool python_names) {
  std::string s;
  for (DType d : ds) s += (s.empty() ? "" : ", ") + std::string(python_names ? dtype_name(d) : tf_type_string(d));
  return s;
}

// Eager: the dtype check TF makes before picking a kernel, then the kernel lookup.
inline void check_types_eager(const std::string& op, DType d) {
  const OpTypes& t = op_types(op);
  if (std::find(t.allowed.begin(), t.allowed.end(), d) == t.allowed.end())
    throw_error(Code::InvalidArgument, "Value for attr 'T' of ", tf_type_string(d),
                " is not in the list of allowed values: ", type_names(t.allowed, false), "\n\t; NodeDef: {{node ", op,
                "}}");
  if (!(t.kernels & bit(d))) throw_no_kernel(op, d);
}

// Tracing: only the OpDef's list is checked (a missing kernel shows when the graph runs).
inline void check_types_graph(const std::string& op, DType d, const char* param) {
  const OpTypes& t = op_types(op);
  if (std::find(t.allowed.begin(), t.allowed.end(), d) == t.allowed.end())
    throw_error(Code::TypeError, "Value passed to parameter '", param, "' has DataType ", dtype_name(d),
                " not in list of allowed values: ", type_names(t.allowed, true));
}

// ---- batches of matrices ----

struct Batch {
  std::vector<int64_t> outer;  // batch dims
  int64_t rows = 0, cols = 0, count = 0;
};

inline Batch batch_of(const std::string& op, const EagerTensor& x, bool square) {
  check_types_eager(op, x.dtype());
  int r = x.shape().rank();
  if (r < 2) throw_error(Code::InvalidArgument, "Input tensor 0 must have rank >= 2, got ", r);
  Batch b;
  b.outer.assign(x.shape().dims().begin(), x.shape().dims().end() - 2);
  b.rows = x.shape()[r - 2];
  b.cols = x.shape()[r - 1];
  if (square && b.rows != b.cols) throw_error(Code::InvalidArgument, "Input matrix must be square.");
  b.count = 1;
  for (int64_t d : b.outer) b.count *= d;
  return b;
}

inline Shape with_tail(const std::vector<int64_t>& outer, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> d = outer;
  d.insert(d.end(), tail.begin(), tail.end());
  return Shape(d);
}

inline Mat load(const EagerTensor& t, int64_t index, int64_t n) {
  Mat m(static_cast<size_t>(n));
  visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>() + index * n;
    for (int64_t i = 0; i < n; ++i) m[i] = to_double(p[i]);
    return 0;
  });
  return m;
}

inline void store(EagerTensor& t, int64_t index, const Mat& v) {
  visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>() + index * static_cast<int64_t>(v.size());
    for (size_t i = 0; i < v.size(); ++i) p[i] = from_double<T>(v[i]);
    return 0;
  });
}

inline std::string suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

inline void check_rank2_graph(const std::string& op, const InferContext& c, const Shape& s, bool square) {
  check_types_graph(op, c.inputs[0].dtype, "input");
  if (!s.has_rank()) return;
  if (s.rank() < 2)
    throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", s.rank(), suffix(op, c));
  int64_t a = s[s.rank() - 2], b = s[s.rank() - 1];
  if (square && a >= 0 && b >= 0 && a != b)
    throw_error(Code::ValueError, "Dimensions must be equal, but are ", a, " and ", b, suffix(op, c));
}

// Broadcast of two static batch shapes whose dims may be unknown (-1).
inline Shape broadcast_partial(const Shape& a, const Shape& b) {
  int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> d(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) {
    int ia = i - (r - a.rank()), ib = i - (r - b.rank());
    int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;
    if (x >= 0 && y >= 0 && x != y && x != 1 && y != 1)
      throw_error(Code::ValueError, "Incompatible shapes: ", tf_shape(a), " vs. ", tf_shape(b));
    d[i] = x == 1 ? y : (y == 1 ? x : (x >= 0 ? x : y));
  }
  return Shape(d);
}

// Batch dims of `s` with a new tail (unknown rank stays unknown).
inline Shape graph_tail(const Shape& s, std::vector<int64_t> tail) {
  if (!s.has_rank()) return Shape::unknown_rank();
  std::vector<int64_t> d(s.dims().begin(), s.dims().end() - 2);
  d.insert(d.end(), tail.begin(), tail.end());
  return Shape(d);
}

inline int64_t dim(const Shape& s, int from_end) { return s.has_rank() ? s[s.rank() - from_end] : Shape::kUnknown; }
inline int64_t min_dim(int64_t a, int64_t b) { return a < 0 || b < 0 ? Shape::kUnknown : std::min(a, b); }

// Swaps the last two dims (a Transpose with a perm built for x's rank at run time).
inline TensorPtr swap_last_two(const TensorPtr& x) {
  TensorPtr rank = grad::op1("Rank", x);
  TensorPtr one = grad::constant(int_scalar(DType::Int32, 1)), two = grad::constant(int_scalar(DType::Int32, 2));
  TensorPtr zero = grad::constant(int_scalar(DType::Int32, 0));
  TensorPtr head = dispatch1("Range", {zero, grad::sub(rank, two), one});
  TensorPtr tail =
      dispatch1("Pack", {grad::sub(rank, one), grad::sub(rank, two)}, Attrs{{"axis", int64_t{0}}, {"N", int64_t{2}}});
  TensorPtr perm = dispatch1("ConcatV2", {head, tail, zero}, Attrs{{"N", int64_t{2}}});
  return dispatch1("Transpose", {x, perm});
}

inline Attrs mm(bool ax, bool ay) { return Attrs{{"adj_x", ax}, {"adj_y", ay}}; }
inline TensorPtr matmul(const TensorPtr& a, const TensorPtr& b, bool ax = false, bool ay = false) {
  return dispatch1("BatchMatMulV2", {a, b}, mm(ax, ay));
}
inline TensorPtr adjoint(const TensorPtr& x) { return swap_last_two(x); }
inline TensorPtr band(const TensorPtr& x, int64_t lower, int64_t upper) {
  return dispatch1("MatrixBandPart", {x, grad::constant(int_scalar(DType::Int64, lower)),
                                      grad::constant(int_scalar(DType::Int64, upper))});
}
inline TensorPtr diag_part(const TensorPtr& x) {
  return dispatch1("MatrixDiagPartV3", {x, grad::constant(int_scalar(DType::Int32, 0)), grad::scalar_like(x, 0)});
}
// A batch of square diagonal matrices from vectors (MatrixDiagV3 with k = 0).
inline TensorPtr diag(const TensorPtr& v) {
  TensorPtr m1 = grad::constant(int_scalar(DType::Int32, -1));
  return dispatch1("MatrixDiagV3", {v, grad::constant(int_scalar(DType::Int32, 0)), m1, m1, grad::scalar_like(v, 0)});
}
// x * 1 / (x * x + eps): 0 where x is 0 (TF's _SafeReciprocal).
inline TensorPtr safe_reciprocal(const TensorPtr& x) {
  return grad::div(x, grad::add(grad::mul(x, x), grad::scalar_like(x, 1e-20)));
}
inline TensorPtr expand(const TensorPtr& x, int axis) {
  return dispatch1("ExpandDims", {x, grad::constant(int_scalar(DType::Int32, axis))});
}
// x[..., begin:end] (end < 0: to the last column).
inline TensorPtr cols(const TensorPtr& x, int64_t begin, int64_t end) {
  return dispatch1(
      "StridedSlice",
      {x, grad::int_vector({0, begin}), grad::int_vector({0, end < 0 ? 0 : end}), grad::int_vector({1, 1})},
      Attrs{{"ellipsis_mask", int64_t{1}}, {"end_mask", int64_t{end < 0 ? 2 : 0}}});
}
// concat([a, b], axis=-1).
inline TensorPtr concat_last(const TensorPtr& a, const TensorPtr& b) {
  return dispatch1("ConcatV2", {a, b, grad::constant(int_scalar(DType::Int32, -1))}, Attrs{{"N", int64_t{2}}});
}

}  // namespace linalg

// Eig (linalg_nonsym.cpp), registered with the other eigen-decompositions by register_linalg_eig_ops.
void register_linalg_nonsym_ops(OpRegistry& r);

}  // namespace fn
