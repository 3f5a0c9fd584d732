// Contraction fusion, as TensorFlow 2.21's grappler remapper does on CPU (oneDNN): MatMul
// (not transpose_a) or Conv2D, then a bias (BiasAdd, or AddV2 with a [1, ..., 1, channels]
// operand, in either order), then for Conv2D an AddV2 of a same-shape residual,
// then Relu or Relu6, becomes one _FusedMatMul / _FusedConv2D node (ops/fused_contraction.h).
// Each intermediate must have one reader and not be a graph output, as TF requires; TF fuses
// the same chains, so fn gives TF's tf.function results: the fused Relu/Relu6 map NaN to 0
// there (oneDNN's post-op), while the standalone ops keep NaN. float32 only (TF does not fuse
// float64). The replaced nodes stay in the graph, unused, and Plan::compile prunes them.
#include "ops/fused_contraction.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

struct Chain {
  int bias_node = -1, bias_input = -1;   // the bias-adding node and which input is the bias
  int residual_node = -1, residual_input = -1;
  int act_node = -1;
  int root = -1;                          // the last node of the chain
};

bool is_f32(const TensorSpec& s) { return s.dtype == DType::Float32; }

}  // namespace

std::shared_ptr<Graph> fuse_contractions(const Graph& g) {
  const int n = g.num_nodes();
  std::vector<int> uses(n, 0), consumer(n, -1);
  std::vector<char> pinned(n, 0);
  for (int i = 0; i < n; ++i) {
    for (const NodeOutput& in : g.node(i).inputs) {
      ++uses[in.node];
      consumer[in.node] = i;
    }
    for (int c : g.node(i).control_inputs) pinned[c] = 1;
  }
  for (const NodeOutput& o : g.outputs) pinned[o.node] = 1;
  // The single reader of node i's only output, or -1.
  auto next = [&](int i) {
    const Node& node = g.node(i);
    if (uses[i] != 1 || pinned[i] || node.outputs.size() != 1 || !node.control_inputs.empty()) return -1;
    return consumer[i];
  };
  const auto& spec = [&](const NodeOutput& o) -> const TensorSpec& { return g.node(o.node).outputs.at(o.index); };
  std::vector<Chain> chains(n);
  std::vector<int> root_of(n, -1);   // chain root -> contraction node
  for (int i = 0; i < n; ++i) {
    const Node& c = g.node(i);
    bool mm = c.op == "MatMul", conv = c.op == "Conv2D";
    if (!(mm || conv) || !c.def || c.inputs.size() != 2 || c.outputs.size() != 1) continue;
    const TensorSpec& out = c.outputs[0];
    if (!is_f32(out) || !out.shape.has_rank() || out.shape.rank() != (mm ? 2 : 4)) continue;
    if (conv && c.attrs.get_or("data_format", std::string("NHWC")) != "NHWC") continue;
    if (mm && c.attrs.get_or("transpose_a", false)) continue;   // TF fuses transpose_b only
    int64_t channels = out.shape[out.shape.rank() - 1];
    if (channels < 0) continue;
    Chain ch;
    int b = next(i);
    if (b < 0) continue;
    const Node& bn = g.node(b);
    if (bn.op == "BiasAdd" && bn.inputs.size() == 2 && bn.inputs[0].node == i &&
        bn.attrs.get_or("data_format", std::string("NHWC")) == "NHWC") {
      ch.bias_input = 1;
    } else if ((bn.op == "AddV2" || bn.op == "Add") && bn.inputs.size() == 2) {
      int k = bn.inputs[0].node == i ? 1 : 0;
      if (bn.inputs[1 - k].node != i) continue;
      ch.bias_input = k;
    } else {
      continue;
    }
    // A bias: [channels], or for AddV2 [1, ..., 1, channels] of at most the output's rank, and
    // not the output's own shape (TF's IsBiasSemanticAdd).
    const TensorSpec& bias = spec(bn.inputs[ch.bias_input]);
    bool bias_ok = is_f32(bias) && bias.shape.has_rank() && bias.shape.rank() >= 1 &&
                   bias.shape.rank() <= out.shape.rank() && bias.shape[bias.shape.rank() - 1] == channels &&
                   !(bias.shape == out.shape) && (bn.op != "BiasAdd" || bias.shape.rank() == 1);
    for (int d = 0; bias_ok && d + 1 < bias.shape.rank(); ++d) bias_ok = bias.shape[d] == 1;
    if (!bias_ok || !(bn.outputs[0].shape == out.shape) || !is_f32(bn.outputs[0])) continue;
    ch.bias_node = ch.root = b;
    int r = next(b);
    if (conv && r >= 0 && (g.node(r).op == "AddV2" || g.node(r).op == "Add") && g.node(r).inputs.size() == 2) {
      const Node& rn = g.node(r);
      int k = rn.inputs[0].node == b ? 1 : 0;
      const TensorSpec& res = spec(rn.inputs[k]);
      if (rn.inputs[1 - k].node == b && rn.inputs[k].node != b && is_f32(res) && res.shape == out.shape &&
          out.shape.num_elements() >= 0 && rn.outputs[0].shape == out.shape) {
        ch.residual_node = ch.root = r;
        ch.residual_input = k;
      }
    }
    int a = next(ch.root);
    if (a >= 0 && (g.node(a).op == "Relu" || g.node(a).op == "Relu6") && is_f32(g.node(a).outputs[0]))
      ch.act_node = ch.root = a;
    chains[i] = ch;
    root_of[ch.root] = i;
  }
  std::vector<std::vector<NodeOutput>> remapped(n);
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    remapped[i] = copy.inputs;
    int c = root_of[i];
    if (c < 0) return false;
    const Chain& ch = chains[c];
    const Node& cn = g.node(c);
    Node f;
    bool mm = cn.op == "MatMul";
    f.op = mm ? "_FusedMatMul" : "_FusedConv2D";
    f.def = mm ? &fused_matmul_op() : &fused_conv2d_op();
    f.name = copy.name + "/fused";
    f.inputs = {remapped[c][0], remapped[c][1], remapped[ch.bias_node][ch.bias_input]};
    if (ch.residual_node >= 0) f.inputs.push_back(remapped[ch.residual_node][ch.residual_input]);
    f.attrs = cn.attrs;
    f.attrs.set("activation", ch.act_node >= 0 ? g.node(ch.act_node).op : std::string());
    f.outputs = copy.outputs;
    f.defined_at = cn.defined_at;
    r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(f)), 0}});
    return true;
  });
}

}  // namespace fn
