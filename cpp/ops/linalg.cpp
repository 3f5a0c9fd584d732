// Dense linear algebra on batches of square matrices: MatrixInverse, MatrixDeterminant,
// MatrixSolve (attr adjoint). LU with partial pivoting in double precision, per matrix.
// Gradients are TF's: matmuls of the output with the output gradient.
#include <cmath>
#include <complex>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "ops/linalg_util.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

std::string suffix(const std::string& op, const InferContext& c) {
  return " for '{{node " + op + "}} = " + op + "[]' with input shapes: " + tf_shapes(c.inputs) + ".";
}

void check_square_graph(const std::string& op, const InferContext& c, const Shape& s) {
  if (!s.has_rank()) return;
  if (s.rank() < 2)
    throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", s.rank(), suffix(op, c));
  int64_t a = s[s.rank() - 2], b = s[s.rank() - 1];
  if (a >= 0 && b >= 0 && a != b)
    throw_error(Code::ValueError, "Dimensions must be equal, but are ", a, " and ", b, suffix(op, c));
}

void check_square_eager(const std::string& op, const EagerTensor& x) {
  linalg::check_types_eager(op, x.dtype());
  int r = x.shape().rank();
  if (r < 2) throw_error(Code::InvalidArgument, "Input tensor 0 must have rank >= 2, got ", r);
  if (x.shape()[r - 1] != x.shape()[r - 2]) throw_error(Code::InvalidArgument, "Input matrix must be square.");
}

// LU decomposition in place (row-major n x n, real or complex); returns false when singular.
// perm_sign: +-1. Pivots on the largest magnitude.
template <typename S>
bool lu(std::vector<S>& a, int64_t n, std::vector<int64_t>& piv, int& sign) {
  piv.resize(n);
  sign = 1;
  for (int64_t i = 0; i < n; ++i) piv[i] = i;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > best) {
        best = std::abs(a[i * n + k]);
        p = i;
      }
    if (best == 0.0) return false;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(piv[k], piv[p]);
      sign = -sign;
    }
    for (int64_t i = k + 1; i < n; ++i) {
      S f = a[i * n + k] /= a[k * n + k];
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return true;
}

// Solves LU x = P b for m right-hand sides (b row-major n x m), in place.
template <typename S>
void lu_solve(const std::vector<S>& a, int64_t n, const std::vector<int64_t>& piv, std::vector<S>& b, int64_t m) {
  std::vector<S> x(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) x[i * m + j] = b[piv[i] * m + j];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < i; ++k)
      for (int64_t j = 0; j < m; ++j) x[i * m + j] -= a[i * n + k] * x[k * m + j];
  for (int64_t i = n - 1; i >= 0; --i) {
    for (int64_t k = i + 1; k < n; ++k)
      for (int64_t j = 0; j < m; ++j) x[i * m + j] -= a[i * n + k] * x[k * m + j];
    for (int64_t j = 0; j < m; ++j) x[i * m + j] /= a[i * n + i];
  }
  b.swap(x);
}

// Matrix `b` of a batch as doubles (transposed when `adj`).
std::vector<double> load(const EagerTensor& t, int64_t b, int64_t rows, int64_t cols, bool adj) {
  std::vector<double> m(static_cast<size_t>(rows * cols));
  visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>() + b * rows * cols;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) m[adj ? j * rows + i : i * cols + j] = to_double(p[i * cols + j]);
    return 0;
  });
  return m;
}

void store(EagerTensor& t, int64_t off, const std::vector<double>& v) {
  visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>() + off;
    for (size_t i = 0; i < v.size(); ++i) p[i] = from_double<T>(v[i]);
    return 0;
  });
}

// ---- MatrixInverse ----

std::vector<TensorSpec> inverse_infer(const InferContext& c) {
  linalg::check_types_graph("MatrixInverse", c.inputs[0].dtype, "input");
  check_square_graph("MatrixInverse", c, c.inputs[0].shape);
  return {c.inputs[0]};
}

std::vector<EagerPtr> inverse_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  check_square_eager("MatrixInverse", x);
  bool adj = k.attrs.get_or("adjoint", false);
  int64_t n = x.shape()[x.shape().rank() - 1], batch = n ? x.num_elements() / (n * n) : 0;
  auto out = make_tensor(x.dtype(), x.shape());
  for (int64_t b = 0; b < batch; ++b) {
    auto a = load(x, b, n, n, adj);
    std::vector<int64_t> piv;
    int sign;
    if (!lu(a, n, piv, sign)) throw_error(Code::InvalidArgument, "Input is not invertible.");
    std::vector<double> id(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) id[i * n + i] = 1.0;
    lu_solve(a, n, piv, id, n);
    store(*out, b * n * n, id);
  }
  return {out};
}

Attrs mm(bool ax, bool ay) { return Attrs{{"adj_x", ax}, {"adj_y", ay}}; }

std::vector<TensorPtr> inverse_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr};
  const TensorPtr& inv = g.outputs[0];
  bool adj = g.attrs.get_or("adjoint", false);
  // TF: -ainv^H . grad . ainv^H (adjoint: -ainv . grad^... with the roles swapped)
  TensorPtr t = dispatch1("BatchMatMulV2", {g.out_grads[0], inv}, mm(false, true));
  TensorPtr r = dispatch1("BatchMatMulV2", {inv, t}, mm(true, false));
  if (adj) {
    t = dispatch1("BatchMatMulV2", {g.out_grads[0], inv}, mm(true, false));
    r = dispatch1("BatchMatMulV2", {inv, t}, mm(false, false));
  }
  return {grad::neg(r)};
}

// ---- MatrixDeterminant ----

std::vector<TensorSpec> det_infer(const InferContext& c) {
  linalg::check_types_graph("MatrixDeterminant", c.inputs[0].dtype, "input");
  const Shape& s = c.inputs[0].shape;
  check_square_graph("MatrixDeterminant", c, s);
  if (!s.has_rank()) return one(c.inputs[0].dtype, s);
  return one(c.inputs[0].dtype, Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2)));
}

std::vector<EagerPtr> det_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  check_square_eager("MatrixDeterminant", x);
  const auto& d = x.shape().dims();
  int64_t n = d.back();
  auto out = make_tensor(x.dtype(), Shape(std::vector<int64_t>(d.begin(), d.end() - 2)));
  int64_t batch = out->num_elements();
  std::vector<double> dets(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    auto a = load(x, b, n, n, false);
    std::vector<int64_t> piv;
    int sign;
    double det = 0.0;
    if (lu(a, n, piv, sign)) {
      det = sign;
      for (int64_t i = 0; i < n; ++i) det *= a[i * n + i];
    }
    dets[b] = det;
  }
  store(*out, 0, dets);
  return {out};
}

std::vector<TensorPtr> det_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr};
  TensorPtr inv_adj = dispatch1("MatrixInverse", {g.inputs[0]}, Attrs{{"adjoint", true}});
  TensorPtr m = grad::mul(g.out_grads[0], g.outputs[0]);
  TensorPtr minus1 = grad::constant(int_scalar(DType::Int32, -1));
  m = dispatch1("ExpandDims", {dispatch1("ExpandDims", {m, minus1}), minus1});
  return {grad::mul(m, inv_adj)};
}

// ---- MatrixSolve ----

std::vector<TensorSpec> solve_infer(const InferContext& c) {
  linalg::check_types_graph("MatrixSolve", c.inputs[0].dtype, "matrix");
  check_same_dtype_graph("MatrixSolve", c.inputs);
  const Shape &a = c.inputs[0].shape, &b = c.inputs[1].shape;
  check_square_graph("MatrixSolve", c, a);
  if (b.has_rank() && b.rank() < 2)
    throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", b.rank(), suffix("MatrixSolve", c));
  if (a.has_rank() && b.has_rank()) {
    if (a.rank() != b.rank())
      throw_error(Code::ValueError, "Shape must be rank ", a.rank(), " but is rank ", b.rank(),
                  suffix("MatrixSolve", c));
    for (int i = 0; i < a.rank() - 2; ++i)  // TF merges the batch shapes: equal where both are known
      if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i])
        throw_error(Code::ValueError, "Dimension ", i, " in both shapes must be equal, but are ", a[i], " and ", b[i],
                    suffix("MatrixSolve", c));
    int64_t x = a[a.rank() - 2], y = b[b.rank() - 2];
    if (x >= 0 && y >= 0 && x != y)
      throw_error(Code::ValueError, "Dimensions must be equal, but are ", x, " and ", y, suffix("MatrixSolve", c));
  }
  return {c.inputs[1]};
}

// Complex systems in complex double; `adj` solves with the conjugate transpose (TF's adjoint).
template <typename C>
void complex_solve(const EagerTensor& a, const EagerTensor& rhs, EagerTensor& out, int64_t batch, int64_t n, int64_t m,
                   bool adj) {
  using Z = std::complex<double>;
  const C* pa = static_cast<const C*>(a.raw());
  const C* pr = static_cast<const C*>(rhs.raw());
  C* po = static_cast<C*>(out.raw());
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Z> A(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * m));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Z v(pa[b * n * n + i * n + j]);
        if (adj)
          A[j * n + i] = std::conj(v);
        else
          A[i * n + j] = v;
      }
    for (int64_t i = 0; i < n * m; ++i) x[i] = Z(pr[b * n * m + i]);
    std::vector<int64_t> piv;
    int sign;
    if (!lu(A, n, piv, sign)) throw_error(Code::InvalidArgument, "Input matrix is not invertible.");
    lu_solve(A, n, piv, x, m);
    for (int64_t i = 0; i < n * m; ++i) po[b * n * m + i] = C(x[i]);
  }
}

std::vector<EagerPtr> solve_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor &a = *in[0], &rhs = *in[1];
  check_square_eager("MatrixSolve", a);
  check_same_dtype_eager("MatrixSolve", in);
  if (a.shape().rank() != rhs.shape().rank())
    throw_error(Code::InvalidArgument, "All input tensors must have the same rank.");
  int r = a.shape().rank();
  for (int i = 0; i < r - 2; ++i)
    if (a.shape()[i] != rhs.shape()[i])
      throw_error(Code::InvalidArgument, "All input tensors must have the same outer dimensions.");
  int64_t n = a.shape()[r - 1], m = rhs.shape()[r - 1];
  if (rhs.shape()[r - 2] != n) throw_error(Code::InvalidArgument, "Input matrix and rhs are incompatible.");
  bool adj = k.attrs.get_or("adjoint", false);
  auto out = make_tensor(rhs.dtype(), rhs.shape());
  int64_t batch = n ? a.num_elements() / (n * n) : 0;
  if (is_complex(a.dtype())) {
    if (a.dtype() == DType::Complex64)
      complex_solve<std::complex<float>>(a, rhs, *out, batch, n, m, adj);
    else
      complex_solve<std::complex<double>>(a, rhs, *out, batch, n, m, adj);
    return {out};
  }
  for (int64_t b = 0; b < batch; ++b) {
    auto lu_a = load(a, b, n, n, adj);
    std::vector<int64_t> piv;
    int sign;
    if (!lu(lu_a, n, piv, sign)) throw_error(Code::InvalidArgument, "Input matrix is not invertible.");
    auto x = load(rhs, b, n, m, false);
    lu_solve(lu_a, n, piv, x, m);
    store(*out, b * n * m, x);
  }
  return {out};
}

std::vector<TensorPtr> solve_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr, nullptr};
  bool adj = g.attrs.get_or("adjoint", false);
  const TensorPtr& c = g.outputs[0];
  TensorPtr gb = dispatch1("MatrixSolve", {g.inputs[0], g.out_grads[0]}, Attrs{{"adjoint", !adj}});
  TensorPtr ga =
      adj ? dispatch1("BatchMatMulV2", {c, gb}, mm(false, true)) : dispatch1("BatchMatMulV2", {gb, c}, mm(false, true));
  return {grad::neg(ga), gb};
}

}  // namespace

void register_linalg_ops(OpRegistry& r) {
  r.add(OpDef{"MatrixInverse", "MatrixInverse", 1, inverse_infer, inverse_kernel, inverse_grad});
  r.add(OpDef{"MatrixDeterminant", "MatrixDeterminant", 1, det_infer, det_kernel, det_grad});
  r.add(OpDef{"MatrixSolve", "MatrixSolve", 2, solve_infer, solve_kernel, solve_grad});
}

}  // namespace fn
