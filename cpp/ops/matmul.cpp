// MatMul (rank 2) and BatchMatMulV2 (rank >= 2, broadcast batch dims).
#include "ops/matmul.h"

#include "core/error.h"
#include "kernels/direct/matmul.h"
#include "kernels/onednn/matmul.h"
#include "kernels/reference/matmul.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/shape_util.h"
#include "trace/context.h"

#include <complex>
#include <utility>

namespace fn {

namespace {

constexpr unsigned kMatMulTypes = kNumberTypes & ~(bit(DType::Int8) | bit(DType::Int16));
// Defined by TF's MatMul/BatchMatMulV2 but without a CPU kernel: NotFound eagerly.
constexpr unsigned kMatMulNoKernel = kUnsignedTypes;

struct MatMulAttrs {
  bool ta, tb;
};
MatMulAttrs read_attrs(const std::string& op, const Attrs& a) {
  if (op == "MatMul") return {a.get_or("transpose_a", false), a.get_or("transpose_b", false)};
  return {a.get_or("adj_x", false), a.get_or("adj_y", false)};
}

Shape matmul_shape(const std::string& op, const Shape& a, const Shape& b, MatMulAttrs t, bool eager) {
  Code bad = eager ? Code::InvalidArgument : Code::ValueError;
  std::string suffix;
  if (!a.has_rank() || !b.has_rank()) return Shape::unknown_rank();
  if (op == "MatMul" && (a.rank() != 2 || b.rank() != 2))
    throw_error(bad, "In[0] and In[1] must be rank 2 for MatMul, got shapes ", a.to_string(), " and ", b.to_string(),
                suffix);
  if (a.rank() < 2 || b.rank() < 2)
    throw_error(bad, "In[0] and In[1] has to be at least 2-dimensional, got shapes ", a.to_string(), " and ",
                b.to_string(), suffix);
  int ra = a.rank(), rb = b.rank();
  int64_t m = t.ta ? a[ra - 1] : a[ra - 2], ka = t.ta ? a[ra - 2] : a[ra - 1];
  int64_t kb = t.tb ? b[rb - 1] : b[rb - 2], n = t.tb ? b[rb - 2] : b[rb - 1];
  if (ka >= 0 && kb >= 0 && ka != kb)
    throw_error(bad, "Matrix size-incompatible: In[0]: ", eager ? tf_shape(a) : a.to_string(),
                ", In[1]: ", eager ? tf_shape(b) : b.to_string(), suffix);
  std::vector<int64_t> batch_a(a.dims().begin(), a.dims().end() - 2), batch_b(b.dims().begin(), b.dims().end() - 2);
  Shape batch = broadcast_shapes(Shape(batch_a), Shape(batch_b));
  std::vector<int64_t> out = batch.dims();
  out.push_back(m);
  out.push_back(n);
  return Shape(out);
}

// Expands `t` to rank r with leading 1s and broadcasts nothing: oneDNN and the loop both take
// equal-rank operands with broadcast batch dims.
EagerPtr with_rank(const EagerPtr& t, int r) {
  if (t->shape().rank() == r) return t;
  std::vector<int64_t> d(r - t->shape().rank(), 1);
  d.insert(d.end(), t->shape().dims().begin(), t->shape().dims().end());
  return reshaped(t, Shape(d));
}

// Batched complex products: MatMul's transpose_a/b transpose, BatchMatMulV2's adj_x/y also
// conjugate (TF's kernels). `sa`/`sb` give each output batch's operand batch.
template <typename C, typename Batches>
void complex_matmul(const EagerTensor& a, const EagerTensor& b, EagerTensor& out, int64_t batches, int64_t m, int64_t n,
                    int64_t k, MatMulAttrs t, bool conj, Batches operand_batches) {
  const C* pa = static_cast<const C*>(a.raw());
  const C* pb = static_cast<const C*>(b.raw());
  C* po = static_cast<C*>(out.raw());
  for (int64_t bi = 0; bi < batches; ++bi) {
    auto [oa, ob] = operand_batches(bi);
    const C* A = pa + oa * m * k;
    const C* B = pb + ob * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        C acc(0, 0);
        for (int64_t l = 0; l < k; ++l) {
          C x = t.ta ? A[l * m + i] : A[i * k + l], y = t.tb ? B[j * k + l] : B[l * n + j];
          if (conj && t.ta) x = std::conj(x);
          if (conj && t.tb) y = std::conj(y);
          acc += x * y;
        }
        po[bi * m * n + i * n + j] = acc;
      }
  }
}

std::vector<EagerPtr> matmul_kernel(const std::string& op, const Attrs& attrs, const std::vector<EagerPtr>& in) {
  if (has_folded_perms(attrs)) return folded_matmul(op, attrs, in, nullptr);
  check_same_dtype_eager(op, in);
  DType dt = in[0]->dtype();
  if (kMatMulNoKernel & bit(dt)) throw_no_kernel(op, dt);
  if (!(kMatMulTypes & bit(dt)) && !is_complex(dt)) throw_unsupported_dtype(op, dt);
  MatMulAttrs t = read_attrs(op, attrs);
  Shape out_shape = matmul_shape(op, in[0]->shape(), in[1]->shape(), t, true);
  auto out = make_tensor(in[0]->dtype(), out_shape);
  int r = out_shape.rank();
  EagerPtr a = with_rank(in[0], r), b = with_rank(in[1], r);
  if (out->num_elements() == 0) return {out};
  int64_t m = out_shape[r - 2], n = out_shape[r - 1];
  int64_t k = t.ta ? a->shape()[r - 2] : a->shape()[r - 1];
  int64_t batches = out->num_elements() / (m * n);
  std::vector<int64_t> bdims(out_shape.dims().begin(), out_shape.dims().end() - 2);
  Shape bshape(bdims);
  auto sa = ref::broadcast_strides(Shape(std::vector<int64_t>(a->shape().dims().begin(), a->shape().dims().end() - 2)),
                                   bshape);
  auto sb = ref::broadcast_strides(Shape(std::vector<int64_t>(b->shape().dims().begin(), b->shape().dims().end() - 2)),
                                   bshape);
  auto so = row_major_strides(bdims);
  // The batch of a and of b (broadcast) that output batch bi reads.
  auto operand_batches = [&](int64_t bi) {
    int64_t oa = 0, ob = 0, rem = bi;
    for (size_t d = 0; d < bdims.size(); ++d) {
      int64_t q = rem / so[d];
      rem %= so[d];
      oa += q * sa[d];
      ob += q * sb[d];
    }
    return std::pair<int64_t, int64_t>(oa, ob);
  };
  if (is_complex(dt)) {  // MatMul runs on one batch; BatchMatMulV2 broadcasts the batch dims
    bool conj = op != "MatMul";
    if (dt == DType::Complex64)
      complex_matmul<std::complex<float>>(*a, *b, *out, batches, m, n, k, t, conj, operand_batches);
    else
      complex_matmul<std::complex<double>>(*a, *b, *out, batches, m, n, k, t, conj, operand_batches);
    return {out};
  }
  // Small float32 problems run on the direct single-threaded kernel (below), not oneDNN.
  bool direct = a->dtype() == DType::Float32 && direct::matmul_is_small(batches, m, n, k);
  if (!direct && onednn::matmul_applicable(*a, *b)) {
    onednn::matmul(*a, *b, t.ta, t.tb, *out);
    return {out};
  }
  visit_pod(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same<T, half_t>::value || std::is_same<T, bfloat16_t>::value ||
                  std::is_same<T, bool>::value) {
      // compute in float, store back
      for (int64_t bi = 0; bi < batches; ++bi) {
        auto [oa, ob] = operand_batches(bi);
        std::vector<float> fa(m * k), fb(k * n), fc(m * n);
        for (int64_t i = 0; i < m * k; ++i) fa[i] = static_cast<float>(to_double(a->data<T>()[oa * m * k + i]));
        for (int64_t i = 0; i < k * n; ++i) fb[i] = static_cast<float>(to_double(b->data<T>()[ob * k * n + i]));
        ref::matmul2d(fa.data(), fb.data(), fc.data(), m, n, k, t.ta, t.tb);
        for (int64_t i = 0; i < m * n; ++i) out->data<T>()[bi * m * n + i] = from_double<T>(fc[i]);
      }
    } else {
      for (int64_t bi = 0; bi < batches; ++bi) {
        auto [oa, ob] = operand_batches(bi);
        if constexpr (std::is_same<T, float>::value)
          direct::matmul_f32(a->data<T>() + oa * m * k, b->data<T>() + ob * k * n, out->data<T>() + bi * m * n, m, n, k,
                             t.ta, t.tb);
        else
          ref::matmul2d(a->data<T>() + oa * m * k, b->data<T>() + ob * k * n, out->data<T>() + bi * m * n, m, n, k,
                        t.ta, t.tb);
      }
    }
    return 0;
  });
  return {out};
}

const std::vector<int64_t>* perm_attr(const Attrs& a, const char* name) {
  const AttrValue* v = a.find(name);
  return v ? std::get_if<std::vector<int64_t>>(v) : nullptr;
}

// transpose(s, perm); the perm was checked by the pass, a mismatch here is a bug.
Shape permuted(const Shape& s, const std::vector<int64_t>* perm) {
  if (!perm) return s;
  if (static_cast<int>(perm->size()) != s.rank()) throw_error(Code::Internal, "folded perm of the wrong rank");
  std::vector<int64_t> d(perm->size());
  for (size_t i = 0; i < d.size(); ++i) d[i] = s[static_cast<int>((*perm)[i])];
  return Shape(d);
}

}  // namespace

bool has_folded_perms(const Attrs& a) { return a.has("perm_a") || a.has("perm_b") || a.has("perm_out"); }

std::vector<EagerPtr> folded_matmul(const std::string& op, const Attrs& attrs, const std::vector<EagerPtr>& in,
                                    const Epilogue* e) {
  if (in.size() < 2) throw_error(Code::Internal, op, ": missing inputs");
  const auto *pa = perm_attr(attrs, "perm_a"), *pb = perm_attr(attrs, "perm_b"), *po = perm_attr(attrs, "perm_out");
  if (e && (e->bias || e->residual || e->act != Activation::None))
    throw_error(Code::Internal, op, ": folded transposes with a bias, residual or activation");
  const std::string base = op == "MatMul" ? op : "BatchMatMulV2";  // _FusedBatchMatMulV2 too
  MatMulAttrs t = read_attrs(base, attrs);
  Shape la = permuted(in[0]->shape(), pa), lb = permuted(in[1]->shape(), pb);
  Shape z = matmul_shape(base, la, lb, t, true);
  int r = z.rank();
  if (po && static_cast<int>(po->size()) != r) throw_error(Code::Internal, "folded perm of the wrong rank");
  if (z.num_elements() > 0 && in[0]->dtype() == in[1]->dtype()) {
    int64_t m = z[r - 2], n = z[r - 1], k = t.ta ? la[la.rank() - 2] : la[la.rank() - 1];
    int64_t batches = z.num_elements() / (m * n);
    // The choice of kernel the unfolded graph makes (matmul_kernel, the fused kernels).
    bool direct = in[0]->dtype() == DType::Float32 && direct::matmul_is_small(batches, m, n, k);
    if (!direct && onednn::matmul_applicable(in[0]->dtype(), la, lb)) {
      onednn::MatMulLayout layout{pa ? *pa : std::vector<int64_t>{}, pb ? *pb : std::vector<int64_t>{},
                                  po ? *po : std::vector<int64_t>{}};
      auto out = make_tensor(in[0]->dtype(), permuted(z, po));
      if (onednn::matmul(*in[0], *in[1], t.ta, t.tb, *out, e, &layout)) return {out};
    }
  }
  // Elsewhere the copies the fold saved, then the plain kernel.
  Attrs plain;
  for (const auto& kv : attrs.items())
    if (kv.first != "perm_a" && kv.first != "perm_b" && kv.first != "perm_out") plain.set(kv.first, kv.second);
  EagerPtr a = pa ? transpose(in[0], *pa) : in[0], b = pb ? transpose(in[1], *pb) : in[1];
  auto out = matmul_kernel(base, plain, {a, b});
  if (e && out[0]->num_elements() > 0) apply_epilogue(out[0]->data<float>(), out[0]->num_elements(), 1, *e);
  if (po) out[0] = transpose(out[0], *po);
  return out;
}

namespace {

OpDef make_matmul(const std::string& op) {
  return OpDef{op,
               "MatMul",
               2,
               [op](const InferContext& c) {
                 check_same_dtype_graph(op, c.inputs);
                 if (!(kMatMulTypes & bit(c.inputs[0].dtype)) && !is_complex(c.inputs[0].dtype))
                   throw_error(Code::TypeError, "Value passed to parameter 'a' has DataType ",
                               dtype_name(c.inputs[0].dtype), " not in list of allowed values");
                 return one(c.inputs[0].dtype,
                            matmul_shape(op, c.inputs[0].shape, c.inputs[1].shape, read_attrs(op, c.attrs), false));
               },
               [op](KernelContext& k, const std::vector<EagerPtr>& in) { return matmul_kernel(op, k.attrs, in); },
               [op](const GradContext& g) {
                 // d/dA = dC @ B^T, d/dB = A^T @ dC (transposes folded into the attrs).
                 const TensorPtr& dc = g.out_grads[0];
                 if (!dc) return std::vector<TensorPtr>{nullptr, nullptr};
                 MatMulAttrs t = read_attrs(op, g.attrs);
                 auto mm = [&](const TensorPtr& x, const TensorPtr& y, bool tx, bool ty) {
                   Attrs a = op == "MatMul" ? Attrs{{"transpose_a", tx}, {"transpose_b", ty}}
                                            : Attrs{{"adj_x", tx}, {"adj_y", ty}};
                   return dispatch1(op, {x, y}, a);
                 };
                 TensorPtr da, db;
                 // TF's _MatMulGrad conjugates complex operands (BatchMatMulV2's adj_x/y already do).
                 bool cj = op == "MatMul" && is_complex(g.inputs[0]->dtype());
                 const TensorPtr A = cj ? dispatch1("Conj", {g.inputs[0]}) : g.inputs[0];
                 const TensorPtr B = cj ? dispatch1("Conj", {g.inputs[1]}) : g.inputs[1];
                 if (!t.ta && !t.tb) {
                   da = mm(dc, B, false, true);
                   db = mm(A, dc, true, false);
                 } else if (!t.ta && t.tb) {
                   da = mm(dc, B, false, false);
                   db = mm(dc, A, true, false);
                 } else if (t.ta && !t.tb) {
                   da = mm(B, dc, false, true);
                   db = mm(A, dc, false, false);
                 } else {
                   da = mm(B, dc, true, true);
                   db = mm(dc, A, true, true);
                 }
                 if (op != "MatMul") {
                   da = unbroadcast(da, g.inputs[0]);
                   db = unbroadcast(db, g.inputs[1]);
                 }
                 return std::vector<TensorPtr>{da, db};
               }};
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
  r.add(make_matmul(kMatMulOp).with_output_args({"product"}));
  r.add(make_matmul(kBatchMatMulV2Op));
}

}  // namespace fn
