// Elementwise fusion: a tree of float32 elementwise ops over one static output shape (each
// intermediate used once, by the next op of the tree) becomes one _FusedElementwise node that
// makes a single tiled pass over the data (kernels/fused/elementwise.h). Inputs may broadcast
// when their non-1 dims are one contiguous run of the output's dims (scalars, biases, rows,
// per-row statistics such as a layer norm's mean). The fused tree's members are dropped.
#include <map>

#include "core/error.h"
#include "kernels/fused/elementwise.h"
#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool static_float(const TensorSpec& s) {
  return s.dtype == DType::Float32 && s.shape.has_rank() && s.shape.num_elements() >= 0;
}

// (div, mod) reading input shape `in` for output shape `out`, or false when `in` does not
// broadcast to `out` as one contiguous run of dims.
bool broadcast_rule(const Shape& in, const Shape& out, int64_t* div, int64_t* mod) {
  int ri = in.rank(), ro = out.rank();
  if (ri > ro) return false;
  int first = -1, last = -1;
  for (int d = 0; d < ro; ++d) {
    int64_t o = out[d], i = d - (ro - ri) >= 0 ? in[d - (ro - ri)] : 1;
    if (o == 1) { if (i != 1) return false; continue; }
    if (i == o) {
      if (last >= 0 && last != d - 1) {
        // a broadcast dim (of size != 1 in out) lies between two matched dims?
        for (int k = last + 1; k < d; ++k)
          if (out[k] != 1) return false;
      }
      if (first < 0) first = d;
      last = d;
    } else if (i != 1) {
      return false;
    }
  }
  *div = 1;
  *mod = 1;
  if (first < 0) return true;
  for (int d = first; d <= last; ++d) *mod *= out[d];
  for (int d = last + 1; d < ro; ++d) *div *= out[d];
  return true;
}

std::vector<EagerPtr> fused_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const auto& prog = k.attrs.get<std::vector<int64_t>>("program");
  const auto& bcast = k.attrs.get<std::vector<int64_t>>("bcast");
  const Shape& shape = k.attrs.get<Shape>("shape");
  if (bcast.size() != 2 * in.size() || prog.size() % 3 != 0)
    throw_error(Code::Internal, "malformed fused elementwise node");
  std::vector<fused::Operand> ops(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    // The plan was made for these shapes: a mismatch is a bug, never a wrong read.
    if (in[i]->dtype() != DType::Float32 || in[i]->num_elements() != bcast[2 * i + 1])
      throw_error(Code::Internal, "fused elementwise input ", i, " has shape ", in[i]->shape().to_string(),
                  ", not the traced one");
    ops[i] = fused::Operand{in[i]->data<float>(), bcast[2 * i], bcast[2 * i + 1]};
  }
  std::vector<fused::Instr> instrs(prog.size() / 3);
  for (size_t i = 0; i < instrs.size(); ++i)
    instrs[i] = fused::Instr{static_cast<int>(prog[3 * i]), static_cast<int>(prog[3 * i + 1]),
                             static_cast<int>(prog[3 * i + 2])};
  // In place when an input of the output's size dies here: the plan handed over its only
  // reference and no view shares its buffer (elements are read before they are written). The
  // buffer must own its storage: a slice or wrapped array is a view of memory others still see.
  EagerPtr out;
  for (size_t i = 0; i < in.size() && !out; ++i)
    if (bcast[2 * i] == 1 && bcast[2 * i + 1] == shape.num_elements() && in[i].use_count() == 1 &&
        in[i]->buffer() && in[i]->buffer().use_count() == 1 && in[i]->buffer()->capacity() > 0 &&
        in[i]->shape() == shape)
      out = in[i];
  if (!out) out = make_tensor(DType::Float32, shape);
  fused::run(instrs, ops, out->data<float>(), shape.num_elements());
  return {out};
}

}  // namespace

const OpDef& fused_elementwise_op() {
  static const OpDef def{"_FusedElementwise", "fused", -1,
                         [](const InferContext& c) { return one(DType::Float32, c.attrs.get<Shape>("shape")); },
                         fused_kernel, {}};
  return def;
}

std::shared_ptr<Graph> fuse_elementwise(const Graph& g) {
  auto r = fuse_elementwise_or_null(g);
  return r ? r : copy_graph(g);
}

std::shared_ptr<Graph> fuse_elementwise_or_null(const Graph& g) {
  const int n = g.num_nodes();
  const Readers readers(g);
  const std::vector<int>& uses = readers.uses;
  const std::vector<int>& consumer = readers.consumer;
  const std::vector<char>& pinned = readers.pinned;
  std::vector<char> cand(n, 0), absorbed(n, 0), has_member(n, 0);
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    int code = fused::opcode_of(node.op);
    if (code < 0 || !node.def || node.outputs.size() != 1 || !node.outputs[0].shape.has_rank() ||
        node.outputs[0].shape.num_elements() < 0)
      continue;
    // Comparisons give bool: fusable only into the bool->float Cast using them (checked below).
    DType out_dtype = fused::is_comparison(code) ? DType::Bool : DType::Float32;
    if (node.outputs[0].dtype != out_dtype) continue;
    if (node.inputs.size() != (fused::is_binary(code) ? 2u : 1u)) continue;
    if (node.op == "BiasAdd" && node.attrs.get_or("data_format", std::string("NHWC")) != "NHWC") continue;
    bool ok = true;
    if (code == fused::kCastBool) {   // its input must be a comparison it absorbs
      const NodeOutput& in = node.inputs[0];
      const Node& src = g.node(in.node);
      ok = cand[in.node] && fused::is_comparison(fused::opcode_of(src.op)) && uses[in.node] == 1 &&
           !pinned[in.node] && src.outputs[0].shape == node.outputs[0].shape;
    } else {
      for (const NodeOutput& in : node.inputs) {
        const TensorSpec& s = g.node(in.node).outputs.at(in.index);
        int64_t div, mod;
        ok = ok && static_float(s) && broadcast_rule(s.shape, node.outputs[0].shape, &div, &mod);
      }
    }
    cand[i] = ok;
  }
  for (int i = 0; i < n; ++i) {
    int c = consumer[i];
    if (!cand[i] || c < 0 || !cand[c] || uses[i] != 1 || pinned[i] ||
        !(g.node(i).outputs[0].shape == g.node(c).outputs[0].shape))
      continue;
    // A comparison goes only into its Cast; nothing else reads a comparison's 0/1 floats.
    bool cmp = fused::is_comparison(fused::opcode_of(g.node(i).op));
    if (cmp != (fused::opcode_of(g.node(c).op) == fused::kCastBool)) continue;
    absorbed[i] = 1;
    has_member[c] = 1;
  }
  bool any = false;
  auto is_root = [&](int i) {
    return cand[i] && !absorbed[i] && has_member[i] && g.node(i).outputs[0].dtype == DType::Float32;
  };
  for (int i = 0; i < n && !any; ++i) any = is_root(i);
  if (!any) return nullptr;
  // Members of a tree that becomes a fused node are not copied at all (nothing else reads them).
  std::vector<char> in_fused(n, 0);
  for (int i = n - 1; i >= 0; --i) in_fused[i] = is_root(i) || (absorbed[i] && in_fused[consumer[i]]);
  std::vector<std::vector<NodeOutput>> remapped(n);
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    if (in_fused[i]) remapped[i] = copy.inputs;
    if (!is_root(i)) return absorbed[i] && in_fused[i];
    // Emit the tree rooted at i, operands first.
    std::vector<int64_t> prog, bcast;
    std::vector<NodeOutput> ext;
    std::map<std::pair<int, int>, int> ext_index;
    const Shape& shape = copy.outputs[0].shape;
    // Post-order walk with an explicit stack (a tree may be a chain of thousands of ops):
    // operands first, in input order; an instruction's operand refs are ext inputs (>= 0) or
    // earlier instructions (-(index + 1)).
    struct Visit { int node; size_t next; int refs[2]; };
    std::vector<Visit> stack{{i, 0, {0, 0}}};
    while (!stack.empty()) {
      Visit& v = stack.back();
      const Node& node = g.node(v.node);
      if (v.next < node.inputs.size()) {
        size_t k = v.next++;
        const NodeOutput& in = node.inputs[k];
        if (absorbed[in.node]) {
          stack.push_back(Visit{in.node, 0, {0, 0}});   // invalidates v
          continue;
        }
        NodeOutput m = remapped[v.node][k];
        auto it = ext_index.find({m.node, m.index});
        if (it == ext_index.end()) {
          int64_t div = 1, mod = 1;
          broadcast_rule(g.node(in.node).outputs[in.index].shape, shape, &div, &mod);
          it = ext_index.emplace(std::make_pair(m.node, m.index), static_cast<int>(ext.size())).first;
          ext.push_back(m);
          bcast.push_back(div);
          bcast.push_back(mod);
        }
        v.refs[k] = it->second;
        continue;
      }
      prog.push_back(fused::opcode_of(node.op));
      prog.push_back(v.refs[0]);
      prog.push_back(v.refs[1]);
      stack.pop_back();
      if (!stack.empty()) stack.back().refs[stack.back().next - 1] = -static_cast<int>(prog.size() / 3);
    }
    Node f;
    f.op = "_FusedElementwise";
    f.def = &fused_elementwise_op();
    f.name = copy.name + "/fused";
    f.inputs = std::move(ext);
    f.attrs.set("program", std::move(prog));
    f.attrs.set("bcast", std::move(bcast));
    f.attrs.set("shape", shape);
    f.outputs = copy.outputs;
    f.defined_at = copy.defined_at;
    r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(f)), 0}});
    return true;
  });
}

}  // namespace fn
