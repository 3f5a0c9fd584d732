#include "autodiff/backward.h"

#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "trace/context.h"
#include "ops/op.h"

namespace fn {

namespace {

// Gradient pieces per tensor, summed (AddN) when read.
class Accumulator {
 public:
  void add(const TensorPtr& t, TensorPtr g) {
    if (!g) return;
    auto& v = pieces_[t.get()];
    v.push_back(std::move(g));
  }
  // The total gradient of t (nullptr: none); the sum replaces the pieces.
  TensorPtr total(const Tensor* t) {
    auto it = pieces_.find(t);
    if (it == pieces_.end() || it->second.empty()) return nullptr;
    auto& v = it->second;
    if (v.size() > 1) {
      // TensorList gradients (a TensorArray's) add elementwise through AddN.
      bool add2 = v.size() == 2 && v[0]->dtype() != DType::Variant;
      TensorPtr sum =
          add2 ? dispatch1("AddV2", {v[0], v[1]}) : dispatch1("AddN", v, Attrs{{"N", static_cast<int64_t>(v.size())}});
      v.assign(1, sum);
    }
    return v[0];
  }

 private:
  std::unordered_map<const Tensor*, std::vector<TensorPtr>> pieces_;
};

}  // namespace

std::vector<TensorPtr> compute_gradients(const std::vector<TapeEntry>& entries, const Tape& tape,
                                         const GradientRequest& req) {
  // Tensors that depend on a watched floating source (forward sweep): only their producers'
  // rules run, and only they receive gradient pieces.
  // A source that is itself a target gets the target's seed even if unwatched (TF).
  std::unordered_set<const Tensor*> targets;
  for (const auto& t : req.targets)
    if (t) targets.insert(t.get());
  auto counts = [&](const TensorPtr& s) { return tape.is_watched(s.get()) || targets.count(s.get()); };
  std::unordered_set<const Tensor*> live;
  for (const auto& s : req.sources)
    if (s && counts(s) && (is_differentiable(s->dtype()) || s->dtype() == DType::Resource)) live.insert(s.get());
  std::vector<char> relevant(entries.size(), 0);
  for (size_t i = 0; i < entries.size(); ++i) {
    for (const auto& in : entries[i].inputs)
      if (in && live.count(in.get())) {
        relevant[i] = 1;
        break;
      }
    if (relevant[i])
      for (const auto& out : entries[i].outputs)
        if (out) live.insert(out.get());
  }

  Accumulator acc;
  for (size_t i = 0; i < req.targets.size(); ++i) {
    const TensorPtr& t = req.targets[i];
    TensorPtr seed = i < req.output_gradients.size() ? req.output_gradients[i] : nullptr;
    // A variable's handle is a target when the variable itself is (its seed comes from Python).
    bool differentiable = t && (is_differentiable(t->dtype()) || (t->dtype() == DType::Resource && seed));
    if (!differentiable || !live.count(t.get())) continue;
    if (!seed) seed = dispatch1("OnesLike", {t});
    acc.add(t, seed);
  }

  // A tensor object recorded as the output of two entries (a kernel returning a cached
  // object) takes its gradient through the latest one only.
  std::unordered_set<const Tensor*> consumed;
  for (size_t k = entries.size(); k-- > 0;) {
    if (!relevant[k]) continue;
    const TapeEntry& e = entries[k];
    std::vector<TensorPtr> out_grads(e.outputs.size());
    bool any = false;
    for (size_t j = 0; j < e.outputs.size(); ++j) {
      const TensorPtr& out = e.outputs[j];
      // TensorLists (TensorArrays) carry their elements' gradients.
      if (out && (is_differentiable(out->dtype()) || out->dtype() == DType::Variant) &&
          consumed.insert(out.get()).second)
        out_grads[j] = acc.total(out.get());
      any |= out_grads[j] != nullptr;
    }
    if (!any || !e.op->grad) continue;
    GradContext ctx{e.inputs, e.outputs, out_grads, e.attrs};
    std::vector<TensorPtr> in_grads = e.op->grad(ctx);
    for (size_t j = 0; j < e.inputs.size() && j < in_grads.size(); ++j) {
      const TensorPtr& in = e.inputs[j];
      if (in && in_grads[j] && live.count(in.get())) acc.add(in, in_grads[j]);
    }
  }

  std::vector<TensorPtr> result(req.sources.size());
  for (size_t i = 0; i < req.sources.size(); ++i) {
    const TensorPtr& s = req.sources[i];
    if (!s) continue;
    if (live.count(s.get()) && counts(s)) result[i] = acc.total(s.get());
    // Variables' zeros are made in Python, which knows their dtype and shape.
    if (!result[i] && req.unconnected_zero && s->dtype() != DType::Resource) result[i] = dispatch1("ZerosLike", {s});
  }
  return result;
}

std::vector<TensorPtr> symbolic_gradients(GraphBuilder* b, const GradientRequest& req) {
  const Graph& g = *b->graph();
  const int n = g.num_nodes();
  auto check = [&](const TensorPtr& t) {
    if (!t || t->is_eager() || t->graph_id != g.id() || t->node < 0 || t->node >= n)
      throw_error(Code::InvalidArgument,
                  "tf.gradients: every target and source must be a tensor of the "
                  "graph being traced");
  };
  for (const auto& t : req.targets) check(t);
  for (const auto& s : req.sources) check(s);
  // Nodes a gradient flows through: reachable from a source and reaching a target.
  std::vector<char> from_src(n, 0), to_tgt(n, 0);
  for (const auto& s : req.sources) from_src[s->node] = 1;
  for (int i = 0; i < n; ++i)
    for (const NodeOutput& in : g.node(i).inputs)
      if (from_src[in.node]) from_src[i] = 1;
  for (const auto& t : req.targets) to_tgt[t->node] = 1;
  for (int i = n - 1; i >= 0; --i)
    if (to_tgt[i])
      for (const NodeOutput& in : g.node(i).inputs) to_tgt[in.node] = 1;
  auto value = [&](const NodeOutput& o) { return b->symbolic(o.node, o.index); };
  std::vector<std::vector<TensorPtr>> grad(n);
  for (int i = 0; i < n; ++i) grad[i].resize(g.node(i).outputs.size());
  auto add = [&](int node, int index, TensorPtr gr) {
    TensorPtr& slot = grad[node][index];
    slot = slot ? dispatch1("AddV2", {slot, gr}) : std::move(gr);
  };
  for (size_t k = 0; k < req.targets.size(); ++k) {
    const TensorPtr& t = req.targets[k];
    if (!from_src[t->node] || !is_floating(t->dtype())) continue;
    TensorPtr seed = k < req.output_gradients.size() ? req.output_gradients[k] : nullptr;
    add(t->node, t->index, seed ? seed : dispatch1("OnesLike", {t}));
  }
  std::vector<char> is_source(n, 0);
  for (const auto& s : req.sources) is_source[s->node] = 1;
  for (int i = n - 1; i >= 0; --i) {
    if (!from_src[i] || !to_tgt[i]) continue;
    const Node node = g.node(i);  // a copy: gradient rules add nodes (the vector may move)
    if (is_source[i] && node.inputs.empty()) continue;
    bool any = false;
    for (auto& t : grad[i]) any = any || t;
    if (!any || !node.def || !node.def->grad) continue;
    std::vector<TensorPtr> in, out;
    for (const NodeOutput& o : node.inputs) in.push_back(value(o));
    for (size_t k = 0; k < node.outputs.size(); ++k) out.push_back(b->symbolic(i, static_cast<int>(k)));
    GradContext gc{in, out, grad[i], node.attrs};
    std::vector<TensorPtr> in_grads = node.def->grad(gc);
    for (size_t k = 0; k < node.inputs.size() && k < in_grads.size(); ++k) {
      const NodeOutput& o = node.inputs[k];
      if (!in_grads[k] || !from_src[o.node]) continue;
      if (!is_floating(g.node(o.node).outputs[o.index].dtype)) continue;
      add(o.node, o.index, in_grads[k]);
    }
  }
  std::vector<TensorPtr> result(req.sources.size());
  for (size_t k = 0; k < req.sources.size(); ++k) {
    const TensorPtr& s = req.sources[k];
    result[k] = grad[s->node][s->index];
    if (!result[k] && req.unconnected_zero) result[k] = dispatch1("ZerosLike", {s});
  }
  return result;
}

}  // namespace fn
