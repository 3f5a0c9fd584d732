// Orthogonal decompositions on batches of matrices, per matrix in double:
//   Qr(input; full_matrices) -> q, r: Householder reflections with Eigen's (and LAPACK's) signs
//     (the reflected column's new head is -sign(head) * norm), as TF's CPU kernel.
//   SelfAdjointEigV2(input; compute_v) -> e, v: cyclic Jacobi on the lower triangle,
//     eigenvalues ascending, eigenvectors in columns (their signs are unspecified, as in TF).
//   Svd(input; compute_uv, full_matrices) -> s, u, v: one-sided Jacobi, singular values
//     descending, u and v completed to orthonormal bases where needed.
// Gradients are TF's (linalg_grad.py) where TF defines them, composed of ops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ops/families.h"
#include "ops/linalg_util.h"

namespace fn {

namespace {

using namespace linalg;  // NOLINT

// Column j of a row-major rows x cols matrix.
double& at(Mat& a, int64_t cols, int64_t i, int64_t j) { return a[i * cols + j]; }

// Fills columns [from, cols) of q (rows x cols, orthonormal columns before `from`, zero
// columns allowed anywhere) so that all columns are orthonormal: zero columns and new ones
// take the standard basis vectors that stay independent after Gram-Schmidt (twice).
void complete_basis(Mat& q, int64_t rows, int64_t cols, std::vector<bool> filled) {
  int64_t next_e = 0;
  for (int64_t j = 0; j < cols; ++j) {
    if (filled[j]) continue;
    while (next_e < rows) {
      std::vector<double> v(static_cast<size_t>(rows), 0.0);
      v[next_e++] = 1.0;
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t c = 0; c < cols; ++c) {
          if (!filled[c]) continue;
          double d = 0;
          for (int64_t i = 0; i < rows; ++i) d += at(q, cols, i, c) * v[i];
          for (int64_t i = 0; i < rows; ++i) v[i] -= d * at(q, cols, i, c);
        }
      double nrm = 0;
      for (double x : v) nrm += x * x;
      nrm = std::sqrt(nrm);
      if (nrm > 0.5) {
        for (int64_t i = 0; i < rows; ++i) at(q, cols, i, j) = v[i] / nrm;
        filled[j] = true;
        break;
      }
    }
  }
}

// ---- Qr ----

void qr_one(Mat a, int64_t m, int64_t n, bool full, Mat& q, Mat& r) {
  int64_t k = std::min(m, n);
  std::vector<double> tau(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    double c0 = at(a, n, j, j), tail = 0;
    for (int64_t i = j + 1; i < m; ++i) tail += at(a, n, i, j) * at(a, n, i, j);
    if (tail <= std::numeric_limits<double>::min()) {  // nothing to reflect (Eigen's rule)
      tau[j] = 0;
      for (int64_t i = j + 1; i < m; ++i) at(a, n, i, j) = 0;
      continue;
    }
    double beta = std::sqrt(c0 * c0 + tail);
    if (c0 >= 0) beta = -beta;
    for (int64_t i = j + 1; i < m; ++i) at(a, n, i, j) /= (c0 - beta);  // essential part of v
    tau[j] = (beta - c0) / beta;
    at(a, n, j, j) = beta;
    for (int64_t c = j + 1; c < n; ++c) {  // apply I - tau v v^T to the remaining columns
      double d = at(a, n, j, c);
      for (int64_t i = j + 1; i < m; ++i) d += at(a, n, i, j) * at(a, n, i, c);
      d *= tau[j];
      at(a, n, j, c) -= d;
      for (int64_t i = j + 1; i < m; ++i) at(a, n, i, c) -= d * at(a, n, i, j);
    }
  }
  int64_t qc = full ? m : k, rr = full ? m : k;
  q.assign(static_cast<size_t>(m * qc), 0.0);
  for (int64_t i = 0; i < std::min(m, qc); ++i) at(q, qc, i, i) = 1.0;
  for (int64_t j = k - 1; j >= 0; --j)  // Q = H_0 ... H_{k-1} applied to the identity's columns
    for (int64_t c = 0; c < qc; ++c) {
      double d = at(q, qc, j, c);
      for (int64_t i = j + 1; i < m; ++i) d += at(a, n, i, j) * at(q, qc, i, c);
      d *= tau[j];
      at(q, qc, j, c) -= d;
      for (int64_t i = j + 1; i < m; ++i) at(q, qc, i, c) -= d * at(a, n, i, j);
    }
  r.assign(static_cast<size_t>(rr * n), 0.0);
  for (int64_t i = 0; i < std::min(rr, m); ++i)
    for (int64_t j = i; j < n; ++j) at(r, n, i, j) = at(a, n, i, j);
}

std::vector<EagerPtr> qr_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  Batch b = batch_of("Qr", x, false);
  bool full = ctx.attrs.get_or("full_matrices", false);
  int64_t m = b.rows, n = b.cols, k = std::min(m, n), qc = full ? m : k;
  auto q_t = make_tensor(x.dtype(), with_tail(b.outer, {m, qc}));
  auto r_t = make_tensor(x.dtype(), with_tail(b.outer, {qc, n}));
  for (int64_t t = 0; t < b.count; ++t) {
    Mat q, r;
    qr_one(load(x, t, m * n), m, n, full, q, r);
    store(*q_t, t, q);
    store(*r_t, t, r);
  }
  return {q_t, r_t};
}

std::vector<TensorSpec> qr_infer(const InferContext& c) {
  check_rank2_graph("Qr", c, c.inputs[0].shape, false);
  const Shape& s = c.inputs[0].shape;
  bool full = c.attrs.get_or("full_matrices", false);
  int64_t m = dim(s, 2), n = dim(s, 1), qc = full ? m : min_dim(m, n);
  DType d = c.inputs[0].dtype;
  return {{d, graph_tail(s, {m, qc})}, {d, graph_tail(s, {qc, n})}};
}

// X R^-H with R upper triangular: (R^-1 X^H)^H (TF's _TriangularSolve in _QrGrad).
TensorPtr right_solve_upper(const TensorPtr& x, const TensorPtr& r) {
  return adjoint(dispatch1("MatrixTriangularSolve", {r, adjoint(x)}, Attrs{{"lower", false}, {"adjoint", false}}));
}

std::vector<TensorPtr> qr_grad(const GradContext& g) {
  const Shape& s = g.inputs[0]->shape();
  bool full = g.attrs.get_or("full_matrices", false);
  int64_t m = dim(s, 2), n = dim(s, 1);
  if (m < 0 || n < 0 || (full && m > n) || m < n)
    throw_error(Code::NotImplementedError,
                "QrGrad is implemented for matrices with static shapes and "
                "num_rows >= num_cols (and full_matrices=False when num_rows > num_cols); got shape ",
                tf_shape(s));
  auto d = densify(g.out_grads, g.outputs);
  const TensorPtr &q = g.outputs[0], &r = g.outputs[1], &dq = d[0], &dr = d[1];
  // TF's _QrGradSquareAndDeepMatrices.
  TensorPtr qdq = matmul(q, dq, true, false);
  TensorPtr qdq_ = grad::sub(qdq, adjoint(qdq));
  TensorPtr rdr = matmul(r, dr, false, true);
  TensorPtr rdr_ = grad::sub(rdr, adjoint(rdr));
  TensorPtr tril = band(grad::add(qdq_, rdr_), -1, 0);
  TensorPtr grad_a = matmul(q, grad::add(dr, right_solve_upper(tril, r)));
  TensorPtr grad_b = right_solve_upper(grad::sub(dq, matmul(q, qdq)), r);
  return {grad::add(grad_a, grad_b)};
}

// ---- SelfAdjointEigV2 ----

// Eigenvalues (ascending) and eigenvectors (columns of v) of the symmetric matrix whose lower
// triangle is `a`'s.
void eigh_one(const Mat& in, int64_t n, Mat& e, Mat& v) {
  Mat a(in);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) at(a, n, i, j) = at(a, n, j, i);
  v.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) at(v, n, i, i) = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) (i == j ? total : off) += at(a, n, i, j) * at(a, n, i, j);
    if (off <= 1e-30 * (total + off) || off == 0) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double apq = at(a, n, p, q);
        if (apq == 0) continue;
        double theta = (at(a, n, q, q) - at(a, n, p, p)) / (2 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // A <- A J (columns p, q)
          double akp = at(a, n, k, p), akq = at(a, n, k, q);
          at(a, n, k, p) = c * akp - s * akq;
          at(a, n, k, q) = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // A <- J^T A (rows p, q)
          double apk = at(a, n, p, k), aqk = at(a, n, q, k);
          at(a, n, p, k) = c * apk - s * aqk;
          at(a, n, q, k) = s * apk + c * aqk;
        }
        for (int64_t k = 0; k < n; ++k) {
          double vkp = at(v, n, k, p), vkq = at(v, n, k, q);
          at(v, n, k, p) = c * vkp - s * vkq;
          at(v, n, k, q) = s * vkp + c * vkq;
        }
      }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return at(a, n, x, x) < at(a, n, y, y); });
  e.resize(static_cast<size_t>(n));
  Mat vs(static_cast<size_t>(n * n));
  for (int64_t j = 0; j < n; ++j) {
    e[j] = at(a, n, order[j], order[j]);
    for (int64_t i = 0; i < n; ++i) at(vs, n, i, j) = at(v, n, i, order[j]);
  }
  v.swap(vs);
}

std::vector<EagerPtr> eigh_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  Batch b = batch_of("SelfAdjointEigV2", x, true);
  bool compute_v = ctx.attrs.get_or("compute_v", true);
  int64_t n = b.rows;
  auto e_t = make_tensor(x.dtype(), with_tail(b.outer, {n}));
  auto v_t = make_tensor(x.dtype(), compute_v ? x.shape() : Shape{0});
  for (int64_t t = 0; t < b.count; ++t) {
    Mat e, v;
    eigh_one(load(x, t, n * n), n, e, v);
    for (double val : e)
      if (std::isnan(val))
        throw_error(Code::InvalidArgument,
                    "Self-adjoint eigen decomposition was not successful. The input might not be valid.");
    store(*e_t, t, e);
    if (compute_v) store(*v_t, t, v);
  }
  return {e_t, v_t};
}

std::vector<TensorSpec> eigh_infer(const InferContext& c) {
  check_rank2_graph("SelfAdjointEigV2", c, c.inputs[0].shape, true);
  const Shape& s = c.inputs[0].shape;
  bool compute_v = c.attrs.get_or("compute_v", true);
  DType d = c.inputs[0].dtype;
  Shape e = s.has_rank() ? Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 1)) : s;
  return {{d, e}, {d, compute_v ? s : Shape{0}}};
}

std::vector<TensorPtr> eigh_grad(const GradContext& g) {
  if (!g.attrs.get_or("compute_v", true))
    throw_error(Code::NotImplementedError, "fn differentiates SelfAdjointEigV2 with compute_v=True only");
  auto d = densify(g.out_grads, g.outputs);
  const TensorPtr &e = g.outputs[0], &v = g.outputs[1];
  // TF: V (diag(de) + F o (V^H dV)) V^H, F_ij = 1 / (e_j - e_i) off the diagonal.
  TensorPtr f = safe_reciprocal(grad::sub(expand(e, -2), expand(e, -1)));
  TensorPtr inner = grad::add(diag(d[0]), grad::mul(f, matmul(v, d[1], true, false)));
  TensorPtr ga = matmul(v, matmul(inner, v, false, true));
  // Symmetrize, keep the lower triangle (the part the op reads), halve the diagonal.
  ga = grad::add(ga, adjoint(ga));
  return {grad::sub(band(ga, -1, 0), grad::scale(band(ga, 0, 0), 0.5))};
}

// ---- Svd ----

// One-sided Jacobi on a (m x n, m >= n): a = u diag(s) v^T with u m x n, v n x n.
void svd_tall(Mat a, int64_t m, int64_t n, Mat& s, Mat& u, Mat& v) {
  v.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) at(v, n, i, i) = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += at(a, n, i, p) * at(a, n, i, p);
          beta += at(a, n, i, q) * at(a, n, i, q);
          gamma += at(a, n, i, p) * at(a, n, i, q);
        }
        if (std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta) || gamma == 0) continue;
        rotated = true;
        double zeta = (beta - alpha) / (2 * gamma);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        for (int64_t i = 0; i < m; ++i) {
          double x = at(a, n, i, p), y = at(a, n, i, q);
          at(a, n, i, p) = c * x - sn * y;
          at(a, n, i, q) = sn * x + c * y;
        }
        for (int64_t i = 0; i < n; ++i) {
          double x = at(v, n, i, p), y = at(v, n, i, q);
          at(v, n, i, p) = c * x - sn * y;
          at(v, n, i, q) = sn * x + c * y;
        }
      }
    if (!rotated) break;
  }
  std::vector<double> norms(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < m; ++i) sum += at(a, n, i, j) * at(a, n, i, j);
    norms[j] = std::sqrt(sum);
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  s.resize(static_cast<size_t>(n));
  u.assign(static_cast<size_t>(m * n), 0.0);
  Mat vs(static_cast<size_t>(n * n));
  std::vector<bool> filled(static_cast<size_t>(n), false);
  double tol = (norms.empty() ? 0 : norms[order[0]]) * 1e-14;
  for (int64_t j = 0; j < n; ++j) {
    int64_t o = order[j];
    s[j] = norms[o];
    for (int64_t i = 0; i < n; ++i) at(vs, n, i, j) = at(v, n, i, o);
    if (norms[o] > tol && norms[o] > 0) {
      for (int64_t i = 0; i < m; ++i) at(u, n, i, j) = at(a, n, i, o) / norms[o];
      filled[j] = true;
    }
  }
  v.swap(vs);
  complete_basis(u, m, n, filled);
}

// Columns [0, have) of an r x have matrix copied into an r x want one, the rest completed.
Mat widen(const Mat& q, int64_t rows, int64_t have, int64_t want) {
  Mat w(static_cast<size_t>(rows * want), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < have; ++j) w[i * want + j] = q[i * have + j];
  std::vector<bool> filled(static_cast<size_t>(want), false);
  for (int64_t j = 0; j < have; ++j) filled[j] = true;
  complete_basis(w, rows, want, filled);
  return w;
}

Mat transpose(const Mat& a, int64_t rows, int64_t cols) {
  Mat t(a.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  return t;
}

std::vector<EagerPtr> svd_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  Batch b = batch_of("Svd", x, false);
  bool compute_uv = ctx.attrs.get_or("compute_uv", true), full = ctx.attrs.get_or("full_matrices", false);
  int64_t m = b.rows, n = b.cols, p = std::min(m, n);
  int64_t uc = full ? m : p, vc = full ? n : p;
  auto s_t = make_tensor(x.dtype(), with_tail(b.outer, {p}));
  auto u_t = make_tensor(x.dtype(), compute_uv ? with_tail(b.outer, {m, uc}) : Shape{0});
  auto v_t = make_tensor(x.dtype(), compute_uv ? with_tail(b.outer, {n, vc}) : Shape{0});
  for (int64_t t = 0; t < b.count; ++t) {
    Mat a = load(x, t, m * n), s, u, v;
    bool tall = m >= n;
    if (tall)
      svd_tall(a, m, n, s, u, v);  // u m x p, v n x p
    else
      svd_tall(transpose(a, m, n), n, m, s, v, u);
    store(*s_t, t, s);
    if (!compute_uv) continue;
    store(*u_t, t, uc == p ? u : widen(u, m, p, uc));
    store(*v_t, t, vc == p ? v : widen(v, n, p, vc));
  }
  return {s_t, u_t, v_t};
}

std::vector<TensorSpec> svd_infer(const InferContext& c) {
  check_rank2_graph("Svd", c, c.inputs[0].shape, false);
  const Shape& s = c.inputs[0].shape;
  bool compute_uv = c.attrs.get_or("compute_uv", true), full = c.attrs.get_or("full_matrices", false);
  int64_t m = dim(s, 2), n = dim(s, 1), p = min_dim(m, n);
  DType d = c.inputs[0].dtype;
  if (!compute_uv) return {{d, graph_tail(s, {p})}, {d, Shape{0}}, {d, Shape{0}}};
  return {{d, graph_tail(s, {p})}, {d, graph_tail(s, {m, full ? m : p})}, {d, graph_tail(s, {n, full ? n : p})}};
}

// TF's _SvdGrad for compute_uv with thin factors (or square full ones); the singular values'
// gradient alone (compute_uv=False) is u diag(ds) v^H from a fresh decomposition.
std::vector<TensorPtr> svd_grad(const GradContext& g) {
  bool compute_uv = g.attrs.get_or("compute_uv", true), full = g.attrs.get_or("full_matrices", false);
  const Shape& sh = g.inputs[0]->shape();
  int64_t m = dim(sh, 2), n = dim(sh, 1);
  if (!compute_uv) {
    if (!g.out_grads[0]) return {nullptr};
    auto outs = dispatch("Svd", {g.inputs[0]}, Attrs{{"compute_uv", true}, {"full_matrices", false}});
    return {matmul(outs[1], matmul(diag(g.out_grads[0]), outs[2], false, true))};
  }
  if (m < 0 || n < 0 || (full && m != n))
    throw_error(Code::NotImplementedError,
                "fn's SvdGrad needs static shapes and full_matrices=False unless the "
                "matrix is square; got shape ",
                tf_shape(sh));
  auto d = densify(g.out_grads, g.outputs);
  TensorPtr s = g.outputs[0], u = g.outputs[1], v = g.outputs[2], gs = d[0], gu = d[1], gv = d[2];
  bool use_adjoint = m > n;
  if (use_adjoint) {
    std::swap(m, n);
    std::swap(u, v);
    std::swap(gu, gv);
  }
  TensorPtr s_mat = diag(s);
  TensorPtr s2 = grad::mul(s, s);
  TensorPtr f = safe_reciprocal(grad::sub(expand(s2, -2), expand(s2, -1)));
  TensorPtr u_gu = matmul(u, gu, true, false), v_gv = matmul(v, gv, true, false);
  TensorPtr f_u = grad::mul(f, u_gu), f_v = grad::mul(f, v_gv);
  TensorPtr term1_nouv = grad::add(
      diag(gs), grad::add(matmul(grad::add(f_u, adjoint(f_u)), s_mat), matmul(s_mat, grad::add(f_v, adjoint(f_v)))));
  TensorPtr ga = matmul(u, matmul(term1_nouv, v, false, true));
  if (m != n) {
    TensorPtr gv1t = adjoint(gv);
    TensorPtr term2_nous = grad::sub(gv1t, matmul(matmul(gv1t, v), v, false, true));
    TensorPtr u_s_inv = matmul(u, diag(safe_reciprocal(s)));
    ga = grad::add(ga, matmul(u_s_inv, term2_nous));
  }
  return {use_adjoint ? adjoint(ga) : ga};
}

}  // namespace

void register_linalg_eig_ops(OpRegistry& r) {
  r.add(OpDef{"Qr", "Qr", 1, qr_infer, qr_kernel, qr_grad}.with_output_args({"q", "r"}));
  r.add(OpDef{"SelfAdjointEigV2", "SelfAdjointEigV2", 1, eigh_infer, eigh_kernel, eigh_grad}.with_output_args(
      {"e", "v"}));
  r.add(OpDef{"Svd", "Svd", 1, svd_infer, svd_kernel, svd_grad}.with_output_args({"s", "u", "v"}));
}

}  // namespace fn
