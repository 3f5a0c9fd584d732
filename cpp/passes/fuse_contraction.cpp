// Contraction fusion, as TensorFlow 2.21's grappler remapper does on CPU (oneDNN): MatMul
// (not transpose_a) or Conv2D, then a bias (BiasAdd, or AddV2 with a [1, ..., 1, channels]
// operand, in either order), then for Conv2D an AddV2 of a same-shape residual, then Relu or
// Relu6, becomes one _FusedMatMul / _FusedConv2D node (ops/fused_contraction.h). Each
// intermediate must have one reader and not be a graph output, as TF requires; TF fuses the
// same chains, so fn gives TF's tf.function results: the fused Relu/Relu6 map NaN to 0 there
// (oneDNN's post-op), while the standalone ops keep NaN. float32 only (TF does not fuse
// float64). Beyond TF, a residual add after a MatMul (with or without its bias) is fused
// too (no activation after it), and a BatchMatMulV2 times a scalar (attention's scaling):
// one float add or multiply, the same bits either way; and a Tanh ending a MatMul chain without
// an activation (an RNN step's tanh(x_t + s @ W)), computed by the Tanh kernel's own formula
// over the product, so again the same bits. The replaced nodes
// stay in the graph, unused, and Plan::compile prunes them.
#include <algorithm>
#include "kernels/fused/elementwise.h"
#include "ops/fused_contraction.h"
#include "ops/matmul.h"
#include "ops/nn_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

// AddV2: the binary op whose definition's fused instruction is an add (BiasAdd adds too, but is
// no binary op: its bias runs along data_format's channel dim).
bool is_add(const Node& n) { return n.def && n.def->op_class == OpClass::Binary && fused_opcode(n) == fused::kAdd; }

struct Chain {
  int bias_node = -1, bias_input = -1;  // the bias-adding node and which input is the bias
  int residual_node = -1, residual_input = -1;
  int act_node = -1;
  int tanh_node = -1;
  int root = -1;  // the last node of the chain
};

bool is_f32(const TensorSpec& s) { return s.dtype == DType::Float32; }

bool channels_last(const Node& n) { return n.attrs.get_or("data_format", std::string("NHWC")) == "NHWC"; }

const TensorSpec& spec_of(const Graph& g, const NodeOutput& o) { return g.node(o.node).outputs.at(o.index); }

// Node b adds a bias to contraction c's output (shape `out`): BiasAdd, or AddV2 with a
// [1, ..., 1, channels] operand of at most the output's rank that is not the output's own shape
// (TF's IsBiasSemanticAdd). *input: which of b's inputs is the bias.
bool bias_add(const Graph& g, int b, int c, const Shape& out, int* input) {
  const Node& bn = g.node(b);
  if (bn.inputs.size() != 2 || !is_f32(bn.outputs[0]) || !(bn.outputs[0].shape == out)) return false;
  if (bn.op == kBiasAddOp) {
    if (bn.inputs[0].node != c || !channels_last(bn)) return false;
    *input = 1;
  } else if (is_add(bn)) {
    *input = bn.inputs[0].node == c ? 1 : 0;
    if (bn.inputs[1 - *input].node != c) return false;
  } else {
    return false;
  }
  const Shape& s = spec_of(g, bn.inputs[*input]).shape;
  if (!is_f32(spec_of(g, bn.inputs[*input])) || !s.has_rank() || s.rank() < 1 || s.rank() > out.rank() ||
      s[s.rank() - 1] != out[out.rank() - 1] || s == out || (bn.op == kBiasAddOp && s.rank() != 1))
    return false;
  for (int d = 0; d + 1 < s.rank(); ++d)
    if (s[d] != 1) return false;
  return true;
}

// Node r adds a tensor of the (static) shape `out` to node p's output.
bool residual_add(const Graph& g, int r, int p, const Shape& out, int* input) {
  const Node& rn = g.node(r);
  if (!is_add(rn) || rn.inputs.size() != 2 || out.num_elements() < 0) return false;
  *input = rn.inputs[0].node == p ? 1 : 0;
  const TensorSpec& res = spec_of(g, rn.inputs[*input]);
  return rn.inputs[1 - *input].node == p && rn.inputs[*input].node != p && is_f32(res) && res.shape == out &&
         is_f32(rn.outputs[0]) && rn.outputs[0].shape == out;
}

// Node s multiplies BatchMatMulV2 c's output (float32, equal ranks >= 3 and equal static batch
// dims, as the fused kernel takes) by a one-element float32 tensor. *input: the scale's index.
bool scaled(const Graph& g, int s, int c, int* input) {
  const Node& cn = g.node(c);
  const Node& sn = g.node(s);
  if (!(sn.def && sn.def->op_class == OpClass::Binary && fused_opcode(sn) == fused::kMul) || sn.inputs.size() != 2 ||
      cn.outputs.size() != 1)
    return false;
  const TensorSpec& out = cn.outputs[0];
  // The operands' shapes with folded transposes applied (passes/fold_transpose.cpp).
  auto operand = [&](int k, const char* perm_attr) {
    Shape s = spec_of(g, cn.inputs[k]).shape;
    const AttrValue* v = cn.attrs.find(perm_attr);
    const auto* p = v ? std::get_if<std::vector<int64_t>>(v) : nullptr;
    if (!p || !s.has_rank() || static_cast<int>(p->size()) != s.rank()) return s;
    std::vector<int64_t> d(p->size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = s[static_cast<int>((*p)[i])];
    return Shape(d);
  };
  const Shape a = operand(0, "perm_a"), b = operand(1, "perm_b");
  if (!is_f32(out) || !out.shape.has_rank() || out.shape.rank() < 3 || out.shape.num_elements() < 0 || !a.has_rank() ||
      !b.has_rank() || a.rank() != out.shape.rank() || b.rank() != a.rank())
    return false;
  for (int d = 0; d + 2 < a.rank(); ++d)
    if (a[d] < 0 || a[d] != b[d]) return false;
  *input = sn.inputs[0].node == c ? 1 : 0;
  const TensorSpec& sc = spec_of(g, sn.inputs[*input]);
  if (sn.inputs[1 - *input].node != c || sn.inputs[*input].node == c || !is_f32(sc) || !sc.shape.has_rank() ||
      sc.shape.rank() > out.shape.rank() || sc.shape.num_elements() != 1 || !(sn.outputs[0].shape == out.shape))
    return false;
  return true;
}

}  // namespace

std::shared_ptr<Graph> fuse_contractions(const Graph& g) {
  auto r = fuse_contractions_or_null(g);
  return r ? r : copy_graph(g);
}

std::shared_ptr<Graph> fuse_contractions_or_null(const Graph& g) {
  const int n = g.num_nodes();
  const Readers readers(g);
  const std::vector<int>& uses = readers.uses;
  const std::vector<int>& consumer = readers.consumer;
  const std::vector<char>& pinned = readers.pinned;
  // The single reader of node i's only output, or -1.
  auto next = [&](int i) {
    const Node& node = g.node(i);
    if (uses[i] != 1 || pinned[i] || node.outputs.size() != 1 || !node.control_inputs.empty()) return -1;
    return consumer[i];
  };
  std::vector<Chain> chains(n);
  std::vector<int> root_of(n, -1);      // chain root -> contraction node
  std::vector<int> scale_input(n, -1);  // BatchMatMulV2 * scale: root -> which Mul input
  for (int i = 0; i < n; ++i) {
    const Node& c = g.node(i);
    if (c.op == kBatchMatMulV2Op && c.def && c.inputs.size() == 2) {
      int s = next(i), k = -1;
      if (s >= 0 && scaled(g, s, i, &k)) {
        chains[i].root = s;
        root_of[s] = i;
        scale_input[s] = k;
      }
      continue;
    }
    bool mm = c.op == kMatMulOp, conv = c.op == kConv2DOp;
    if (!(mm || conv) || !c.def || c.inputs.size() != 2 || c.outputs.size() != 1) continue;
    const TensorSpec& out = c.outputs[0];
    if (!is_f32(out) || !out.shape.has_rank() || out.shape.rank() != (mm ? 2 : 4)) continue;
    if (conv && !channels_last(c)) continue;
    if (mm && c.attrs.get_or("transpose_a", false)) continue;  // TF fuses transpose_b only
    int64_t channels = out.shape[out.shape.rank() - 1];
    if (channels < 0) continue;
    Chain ch;
    int cur = i;
    int b = next(i);
    if (b >= 0 && bias_add(g, b, i, out.shape, &ch.bias_input)) ch.bias_node = cur = b;
    // A residual (AddV2 of a same-shape tensor): TF fuses it after a Conv2D's bias; elsewhere
    // fusing it changes no bit (the same single float add), so MatMul (+ bias) + residual too.
    int r = next(cur);
    if (r >= 0 && (conv ? ch.bias_node >= 0 : true) && residual_add(g, r, cur, out.shape, &ch.residual_input))
      ch.residual_node = cur = r;
    // The activation only where TF fuses it (its post-op maps NaN to 0): after a bias, and for
    // MatMul only straight after it.
    int a = next(cur);
    if (a >= 0 && ch.bias_node >= 0 && !(mm && ch.residual_node >= 0) &&
        (g.node(a).op == kReluOp || g.node(a).op == kRelu6Op) && is_f32(g.node(a).outputs[0]))
      ch.act_node = cur = a;
    int t = next(cur);
    if (mm && ch.act_node < 0 && t >= 0 && g.node(t).op == kTanhOp && g.node(t).inputs.size() == 1 &&
        is_f32(g.node(t).outputs[0]) && g.node(t).outputs[0].shape == out.shape)
      ch.tanh_node = cur = t;
    if (cur == i) continue;
    ch.root = cur;
    chains[i] = ch;
    root_of[ch.root] = i;
  }
  if (std::all_of(root_of.begin(), root_of.end(), [](int c) { return c < 0; })) return nullptr;
  std::vector<std::vector<NodeOutput>> remapped(n);
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    remapped[i] = copy.inputs;
    int c = root_of[i];
    if (c < 0) return false;
    const Chain& ch = chains[c];
    const Node& cn = g.node(c);
    Node f;
    if (scale_input[i] >= 0) {  // BatchMatMulV2 * scale
      f.op = fused_batch_matmul_op().name;
      f.def = &fused_batch_matmul_op();
      f.name = copy.name + "/fused";
      f.inputs = {remapped[c][0], remapped[c][1], copy.inputs[scale_input[i]]};
      f.attrs = cn.attrs;
      f.outputs = copy.outputs;
      f.defined_at = cn.defined_at;
      r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(f)), 0}});
      return true;
    }
    bool mm = cn.op == kMatMulOp;
    f.op = mm ? fused_matmul_op().name : fused_conv2d_op().name;
    f.def = mm ? &fused_matmul_op() : &fused_conv2d_op();
    f.name = copy.name + "/fused";
    f.inputs = {remapped[c][0], remapped[c][1]};
    if (ch.bias_node >= 0) f.inputs.push_back(remapped[ch.bias_node][ch.bias_input]);
    if (ch.residual_node >= 0) f.inputs.push_back(remapped[ch.residual_node][ch.residual_input]);
    f.attrs = cn.attrs;
    f.attrs.set("bias", ch.bias_node >= 0);
    f.attrs.set("activation", ch.act_node >= 0 ? g.node(ch.act_node).op : std::string());
    if (ch.tanh_node >= 0) f.attrs.set("tanh", true);
    f.outputs = copy.outputs;
    f.defined_at = cn.defined_at;
    r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(f)), 0}});
    return true;
  });
}

}  // namespace fn
