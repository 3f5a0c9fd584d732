// StridedSlice(x, Pack(..., t, ...), end, Const [1, ...]) reading one axis at a scalar int32/int64
// t and every other entry whole (a loop body's `xs[t]` or batch-major `x[:, t]`: TF's tracing
// builds begin and end as stacks of t and t + 1 every iteration) -> _StridedSliceIndex(x, t)
// (ops/slice_index.h): two Pack steps fewer every iteration, and the AddV2 making t + 1 too when
// the loop counter is not that value. A shrunk axis ignores `end` (TF's ValidateStridedSliceOp sets
// it to begin + 1) and masked entries ignore both, so only end's type and shape are checked. The
// node keeps its name (errors name it as TF does).
#include "ops/slice_index.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

const std::string kStridedSlice = "StridedSlice";
const std::string kPack = "Pack";

bool is_index_dtype(DType d) { return d == DType::Int32 || d == DType::Int64; }

// The scalars a Pack of rank-0 int32/int64 values stacks into a vector (its node), or nullptr.
const Node* packed_scalars(const Graph& g, const NodeOutput& o) {
  const Node& p = g.node(o.node);
  if (p.op != kPack || o.index != 0 || p.inputs.empty() || !p.control_inputs.empty()) return nullptr;
  const int64_t axis = p.attrs.get_or<int64_t>("axis", 0);
  if (axis != 0 && axis != -1) return nullptr;
  for (const NodeOutput& in : p.inputs) {
    const TensorSpec& s = g.node(in.node).outputs.at(static_cast<size_t>(in.index));
    if (s.shape.rank() != 0 || !is_index_dtype(s.dtype)) return nullptr;
  }
  return &p;
}

// A constant vector of n entries of dtype d, all 1.
bool is_unit_strides(const Graph& g, const NodeOutput& o, DType d, int64_t n) {
  const EagerTensor* val = constant_value(g.node(o.node));
  if (!val || val->dtype() != d || val->shape() != Shape{n}) return false;
  for (int64_t k = 0; k < n; ++k)
    if ((d == DType::Int64 ? val->data<int64_t>()[k] : val->data<int32_t>()[k]) != 1) return false;
  return true;
}

// A StridedSlice folding to _StridedSliceIndex: its index, the index's entry and the entries.
struct Fold {
  NodeOutput index{-1, 0};
  int64_t axis = 0, entries = 0;
};

// Whether StridedSlice node i is x[..., t] with one shrunk axis j read at a Pack's scalar t and
// every other entry a whole axis (`:`, begin and end masked): x[t], x[:, t], x[:, :, t].
bool fold_of(const Graph& g, const Readers& readers, int i, Fold* f) {
  const Node& n = g.node(i);
  if (n.op != kStridedSlice || n.inputs.size() != 4 || n.outputs.size() != 1 || !readers.live[i] ||
      readers.control_target[i])
    return false;
  const TensorSpec& x = g.node(n.inputs[0].node).outputs.at(static_cast<size_t>(n.inputs[0].index));
  if (x.dtype == DType::String || x.shape.rank() < 1) return false;
  const Node* begin = packed_scalars(g, n.inputs[1]);
  if (!begin) return false;
  const int64_t k = static_cast<int64_t>(begin->inputs.size());
  const Attrs& a = n.attrs;
  const int64_t shrink = a.get_or<int64_t>("shrink_axis_mask", 0), bm = a.get_or<int64_t>("begin_mask", 0),
                em = a.get_or<int64_t>("end_mask", 0);
  if (k > 8 || a.get_or<int64_t>("ellipsis_mask", 0) != 0 || a.get_or<int64_t>("new_axis_mask", 0) != 0 ||
      shrink <= 0 || (shrink & (shrink - 1)) != 0 || shrink >= (int64_t{1} << k))
    return false;
  const int64_t all = (int64_t{1} << k) - 1, rest = all & ~shrink;
  if ((bm & all) != rest || (em & all) != rest || (bm | em) > all) return false;
  f->axis = __builtin_ctzll(static_cast<unsigned long long>(shrink));
  f->entries = k;
  f->index = begin->inputs[static_cast<size_t>(f->axis)];
  const DType d = begin->outputs.at(0).dtype;
  const TensorSpec& end = g.node(n.inputs[2].node).outputs.at(static_cast<size_t>(n.inputs[2].index));
  return end.dtype == d && end.shape == Shape{k} && is_unit_strides(g, n.inputs[3], d, k);
}

}  // namespace

std::shared_ptr<Graph> fold_index_slices_or_null(const Graph& g) {
  bool any = false;
  for (int i = 0; i < g.num_nodes() && !any; ++i) any = g.node(i).op == kStridedSlice;
  if (!any) return nullptr;
  const Readers readers(g);
  std::vector<Fold> folds(static_cast<size_t>(g.num_nodes()));
  any = false;
  for (int i = 0; i < g.num_nodes(); ++i) any = fold_of(g, readers, i, &folds[static_cast<size_t>(i)]) || any;
  if (!any) return nullptr;
  Rewriter rw(g);
  return rw.run([&](int i, const Node& n, Rewriter& r) {
    const Fold& f = folds[static_cast<size_t>(i)];
    const NodeOutput idx = f.index;
    if (idx.node < 0) return false;
    Node s;
    s.op = strided_slice_index_op().name;
    s.def = &strided_slice_index_op();
    s.name = n.name;
    s.inputs = {n.inputs[0], r.outputs_of(idx.node).at(static_cast<size_t>(idx.index))};
    s.control_inputs = n.control_inputs;
    s.attrs = n.attrs;
    s.attrs.set("index_axis", f.axis);
    s.attrs.set("num_indices", f.entries);
    s.outputs = n.outputs;
    s.defined_at = n.defined_at;
    const int k = r.target().add_node_named(std::move(s));
    r.replace_outputs(i, {NodeOutput{k, 0}});
    return true;
  });
}

}  // namespace fn
