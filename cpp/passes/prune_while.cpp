// Dead loop variables: a While output nobody reads, whose loop variable feeds nothing in the
// body but its own (or other dead variables') next values, no stateful op and not the
// condition, is dropped from the loop. A While gradient carries one sum per capture; the ones
// no caller asked for (an RNN's inputs xs[t]: a [T, B, D] StridedSliceGrad and sum per
// iteration) would otherwise be computed every iteration. Grappler does the same for TF.
#include <algorithm>

#include "ops/control_flow.h"
#include "ops/op.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool is_while(const Node& n) { return n.def && n.def->control_flow == ControlFlow::Loop; }

// Narrows `dead` (loop var k is a candidate) to the vars that can go together: var k's
// placeholder reaches, in the body, only outputs of candidates and no stateful node, and the
// condition does not read it.
void narrow(const Graph& cond, const Graph& body, std::vector<char>& dead) {
  const size_t n = dead.size();
  for (size_t k = 0; k < n; ++k) {
    int p = cond.arg_placeholders[k];
    for (const Node& node : cond.nodes())
      for (const NodeOutput& in : node.inputs)
        if (in.node == p) dead[k] = 0;
    for (const NodeOutput& o : cond.outputs)
      if (o.node == p) dead[k] = 0;
  }
  const int m = body.num_nodes();
  std::vector<std::vector<int>> users(m), outputs_of(m);
  for (int i = 0; i < m; ++i) {
    for (const NodeOutput& in : body.node(i).inputs) users[in.node].push_back(i);
    for (int c : body.node(i).control_inputs) users[c].push_back(i);
  }
  for (size_t q = 0; q < body.outputs.size(); ++q) outputs_of[body.outputs[q].node].push_back(static_cast<int>(q));
  std::vector<char> stateful(m, 0);
  for (int s : body.stateful_nodes) stateful[s] = 1;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < n; ++k) {
      if (!dead[k]) continue;
      std::vector<char> seen(m, 0);
      std::vector<int> work{body.arg_placeholders[k]};
      bool ok = true;
      while (!work.empty() && ok) {
        int v = work.back();
        work.pop_back();
        if (seen[v]) continue;
        seen[v] = 1;
        if (stateful[v]) ok = false;
        for (int q : outputs_of[v])
          if (q >= static_cast<int>(n) || !dead[q]) ok = false;
        for (int u : users[v]) work.push_back(u);
      }
      if (!ok) {
        dead[k] = 0;
        changed = true;
      }
    }
  }
}

// `g` without the loop vars `dead` (arg placeholders, and outputs when `outputs` is set). The
// dropped placeholders stay as unused nodes for Plan::compile to prune.
std::shared_ptr<Graph> drop_vars(const Graph& g, const std::vector<char>& dead, bool outputs) {
  auto c = copy_graph(g);
  std::vector<int> args;
  std::vector<NodeOutput> outs;
  for (size_t k = 0; k < dead.size(); ++k)
    if (!dead[k]) {
      args.push_back(g.arg_placeholders[k]);
      if (outputs) outs.push_back(g.outputs[k]);
    }
  c->arg_placeholders = std::move(args);
  if (outputs) c->outputs = std::move(outs);
  return c;
}

template <typename T>
std::vector<T> keep(const std::vector<T>& v, const std::vector<char>& dead) {
  std::vector<T> r;
  for (size_t k = 0; k < v.size(); ++k)
    if (k >= dead.size() || !dead[k]) r.push_back(v[k]);
  return r;
}

// One sweep; sets *changed when a While lost loop vars.
std::shared_ptr<Graph> prune_once(const Graph& g, bool* changed) {
  auto out = copy_graph(g);
  const int num = g.num_nodes();
  std::vector<std::vector<char>> used(num);
  for (int i = 0; i < num; ++i) used[i].assign(g.node(i).outputs.size(), 0);
  for (const Node& node : g.nodes())
    for (const NodeOutput& in : node.inputs) used[in.node][in.index] = 1;
  for (const NodeOutput& o : g.outputs) used[o.node][o.index] = 1;
  for (int i = 0; i < num; ++i) {
    const Node& w = g.node(i);
    if (!is_while(w)) continue;
    auto cond = w.attrs.get<std::shared_ptr<Graph>>("cond");
    auto body = w.attrs.get<std::shared_ptr<Graph>>("body");
    if (!cond || !body) continue;
    const size_t n = body->arg_placeholders.size();
    if (cond->arg_placeholders.size() != n || body->outputs.size() != n || w.outputs.size() != n || w.inputs.size() < n)
      continue;
    std::vector<char> dead(n, 0);
    bool any = false;
    for (size_t k = 0; k < n; ++k) any |= (dead[k] = !used[i][k]);
    if (!any) continue;
    narrow(*cond, *body, dead);
    if (std::find(dead.begin(), dead.end(), 1) == dead.end()) continue;
    *changed = true;
    Node& nw = out->mutable_node(i);
    nw.inputs = keep(nw.inputs, dead);  // nw: already remapped by earlier Whiles
    nw.outputs = keep(nw.outputs, dead);
    nw.attrs.set("cond", drop_vars(*cond, dead, false));
    nw.attrs.set("body", drop_vars(*body, dead, true));
    if (const AttrValue* t = w.attrs.find("T"))
      if (auto* v = std::get_if<std::vector<DType>>(t)) nw.attrs.set("T", keep(*v, dead));
    if (const AttrValue* s = w.attrs.find("output_shapes"))
      if (auto* v = std::get_if<std::vector<Shape>>(s)) nw.attrs.set("output_shapes", keep(*v, dead));
    auto cache = std::make_shared<SubgraphCache>();
    cache->compiled.resize(2);
    nw.attrs.set("_compiled", std::shared_ptr<HostObject>(cache));
    std::vector<int> index(n, -1);
    for (size_t k = 0, j = 0; k < n; ++k)
      if (!dead[k]) index[k] = static_cast<int>(j++);
    for (int j = i + 1; j < num; ++j)
      for (NodeOutput& in : out->mutable_node(j).inputs)
        if (in.node == i) in.index = index[in.index];
    for (NodeOutput& o : out->outputs)
      if (o.node == i) o.index = index[o.index];
  }
  return out;
}

}  // namespace

std::shared_ptr<Graph> prune_while_loop_vars(const Graph& g) {
  // Again until nothing changes: dropping a backward loop's input can leave the forward
  // loop's output that fed it unread (an accumulator nobody pops).
  bool changed = false;
  auto out = prune_once(g, &changed);
  for (int round = 0; changed && round < 8; ++round) {
    changed = false;
    out = prune_once(*out, &changed);
  }
  return out;
}

}  // namespace fn
