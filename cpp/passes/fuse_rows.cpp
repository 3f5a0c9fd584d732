// Row fusion: fused elementwise trees (passes/fuse_elementwise.cpp) and plain Sum/Mean/Max/Min
// nodes that reduce the same rows (the trailing axes), chained through the per-row results they
// broadcast back along the row, become one _FusedRows node (kernels/fused/rows.h) that runs them
// block of rows by block of rows while the rows are in cache: a layer norm's mean, variance and
// normalisation; a hand-written softmax's max, exp-and-sum and division; an RMS norm; the row sums
// of their gradients. Values read outside the group (the mean and variance a gradient reads, a
// graph output) are still written out; the rest lives in block scratch. Same bits as the
// unfused nodes (each stage is computed as its node computes it).
//
// A group starts at a row reduction and takes, in index order, every candidate reading a member
// through an operand that follows the rows (element for element, or one value per row). The
// fused node runs where the group's last member was; the first live node outside the group that
// reads a member closes it (a gradient's first reader of the forward statistics, a loss), so
// every edge into a group comes from before its last member and every edge out of it goes after:
// the graph stays acyclic. The backward row sums then form groups of their own.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include "core/error.h"
#include "kernels/direct/reduce.h"
#include "ops/fused_elementwise.h"
#include "ops/fused_rows.h"
#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

using fused::RowStage;

// Longest row a group takes: a block holds at least one row of every full-size value in scratch,
// and a single long row (a loss summed over a whole tensor) would run on one thread.
constexpr int64_t kMaxRow = int64_t{1} << 16;

// Smallest group made a row program by default: the gain is memory passes saved, and values
// that fit a core's L2 (1 MiB here) are re-read from it about as fast as the row program's
// per-block set-up costs (measured: 512x128 layer norms and their gradients 0.85-0.99x,
// 1024x256 1.09-1.31x, docs/notes/perf12r.md). FN_FUSE_ROWS=1 fuses every size (the tests).
constexpr int64_t kMinGroupElements = int64_t{1} << 17;

// What a node would be as a stage: none (kind 0), an elementwise program over n elements
// (kind 1), or a reduction of rows of `len` (kind 2; n = rows * len, its input's elements).
struct Cand {
  int kind = 0;
  int reduce = RowStage::kNone;
  bool plain = false;  // a Sum/Mean/Max/Min node (its input 0 is the data)
  int64_t n = 0, len = 0;
  std::vector<fused::Instr> prog;                 // the stage's program
  std::vector<std::pair<int64_t, int64_t>> rule;  // (div, mod) per input the program reads
  std::vector<int> extra;                         // instructions written as outputs 1, 2, ...
};

bool static_float(const TensorSpec& s) {
  return s.dtype == DType::Float32 && s.shape.has_rank() && s.shape.num_elements() > 0;
}

// A lone float32 elementwise op left unfused (a row-level add of two row sums in a layer norm's
// gradient): a one-instruction program (an n-ary sum: AddN's chain ((a + b) + c) + ...).
Cand plain_elementwise(const Graph& g, const Node& node) {
  Cand c;
  const int code = fused_opcode(node);
  if (code < 0 || fused::is_comparison(code) || code == fused::kCastBool || is_broadcast_view(node) ||
      node.outputs.size() != 1 || !static_float(node.outputs[0]) ||
      node.attrs.get_or("data_format", std::string("NHWC")) != "NHWC")
    return c;
  const size_t ni = node.inputs.size();
  if (ni != (fused::is_binary(code) ? 2u : 1u) && !(code == fused::kAdd && ni > 2)) return c;
  for (const NodeOutput& in : node.inputs) {
    int64_t div, mod;
    const TensorSpec& s = g.node(in.node).outputs.at(static_cast<size_t>(in.index));
    if (!static_float(s) || !broadcast_rule(s.shape, node.outputs[0].shape, &div, &mod)) return Cand{};
    c.rule.emplace_back(div, mod);
  }
  c.prog.push_back(fused::Instr{code, 0, ni > 1 ? 1 : 0});
  for (size_t k = 2; k < ni; ++k)
    c.prog.push_back(fused::Instr{fused::kAdd, -static_cast<int>(k - 1), static_cast<int>(k)});
  c.kind = 1;
  c.n = node.outputs[0].shape.num_elements();
  return c;
}

// A Sum/Mean/Max/Min over trailing axes of a static float32 input, with constant axes.
Cand plain_reduction(const Graph& g, const Node& node) {
  Cand c;
  const int kind = node.op == "Sum"    ? RowStage::kSum
                   : node.op == "Mean" ? RowStage::kMean
                   : node.op == "Max"  ? RowStage::kMax
                   : node.op == "Min"  ? RowStage::kMin
                                       : RowStage::kNone;
  if (kind == RowStage::kNone || node.inputs.size() != 2 || node.outputs.size() != 1) return c;
  const TensorSpec& x = g.node(node.inputs[0].node).outputs.at(node.inputs[0].index);
  const Node& axes = g.node(node.inputs[1].node);
  if (!static_float(x) || !static_float(node.outputs[0]) || !is_constant(axes) || node.inputs[1].index != 0 ||
      !axes.attrs.has("value"))
    return c;
  const EagerPtr& v = axes.attrs.get<EagerPtr>("value");
  const int rank = x.shape.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t k = 0; k < v->num_elements(); ++k) {
    const int64_t a = v->dtype() == DType::Int32   ? v->data<int32_t>()[k]
                      : v->dtype() == DType::Int64 ? v->data<int64_t>()[k]
                                                   : INT64_MIN;
    if (a < -rank || a >= rank || reduced[static_cast<size_t>(a < 0 ? a + rank : a)])
      return c;  // the kernel reports it
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  int64_t outer, mid, inner;
  if (!direct::contiguous_reduction(x.shape.dims(), reduced, &outer, &mid, &inner) || mid <= 0 || inner != 1 ||
      mid > kMaxRow)
    return c;
  c.kind = 2;
  c.reduce = kind;
  c.plain = true;
  c.n = x.shape.num_elements();
  c.len = mid;
  c.prog.push_back(fused::Instr{fused::kCastBool, 0, 0});  // the identity: the data as it is
  c.rule.emplace_back(1, c.n);
  return c;
}

Cand candidate(const Graph& g, const Node& node) {
  if (node.def != &fused_elementwise_op()) {
    Cand c = plain_reduction(g, node);
    return c.kind ? c : plain_elementwise(g, node);
  }
  Cand c;
  const Shape& shape = node.attrs.get<Shape>("shape");
  if (!shape.has_rank() || shape.num_elements() <= 0) return c;
  c.n = shape.num_elements();
  c.kind = 1;
  const auto& prog = node.attrs.get<std::vector<int64_t>>("program");
  for (size_t i = 0; i + 2 < prog.size(); i += 3)
    c.prog.push_back(
        fused::Instr{static_cast<int>(prog[i]), static_cast<int>(prog[i + 1]), static_cast<int>(prog[i + 2])});
  const auto& bcast = node.attrs.get<std::vector<int64_t>>("bcast");
  for (size_t i = 0; i + 1 < bcast.size(); i += 2) c.rule.emplace_back(bcast[i], bcast[i + 1]);
  if (c.rule.size() != node.inputs.size()) return Cand{};
  if (node.attrs.has("extra_outputs"))
    for (int64_t e : node.attrs.get<std::vector<int64_t>>("extra_outputs")) c.extra.push_back(static_cast<int>(e));
  if (node.attrs.has("reduce")) {
    const auto& r = node.attrs.get<std::vector<int64_t>>("reduce");
    // A column reduction stays; so does a row longer than kMaxRow (a loss over a whole tensor).
    if (r.size() != 2 || r[1] <= 0 || r[1] > kMaxRow || c.n % r[1] != 0) return Cand{};
    c.kind = 2;
    c.reduce = static_cast<int>(r[0]);
    c.len = r[1];
  }
  return c;
}

struct Group {
  int64_t rows = 0, len = 0;  // until a reduction joins (fixed false): the elements, and len 1
  bool fixed = false;
  std::vector<int> members;  // in index order
};

// Output e of a member: one value per row (a reduction's result, a row-level program's values).
bool member_row_output(const Cand& c, int64_t rows, int64_t len, int e) {
  const bool row_level = c.kind == 1 && c.n == rows && c.n != rows * len;
  return e == 0 ? c.kind == 2 || row_level : row_level;
}

// (div, mod) by which member c reads its input k.
std::pair<int64_t, int64_t> rule(const Cand& c, size_t k) { return c.rule.at(k); }

// Whether c may join group gr: its elements follow gr's rows, and every operand it reads from a
// member follows them too (a per-row value broadcast along the row, or a value element for element).
bool fits(const Graph& g, const std::vector<Cand>& cand, const std::vector<int>& group_of, int gid, const Group& gr,
          int c) {
  const Cand& cc = cand[static_cast<size_t>(c)];
  int64_t rows = gr.rows, len = gr.len;
  if (!gr.fixed) {  // full-size programs so far: any row length that divides them
    if (cc.n != rows) return false;
    if (cc.kind == 2) {
      rows = cc.n / cc.len;
      len = cc.len;
    }
  }
  if (cc.kind == 2 && (cc.len != len || cc.n != rows * len)) return false;
  if (cc.kind == 1 && cc.n != rows * len && cc.n != rows) return false;
  const bool row_level = cc.kind == 1 && cc.n == rows && cc.n != rows * len;
  const Node& node = g.node(c);
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const NodeOutput& in = node.inputs[k];
    if (group_of[static_cast<size_t>(in.node)] != gid) continue;
    if (cc.plain && k != 0) return false;
    const auto [div, mod] = rule(cc, k);
    const bool from_row = member_row_output(cand[static_cast<size_t>(in.node)], rows, len, in.index);
    const bool ok = from_row ? mod == rows && (div == (row_level ? 1 : len) || mod == 1)
                             : !row_level && div == 1 && mod == rows * len;
    if (!ok) return false;
  }
  return true;
}

// Groups in index order. A group closes at the first live node outside it that reads a member
// (the group's node runs before that reader); later candidates may start a new group. A group
// started by full-size programs takes its rows from the first reduction joining it.
std::vector<Group> make_groups(const Graph& g, const Readers& readers, const std::vector<Cand>& cand,
                               std::vector<int>* group_of) {
  const int n = g.num_nodes();
  std::vector<Group> groups;
  std::vector<char> closed;
  std::vector<int> open;          // groups no outside node has read yet, oldest first
  constexpr size_t kMaxOpen = 8;  // a candidate reading no member tries the newest few
  for (int c = 0; c < n; ++c) {
    if (!readers.live[c]) continue;
    const Cand& cc = cand[static_cast<size_t>(c)];
    int joined = -1;
    auto try_join = [&](int gid) {
      if (joined < 0 && gid >= 0 && !closed[static_cast<size_t>(gid)] &&
          fits(g, cand, *group_of, gid, groups[static_cast<size_t>(gid)], c))
        joined = gid;
    };
    if (cc.kind != 0) {
      // A group it reads first; else any open group of its rows: no node outside an open group
      // reads its members yet, so none of c's inputs depends on it (no cycle).
      for (const NodeOutput& in : g.node(c).inputs) try_join((*group_of)[static_cast<size_t>(in.node)]);
      for (size_t k = 0; k < open.size() && k < kMaxOpen; ++k) try_join(open[open.size() - 1 - k]);
      if (joined < 0) {
        joined = static_cast<int>(groups.size());
        groups.push_back(Group{cc.n, 1, false, {}});
        closed.push_back(0);
        open.push_back(joined);
      }
      Group& gr = groups[static_cast<size_t>(joined)];
      if (!gr.fixed && cc.kind == 2) {
        gr.rows = cc.n / cc.len;
        gr.len = cc.len;
        gr.fixed = true;
      }
    }
    for (const NodeOutput& in : g.node(c).inputs) {
      const int gid = (*group_of)[static_cast<size_t>(in.node)];
      if (gid >= 0 && gid != joined && !closed[static_cast<size_t>(gid)]) {
        closed[static_cast<size_t>(gid)] = 1;
        open.erase(std::find(open.begin(), open.end(), gid));
      }
    }
    if (joined < 0) continue;
    (*group_of)[static_cast<size_t>(c)] = joined;
    groups[static_cast<size_t>(joined)].members.push_back(c);
  }
  for (Group& gr : groups) {
    bool any_reduce = false;
    for (int x : gr.members) any_reduce |= cand[static_cast<size_t>(x)].kind == 2;
    if (gr.members.size() < 2 || !any_reduce) {  // nothing to gain: leave it as it was
      for (int x : gr.members) (*group_of)[static_cast<size_t>(x)] = -1;
      gr.members.clear();
    }
  }
  return groups;
}

// The _FusedRows node of group gr; *outs: (member, output) pairs in output order.
Node emit_group(const Graph& g, const Readers& readers, const std::vector<Cand>& cand, const std::vector<int>& group_of,
                int gid, const Group& gr, const Rewriter& rw, std::vector<std::pair<int, int>>* outs) {
  std::map<int, int> stage_of;
  std::map<std::pair<int, int>, int> ext_index;
  std::vector<NodeOutput> ext;
  std::vector<RowStage> stages;
  std::vector<int64_t> out_dims;
  Node f;
  for (int p : gr.members) {
    const Node& node = g.node(p);
    const Cand& c = cand[static_cast<size_t>(p)];
    RowStage s;
    s.row_level = c.kind == 1 && c.n == gr.rows && c.n != gr.rows * gr.len;
    s.reduce = c.kind == 2 ? c.reduce : RowStage::kNone;
    const size_t num_inputs = c.rule.size();
    s.prog = c.prog;
    s.extra = c.extra;
    for (size_t k = 0; k < num_inputs; ++k) {
      const NodeOutput& in = node.inputs[k];
      const auto [div, mod] = rule(c, k);
      if (group_of[static_cast<size_t>(in.node)] == gid) {
        s.inputs.push_back(RowStage::Input{stage_of.at(in.node), in.index, div, mod});
        continue;
      }
      const NodeOutput m = rw.outputs_of(in.node).at(static_cast<size_t>(in.index));
      auto it = ext_index.find({m.node, m.index});
      if (it == ext_index.end()) {
        it = ext_index.emplace(std::make_pair(m.node, m.index), static_cast<int>(ext.size())).first;
        ext.push_back(m);
      }
      s.inputs.push_back(RowStage::Input{-1, it->second, div, mod});
    }
    // An output read outside the group (or the graph's) is written out; the rest stays in scratch.
    std::vector<char> outside(node.outputs.size(), static_cast<char>(readers.pinned[p]));
    for (int r = p + 1; r < g.num_nodes(); ++r)
      if (readers.live[r] && group_of[static_cast<size_t>(r)] != gid)
        for (const NodeOutput& in : g.node(r).inputs)
          if (in.node == p) outside[static_cast<size_t>(in.index)] = 1;
    for (size_t e = 0; e < node.outputs.size(); ++e) {
      s.out.push_back(outside[e] ? static_cast<int>(outs->size()) : -1);
      if (!outside[e]) continue;
      outs->emplace_back(p, static_cast<int>(e));
      f.outputs.push_back(node.outputs[e]);
      const Shape& sh = node.outputs[e].shape;
      out_dims.push_back(sh.rank());
      out_dims.insert(out_dims.end(), sh.dims().begin(), sh.dims().end());
    }
    stage_of[p] = static_cast<int>(stages.size());
    stages.push_back(std::move(s));
  }
  f.op = fused_rows_op().name;
  f.def = &fused_rows_op();
  f.name = g.node(gr.members.back()).name + "/rows";
  f.inputs = std::move(ext);
  f.attrs.set("rows", std::vector<int64_t>{gr.rows, gr.len});
  f.attrs.set("stages", encode_row_stages(stages));
  f.attrs.set("out_dims", std::move(out_dims));
  f.defined_at = g.node(gr.members.back()).defined_at;
  return f;
}

}  // namespace

std::shared_ptr<Graph> fuse_rows_or_null(const Graph& g) {
  // FN_FUSE_ROWS=0 leaves the graph as the earlier passes made it (A/B in one build; the tests'
  // unfused reference). Read per graph, so a test may set it around one trace.
  const char* knob = std::getenv("FN_FUSE_ROWS");
  if (knob && std::string(knob) == "0") return nullptr;
  const int64_t min_elements = knob && std::string(knob) == "1" ? 0 : kMinGroupElements;
  const int n = g.num_nodes();
  const Readers readers(g);
  std::vector<Cand> cand(static_cast<size_t>(n));
  bool any = false;
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    if (!readers.live[i] || readers.control_target[i] || !node.control_inputs.empty()) continue;
    cand[static_cast<size_t>(i)] = candidate(g, node);
    any |= cand[static_cast<size_t>(i)].kind == 2;
  }
  if (!any) return nullptr;
  std::vector<int> group_of(static_cast<size_t>(n), -1);
  std::vector<Group> groups = make_groups(g, readers, cand, &group_of);
  any = false;
  for (Group& gr : groups) {
    int64_t widest = 0;
    for (int m : gr.members) widest = std::max(widest, cand[static_cast<size_t>(m)].n);
    if (widest < min_elements) {
      for (int m : gr.members) group_of[static_cast<size_t>(m)] = -1;
      gr.members.clear();
    }
    any |= !gr.members.empty();
  }
  if (!any) return nullptr;
  // A member a left-behind node reads (passes leave the nodes they replaced behind, reading their
  // inputs; Plan::compile prunes them) is copied as well, with the members it reads, so that node
  // still reads something; only live readers see the group's outputs.
  std::vector<char> keep(static_cast<size_t>(n), 0);
  for (int r = n - 1; r >= 0; --r)
    for (const NodeOutput& in : g.node(r).inputs) {
      const int gid = group_of[static_cast<size_t>(in.node)];
      if (gid >= 0 && (group_of[static_cast<size_t>(r)] == gid ? keep[static_cast<size_t>(r)] : !readers.live[r]))
        keep[static_cast<size_t>(in.node)] = 1;
    }
  Rewriter rw(g);
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    const int gid = group_of[static_cast<size_t>(i)];
    if (gid < 0) return false;
    const Group& gr = groups[static_cast<size_t>(gid)];
    if (i != gr.members.back()) return !keep[static_cast<size_t>(i)];  // computed in the group's node
    std::vector<std::pair<int, int>> outs;
    Node f = emit_group(g, readers, cand, group_of, gid, gr, r, &outs);
    const int fi = r.target().add_node(std::move(f));
    const int kept = keep[static_cast<size_t>(i)] ? r.target().add_node(copy) : -1;
    std::map<int, std::vector<NodeOutput>> replaced;
    for (size_t o = 0; o < outs.size(); ++o) {
      const int p = outs[o].first;
      auto it = replaced.find(p);
      if (it == replaced.end()) {
        std::vector<NodeOutput> v(g.node(p).outputs.size(), NodeOutput{-1, 0});
        if (p == i && kept >= 0)
          for (size_t e = 0; e < v.size(); ++e) v[e] = NodeOutput{kept, static_cast<int>(e)};
        else if (keep[static_cast<size_t>(p)])
          v = r.outputs_of(p);
        it = replaced.emplace(p, std::move(v)).first;
      }
      it->second[static_cast<size_t>(outs[o].second)] = NodeOutput{fi, static_cast<int>(o)};
    }
    if (kept >= 0 && !replaced.count(i)) {
      std::vector<NodeOutput> v;
      for (size_t e = 0; e < g.node(i).outputs.size(); ++e) v.push_back(NodeOutput{kept, static_cast<int>(e)});
      replaced.emplace(i, std::move(v));
    }
    for (auto& [node, v] : replaced) r.replace_outputs(node, std::move(v));
    return true;
  });
}

}  // namespace fn
