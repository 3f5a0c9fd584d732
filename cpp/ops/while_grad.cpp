// While's gradient. The forward loop runs again, each iteration writing its loop variables into
// TensorList stacks (one per loop var, TensorFlow's accumulators); a backward While then pops
// them in reverse and backpropagates through the body graph once per iteration
// (graph_gradients), carrying the loop vars' gradients and summing the captures' gradients.
#include "core/error.h"
#include "ops/control_flow.h"
#include "ops/grad_util.h"
#include "ops/op.h"
#include "ops/shape_util.h"
#include "ops/state.h"
#include "trace/context.h"

namespace fn {

namespace {

bool differentiable(DType d) { return is_floating(d) || d == DType::Resource || d == DType::Variant; }
// Loop vars whose gradient is carried: floating values and TensorLists (TensorArrays).
bool carries_gradient(DType d) { return is_floating(d) || d == DType::Variant; }

TensorPtr scalar_i32(int64_t v) { return grad::constant(make_scalar(DType::Int32, static_cast<double>(v))); }

// The shape a gradient loop var can keep: the value's own shape when every gradient that
// flows into it has it, else unknown.
Shape grad_shape(const Shape& own, const std::vector<TensorPtr>& flows) {
  for (const TensorPtr& t : flows)
    if (t && !t->shape().is_subtype_of(own)) return Shape::unknown_rank();
  return own;
}

// `t` as a value of builder `b`'s graph (an Identity of a value computed elsewhere).
NodeOutput local(GraphBuilder& b, TensorPtr t) {
  if (t->is_eager() || t->graph_id != b.graph()->id()) t = dispatch1("Identity", {t});
  return NodeOutput{t->node, t->index};
}

// Runs graph `g` in the current context on `inputs` (bound to its arg then capture
// placeholders) and returns its outputs, then the outputs of nodes `extra`. Only the nodes
// these depend on run, so side effects of the forward loop (prints, assignments) are not repeated.
std::vector<TensorPtr> replay(const Graph& g, const std::vector<TensorPtr>& inputs,
                              const std::vector<int>& extra = {}) {
  std::vector<std::vector<TensorPtr>> value(g.num_nodes());
  std::vector<int> ph = g.arg_placeholders;
  ph.insert(ph.end(), g.capture_placeholders.begin(), g.capture_placeholders.end());
  if (ph.size() != inputs.size()) throw_error(Code::Internal, "while gradient: wrong number of inputs");
  for (size_t k = 0; k < ph.size(); ++k) value[ph[k]] = {inputs[k]};
  std::vector<char> needed(g.num_nodes(), 0);
  for (const NodeOutput& o : g.outputs) needed[o.node] = 1;
  for (int e : extra) needed[e] = 1;
  for (int i = g.num_nodes() - 1; i >= 0; --i)
    if (needed[i])
      for (const NodeOutput& in : g.node(i).inputs) needed[in.node] = 1;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (!value[i].empty() || !needed[i]) continue;
    const Node& node = g.node(i);
    std::vector<TensorPtr> in;
    in.reserve(node.inputs.size());
    for (const NodeOutput& o : node.inputs) in.push_back(value[o.node][o.index]);
    value[i] = dispatch(*node.def, in, node.attrs, node.name);
  }
  std::vector<TensorPtr> out;
  for (const NodeOutput& o : g.outputs) out.push_back(value[o.node][o.index]);
  for (int e : extra) out.insert(out.end(), value[e].begin(), value[e].end());
  return out;
}

// Per node of body graph `g`: whether its value can change from one iteration to the next
// (it depends on a loop var, or on a stateful op other than a variable read).
std::vector<char> varying_nodes(const Graph& g) {
  std::vector<char> v(g.num_nodes(), 0);
  for (int p : g.arg_placeholders) v[p] = 1;
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& node = g.node(i);
    if (node.def && node.def->stateful && node.op != kReadVariableOp) v[i] = 1;
    for (const NodeOutput& in : node.inputs)
      if (v[in.node]) v[i] = 1;
  }
  return v;
}

// The body nodes whose values the gradient graph just built in builder `b` reads (`fv`: the
// forward values graph_gradients used), to be stacked by the forward loop instead of
// recomputed each backward iteration, as TF's While gradient accumulates intermediates: the
// matmuls of an RNN cell are then not run again. Loop vars (stacked anyway), loop-invariant
// values and single-output nodes among the body's outputs (stacked as the next loop vars) are
// left out, and so are nodes with a non-POD output (TensorLists, handles).
std::vector<int> intermediates_to_stack(const Graph& body, const GraphBuilder& b, const ForwardValues& fv) {
  const Graph& pg = *b.graph();
  std::vector<int> owner(pg.num_nodes(), -1);  // a probe node holding a forward value -> its body node
  std::vector<char> forward_node(pg.num_nodes(), 0);
  for (size_t i = 0; i < fv.forward.size(); ++i)
    for (const TensorPtr& t : fv.forward[i])
      if (t && !t->is_eager() && t->graph_id == pg.id() && t->node >= 0 && t->node < pg.num_nodes()) {
        forward_node[t->node] = 1;
        owner[t->node] = static_cast<int>(i);
      }
  std::vector<char> is_placeholder(body.num_nodes(), 0), is_output(body.num_nodes(), 0);
  for (int p : body.arg_placeholders) is_placeholder[p] = 1;
  for (int p : body.capture_placeholders) is_placeholder[p] = 1;
  for (const NodeOutput& o : body.outputs)
    if (body.node(o.node).outputs.size() == 1) is_output[o.node] = 1;
  const std::vector<char> varying = varying_nodes(body);
  std::vector<char> read(body.num_nodes(), 0);
  for (int p = 0; p < pg.num_nodes(); ++p) {
    if (forward_node[p]) continue;
    for (const NodeOutput& in : pg.node(p).inputs)
      if (forward_node[in.node]) read[owner[in.node]] = 1;
  }
  std::vector<int> out;
  for (int i = 0; i < body.num_nodes(); ++i) {
    if (!read[i] || is_placeholder[i] || is_output[i] || !varying[i] ||
        (body.node(i).def && body.node(i).def->constant))
      continue;
    bool pod = !body.node(i).outputs.empty();
    for (const TensorSpec& spec : body.node(i).outputs) pod = pod && is_pod(spec.dtype);
    if (pod) out.push_back(i);
  }
  return out;
}

Attrs list_attrs(const TensorSpec& s) {
  return Attrs{{"element_dtype", s.dtype}, {"element_shape", s.dtype == DType::Variant ? Shape{} : s.shape}};
}

// When `t`, a value of builder `b`'s graph, is MatMul(A, B, transpose_a=True) (through
// Identity nodes) of static rank-2 float operands -- a matmul's weight gradient, a sum over the
// rows of A and B -- its operands; else two nodes -1. Summed over the iterations of a loop it
// is one matmul of the operands stacked over time: [A_1; ...; A_T]^T [B_1; ...; B_T].
std::pair<NodeOutput, NodeOutput> row_contraction(const GraphBuilder& b, const TensorPtr& t) {
  const std::pair<NodeOutput, NodeOutput> none{NodeOutput{-1, 0}, NodeOutput{-1, 0}};
  const Graph& g = *b.graph();
  if (!t || t->is_eager() || t->graph_id != g.id()) return none;
  NodeOutput o{t->node, t->index};
  while (g.node(o.node).op == "Identity" && g.node(o.node).inputs.size() == 1) o = g.node(o.node).inputs[0];
  const Node& mm = g.node(o.node);
  if (mm.op != "MatMul" || mm.inputs.size() != 2 || !mm.attrs.get_or("transpose_a", false) ||
      mm.attrs.get_or("transpose_b", false))
    return none;
  for (const NodeOutput& in : mm.inputs) {
    const TensorSpec& spec = g.node(in.node).outputs.at(in.index);
    if ((spec.dtype != DType::Float32 && spec.dtype != DType::Float64) || !spec.shape.has_rank() ||
        spec.shape.rank() != 2 || spec.shape.num_elements() < 0)
      return none;
  }
  return {mm.inputs[0], mm.inputs[1]};
}

// When `t`, a value of builder `b`'s graph, is Sum(x, axis 0) (through Identity nodes) of a
// static rank-2 float x -- a bias's gradient, a sum over the rows of x -- x; else node -1.
// Summed over the iterations of a loop it is one sum over x stacked over time.
NodeOutput row_sum(const GraphBuilder& b, const TensorPtr& t) {
  const NodeOutput none{-1, 0};
  const Graph& g = *b.graph();
  if (!t || t->is_eager() || t->graph_id != g.id()) return none;
  NodeOutput o{t->node, t->index};
  while (g.node(o.node).op == "Identity" && g.node(o.node).inputs.size() == 1) o = g.node(o.node).inputs[0];
  const Node& sum = g.node(o.node);
  if (sum.op != "Sum" || sum.inputs.size() != 2 || sum.attrs.get_or("keep_dims", false)) return none;
  const Node& axes = g.node(sum.inputs[1].node);
  const EagerPtr* value = axes.def && axes.def->constant ? std::get_if<EagerPtr>(axes.attrs.find("value")) : nullptr;
  if (!value || !*value || !is_integer((*value)->dtype()) || (*value)->num_elements() != 1 ||
      (*value)->scalar_as_int() != 0)
    return none;
  const TensorSpec& spec = g.node(sum.inputs[0].node).outputs.at(sum.inputs[0].index);
  if ((spec.dtype != DType::Float32 && spec.dtype != DType::Float64) || !spec.shape.has_rank() ||
      spec.shape.rank() != 2 || spec.shape.num_elements() < 0)
    return none;
  return sum.inputs[0];
}

TensorPtr capture(GraphBuilder& b, const TensorPtr& outer, const char* name) {
  NodeOutput o = b.capture_by_reference(outer, name);
  return b.symbolic(o.node, o.index);
}

// The gradient of one While node: the state the steps below share.
class WhileGradient {
 public:
  explicit WhileGradient(const GradContext& gc) : gc_(gc) {
    cond_ = gc.attrs.get<std::shared_ptr<Graph>>("cond");
    body_ = gc.attrs.get<std::shared_ptr<Graph>>("body");
    if (!cond_ || !body_) throw_error(Code::Internal, "While without sub-graphs");
    n_ = body_->arg_placeholders.size();
    m_ = gc.inputs.size() - n_;
    max_iter_ = gc.attrs.get_or<int64_t>("maximum_iterations", -1);
    var_spec_.resize(n_);
    cap_spec_.resize(m_);
    for (size_t k = 0; k < n_; ++k) var_spec_[k] = body_->node(body_->arg_placeholders[k]).outputs[0];
    for (size_t j = 0; j < m_; ++j) cap_spec_[j] = body_->node(body_->capture_placeholders[j]).outputs[0];
  }

  std::vector<TensorPtr> run() {
    probe_gradients();
    accumulating_forward();
    capture_zeros();
    return backward();
  }

 private:
  const TensorSpec counter_spec_{DType::Int32, Shape{}}, list_spec_{DType::Variant, Shape{}};

  // 1. The forward loop again, stacking the loop vars each iteration starts with.
  void accumulating_forward() {
    std::vector<std::unique_ptr<GraphBuilder>> fwd;
    for (const char* name : {"while_cond_acc", "while_body_acc"}) {
      fwd.push_back(std::make_unique<GraphBuilder>(std::make_shared<Graph>(name)));
      GraphBuilder& b = *fwd.back();
      ContextScope scope(&b);
      TensorPtr counter = b.add_placeholder("iteration", counter_spec_);
      std::vector<TensorPtr> args, lists;
      for (size_t k = 0; k < n_; ++k) args.push_back(b.add_placeholder("loop_var", var_spec_[k]));
      for (size_t k = 0; k < n_ + inter_spec_.size(); ++k)
        lists.push_back(b.add_placeholder("accumulator", list_spec_));
      for (size_t j = 0; j < m_; ++j) args.push_back(capture(b, gc_.inputs[n_ + j], "capture"));
      const bool is_cond = b.graph()->name() == "while_cond_acc";
      std::vector<TensorPtr> outs = is_cond ? replay(*cond_, args) : replay(*body_, args, inter_);
      std::vector<NodeOutput> res;
      if (is_cond) {
        res.push_back(local(b, outs.at(0)));
      } else {
        res.push_back(local(b, dispatch1("AddV2", {counter, scalar_i32(1)})));
        for (size_t k = 0; k < n_; ++k) res.push_back(local(b, outs.at(k)));
        // Written at the iteration's index (not pushed) so higher-order gradients flow through
        // the stacks with TensorListSetItem's own gradient rule.
        // Stack k holds var k's value after each iteration at index iteration + 1 (its initial
        // value at 0), so the backward body reads an iteration's inputs and outputs (a tanh's
        // gradient needs the tanh) without recomputing the forward body.
        TensorPtr next = dispatch1("AddV2", {counter, scalar_i32(1)});
        for (size_t k = 0; k < n_; ++k) {
          Attrs a = list_attrs(var_spec_[k]);
          a.set("resize_if_index_out_of_bounds", true);
          res.push_back(local(b, dispatch1("TensorListSetItem", {lists[k], next, outs.at(k)}, std::move(a))));
        }
        // The intermediates the gradient reads, at the same index as the iteration's outputs.
        for (size_t q = 0; q < inter_spec_.size(); ++q) {
          Attrs a = list_attrs(inter_spec_[q]);
          a.set("resize_if_index_out_of_bounds", true);
          res.push_back(local(b, dispatch1("TensorListSetItem", {lists[n_ + q], next, outs.at(n_ + q)}, std::move(a))));
        }
      }
      b.graph()->outputs = res;
    }
    std::vector<TensorPtr> init{scalar_i32(0)};
    for (size_t k = 0; k < n_; ++k) init.push_back(gc_.inputs[k]);
    for (size_t k = 0; k < n_; ++k) {
      Attrs a = list_attrs(var_spec_[k]);
      a.set("resize_if_index_out_of_bounds", true);
      TensorPtr empty = dispatch1("TensorListReserve", {scalar_i32(0)}, list_attrs(var_spec_[k]));
      init.push_back(dispatch1("TensorListSetItem", {empty, scalar_i32(0), gc_.inputs[k]}, std::move(a)));
    }
    for (const TensorSpec& spec : inter_spec_)
      init.push_back(dispatch1("TensorListReserve", {scalar_i32(0)}, list_attrs(spec)));
    std::vector<TensorPtr> acc = build_while(init, *fwd[0], *fwd[1], max_iter_, "while_acc");
    // In a graph, name the forward loop this one repeats: passes/merge_forward_while.cpp lets
    // it replace the forward loop (one forward pass per call, as TF's rewritten While).
    if (GraphBuilder* cur = current_builder()) {
      const TensorPtr& f = gc_.outputs.empty() ? nullptr : gc_.outputs[0];
      const uint64_t id = cur->graph()->id();
      if (f && !f->is_eager() && f->graph_id == id && !acc[0]->is_eager() && acc[0]->graph_id == id) {
        Attrs& a = cur->graph()->mutable_node(acc[0]->node).attrs;
        a.set("_forward_while", static_cast<int64_t>(f->node));
        a.set("_forward_body", static_cast<int64_t>(body_->id()));                  // which loop, beyond its index
        a.set("_forward_intermediates", static_cast<int64_t>(inter_spec_.size()));  // stacks after the vars'
      }
    }
    iterations_ = acc[0];
    stacks_.assign(acc.begin() + 1 + static_cast<std::ptrdiff_t>(n_), acc.end());  // vars', then intermediates
  }

  // Which inputs receive gradients, and their types: backpropagate once through the body.
  void probe_gradients() {
    var_grad_.assign(n_, 0);
    cap_grad_.assign(m_, 0);
    cap_grad_spec_.resize(m_);
    var_grad_spec_.resize(n_);
    GraphBuilder probe(std::make_shared<Graph>("while_grad_probe"));
    ContextScope scope(&probe);
    std::vector<TensorPtr> ins, og(n_);
    for (size_t k = 0; k < n_; ++k) ins.push_back(probe.add_placeholder("x", var_spec_[k]));
    for (size_t j = 0; j < m_; ++j) ins.push_back(probe.add_placeholder("c", cap_spec_[j]));
    for (size_t k = 0; k < n_; ++k)
      if (carries_gradient(var_spec_[k].dtype)) og[k] = probe.add_placeholder("g", var_spec_[k]);
    ForwardValues fv;
    std::vector<TensorPtr> g = graph_gradients(*body_, ins, og, {}, &fv);
    inter_ = intermediates_to_stack(*body_, probe, fv);
    inter_spec_.clear();
    for (int i : inter_)
      for (const TensorSpec& spec : body_->node(i).outputs) inter_spec_.push_back(spec);
    for (size_t k = 0; k < n_; ++k) {
      var_grad_[k] = carries_gradient(var_spec_[k].dtype);
      var_grad_spec_[k] = TensorSpec{var_spec_[k].dtype, grad_shape(var_spec_[k].shape, {g[k], gc_.out_grads[k]})};
    }
    for (size_t j = 0; j < m_; ++j)
      if (g[n_ + j] && differentiable(cap_spec_[j].dtype)) {
        cap_grad_[j] = 1;
        cap_grad_spec_[j] = TensorSpec{g[n_ + j]->dtype(), g[n_ + j]->shape()};
      }
    plan_hoisting(probe, g);
  }

  // Capture gradients that are one matmul over rows per iteration (a weight's gradient
  // x_t^T @ dz_t) are not summed in the backward loop: its operands are stacked, and one large
  // matmul after the loop sums them all (fewer, larger matmuls). Operands shared by several
  // gradients (an LSTM's dz_t feeds both weights') get one stack. A gradient that is a sum over
  // the rows of one operand per iteration (a bias's: sum(dz_t, axis 0)) is one sum over that
  // operand's stack after the loop (the stack a weight's gradient already made, when shared).
  void plan_hoisting(const GraphBuilder& probe, const std::vector<TensorPtr>& g) {
    hoist_.assign(m_, {-1, -1});
    hoist_spec_.clear();
    std::vector<NodeOutput> seen;
    auto slot = [&](const NodeOutput& o) {
      for (size_t q = 0; q < seen.size(); ++q)
        if (seen[q] == o) return static_cast<int>(q);
      seen.push_back(o);
      hoist_spec_.push_back(probe.graph()->node(o.node).outputs.at(o.index));
      return static_cast<int>(seen.size() - 1);
    };
    for (size_t j = 0; j < m_; ++j) {
      if (!cap_grad_[j] || g[n_ + j]->dtype() != cap_grad_spec_[j].dtype) continue;
      auto ab = row_contraction(probe, g[n_ + j]);
      if (ab.first.node >= 0) {
        hoist_[j] = {slot(ab.first), slot(ab.second)};
        continue;
      }
      NodeOutput rows = row_sum(probe, g[n_ + j]);
      if (rows.node >= 0) hoist_[j] = {slot(rows), -1};  // one operand: a sum over its rows
    }
  }

  // The captures' gradient sums start at zero (a variable's: zeros like its value).
  void capture_zeros() {
    cap_zero_.assign(m_, nullptr);
    for (size_t j = 0; j < m_; ++j) {
      if (!cap_grad_[j]) continue;
      if (cap_spec_[j].dtype == DType::Resource) {
        cap_zero_[j] =
            zeros_like(dispatch1("ReadVariableOp", {gc_.inputs[n_ + j]},
                                 Attrs{{"dtype", cap_grad_spec_[j].dtype}, {"shape", cap_grad_spec_[j].shape}}));
      } else {
        cap_zero_[j] = zeros_like(gc_.inputs[n_ + j]);
      }
      if (!cap_grad_spec_[j].shape.is_subtype_of(cap_zero_[j]->shape()) ||
          !cap_zero_[j]->shape().is_subtype_of(cap_grad_spec_[j].shape))
        cap_grad_spec_[j].shape = Shape::unknown_rank();
    }
  }

  // The backward body: one iteration's gradients from the stacked inputs and outputs.
  std::vector<NodeOutput> backward_body(GraphBuilder& b, const TensorPtr& i, const std::vector<TensorPtr>& g,
                                        const std::vector<TensorPtr>& c, std::vector<TensorPtr> lists) {
    std::vector<NodeOutput> res;
    TensorPtr prev = dispatch1("Sub", {i, scalar_i32(1)});
    std::vector<TensorPtr> ins, outs;
    for (size_t k = 0; k < n_; ++k) {
      ins.push_back(dispatch1("TensorListGetItem", {lists[k], prev}, list_attrs(var_spec_[k])));
      outs.push_back(dispatch1("TensorListGetItem", {lists[k], i}, list_attrs(var_spec_[k])));
    }
    for (size_t j = 0; j < m_; ++j) ins.push_back(capture(b, gc_.inputs[n_ + j], "capture"));
    ForwardValues fv;
    fv.known.resize(body_->num_nodes());
    size_t q = 0;
    for (int node : inter_)
      for (size_t k = 0; k < body_->node(node).outputs.size(); ++k, ++q)
        fv.known[node].push_back(dispatch1("TensorListGetItem", {lists[n_ + q], i}, list_attrs(inter_spec_[q])));
    std::vector<TensorPtr> grads = graph_gradients(*body_, ins, g, outs, &fv);
    res.push_back(local(b, prev));
    for (size_t k : gv_) res.push_back(local(b, grads[k] ? grads[k] : zeros_like(ins[k])));
    // The hoisted gradients' operands, written at the iteration's index (the probe's plan; a
    // gradient whose operands do not fit it is summed here as the others).
    const size_t first_hoisted = n_ + inter_spec_.size();
    std::vector<TensorPtr> operand(hoist_spec_.size());
    hoisted_.assign(m_, 0);
    auto fits = [](const TensorPtr& have, const TensorPtr& v) {
      return !have || (have->node == v->node && have->index == v->index);
    };
    for (size_t j : gcap_) {
      if (hoist_[j].first < 0) continue;
      if (hoist_[j].second < 0) {  // a sum over the rows of one operand
        NodeOutput rows = row_sum(b, grads[n_ + j]);
        if (rows.node < 0) continue;
        TensorPtr x = b.symbolic(rows.node, rows.index);
        TensorPtr& sx = operand[hoist_[j].first];
        if (!fits(sx, x)) continue;
        sx = x;
        hoisted_[j] = 1;
        continue;
      }
      auto ab = row_contraction(b, grads[n_ + j]);
      if (ab.first.node < 0) continue;
      TensorPtr x = b.symbolic(ab.first.node, ab.first.index), y = b.symbolic(ab.second.node, ab.second.index);
      TensorPtr &sx = operand[hoist_[j].first], &sy = operand[hoist_[j].second];
      if (!fits(sx, x) || !fits(sy, y)) continue;
      sx = x;
      sy = y;
      hoisted_[j] = 1;
    }
    for (size_t q = 0; q < operand.size(); ++q) {
      if (!operand[q]) continue;
      Attrs a = list_attrs(hoist_spec_[q]);
      a.set("resize_if_index_out_of_bounds", true);
      lists[first_hoisted + q] =
          dispatch1("TensorListSetItem", {lists[first_hoisted + q], prev, operand[q]}, std::move(a));
    }
    for (size_t j : gcap_) {
      TensorPtr sum = c[j];
      if (grads[n_ + j] && !hoisted_[j])
        sum = c[j]->dtype() == DType::Variant ? dispatch1("AddN", {c[j], grads[n_ + j]}, Attrs{{"N", int64_t{2}}})
                                              : dispatch1("AddV2", {c[j], grads[n_ + j]});
      res.push_back(local(b, sum));
    }
    for (const TensorPtr& l : lists) res.push_back(local(b, l));
    return res;
  }

  // 2. The backward loop: [iteration, var grads, capture grads, stacks].
  std::vector<TensorPtr> backward() {
    for (size_t k = 0; k < n_; ++k)
      if (var_grad_[k]) gv_.push_back(k);
    for (size_t j = 0; j < m_; ++j)
      if (cap_grad_[j]) gcap_.push_back(j);
    std::vector<std::unique_ptr<GraphBuilder>> bwd;
    for (int which = 0; which < 2; ++which) {
      bwd.push_back(
          std::make_unique<GraphBuilder>(std::make_shared<Graph>(which ? "while_body_grad" : "while_cond_grad")));
      GraphBuilder& b = *bwd.back();
      ContextScope scope(&b);
      TensorPtr i = b.add_placeholder("iteration", counter_spec_);
      std::vector<TensorPtr> g(n_), c(m_), lists;
      for (size_t k : gv_) g[k] = b.add_placeholder("grad", var_grad_spec_[k]);
      for (size_t j : gcap_) c[j] = b.add_placeholder("capture_grad", cap_grad_spec_[j]);
      for (size_t k = 0; k < n_ + inter_spec_.size() + hoist_spec_.size(); ++k)
        lists.push_back(b.add_placeholder("accumulator", list_spec_));
      b.graph()->outputs = which ? backward_body(b, i, g, c, lists)
                                 : std::vector<NodeOutput>{local(b, dispatch1("Greater", {i, scalar_i32(0)}))};
    }
    std::vector<TensorPtr> binit{iterations_};
    for (size_t k : gv_) binit.push_back(gc_.out_grads[k] ? gc_.out_grads[k] : zeros_like(gc_.outputs[k]));
    for (size_t j : gcap_) binit.push_back(cap_zero_[j]);
    for (auto& s : stacks_) binit.push_back(s);
    // One element per iteration, reserved at the loop's iteration count: the list keeps them in
    // rows of one buffer (ops/tensor_list.h), so stacking them after the loop is no copy.
    for (const TensorSpec& spec : hoist_spec_)
      binit.push_back(dispatch1("TensorListReserve", {iterations_}, list_attrs(spec)));
    std::vector<TensorPtr> out = build_while(binit, *bwd[0], *bwd[1], -1, "while_grad");
    std::vector<TensorPtr> result(gc_.inputs.size());
    for (size_t q = 0; q < gv_.size(); ++q) result[gv_[q]] = out[1 + q];
    for (size_t q = 0; q < gcap_.size(); ++q) result[n_ + gcap_[q]] = out[1 + gv_.size() + q];
    // The hoisted sums: each operand stacked over the iterations as rows, one matmul.
    const size_t lists_at = 1 + gv_.size() + gcap_.size() + n_ + inter_spec_.size();
    std::vector<TensorPtr> rows(hoist_spec_.size());
    auto stacked_rows = [&](int q) {
      if (!rows[q]) {
        const TensorSpec& spec = hoist_spec_[q];
        Attrs a = list_attrs(spec);
        a.set("num_elements", int64_t{-1});
        TensorPtr st = dispatch1("TensorListStack", {out[lists_at + q]}, std::move(a));
        rows[q] = dispatch1("Reshape", {st, grad::int_vector({-1, spec.shape[1]})});
      }
      return rows[q];
    };
    for (size_t j : gcap_) {
      if (!hoisted_[j]) continue;
      if (hoist_[j].second < 0)
        result[n_ + j] = grad::reduce_sum(stacked_rows(hoist_[j].first), {0}, false);
      else
        result[n_ + j] = dispatch1("MatMul", {stacked_rows(hoist_[j].first), stacked_rows(hoist_[j].second)},
                                   Attrs{{"transpose_a", true}, {"transpose_b", false}});
    }
    return result;
  }

  const GradContext& gc_;
  std::shared_ptr<Graph> cond_, body_;
  size_t n_ = 0, m_ = 0;  // loop vars, captures
  int64_t max_iter_ = -1;
  std::vector<TensorSpec> var_spec_, cap_spec_;
  TensorPtr iterations_;                    // the accumulating loop's iteration count
  std::vector<TensorPtr> stacks_;           // per loop var: its value at each iteration; then per intermediate
  std::vector<int> inter_;                  // the body nodes whose values are stacked (intermediates_to_stack)
  std::vector<TensorSpec> inter_spec_;      // their outputs, one stack each
  std::vector<std::pair<int, int>> hoist_;  // per capture: its gradient's operand stacks (second -1: a row sum), or -1
  std::vector<TensorSpec> hoist_spec_;      // per operand stack: the operand
  std::vector<char> hoisted_;               // per capture: its gradient is summed after the loop
  std::vector<char> var_grad_, cap_grad_;
  std::vector<TensorSpec> var_grad_spec_, cap_grad_spec_;
  std::vector<TensorPtr> cap_zero_;
  std::vector<size_t> gv_, gcap_;  // the loop vars and captures that receive gradients
};

}  // namespace

GradFn while_gradient() {
  return [](const GradContext& gc) -> std::vector<TensorPtr> {
    bool any = false;
    for (auto& t : gc.out_grads) any = any || t;
    if (!any) return std::vector<TensorPtr>(gc.inputs.size());
    return WhileGradient(gc).run();
  };
}

}  // namespace fn
