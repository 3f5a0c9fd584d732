#include "ops/fused_contraction.h"

#include <algorithm>

#include "core/error.h"
#include "kernels/direct/matmul.h"
#include "kernels/epilogue.h"
#include "kernels/fused/elementwise.h"
#include "kernels/onednn/matmul.h"
#include "ops/contraction_epilogue.h"
#include "ops/fused_conv2d.h"
#include "ops/matmul.h"
#include "ops/nn_util.h"

namespace fn {

namespace {

// Runs the epilogue program over `out` in place (ops/contraction_epilogue.h).
void run_epilogue(const std::string& op, const Attrs& a, const std::vector<EagerPtr>& in, size_t extra,
                  EagerTensor& out) {
  EpilogueProgram(op, a, in, extra, out.num_elements()).run_whole(out.data<float>());
}

// The unfused op's shape rule on the first two inputs.
InferFn contraction_infer(const char* base) {
  return [base](const InferContext& c) {
    std::vector<TensorSpec> ins(c.inputs.begin(), c.inputs.begin() + 2);
    std::vector<EagerPtr> vals(c.values.begin(), c.values.begin() + 2);
    return OpRegistry::global().get(base).infer(InferContext{ins, c.attrs, vals});
  };
}

std::vector<EagerPtr> fused_matmul_product(KernelContext& k, const std::vector<EagerPtr>& in) {
  // Looked up once: the registry is frozen at start-up and owns its defs (stable addresses); a
  // lookup per call hashed a string on every loop iteration of an RNN.
  static const OpDef& mm = OpRegistry::global().get("MatMul");
  bool ta = k.attrs.get_or("transpose_a", false), tb = k.attrs.get_or("transpose_b", false);
  const Shape &sa = in.at(0)->shape(), &sb = in.at(1)->shape();
  if (sa.rank() != 2 || sb.rank() != 2) throw_error(Code::Internal, "_FusedMatMul takes matrices");
  int64_t m = ta ? sa[1] : sa[0], kk = ta ? sa[0] : sa[1], n = tb ? sb[0] : sb[1];
  Epilogue e = epilogue_of("_FusedMatMul", k.attrs, in, Shape{m, n});
  // The same choice of kernel as MatMul's (ops/matmul.cpp), so the products are the same.
  bool direct = direct::matmul_is_small(1, m, n, kk);
  if (!direct && m * n > 0 && onednn::matmul_applicable(*in[0], *in[1])) {
    auto out = make_tensor(DType::Float32, Shape{m, n});
    onednn::matmul(*in[0], *in[1], ta, tb, *out, &e);
    return {out};
  }
  int64_t kb = tb ? sb[1] : sb[0];
  if (direct && kk == kb && m * n > 0) {  // the residual add inside the kernel, no pass over c
    auto out = make_tensor(DType::Float32, Shape{m, n});
    bool residual_only = e.residual && !e.scale && !e.bias && e.act == Activation::None;
    direct::matmul_f32(in[0]->data<float>(), in[1]->data<float>(), out->data<float>(), m, n, kk, ta, tb,
                       residual_only ? e.residual : nullptr);
    if (!residual_only) apply_epilogue(out->data<float>(), m, n, e);
    return {out};
  }
  auto out = mm.kernel(k, {in[0], in[1]});
  apply_epilogue(out[0]->data<float>(), m, n, e);
  return out;
}

// Attr "tanh": the product's Tanh too (TF's Eigen formula, as the standalone op computes it),
// over the output while it is in cache, without another step, allocation or pass of the plan.
std::vector<EagerPtr> fused_matmul_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  size_t extra = epilogue_inputs("_FusedMatMul", k.attrs, in.size());
  auto out = fused_matmul_product(k, extra ? contraction_inputs(in, extra) : in);
  if (k.attrs.get_or("tanh", false)) fused::tanh(out[0]->data<float>(), out[0]->data<float>(), out[0]->num_elements());
  if (k.attrs.has("epilogue_program")) run_epilogue("_FusedMatMul", k.attrs, in, extra, *out[0]);
  return out;
}

// BatchMatMulV2 (equal ranks, equal batch dims) * a one-element scale (attention's 1/sqrt(d)).
std::vector<EagerPtr> fused_batch_matmul_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  static const OpDef& bmm = OpRegistry::global().get("BatchMatMulV2");  // once, as MatMul's above
  if (in.size() != 3) throw_error(Code::Internal, "_FusedBatchMatMulV2 takes 3 inputs");
  for (const auto& t : in)
    if (t->dtype() != DType::Float32) throw_error(Code::Internal, "_FusedBatchMatMulV2 runs on float32 only");
  if (has_folded_perms(k.attrs)) {  // passes/fold_transpose.cpp
    if (in[2]->num_elements() != 1)
      throw_error(Code::Internal, "_FusedBatchMatMulV2: scale of ", in[2]->num_elements());
    Epilogue e;
    e.scale = in[2]->data<float>();
    return folded_matmul("BatchMatMulV2", k.attrs, {in[0], in[1]}, &e);
  }
  bool ta = k.attrs.get_or("adj_x", false), tb = k.attrs.get_or("adj_y", false);
  const Shape &sa = in[0]->shape(), &sb = in[1]->shape();
  int r = sa.rank();
  if (r < 3 || sb.rank() != r || in[2]->num_elements() != 1)
    throw_error(Code::Internal, "_FusedBatchMatMulV2: shapes ", sa.to_string(), ", ", sb.to_string());
  int64_t batches = 1;
  for (int d = 0; d < r - 2; ++d) {
    if (sa[d] != sb[d]) throw_error(Code::Internal, "_FusedBatchMatMulV2: broadcast batch dims");
    batches *= sa[d];
  }
  int64_t m = ta ? sa[r - 1] : sa[r - 2], kk = ta ? sa[r - 2] : sa[r - 1], n = tb ? sb[r - 2] : sb[r - 1];
  Epilogue e;
  e.scale = in[2]->data<float>();
  // The same choice of kernel as BatchMatMulV2's (ops/matmul.cpp), so the products are the same.
  bool direct = direct::matmul_is_small(batches, m, n, kk);
  if (!direct && batches * m * n > 0 && onednn::matmul_applicable(*in[0], *in[1])) {
    std::vector<int64_t> dims(sa.dims().begin(), sa.dims().end() - 2);
    dims.push_back(m);
    dims.push_back(n);
    auto out = make_tensor(DType::Float32, Shape(dims));
    onednn::matmul(*in[0], *in[1], ta, tb, *out, &e);
    return {out};
  }
  auto out = bmm.kernel(k, {in[0], in[1]});
  apply_epilogue(out[0]->data<float>(), out[0]->num_elements(), 1, e);
  return out;
}

}  // namespace

const OpDef& fused_matmul_op() {
  static const OpDef def{"_FusedMatMul", "fused_matmul", -1, contraction_infer("MatMul"), fused_matmul_kernel, {}};
  return def;
}

const OpDef& fused_batch_matmul_op() {
  static const OpDef def{"_FusedBatchMatMulV2",
                         "fused_batch_matmul",
                         3,
                         contraction_infer("BatchMatMulV2"),
                         fused_batch_matmul_kernel,
                         {}};
  return def;
}

const OpDef& fused_conv2d_op() {
  static const OpDef def{"_FusedConv2D", "fused_conv2d", -1, fused_conv2d_infer, fused_conv2d_kernel, {}};
  return def;
}

}  // namespace fn
