// Eig(input; Tout, compute_v) -> e, v: eigenvalues and right eigenvectors of general (nonsymmetric)
// square matrices, float32/float64/complex64/complex128 in, complex64/complex128 out, per matrix in
// complex double: Householder reduction to Hessenberg form, then shifted QR (Wilkinson shifts,
// Givens rotations) to the complex Schur form A = Q T Q^H; eigenvectors by back substitution on
// T, mapped by Q and scaled to unit norm. As in TF, the eigenvalues come in no particular order
// (the Schur form's; a triangular matrix keeps its diagonal's) and eigenvector phases are unspecified.
// The gradient is TF's _EigGrad (distinct eigenvalues), composed of ops; complex products and
// solves are built from real ones.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "ops/families.h"
#include "ops/linalg_util.h"

namespace fn {

namespace {

using namespace linalg;  // NOLINT
using cd = std::complex<double>;
using CMat = std::vector<cd>;  // row-major n x n

constexpr unsigned kEigIn = bit(DType::Float32) | bit(DType::Float64) | bit(DType::Complex64) | bit(DType::Complex128);

CMat load_complex(const EagerTensor& t, int64_t index, int64_t n) {
  CMat m(static_cast<size_t>(n));
  switch (t.dtype()) {
    case DType::Complex64: {
      const auto* p = static_cast<const std::complex<float>*>(t.raw()) + index * n;
      for (int64_t i = 0; i < n; ++i) m[i] = cd(p[i].real(), p[i].imag());
      break;
    }
    case DType::Complex128: {
      const auto* p = static_cast<const cd*>(t.raw()) + index * n;
      for (int64_t i = 0; i < n; ++i) m[i] = p[i];
      break;
    }
    default: {
      Mat r = load(t, index, n);
      for (int64_t i = 0; i < n; ++i) m[i] = r[i];
    }
  }
  return m;
}

void store_complex(EagerTensor& t, int64_t index, const CMat& v) {
  int64_t n = static_cast<int64_t>(v.size());
  if (t.dtype() == DType::Complex64) {
    auto* p = static_cast<std::complex<float>*>(t.raw()) + index * n;
    for (int64_t i = 0; i < n; ++i)
      p[i] = std::complex<float>(static_cast<float>(v[i].real()), static_cast<float>(v[i].imag()));
  } else {
    auto* p = static_cast<cd*>(t.raw()) + index * n;
    for (int64_t i = 0; i < n; ++i) p[i] = v[i];
  }
}

// A <- Q^H A Q upper Hessenberg (Householder), Q accumulated (starts as the identity).
void hessenberg(CMat& a, CMat& q, int64_t n) {
  for (int64_t k = 0; k + 2 < n; ++k) {
    double norm = 0;
    for (int64_t i = k + 1; i < n; ++i) norm += std::norm(a[i * n + k]);
    norm = std::sqrt(norm);
    if (norm == 0) continue;
    cd x0 = a[(k + 1) * n + k];
    cd alpha = -(std::abs(x0) > 0 ? x0 / std::abs(x0) : cd(1)) * norm;
    std::vector<cd> v(static_cast<size_t>(n), cd(0));
    for (int64_t i = k + 1; i < n; ++i) v[i] = a[i * n + k];
    v[k + 1] -= alpha;
    double vn = 0;
    for (int64_t i = k + 1; i < n; ++i) vn += std::norm(v[i]);
    vn = std::sqrt(vn);
    if (vn == 0) continue;
    for (int64_t i = k + 1; i < n; ++i) v[i] /= vn;
    for (int64_t j = 0; j < n; ++j) {  // A <- (I - 2 v v^H) A
      cd d = 0;
      for (int64_t i = k + 1; i < n; ++i) d += std::conj(v[i]) * a[i * n + j];
      for (int64_t i = k + 1; i < n; ++i) a[i * n + j] -= 2.0 * v[i] * d;
    }
    for (CMat* m : {&a, &q}) {  // A <- A (I - 2 v v^H), Q <- Q (I - 2 v v^H)
      for (int64_t r = 0; r < n; ++r) {
        cd d = 0;
        for (int64_t i = k + 1; i < n; ++i) d += (*m)[r * n + i] * v[i];
        for (int64_t i = k + 1; i < n; ++i) (*m)[r * n + i] -= 2.0 * d * std::conj(v[i]);
      }
    }
    for (int64_t i = k + 2; i < n; ++i) a[i * n + k] = 0;
  }
}

// Rotation (c real, s) with [c s; -conj(s) c] [x; y] = [r; 0].
void givens(cd x, cd y, double* c, cd* s) {
  double ax = std::abs(x), r = std::hypot(ax, std::abs(y));
  if (r == 0) {
    *c = 1;
    *s = 0;
  } else if (ax == 0) {
    *c = 0;
    *s = std::conj(y) / std::abs(y);
  } else {
    *c = ax / r;
    *s = (x / ax) * std::conj(y) / r;
  }
}

// Rows i, i+1 of T (columns from `from`) and columns i, i+1 of T (rows up to `to`) and of Q.
void rotate(CMat& t, CMat& q, int64_t n, int64_t i, double c, cd s, int64_t from, int64_t to) {
  for (int64_t j = from; j < n; ++j) {
    cd x = t[i * n + j], y = t[(i + 1) * n + j];
    t[i * n + j] = c * x + s * y;
    t[(i + 1) * n + j] = -std::conj(s) * x + c * y;
  }
  for (CMat* m : {&t, &q}) {
    int64_t last = m == &t ? to : n - 1;
    for (int64_t r = 0; r <= last; ++r) {
      cd p = (*m)[r * n + i], w = (*m)[r * n + i + 1];
      (*m)[r * n + i] = p * c + w * std::conj(s);
      (*m)[r * n + i + 1] = -p * s + w * c;
    }
  }
}

// The eigenvalue of [[a, b], [c, d]] closer to d (Wilkinson's shift).
cd wilkinson(cd a, cd b, cd c, cd d) {
  cd tr = a + d, det = a * d - b * c;
  cd disc = std::sqrt(tr * tr / 4.0 - det);
  cd l1 = tr / 2.0 + disc, l2 = tr / 2.0 - disc;
  return std::abs(l1 - d) < std::abs(l2 - d) ? l1 : l2;
}

// Hessenberg t -> upper triangular (complex Schur form), q accumulated. False if QR stalls.
bool schur(CMat& t, CMat& q, int64_t n) {
  const double eps = std::numeric_limits<double>::epsilon();
  int64_t iu = n - 1, iter = 0, total = 0;
  while (iu > 0) {
    int64_t il = iu;
    for (; il > 0; --il) {
      double scale = std::abs(t[(il - 1) * n + il - 1]) + std::abs(t[il * n + il]);
      if (std::abs(t[il * n + il - 1]) <= eps * scale ||
          std::abs(t[il * n + il - 1]) < std::numeric_limits<double>::min()) {
        t[il * n + il - 1] = 0;
        break;
      }
    }
    if (il == iu) {
      --iu;
      iter = 0;
      continue;
    }
    if (++total > 100 * n) return false;
    ++iter;
    cd shift;
    if (iter % 10 == 0) {  // exceptional shift (a stalled iteration)
      shift = std::abs(t[iu * n + iu - 1].real()) + (iu >= 2 ? std::abs(t[(iu - 1) * n + iu - 2].real()) : 0.0);
    } else {
      shift = wilkinson(t[(iu - 1) * n + iu - 1], t[(iu - 1) * n + iu], t[iu * n + iu - 1], t[iu * n + iu]);
    }
    double c;
    cd s;
    givens(t[il * n + il] - shift, t[(il + 1) * n + il], &c, &s);
    rotate(t, q, n, il, c, s, il, std::min(il + 2, iu));
    for (int64_t i = il + 1; i < iu; ++i) {  // chase the bulge down the subdiagonal
      givens(t[i * n + i - 1], t[(i + 1) * n + i - 1], &c, &s);
      rotate(t, q, n, i, c, s, i - 1, std::min(i + 2, iu));
      t[(i + 1) * n + i - 1] = 0;
    }
  }
  return true;
}

// Unit eigenvectors (columns) of A = Q T Q^H from the triangular T.
CMat eigenvectors(const CMat& t, const CMat& q, int64_t n) {
  double norm = 0;
  for (const cd& x : t) norm = std::max(norm, std::abs(x));
  const double tiny = std::numeric_limits<double>::epsilon() * std::max(norm, 1e-300);
  CMat x(static_cast<size_t>(n * n), cd(0));  // eigenvectors of T in columns
  for (int64_t k = 0; k < n; ++k) {
    cd lambda = t[k * n + k];
    x[k * n + k] = 1;
    for (int64_t i = k - 1; i >= 0; --i) {
      cd sum = 0;
      for (int64_t j = i + 1; j <= k; ++j) sum += t[i * n + j] * x[j * n + k];
      cd den = t[i * n + i] - lambda;
      if (std::abs(den) < tiny) den = tiny;
      x[i * n + k] = -sum / den;
    }
  }
  CMat v(static_cast<size_t>(n * n), cd(0));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = 0; k < n; ++k) {
      cd sum = 0;
      for (int64_t j = 0; j <= k; ++j) sum += q[r * n + j] * x[j * n + k];
      v[r * n + k] = sum;
    }
  for (int64_t k = 0; k < n; ++k) {
    double s = 0;
    for (int64_t r = 0; r < n; ++r) s += std::norm(v[r * n + k]);
    s = std::sqrt(s);
    if (s > 0)
      for (int64_t r = 0; r < n; ++r) v[r * n + k] /= s;
  }
  return v;
}

std::vector<EagerPtr> eig_kernel(KernelContext& ctx, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  if (!(kEigIn & bit(x.dtype()))) throw_unsupported_dtype("Eig", x.dtype(), kEigIn);
  int r = x.shape().rank();
  if (r < 2) throw_error(Code::InvalidArgument, "Input tensor 0 must have rank >= 2, got ", r);
  int64_t n = x.shape()[r - 1];
  if (x.shape()[r - 2] != n) throw_error(Code::InvalidArgument, "Input matrix must be square.");
  DType out = ctx.attrs.get_or("Tout", DType::Complex64);
  bool compute_v = ctx.attrs.get_or("compute_v", true);
  std::vector<int64_t> outer(x.shape().dims().begin(), x.shape().dims().end() - 2);
  int64_t count = 1;
  for (int64_t d : outer) count *= d;
  auto e_t = make_tensor(out, with_tail(outer, {n}));
  auto v_t = make_tensor(out, compute_v ? x.shape() : Shape{0});
  for (int64_t b = 0; b < count; ++b) {
    CMat t = load_complex(x, b, n * n), q(static_cast<size_t>(n * n), cd(0));
    for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1;
    bool finite =
        std::all_of(t.begin(), t.end(), [](const cd& z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); });
    if (finite) {
      hessenberg(t, q, n);
      finite = schur(t, q, n);
    }
    if (!finite)
      throw_error(Code::InvalidArgument, "Eigen decomposition was not successful. The input might not be valid.");
    CMat e(static_cast<size_t>(n)), v;
    for (int64_t i = 0; i < n; ++i) e[i] = t[i * n + i];
    if (compute_v) v = eigenvectors(t, q, n);
    store_complex(*e_t, b, e);
    if (compute_v) store_complex(*v_t, b, v);
  }
  return {e_t, v_t};
}

std::vector<TensorSpec> eig_infer(const InferContext& c) {
  check_dtype_graph("Eig", c.inputs[0].dtype, kEigIn, "input");
  const Shape& s = c.inputs[0].shape;
  DType out = c.attrs.get_or("Tout", DType::Complex64);
  bool compute_v = c.attrs.get_or("compute_v", true);
  if (s.has_rank()) {
    if (s.rank() < 2)
      throw_error(Code::ValueError, "Shape must be at least rank 2 but is rank ", s.rank(), suffix("Eig", c));
    int64_t a = s[s.rank() - 2], b = s[s.rank() - 1];
    if (a >= 0 && b >= 0 && a != b)
      throw_error(Code::ValueError, "Dimensions must be equal, but are ", a, " and ", b, suffix("Eig", c));
  }
  Shape e = s.has_rank() ? Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 1)) : s;
  return {{out, e}, {out, compute_v ? s : Shape{0}}};
}

// ---- the gradient: complex products and solves from real ops ----

DType real_dtype(DType d) { return d == DType::Complex64 ? DType::Float32 : DType::Float64; }

TensorPtr re(const TensorPtr& z) { return grad::op1("Real", z); }
TensorPtr im(const TensorPtr& z) { return grad::op1("Imag", z); }
TensorPtr cplx(const TensorPtr& r, const TensorPtr& i) { return grad::op2("Complex", r, i); }
TensorPtr conj(const TensorPtr& z) { return grad::op1("Conj", z); }
TensorPtr cadjoint(const TensorPtr& z) { return conj(adjoint(z)); }
TensorPtr cscalar(DType d, double v) { return grad::cast(grad::constant(make_scalar(real_dtype(d), v)), d); }
TensorPtr czeros_like(const TensorPtr& z) { return grad::mul(z, cscalar(z->dtype(), 0)); }

// a @ b of complex matrices (adj: conjugate transpose first).
TensorPtr cmatmul(const TensorPtr& a, const TensorPtr& b, bool adj_a = false, bool adj_b = false) {
  TensorPtr ar = re(a), ai = im(a), br = re(b), bi = im(b);
  if (adj_a) ai = grad::neg(ai);
  if (adj_b) bi = grad::neg(bi);
  TensorPtr rr = grad::sub(matmul(ar, br, adj_a, adj_b), matmul(ai, bi, adj_a, adj_b));
  TensorPtr ii = grad::add(matmul(ar, bi, adj_a, adj_b), matmul(ai, br, adj_a, adj_b));
  return cplx(rr, ii);
}

TensorPtr concat_axis(const TensorPtr& a, const TensorPtr& b, int axis) {
  return dispatch1("ConcatV2", {a, b, grad::constant(int_scalar(DType::Int32, axis))}, Attrs{{"N", int64_t{2}}});
}

// x[..., begin:end, :] (static n).
TensorPtr rows(const TensorPtr& x, int64_t begin, int64_t end) {
  return dispatch1("StridedSlice",
                   {x, grad::int_vector({0, begin, 0}), grad::int_vector({0, end, 0}), grad::int_vector({1, 1, 1})},
                   Attrs{{"ellipsis_mask", int64_t{1}}, {"end_mask", int64_t{4}}});
}

// a^-1 b for complex a (n x n, n static): the real system [[ar, -ai], [ai, ar]] [xr; xi] = [br; bi].
TensorPtr csolve(const TensorPtr& a, const TensorPtr& b, int64_t n) {
  TensorPtr ar = re(a), ai = im(a);
  TensorPtr big = concat_axis(concat_axis(ar, grad::neg(ai), -1), concat_axis(ai, ar, -1), -2);
  TensorPtr rhs = concat_axis(re(b), im(b), -2);
  TensorPtr sol = dispatch1("MatrixSolve", {big, rhs}, Attrs{{"adjoint", false}});
  return cplx(rows(sol, 0, n), rows(sol, n, 2 * n));
}

// TF's _EigGrad (eq. 4.77 of Boeddeker et al., distinct eigenvalues).
std::vector<TensorPtr> eig_grad(const GradContext& g) {
  const TensorPtr& a = g.inputs[0];
  int64_t n = dim(a->shape(), 1);
  if (n < 0) throw_error(Code::NotImplementedError, "fn differentiates Eig for matrices of static size");
  TensorPtr e = g.outputs[0];
  DType cd_t = e->dtype();
  TensorPtr ge = g.out_grads[0] ? g.out_grads[0] : czeros_like(e);
  TensorPtr grad_a;
  if (g.attrs.get_or("compute_v", true)) {
    TensorPtr v = g.outputs[1];
    TensorPtr gv = g.out_grads[1] ? g.out_grads[1] : czeros_like(v);
    TensorPtr diff = grad::sub(expand(e, -2), expand(e, -1));
    TensorPtr f = grad::div(diff, grad::add(grad::mul(diff, diff), cscalar(cd_t, 1e-20)));  // _SafeReciprocal
    f = dispatch1("MatrixSetDiagV3", {f, czeros_like(e), grad::constant(int_scalar(DType::Int32, 0))},
                  Attrs{{"align", std::string("RIGHT_LEFT")}});
    f = conj(f);
    TensorPtr vgv = cmatmul(v, gv, true, false);
    TensorPtr mid = diag(ge);
    TensorPtr diag_real = diag(grad::cast(re(diag_part(vgv)), cd_t));
    mid = grad::add(mid, grad::mul(f, grad::sub(vgv, cmatmul(cmatmul(v, v, true, false), diag_real))));
    grad_a = csolve(cadjoint(v), cmatmul(mid, v, false, true), n);
  } else {
    auto outs = dispatch("Eig", {a}, Attrs{{"Tout", cd_t}, {"compute_v", true}});
    TensorPtr vt = cadjoint(outs[1]);
    grad_a = csolve(vt, cmatmul(diag(ge), vt), n);
  }
  if (!is_complex(a->dtype())) return {re(grad_a)};
  return {grad_a};
}

}  // namespace

void register_linalg_nonsym_ops(OpRegistry& r) {
  r.add(OpDef{"Eig", "Eig", 1, eig_infer, eig_kernel, eig_grad}.with_output_args({"e", "v"}));
}

}  // namespace fn
