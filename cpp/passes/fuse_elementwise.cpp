// Elementwise fusion: a tree of float32 elementwise ops over one static output shape becomes one
// _FusedElementwise node that makes a single tiled pass over the data (kernels/fused/
// elementwise.h), optionally ending in a Sum/Mean over one run of axes (a layer norm's or a batch norm's variance).
// An intermediate joins the tree of its reader when it is used once, or when it is a small
// subtree (at most kDupMax cheap ops) read only by fused trees: each of them recomputes it (a
// layer norm's `x - mean`), which costs less than writing and re-reading it. Inputs may broadcast
// when their non-1 dims are one contiguous run of the output's dims (scalars, biases, rows,
// per-row statistics such as that mean); a BroadcastTo read by a tree is read through (its input
// by the broadcast rule, no copy). An n-ary sum with the Add fusion fact (AddN: gradients of a
// value read several times) is the chain ((a + b) + c) + ..., AddN's own order, so the same bits.
// An intermediate that must stay materialised (stacked for a gradient, a loop's result, read by a
// later tree, or costly and shared) is still computed inside its reader's tree, which writes it
// as an extra output (up to kMaxExtra): an LSTM cell's gates and state are one pass, not one
// kernel per stacked value. A value too big to recompute that one tree reads several times is
// computed once in it (its program reads the instruction twice), written only if read elsewhere.
// The fused trees' members are dropped, and dead nodes reading them.
#include <algorithm>
#include <map>

#include "core/error.h"
#include "kernels/direct/reduce.h"
#include "kernels/fused/elementwise.h"
#include "ops/fused_elementwise.h"
#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

constexpr int kDupMax = 4;    // ops a shared intermediate may have to be recomputed by each reader
constexpr int kMaxExtra = 8;  // intermediates one tree may write besides its result

bool static_float(const TensorSpec& s) {
  return s.dtype == DType::Float32 && s.shape.has_rank() && s.shape.num_elements() >= 0;
}

// Elements summed per output by a Sum/Mean over one contiguous run of axes (ignoring size-1
// dims) of a static float32 input with constant axes, or 0 when the node is not such a
// reduction; *inner: the elements after the run (1 for trailing axes, a layer norm's rows;
// more for leading ones, a batch norm's columns).
int64_t run_reduction(const Graph& g, const Node& node, int64_t* inner) {
  *inner = 1;
  if (fused_reduce(node) == fused::Reduce::kNone || node.inputs.size() != 2 || node.outputs.size() != 1) return 0;
  const TensorSpec& x = g.node(node.inputs[0].node).outputs.at(node.inputs[0].index);
  const Node& axes = g.node(node.inputs[1].node);
  if (!static_float(x) || node.outputs[0].dtype != DType::Float32 || !is_constant(axes) || node.inputs[1].index != 0 ||
      !axes.attrs.has("value"))
    return 0;
  const EagerPtr& v = axes.attrs.get<EagerPtr>("value");
  const int rank = x.shape.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t k = 0; k < v->num_elements(); ++k) {
    int64_t a = v->dtype() == DType::Int32   ? v->data<int32_t>()[k]
                : v->dtype() == DType::Int64 ? v->data<int64_t>()[k]
                                             : INT64_MIN;
    if (a < -rank || a >= rank || reduced[static_cast<size_t>(a < 0 ? a + rank : a)])
      return 0;  // the kernel reports it
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  int64_t outer, mid;
  if (!direct::contiguous_reduction(x.shape.dims(), reduced, &outer, &mid, inner) || mid <= 0 || *inner <= 0) return 0;
  return mid;
}

// A BroadcastTo of a static float32 value to a static shape, where the value broadcasts as one
// contiguous run of dims (a mean's gradient spread over the reduced rows): a tree reading it
// reads the value itself by the broadcast rule instead, so the copy is never made.
bool transparent_broadcast(const Graph& g, const Node& node) {
  if (!is_broadcast_view(node) || node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const TensorSpec& in = g.node(node.inputs[0].node).outputs.at(node.inputs[0].index);
  int64_t div, mod;
  return static_float(node.outputs[0]) && static_float(in) &&
         broadcast_rule(in.shape, node.outputs[0].shape, &div, &mod);
}

}  // namespace

std::shared_ptr<Graph> fuse_elementwise(const Graph& g) {
  auto r = fuse_elementwise_or_null(g);
  return r ? r : copy_graph(g);
}

namespace {

// The _FusedElementwise node of the tree rooted at node i (at a reduction's data input), its
// operands emitted first; `copy` is node i as copied into the new graph.
// `absorbed` marks every member; an extra output (extra_root: its tree's root, else -1) is computed
// in its own tree only (another tree recomputing a shared subtree reads it), once however many
// of the tree's members read it, and listed in `extra` as (node, instruction) unless `internal`
// (read by that tree only: never written).
Node emit_tree(const Graph& g, int i, const Node& copy, const std::vector<char>& absorbed,
               const std::vector<int>& extra_root, const std::vector<char>& internal, const Rewriter& rw,
               const std::vector<int64_t>& red_mid, const std::vector<int64_t>& red_inner,
               std::vector<std::pair<int, int64_t>>* extra) {
  const int top = red_mid[i] > 0 ? g.node(i).inputs[0].node : i;
  std::vector<int64_t> prog, bcast;
  std::vector<NodeOutput> ext;
  std::map<std::pair<int, int>, int> ext_index;
  std::map<int, int> extra_ref;  // an extra output's instruction, for its second reader in the tree
  const Shape& shape = g.node(top).outputs[0].shape;
  // Post-order walk with an explicit stack (a tree may be a chain of thousands of ops):
  // operands first, in input order; an instruction's operand refs are ext inputs (>= 0) or
  // earlier instructions (-(index + 1)).
  struct Visit {
    int node;
    size_t next;
    std::vector<int> refs;
  };
  std::vector<Visit> stack{{top, 0, std::vector<int>(std::max<size_t>(2, g.node(top).inputs.size()), 0)}};
  while (!stack.empty()) {
    Visit& v = stack.back();
    const Node& node = g.node(v.node);
    if (v.next < node.inputs.size()) {
      size_t k = v.next++;
      NodeOutput in = node.inputs[k];
      // External inputs are looked up now, not when the member was copied: an extra output of an
      // earlier tree exists from that tree's root on, which may come after a member reading it.
      NodeOutput m;
      if (absorbed[in.node] && is_broadcast_view(g.node(in.node))) {  // read its input, broadcast
        in = g.node(in.node).inputs[0];
      } else if (absorbed[in.node] && extra_root[in.node] == i && extra_ref.count(in.node)) {
        v.refs[k] = extra_ref[in.node];  // computed once, read again
        continue;
      } else if (absorbed[in.node] && (extra_root[in.node] < 0 || extra_root[in.node] == i)) {
        stack.push_back(Visit{in.node, 0, std::vector<int>(std::max<size_t>(2, g.node(in.node).inputs.size()), 0)});
        // (invalidates v)
        continue;
      }
      m = rw.outputs_of(in.node).at(in.index);
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
    prog.push_back(fused_opcode(node));
    prog.push_back(v.refs[0]);
    prog.push_back(v.refs[1]);
    for (size_t k = 2; k < node.inputs.size(); ++k) {  // an n-ary sum: ((a + b) + c) + ..., AddN's order
      const int64_t previous = -static_cast<int64_t>(prog.size() / 3);
      prog.insert(prog.end(), {fused::kAdd, previous, v.refs[k]});
    }
    if (extra_root[v.node] >= 0) {
      if (!internal[v.node]) extra->emplace_back(v.node, static_cast<int64_t>(prog.size() / 3) - 1);
      extra_ref[v.node] = -static_cast<int>(prog.size() / 3);
    }
    stack.pop_back();
    if (!stack.empty()) stack.back().refs[stack.back().next - 1] = -static_cast<int>(prog.size() / 3);
  }
  Node f;
  f.op = fused_elementwise_op().name;
  f.def = &fused_elementwise_op();
  f.name = copy.name + "/fused";
  f.inputs = std::move(ext);
  f.attrs.set("program", std::move(prog));
  f.attrs.set("bcast", std::move(bcast));
  f.attrs.set("shape", shape);
  if (red_mid[i] > 0) {
    std::vector<int64_t> reduce{fused_reduce(g.node(i)), red_mid[i]};
    if (red_inner[i] > 1) reduce.push_back(red_inner[i]);  // columns
    f.attrs.set("reduce", std::move(reduce));
    f.attrs.set("out_shape", copy.outputs[0].shape);
  }
  f.outputs = copy.outputs;
  if (!extra->empty()) {
    std::vector<int64_t> at;
    for (const auto& [node, instr] : *extra) {
      at.push_back(instr);
      f.outputs.push_back(g.node(node).outputs[0]);
    }
    f.attrs.set("extra_outputs", std::move(at));
  }
  f.defined_at = copy.defined_at;
  return f;
}

// Intermediates computed inside a reader's tree and written as its extra outputs: for each node,
// the root of the tree writing it, or -1. A candidate that stays materialised (not absorbed:
// stacked for a gradient, a graph output, read by another tree, or costly and shared) joins the
// tree of one fused reader c when
// - c leads to that tree's root through members read once, by live nodes only (never through a
//   shared subtree some readers recompute: it would compute the value again without writing it),
// - every other live reader, left behind or not, runs after the root (it reads the extra output,
//   so the tree must run first; a member of another tree runs at that tree's root) or is in the
//   same tree (it reads the same instruction: the program computes the value once). Then no
//   input of the tree depends on the value: a path from it leaves through one of its readers,
//   all running after the root or in the tree. Dead readers are dropped,
// - it is no control dependency's target (the node is gone) and the tree has room.
// A value every live reader of which is in that tree (a gelu gradient's `0.5 x dy (1 - t^2)`,
// read twice by the bias gradient's tree) is `internal`: computed once there, never written.
// Decided from the last node back, so a reader's own membership is known (an extra output's
// reader may be an extra output of a bigger tree: an LSTM's gates -> its state -> h).
std::vector<int> extra_outputs(const Graph& g, const Readers& readers, const std::vector<char>& cand,
                               const std::vector<char>& is_bt, const std::vector<char>& absorbed,
                               const std::vector<int64_t>& red_mid, std::vector<char>* internal) {
  const int n = g.num_nodes();
  std::vector<int> root_of(n, -1), count(n, 0);
  std::vector<std::vector<std::pair<int, int>>> edges(n);  // (reader, input index), all readers
  for (int c = 0; c < n; ++c)
    for (size_t k = 0; k < g.node(c).inputs.size(); ++k)
      edges[g.node(c).inputs[k].node].emplace_back(c, static_cast<int>(k));
  auto live_edges = [&](int x) {
    return std::count_if(edges[x].begin(), edges[x].end(),
                         [&](const std::pair<int, int>& e) { return readers.live[e.first]; });
  };
  // The root of the tree node x is computed in (x itself when it is not a member), or -1 when
  // x is a member of several trees (a shared subtree each recomputes) or one a left-behind node
  // reads too (it is kept as a copy as well).
  auto chain_root = [&](int x) {
    for (;;) {
      if (root_of[x] >= 0) return root_of[x];
      if (!absorbed[x])
        return (cand[x] && !is_bt[x] && g.node(x).outputs[0].dtype == DType::Float32) || red_mid[x] > 0 ? x : -1;
      if (readers.uses[x] != 1 || live_edges(x) != 1 || readers.pinned[x]) return -1;
      x = readers.consumer[x];
    }
  };
  // The root of the tree a member-to-be read by c (as input k) would be in, or -1.
  auto tree_of = [&](int i, int c, int k) {
    const Node& cn = g.node(c);
    const bool elementwise = cand[c] && !is_bt[c] && fused_opcode(cn) != fused::kCastBool &&
                             cn.outputs[0].shape == g.node(i).outputs[0].shape;
    if (!readers.live[c] || !(elementwise || (red_mid[c] > 0 && k == 0))) return -1;
    return chain_root(c);
  };
  // Where reader r runs: its tree's root, or r itself (materialised, or recomputed by several
  // trees, all after it).
  auto runs_at = [&](int r) {
    const int root = readers.live[r] ? chain_root(r) : -1;
    return root >= 0 ? root : r;
  };
  for (int i = n - 1; i >= 0; --i) {
    const Node& node = g.node(i);
    const int code = fused_opcode(node);
    if (!cand[i] || is_bt[i] || absorbed[i] || code < 0 || fused::is_comparison(code) || !readers.live[i] ||
        readers.control_target[i] || node.outputs[0].dtype != DType::Float32)
      continue;
    int best = -1;
    for (size_t e = 0; e < edges[i].size(); ++e) {
      const int root = tree_of(i, edges[i][e].first, edges[i][e].second);
      if (root >= 0 && count[root] < kMaxExtra && (best < 0 || root < best)) best = root;
    }
    if (best < 0) continue;
    // Other readers in the same tree read the one instruction (computed once); dead readers
    // never run (the rewrite drops them).
    bool ok = true, inside = !readers.pinned[i];
    for (size_t e = 0; e < edges[i].size() && ok; ++e) {
      const auto [r, k] = edges[i][e];
      const bool same = tree_of(i, r, k) == best;
      ok = !readers.live[r] || same || runs_at(r) > best;
      inside &= !readers.live[r] || same;
    }
    if (!ok) continue;
    root_of[i] = best;
    (*internal)[i] = inside;  // read only inside the tree: computed once there, never written
    ++count[best];
  }
  return root_of;
}

}  // namespace

std::shared_ptr<Graph> fuse_elementwise_or_null(const Graph& g) {
  const int n = g.num_nodes();
  const Readers readers(g);
  const std::vector<int>& uses = readers.uses;
  const std::vector<char>& pinned = readers.pinned;
  std::vector<char> cand(n, 0), absorbed(n, 0), has_member(n, 0), is_bt(n, 0);
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    if (transparent_broadcast(g, node)) {  // absorbed by its readers' trees, never a root
      cand[i] = is_bt[i] = 1;
      continue;
    }
    int code = fused_opcode(node);
    if (code < 0 || node.outputs.size() != 1 || !node.outputs[0].shape.has_rank() ||
        node.outputs[0].shape.num_elements() < 0)
      continue;
    // Comparisons give bool: fusable only into the bool->float Cast using them (checked below).
    DType out_dtype = fused::is_comparison(code) ? DType::Bool : DType::Float32;
    if (node.outputs[0].dtype != out_dtype) continue;
    // An n-ary sum (AddN, the gradient of a value read several times) is a chain of adds.
    const bool nary_sum = code == fused::kAdd && node.inputs.size() > 2;
    if (node.inputs.size() != (fused::is_binary(code) ? 2u : 1u) && !nary_sum) continue;
    // An op laid out by data_format (BiasAdd) broadcasts as the fused rule does only in NHWC.
    if (node.attrs.get_or("data_format", std::string("NHWC")) != "NHWC") continue;
    bool ok = true;
    if (code == fused::kCastBool) {  // its input must be a comparison it absorbs
      const NodeOutput& in = node.inputs[0];
      const Node& src = g.node(in.node);
      ok = cand[in.node] && fused::is_comparison(fused_opcode(src)) && uses[in.node] == 1 && !pinned[in.node] &&
           src.outputs[0].shape == node.outputs[0].shape;
    } else {
      for (const NodeOutput& in : node.inputs) {
        const TensorSpec& s = g.node(in.node).outputs.at(in.index);
        int64_t div, mod;
        ok = ok && static_float(s) && broadcast_rule(s.shape, node.outputs[0].shape, &div, &mod);
      }
    }
    cand[i] = ok;
  }
  // A Sum/Mean over one run of axes may end a tree (its input joins it like any reader's).
  std::vector<int64_t> red_mid(n, 0), red_inner(n, 1);
  for (int i = 0; i < n; ++i) red_mid[i] = run_reduction(g, g.node(i), &red_inner[i]);
  // Edges i -> c that may be fused: c is an elementwise candidate of i's shape, or a reduction
  // reading i as its data; a comparison goes only into its Cast (nothing else reads its 0/1s).
  // Only live readers count (Readers): earlier passes leave the nodes they replaced behind.
  std::vector<char> bad_reader(n, 0);
  for (int c = 0; c < n; ++c) {
    const Node& cn = g.node(c);
    if (!readers.live[c]) continue;
    for (size_t k = 0; k < cn.inputs.size(); ++k) {
      int i = cn.inputs[k].node;
      if (i < 0 || !cand[i]) continue;
      bool cmp = fused::is_comparison(fused_opcode(g.node(i)));
      // A BroadcastTo reads nothing fused (it has no instruction) and feeds elementwise readers only.
      bool ok = cand[c] && !is_bt[c] && g.node(i).outputs[0].shape == cn.outputs[0].shape &&
                cmp == (fused_opcode(cn) == fused::kCastBool);
      ok = ok || (red_mid[c] > 0 && k == 0 && !cmp && !is_bt[i]);
      if (!ok) bad_reader[i] = 1;
    }
  }
  // In index (topological) order, so a node's inputs are decided before it. Only cheap ops are
  // recomputed (XLA's rule): a shared exp, tanh, division or root is computed once. And only a
  // subtree reading at most one full-size tensor (plus broadcast ones): each reader re-reads its
  // inputs, so `x - mean` costs a reader what reading it materialised would, while a shared
  // `a + b` or `dy * x` (an AddN of gradients, a batch norm's backward terms) would be read twice
  // over by every reader (perf5g: the ResNet step's fused kernels ran 40% more instructions).
  std::vector<int> size(n, 0);
  std::vector<char> costly(n, 0);
  std::vector<std::vector<NodeOutput>> full(n);  // distinct full-size inputs read, at most 2 kept
  auto add_full = [](std::vector<NodeOutput>& to, const NodeOutput& o) {
    for (const NodeOutput& q : to)
      if (q.node == o.node && q.index == o.index) return;
    if (to.size() < 2) to.push_back(o);
  };
  for (int i = 0; i < n; ++i) {
    if (!cand[i]) continue;
    const int code = fused_opcode(g.node(i));
    // A transparent BroadcastTo: no instruction; an n-ary sum: one add fewer than its inputs.
    size[i] = code < 0 ? 0 : std::max(1, static_cast<int>(g.node(i).inputs.size()) - 1);
    costly[i] = fused::is_costly(code);
    for (const NodeOutput& in : g.node(i).inputs)
      if (absorbed[in.node]) {
        size[i] += size[in.node];
        costly[i] |= costly[in.node];
        for (const NodeOutput& q : full[in.node]) add_full(full[i], q);
      } else if (g.node(in.node).outputs.at(in.index).shape == g.node(i).outputs[0].shape) {
        add_full(full[i], in);
      }
    bool cmp = fused::is_comparison(code);
    if (pinned[i] || bad_reader[i] || uses[i] < 1 ||
        (uses[i] > 1 && (cmp || costly[i] || size[i] > kDupMax || full[i].size() > 1)))
      continue;
    absorbed[i] = 1;
  }
  std::vector<char> internal(n, 0);
  const std::vector<int> extra_root = extra_outputs(g, readers, cand, is_bt, absorbed, red_mid, &internal);
  std::vector<char> is_extra(n, 0), member(n, 0);
  for (int i = 0; i < n; ++i) {
    is_extra[i] = extra_root[i] >= 0;
    member[i] = absorbed[i] || is_extra[i];
  }
  for (int c = 0; c < n; ++c)
    for (const NodeOutput& in : g.node(c).inputs)
      if (member[in.node]) has_member[c] = 1;
  bool any = false;
  // A lone binary op that broadcasts an operand (a row's `x - mean(x)`) is a tree of its own: the
  // fused kernel reads a per-row or per-column operand once per run of elements, where the
  // binary kernel's general broadcast walks indices element by element.
  auto lone_broadcast = [&](int i) {
    const Node& node = g.node(i);
    const int code = fused_opcode(node);
    if (!cand[i] || is_bt[i] || !fused::is_binary(code) || fused::is_comparison(code)) return false;
    for (const NodeOutput& in : node.inputs)
      if (g.node(in.node).outputs.at(in.index).shape != node.outputs[0].shape) return true;
    return false;
  };
  auto is_root = [&](int i) {
    return !member[i] && (has_member[i] || lone_broadcast(i)) && !is_bt[i] &&
           ((cand[i] && g.node(i).outputs[0].dtype == DType::Float32) || red_mid[i] > 0);
  };
  for (int i = 0; i < n && !any; ++i) any = is_root(i);
  if (!any) return nullptr;
  // Members every reader of which is fused are not copied at all; a member some other reader
  // needs (a comparison whose reader is not a Cast, say) stays as well.
  std::vector<char> in_fused(n, 0), all_fused(n, 1);
  for (int i = n - 1; i >= 0; --i) {
    in_fused[i] = is_root(i) || is_extra[i] || (absorbed[i] && all_fused[i]);
    for (const NodeOutput& in : g.node(i).inputs)
      if (!in_fused[i] && readers.live[i]) all_fused[in.node] = 0;
  }
  // Dead nodes (never run) reading a dropped member (an extra output may come after them), directly
  // or through other such nodes: dropped too.
  std::vector<char> drop_dead(n, 0);
  for (int i = 0; i < n; ++i)
    if (!readers.live[i])
      for (const NodeOutput& in : g.node(i).inputs)
        if ((member[in.node] && in_fused[in.node]) || drop_dead[in.node]) drop_dead[i] = 1;
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    if (drop_dead[i]) return true;
    if (!is_root(i)) return member[i] && in_fused[i];  // an extra output's readers come after its root
    std::vector<std::pair<int, int64_t>> extra;
    Node f = emit_tree(g, i, copy, member, extra_root, internal, r, red_mid, red_inner, &extra);
    const int fi = r.target().add_node(std::move(f));
    r.replace_outputs(i, {NodeOutput{fi, 0}});
    for (size_t e = 0; e < extra.size(); ++e)
      r.replace_outputs(extra[e].first, {NodeOutput{fi, static_cast<int>(e + 1)}});
    return true;
  });
}

}  // namespace fn
