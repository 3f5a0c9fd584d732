// MaxPool of a monotone function: `max_pool(f(x))` becomes `f(max_pool(x))` for an elementwise
// non-decreasing f (Relu, Relu6, Sigmoid, Tanh, Exp, ...), as grappler's arithmetic optimizer
// does inside tf.function (OptimizeMaxOrMinOfMonotonicStage): f runs over the pooled tensor (a
// 2x2 pool: a quarter of the elements), and the convolution before it meets the pool directly
// (passes/fuse_conv_pool.cpp). The values only differ where NaNs meet: TensorFlow's (oneDNN's)
// max pooling skips a NaN, so a window whose f(x) is all NaN pools to -FLT_MAX before the swap
// and to f(-FLT_MAX) after it (0 for a Relu), which is what TF 2.21 computes in a graph.
// As in grappler: not when f's output has another reader or is a graph output, and not a
// Relu/Relu6 of a BiasAdd or FusedBatchNorm (the contraction fusion takes those).
#include <string>
#include <unordered_set>

#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool is_max_pool(const Node& n) { return n.op == "MaxPool" || n.op == "MaxPoolV2" || n.op == "MaxPool3D"; }

// grappler's IsElementWiseMonotonic, the non-decreasing half (a max pool has no min twin).
bool non_decreasing(const std::string& op) {
  static const std::unordered_set<std::string> ops{
      "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil",    "Elu",  "Erf",  "Exp",      "Expm1",    "Floor", "Log",
      "Log1p", "Relu", "Relu6", "Rint", "Selu",  "Sigmoid", "Sign", "Sinh", "Softsign", "Softplus", "Sqrt",  "Tanh"};
  return ops.count(op) > 0;
}

bool fused_by_remapper(const Node& f, const Node& producer) {
  if (f.op != "Relu" && f.op != "Relu6") return false;
  const std::string& p = producer.op;
  return p == "BiasAdd" || p == "BiasAddV1" || p == "FusedBatchNorm" || p == "FusedBatchNormV2" ||
         p == "FusedBatchNormV3";
}

}  // namespace

std::shared_ptr<Graph> sink_max_pools_or_null(const Graph& g) {
  const int n = g.num_nodes();
  const Readers readers(g);
  std::vector<int> inner(n, -1);
  bool any = false;
  for (int p = 0; p < n; ++p) {
    const Node& pn = g.node(p);
    if (!readers.live[p] || !pn.def || !is_max_pool(pn) || pn.inputs.empty() || pn.outputs.size() != 1 ||
        readers.pinned[p])
      continue;
    const int f = pn.inputs[0].node;
    const Node& fn_ = g.node(f);
    if (pn.inputs[0].index != 0 || !fn_.def || !non_decreasing(fn_.op) || fn_.inputs.size() != 1 ||
        fn_.outputs.size() != 1 || readers.uses[f] != 1 || readers.pinned[f] || !fn_.control_inputs.empty())
      continue;
    if (fused_by_remapper(fn_, g.node(fn_.inputs[0].node))) continue;
    if (fn_.outputs[0].dtype != pn.outputs[0].dtype) continue;
    inner[p] = f;
    any = true;
  }
  if (!any) return nullptr;
  std::vector<std::vector<NodeOutput>> remapped(n);
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    remapped[i] = copy.inputs;
    const int f = inner[i];
    if (f < 0) return false;
    Node pool = copy;
    pool.inputs[0] = remapped[f][0];
    pool.name = copy.name + "/sunk";
    const NodeOutput pooled{r.target().add_node(std::move(pool)), 0};
    Node fn_ = g.node(f);
    fn_.inputs = {pooled};
    fn_.name = g.node(f).name + "/of_pool";
    fn_.outputs = copy.outputs;
    r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(fn_)), 0}});
    return true;
  });
}

}  // namespace fn
