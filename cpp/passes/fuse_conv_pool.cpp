// Pooling after a convolution: a MaxPool or AvgPool (NHWC, float32) whose input is a Conv2D or
// _FusedConv2D read by nothing else becomes part of that convolution (a _FusedConv2D with attr
// "pool_op" and the pool's attrs prefixed "pool:"), whatever its epilogue: a bias and Relu as
// oneDNN post-ops, an elementwise tail (`max_pool2d(relu(conv2d(x, k)))` without a bias), or none.
// The kernel (ops/fused_conv2d.cpp) pools each batch slice right after its convolution and
// epilogue, while the slice's activations are in cache: the layer is one task-pool job instead of
// three parallel steps, and the full-size activations are never written out. Pooling takes the
// kernel the standalone op would, so fused and unfused results are the same bits. A convolution
// whose output a gradient also reads (under a tape) has other readers and stays as it is.
#include "ops/fused_contraction.h"
#include "ops/nn_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool is_pool(const Node& n) {
  if (!n.def || (n.op != "MaxPool" && n.op != "AvgPool")) return false;
  if (n.inputs.size() != 1 || n.outputs.size() != 1 || n.outputs[0].dtype != DType::Float32) return false;
  return n.attrs.get_or("data_format", std::string("NHWC")) == "NHWC" && n.control_inputs.empty();
}

bool is_conv(const Node& n) {
  if (!n.def || n.outputs.size() != 1 || n.outputs[0].dtype != DType::Float32 || !n.control_inputs.empty())
    return false;
  if (n.attrs.get_or("data_format", std::string("NHWC")) != "NHWC") return false;
  const Shape& s = n.outputs[0].shape;
  if (!s.has_rank() || s.rank() != 4 || s.num_elements() <= 0) return false;
  if (n.op == fused_conv2d_op().name) return !n.attrs.has("pool_op");
  return n.op == "Conv2D" && n.inputs.size() == 2;
}

}  // namespace

std::shared_ptr<Graph> fuse_conv_pools_or_null(const Graph& g) {
  const int n = g.num_nodes();
  const Readers readers(g);
  std::vector<int> conv_of(n, -1);
  bool any = false;
  for (int p = 0; p < n; ++p) {
    const Node& pn = g.node(p);
    if (!readers.live[p] || !is_pool(pn) || pn.inputs[0].index != 0) continue;
    const int c = pn.inputs[0].node;
    if (!is_conv(g.node(c)) || readers.uses[c] != 1 || readers.pinned[c]) continue;
    conv_of[p] = c;
    any = true;
  }
  if (!any) return nullptr;
  std::vector<std::vector<NodeOutput>> remapped(n);
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    remapped[i] = copy.inputs;
    const int c = conv_of[i];
    if (c < 0) return false;
    const Node& cn = g.node(c);
    Node f;
    f.op = fused_conv2d_op().name;
    f.def = &fused_conv2d_op();
    f.name = copy.name + "/conv";
    f.inputs = remapped[c];
    f.attrs = cn.attrs;
    if (cn.op == "Conv2D") {  // a fused node with nothing fused yet
      f.attrs.set("bias", false);
      f.attrs.set("activation", std::string());
    }
    f.attrs.set("pool_op", copy.op);
    for (const auto& kv : copy.attrs.items()) f.attrs.set("pool:" + kv.first, kv.second);
    f.outputs = copy.outputs;
    f.defined_at = cn.defined_at;
    r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(f)), 0}});
    return true;
  });
}

}  // namespace fn
