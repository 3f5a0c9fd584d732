// Elementwise epilogues of contractions: a Conv2D, MatMul, _FusedConv2D or _FusedMatMul whose only
// reader is an elementwise computation over its whole output (a _FusedElementwise tree made by
// passes/fuse_elementwise.cpp, or one elementwise op) computes that computation too, right after
// its product, in the same kernel call: `relu(conv2d(x, k))` without a bias, `gelu(x @ w + b)`,
// `conv2d(x, k) * scale + shift`. Where contraction fusion (passes/fuse_contraction.cpp) covers
// TF's exact chains (bias, residual, Relu/Relu6 as oneDNN post-ops), this covers the family:
// any elementwise tail, with or without a bias. The tail runs with the fused elementwise kernel
// (kernels/fused/elementwise.h), which computes what the standalone ops compute bit for bit, so
// fused and unfused graphs agree exactly (NaN stays NaN in a Relu here, as in the standalone op).
// What it saves: the plan step, the output's second buffer, and for a lone op its oneDNN call
// (an OpenMP wake-up and, for Relu, a NaN fix-up pass).
#include "kernels/fused/elementwise.h"
#include "ops/fused_contraction.h"
#include "ops/fused_elementwise.h"
#include "ops/matmul.h"
#include "ops/nn_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool is_contraction(const Node& n) {
  if (!n.def || n.outputs.size() != 1 || n.outputs[0].dtype != DType::Float32) return false;
  if (n.attrs.has("epilogue_program")) return false;  // one epilogue per contraction
  if (n.op == fused_conv2d_op().name || n.op == fused_matmul_op().name) return true;
  if (n.op == kConv2DOp) return n.inputs.size() == 2 && n.attrs.get_or("data_format", std::string("NHWC")) == "NHWC";
  if (n.op == kMatMulOp) return n.inputs.size() == 2 && !n.attrs.get_or("transpose_a", false);
  return false;
}

// (div, mod) of an operand of shape `in` read by an output of shape `out` (see
// fused::Operand), for the broadcasts an epilogue needs: the full shape, one element, or a
// trailing run of the output's dims (a per-channel vector). False otherwise.
bool operand_rule(const Shape& in, const Shape& out, int64_t* div, int64_t* mod) {
  int64_t n = in.num_elements();
  if (n < 0 || !in.has_rank() || in.rank() > out.rank()) return false;
  *div = 1;
  if (n == 1) {
    *mod = 1;
    return true;
  }
  int64_t tail = 1;
  for (int d = 0; d < in.rank(); ++d) {
    int od = out.rank() - in.rank() + d;
    if (in[d] != 1 && in[d] != out[od]) return false;
    if (in[d] != 1) {
      for (int k = d + 1; k < in.rank(); ++k)  // a contiguous run up to the last dim
        if (in[k] != out[out.rank() - in.rank() + k]) return false;
      for (int k = od; k < out.rank(); ++k) tail *= out[k];
      *mod = tail;
      return tail == n;
    }
  }
  *mod = 1;
  return true;
}

// A lone op the fused kernel computes with the standalone op's bits at every size. Excluded:
// ops whose standalone kernel is oneDNN's own formula from a few thousand elements (Sigmoid,
// Exp, Tanh, Sqrt, Rsqrt: eltwise_logistic, eltwise_exp, ...), Maximum/Minimum (oneDNN's NaN rule
// for large tensors), comparisons and casts. Inside
// a _FusedElementwise tree they are already the fused kernel's, so trees need no such rule.
bool exact_alone(int code) {
  switch (code) {
    case fused::kNeg:
    case fused::kAbs:
    case fused::kSquare:
    case fused::kRelu:
    case fused::kAdd:
    case fused::kSub:
    case fused::kMul:
    case fused::kDiv:
    case fused::kSquaredDiff:
    case fused::kPow: return true;  // ref::Pow alone too (no oneDNN kernel)
    default: return false;
  }
}

struct Tail {
  std::vector<int64_t> program, bcast;  // fused::Instr triples; (div, mod) per tail input
  int slot = -1;                        // the tail input that is the contraction's output
};

// A node that only relabels its input's dims (Squeeze, ExpandDims, Reshape of a static float32
// tensor to a static shape): the elements keep their row-major order, so an elementwise tail over
// its output is the same tail over its input's elements (fused::Operand rules index the flat
// output). `tf.nn.conv1d` is ExpandDims -> Conv2D -> Squeeze: its bias and activation sit after
// such a node.
bool relabels(const Graph& g, const Node& n, int src) {
  if (!n.def || !n.def->relabels_dims || n.inputs.empty() || n.inputs[0].node != src || n.inputs[0].index != 0 ||
      n.outputs.size() != 1 || !n.control_inputs.empty())
    return false;
  for (size_t k = 1; k < n.inputs.size(); ++k)
    if (n.inputs[k].node == src) return false;
  const TensorSpec &in = g.node(src).outputs[0], &out = n.outputs[0];
  return out.dtype == DType::Float32 && out.shape.has_rank() && out.shape.num_elements() >= 0 &&
         out.shape.num_elements() == in.shape.num_elements();
}

// The tail computed by node `e` over node `c`'s output (a contraction's, or a relabelling of it),
// or slot -1 when `e` is not one.
Tail tail_of(const Graph& g, int e, int c) {
  Tail t;
  const Node& en = g.node(e);
  const Shape& out = g.node(c).outputs[0].shape;
  if (en.outputs.size() != 1 || en.outputs[0].dtype != DType::Float32 || !(en.outputs[0].shape == out)) return t;
  int slot = -1;
  for (size_t k = 0; k < en.inputs.size(); ++k)
    if (en.inputs[k].node == c) {
      if (slot >= 0) return t;  // read twice: a one-op tail such as Mul(c, c)
      slot = static_cast<int>(k);
    }
  if (slot < 0) return t;
  if (en.op == fused_elementwise_op().name) {
    if (en.attrs.has("reduce") || !(en.attrs.get<Shape>("shape") == out)) return t;
    t.program = en.attrs.get<std::vector<int64_t>>("program");
    t.bcast = en.attrs.get<std::vector<int64_t>>("bcast");
    if (t.bcast.size() != 2 * en.inputs.size() || t.bcast[2 * slot] != 1 || t.bcast[2 * slot + 1] != out.num_elements())
      return t;
    t.slot = slot;
    return t;
  }
  int code = fused_opcode(en);
  if (code < 0 || !exact_alone(code)) return t;
  if (en.inputs.size() != (fused::is_binary(code) ? 2u : 1u)) return t;
  if (en.attrs.get_or("data_format", std::string("NHWC")) != "NHWC") return t;  // BiasAdd's NCHW
  for (const NodeOutput& in : en.inputs) {
    const TensorSpec& s = g.node(in.node).outputs.at(in.index);
    int64_t div, mod;
    if (s.dtype != DType::Float32 || !operand_rule(s.shape, out, &div, &mod)) return t;
    t.bcast.push_back(div);
    t.bcast.push_back(mod);
  }
  t.program = {code, 0, fused::is_binary(code) ? 1 : 0};
  t.slot = slot;
  return t;
}

}  // namespace

std::shared_ptr<Graph> fuse_epilogues_or_null(const Graph& g) {
  const int n = g.num_nodes();
  const Readers readers(g);
  std::vector<int> tail_of_contraction(n, -1), contraction_of(n, -1), relabel_of(n, -1);
  std::vector<Tail> tails(n);
  for (int c = 0; c < n; ++c) {
    const Node& cn = g.node(c);
    if (!readers.live[c] || !is_contraction(cn) || readers.uses[c] != 1 || readers.pinned[c] ||
        !cn.control_inputs.empty() || !cn.outputs[0].shape.has_rank() || cn.outputs[0].shape.num_elements() <= 0)
      continue;
    int e = readers.consumer[c], via = -1;
    if (e >= 0 && relabels(g, g.node(e), c) && readers.uses[e] == 1 && !readers.pinned[e]) {
      via = e;  // contraction -> Squeeze/Reshape -> tail: the tail runs on the contraction's output
      e = readers.consumer[via];
    }
    if (e < 0 || !g.node(e).control_inputs.empty()) continue;
    Tail t = tail_of(g, e, via >= 0 ? via : c);
    if (t.slot < 0) continue;
    tails[e] = std::move(t);
    contraction_of[e] = c;
    relabel_of[e] = via;
    tail_of_contraction[c] = e;
  }
  bool any = false;
  for (int e = 0; e < n && !any; ++e) any = contraction_of[e] >= 0;
  if (!any) return nullptr;
  std::vector<std::vector<NodeOutput>> remapped(n);
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    remapped[i] = copy.inputs;
    const int c = contraction_of[i];
    if (c < 0) return false;
    const Node& cn = g.node(c);
    const Tail& t = tails[i];
    Node f;
    bool mm = cn.op == kMatMulOp || cn.op == fused_matmul_op().name;
    f.op = mm ? fused_matmul_op().name : fused_conv2d_op().name;
    f.def = mm ? &fused_matmul_op() : &fused_conv2d_op();
    f.name = copy.name + "/epilogue";
    f.inputs = remapped[c];
    f.attrs = cn.attrs;
    if (cn.op == kMatMulOp || cn.op == kConv2DOp) {  // a fused node with nothing fused yet
      f.attrs.set("bias", false);
      f.attrs.set("activation", std::string());
    }
    int extra = 0;
    for (size_t k = 0; k < copy.inputs.size(); ++k)
      if (static_cast<int>(k) != t.slot) {
        f.inputs.push_back(copy.inputs[k]);
        ++extra;
      }
    // A pooled convolution's (passes/fuse_conv_pool.cpp) tail reads the pooled result.
    if (cn.attrs.has("pool_op")) f.attrs.set("epilogue_after_pool", true);
    f.attrs.set("epilogue_program", t.program);
    f.attrs.set("epilogue_bcast", t.bcast);
    f.attrs.set("epilogue_slot", static_cast<int64_t>(t.slot));
    f.attrs.set("epilogue_inputs", static_cast<int64_t>(extra));
    const int via = relabel_of[i];
    f.outputs = via >= 0 ? cn.outputs : copy.outputs;
    f.defined_at = cn.defined_at;
    NodeOutput result{r.target().add_node(std::move(f)), 0};
    if (via >= 0) {  // the relabelling again, now of the fused result
      Node v = g.node(via);
      v.inputs = remapped[via];
      v.inputs[0] = result;
      v.name = copy.name + "/relabel";
      v.outputs = copy.outputs;
      result = NodeOutput{r.target().add_node(std::move(v)), 0};
    }
    r.replace_outputs(i, {result});
    return true;
  });
}

std::shared_ptr<Graph> fuse_epilogues(const Graph& g) {
  auto r = fuse_epilogues_or_null(g);
  return r ? r : copy_graph(g);
}

}  // namespace fn
