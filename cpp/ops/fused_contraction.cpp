#include "ops/fused_contraction.h"

#include <algorithm>

#include "core/error.h"
#include "kernels/direct/matmul.h"
#include "kernels/epilogue.h"
#include "kernels/fused/blocks.h"
#include "kernels/onednn/conv.h"
#include "kernels/onednn/matmul.h"
#include "ops/matmul.h"
#include "ops/nn_util.h"

namespace fn {

namespace {

Activation activation_of(const Attrs& a) {
  const std::string& s = a.get_or("activation", std::string());
  if (s.empty()) return Activation::None;
  if (s == "Relu") return Activation::Relu;
  if (s == "Relu6") return Activation::Relu6;
  throw_error(Code::Internal, "unknown fused activation ", s);
}

// The plan was made for these shapes: anything else is a bug, never a wrong read.
Epilogue epilogue_of(const std::string& op, const Attrs& attrs, const std::vector<EagerPtr>& in, const Shape& out) {
  bool bias = attrs.get_or("bias", true);
  size_t res = bias ? 3 : 2;
  if (in.size() < res || in.size() > res + 1) throw_error(Code::Internal, op, ": wrong number of inputs");
  for (const auto& t : in)
    if (t->dtype() != DType::Float32) throw_error(Code::Internal, op, " runs on float32 only");
  int64_t channels = out.rank() > 0 ? out[out.rank() - 1] : 0;
  if (bias && in[2]->num_elements() != channels)
    throw_error(Code::Internal, op, ": bias of shape ", in[2]->shape().to_string(), " for output ", out.to_string());
  if (in.size() > res && !(in[res]->shape() == out))
    throw_error(Code::Internal, op, ": residual of shape ", in[res]->shape().to_string(), " for output ",
                out.to_string());
  Epilogue e;
  e.bias = bias ? in[2]->data<float>() : nullptr;
  e.residual = in.size() > res ? in[res]->data<float>() : nullptr;
  e.act = activation_of(attrs);
  return e;
}

// Inputs after the contraction's own that feed its elementwise epilogue (attrs epilogue_*, made
// by passes/fuse_epilogue.cpp), 0 without one.
size_t epilogue_inputs(const std::string& op, const Attrs& a, size_t num_inputs) {
  if (!a.has("epilogue_program")) return 0;
  int64_t extra = a.get<int64_t>("epilogue_inputs");
  if (extra < 0 || static_cast<size_t>(extra) + 2 > num_inputs) throw_error(Code::Internal, op, ": malformed epilogue");
  return static_cast<size_t>(extra);
}

// The contraction's inputs (without the epilogue's).
std::vector<EagerPtr> contraction_inputs(const std::vector<EagerPtr>& in, size_t extra) {
  return std::vector<EagerPtr>(in.begin(), in.end() - static_cast<std::ptrdiff_t>(extra));
}

// Runs the epilogue program over `out` in place: operand `slot` is `out` itself, the others are
// the last `extra` inputs in order (fused::run reads a tile's elements before writing them).
void run_epilogue(const std::string& op, const Attrs& a, const std::vector<EagerPtr>& in, size_t extra,
                  EagerTensor& out) {
  const auto& prog = a.get<std::vector<int64_t>>("epilogue_program");
  const auto& bcast = a.get<std::vector<int64_t>>("epilogue_bcast");
  const int64_t slot = a.get<int64_t>("epilogue_slot");
  const int64_t n = out.num_elements();
  if (prog.size() % 3 != 0 || bcast.size() != 2 * (extra + 1) || slot < 0 || slot > static_cast<int64_t>(extra) ||
      bcast[2 * slot] != 1 || bcast[2 * slot + 1] != n)
    throw_error(Code::Internal, op, ": malformed epilogue");
  std::vector<fused::Operand> ops(extra + 1);
  size_t next = in.size() - extra;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (static_cast<int64_t>(i) == slot) {
      ops[i] = fused::Operand{out.data<float>(), 1, n};
      continue;
    }
    const EagerPtr& t = in[next++];
    // The plan was made for these shapes: a mismatch is a bug, never a wrong read.
    if (t->dtype() != DType::Float32 || t->num_elements() != bcast[2 * i + 1] || bcast[2 * i] < 1)
      throw_error(Code::Internal, op, ": epilogue input of shape ", t->shape().to_string(), ", not the traced one");
    ops[i] = fused::Operand{t->data<float>(), bcast[2 * i], bcast[2 * i + 1]};
  }
  std::vector<fused::Instr> instrs(prog.size() / 3);
  for (size_t i = 0; i < instrs.size(); ++i)
    instrs[i] = fused::Instr{static_cast<int>(prog[3 * i]), static_cast<int>(prog[3 * i + 1]),
                             static_cast<int>(prog[3 * i + 2])};
  fused::validate(instrs, ops.size());
  // An epilogue over a big output (a conv layer's activations, a gelu over a wide product) runs as
  // blocks on the task pool, not on the calling thread alone while the other cores idle: the
  // contraction has already released its team (kernels/fused/blocks.h: same bits on any count).
  fused::run_blocks(instrs, ops, out.data<float>(), n);
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

std::vector<EagerPtr> fused_conv2d_product(KernelContext& k, const std::vector<EagerPtr>& in) {
  static const OpDef& conv = OpRegistry::global().get("Conv2D");  // once, as MatMul's above
  if (in.size() < 2) throw_error(Code::Internal, "_FusedConv2D takes 3 or 4 inputs");
  const Shape &sx = in[0]->shape(), &sw = in[1]->shape();
  if (sx.rank() != 4 || sw.rank() != 4) throw_error(Code::Internal, "_FusedConv2D takes rank-4 tensors");
  Conv2DGeom g = conv_geom(sx, sw, read_window_attrs("Conv2D", k.attrs, true));
  Shape out_shape{g.n, g.oh, g.ow, g.oc};
  Epilogue e = epilogue_of("_FusedConv2D", k.attrs, in, out_shape);
  // The same choice of kernel as Conv2D's (ops/nn_conv.cpp).
  if (onednn::conv_worthwhile(g) && g.input_size() > 0 && g.output_size() > 0) {
    auto out = make_tensor(DType::Float32, out_shape);
    onednn::conv2d_forward(in[0]->data<float>(), in[1]->data<float>(), out->data<float>(), g, &e);
    return {out};
  }
  auto out = conv.kernel(k, {in[0], in[1]});
  apply_epilogue(out[0]->data<float>(), g.n * g.oh * g.ow, g.oc, e);
  return out;
}

std::vector<EagerPtr> fused_conv2d_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  size_t extra = epilogue_inputs("_FusedConv2D", k.attrs, in.size());
  auto out = fused_conv2d_product(k, extra ? contraction_inputs(in, extra) : in);
  if (k.attrs.has("epilogue_program")) run_epilogue("_FusedConv2D", k.attrs, in, extra, *out[0]);
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
  static const OpDef def{"_FusedConv2D", "fused_conv2d", -1, contraction_infer("Conv2D"), fused_conv2d_kernel, {}};
  return def;
}

}  // namespace fn
