// StridedSlice(x, Pack(i), end, Const [1]) with shrink_axis_mask 1 and no other mask, for a
// scalar int32/int64 i (a loop body's `xs[t]`: TF's tracing builds begin and end as one-element
// stacks of t and t + 1) -> _StridedSliceIndex(x, i) (ops/slice_index.h): two Pack steps fewer
// every iteration, and the AddV2 making t + 1 too when the loop counter is not that value. A
// shrunk axis ignores `end` (TF's ValidateStridedSliceOp sets it to begin + 1), so only its type
// and shape are checked. The node keeps its name (errors name it as TF does).
#include "ops/slice_index.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

const std::string kStridedSlice = "StridedSlice";
const std::string kPack = "Pack";

bool is_index_dtype(DType d) { return d == DType::Int32 || d == DType::Int64; }

// The scalar a one-element Pack stacks, when `o` is one.
bool packed_scalar(const Graph& g, const NodeOutput& o, NodeOutput* scalar) {
  const Node& p = g.node(o.node);
  if (p.op != kPack || o.index != 0 || p.inputs.size() != 1 || !p.control_inputs.empty()) return false;
  const int64_t axis = p.attrs.get_or<int64_t>("axis", 0);
  const TensorSpec& in = g.node(p.inputs[0].node).outputs.at(static_cast<size_t>(p.inputs[0].index));
  if ((axis != 0 && axis != -1) || in.shape.rank() != 0 || !is_index_dtype(in.dtype)) return false;
  *scalar = p.inputs[0];
  return true;
}

// A one-element integer constant of dtype d equal to 1.
bool is_unit_stride(const Graph& g, const NodeOutput& o, DType d) {
  const Node& c = g.node(o.node);
  if (!is_constant(c)) return false;
  const AttrValue* v = c.attrs.find("value");
  const EagerPtr* val = v ? std::get_if<EagerPtr>(v) : nullptr;
  if (!val || !*val || (*val)->dtype() != d || (*val)->shape().rank() != 1 || (*val)->num_elements() != 1) return false;
  return d == DType::Int64 ? (*val)->data<int64_t>()[0] == 1 : (*val)->data<int32_t>()[0] == 1;
}

// The index StridedSlice node i reads, when it is x[index] on the first axis.
bool index_of(const Graph& g, const Readers& readers, int i, NodeOutput* index) {
  const Node& n = g.node(i);
  if (n.op != kStridedSlice || n.inputs.size() != 4 || n.outputs.size() != 1 || !readers.live[i] ||
      readers.control_target[i])
    return false;
  const Attrs& a = n.attrs;
  if (a.get_or<int64_t>("shrink_axis_mask", 0) != 1 || a.get_or<int64_t>("begin_mask", 0) != 0 ||
      a.get_or<int64_t>("end_mask", 0) != 0 || a.get_or<int64_t>("ellipsis_mask", 0) != 0 ||
      a.get_or<int64_t>("new_axis_mask", 0) != 0)
    return false;
  const TensorSpec& x = g.node(n.inputs[0].node).outputs.at(static_cast<size_t>(n.inputs[0].index));
  if (x.dtype == DType::String || x.shape.rank() < 1) return false;
  if (!packed_scalar(g, n.inputs[1], index)) return false;
  const DType d = g.node(index->node).outputs.at(static_cast<size_t>(index->index)).dtype;
  const TensorSpec& end = g.node(n.inputs[2].node).outputs.at(static_cast<size_t>(n.inputs[2].index));
  return end.dtype == d && end.shape == Shape{1} && is_unit_stride(g, n.inputs[3], d);
}

}  // namespace

std::shared_ptr<Graph> fold_index_slices_or_null(const Graph& g) {
  bool any = false;
  for (int i = 0; i < g.num_nodes() && !any; ++i) any = g.node(i).op == kStridedSlice;
  if (!any) return nullptr;
  const Readers readers(g);
  std::vector<NodeOutput> index(static_cast<size_t>(g.num_nodes()), NodeOutput{-1, 0});
  any = false;
  for (int i = 0; i < g.num_nodes(); ++i) any = index_of(g, readers, i, &index[static_cast<size_t>(i)]) || any;
  if (!any) return nullptr;
  Rewriter rw(g);
  return rw.run([&](int i, const Node& n, Rewriter& r) {
    const NodeOutput idx = index[static_cast<size_t>(i)];
    if (idx.node < 0) return false;
    Node s;
    s.op = strided_slice_index_op().name;
    s.def = &strided_slice_index_op();
    s.name = n.name;
    s.inputs = {n.inputs[0], r.outputs_of(idx.node).at(static_cast<size_t>(idx.index))};
    s.control_inputs = n.control_inputs;
    s.attrs = n.attrs;
    s.outputs = n.outputs;
    s.defined_at = n.defined_at;
    const int k = r.target().add_node_named(std::move(s));
    r.replace_outputs(i, {NodeOutput{k, 0}});
    return true;
  });
}

}  // namespace fn
