// If / StatelessIf / While / StatelessWhile: shape rules, and building the nodes from traced
// sub-graphs. Kernels: exec/control_flow.cpp. If's gradient: ops/control_flow_grad.cpp.
#include "ops/control_flow.h"

#include "core/error.h"
#include "ops/families.h"
#include "ops/op.h"

namespace fn {

namespace {

const TensorSpec& spec_of(const Graph& g, const NodeOutput& o) { return g.node(o.node).outputs[o.index]; }

// `Tensor("name:0", shape=(), dtype=int32)` for graph values, the value's spec for eager ones.
std::string describe(const Graph& g, const NodeOutput& o) {
  const TensorSpec& s = spec_of(g, o);
  return "Tensor(\"" + g.node(o.node).name + ":" + std::to_string(o.index) + "\", shape=" + s.shape.to_string() +
         ", dtype=" + dtype_name(s.dtype) + ")";
}

std::string describe_outputs(const Graph& g) {
  std::string s = "[";
  for (size_t i = 0; i < g.outputs.size(); ++i) s += (i ? ", " : "") + describe(g, g.outputs[i]);
  return s + "]";
}

std::string tensor_label(const TensorPtr& t) {
  if (t->is_eager()) return "<eager " + std::string(dtype_name(t->dtype())) + " tensor>";
  return t->name();
}

// The values captured by `a` then those only `b` captured (by identity, as captures are keyed).
std::vector<TensorPtr> union_captures(const std::vector<TensorPtr>& a, const std::vector<TensorPtr>& b) {
  std::vector<TensorPtr> all = a;
  for (const TensorPtr& v : b) {
    bool seen = false;
    for (const TensorPtr& u : all)
      if (u.get() == v.get()) {
        seen = true;
        break;
      }
    if (!seen) all.push_back(v);
  }
  return all;
}

// Makes `b`'s capture placeholders line up with `all` (adding unused placeholders for values
// only the other sub-graph captured).
void align_captures(GraphBuilder& b, const std::vector<TensorPtr>& all) {
  std::vector<TensorPtr> have = b.captured_values();
  std::vector<int> have_ph = b.graph()->capture_placeholders;
  std::vector<int> order;
  order.reserve(all.size());
  for (const TensorPtr& v : all) {
    int ph = -1;
    for (size_t j = 0; j < have.size(); ++j)
      if (have[j].get() == v.get()) {
        ph = have_ph[j];
        break;
      }
    if (ph < 0) ph = b.capture_by_reference(v, "capture").node;
    order.push_back(ph);
  }
  b.graph()->capture_placeholders = std::move(order);
}

void check_pred(const TensorSpec& pred) {
  if (pred.dtype != DType::Bool)
    throw_error(Code::TypeError, "pred must be a bool tensor, but it is a ", dtype_name(pred.dtype),
                " tensor. Compare it to get a bool, e.g. fn.cond(x > 0, ...).");
  if (pred.shape.has_rank() && pred.shape.rank() != 0)
    throw_error(Code::ValueError, "pred must be a scalar, but it has shape ", pred.shape.to_string(),
                ". Reduce it first, e.g. with fn.reduce_any or fn.reduce_all.");
}

std::shared_ptr<Graph> graph_attr(const Attrs& a, const char* name) {
  auto g = a.get<std::shared_ptr<Graph>>(name);
  if (!g) throw_error(Code::Internal, "null sub-graph in attr ", name);
  return g;
}

std::vector<TensorSpec> specs_from_attrs(const Attrs& a, const char* types, size_t n) {
  const auto& dt = a.get<std::vector<DType>>(types);
  const auto& sh = a.get<std::vector<Shape>>("output_shapes");
  if (dt.size() != n || sh.size() != n) throw_error(Code::Internal, "control flow attrs disagree");
  std::vector<TensorSpec> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = TensorSpec{dt[i], sh[i]};
  return out;
}

std::vector<TensorSpec> if_infer(const InferContext& c) {
  if (c.inputs.empty()) throw_error(Code::InvalidArgument, "If needs a pred input");
  check_pred(c.inputs[0]);
  for (const char* br : {"then_branch", "else_branch"}) {
    auto g = graph_attr(c.attrs, br);
    if (g->capture_placeholders.size() + 1 != c.inputs.size() || !g->arg_placeholders.empty())
      throw_error(Code::InvalidArgument, "If: ", br, " takes ", g->capture_placeholders.size(),
                  " inputs but the node has ", c.inputs.size() - 1);
  }
  const auto& tout = c.attrs.get<std::vector<DType>>("Tout");
  return specs_from_attrs(c.attrs, "Tout", tout.size());
}

std::vector<TensorSpec> while_infer(const InferContext& c) {
  auto body = graph_attr(c.attrs, "body");
  size_t n = body->arg_placeholders.size();
  if (c.inputs.size() != n + body->capture_placeholders.size())
    throw_error(Code::InvalidArgument, "While: body takes ", n + body->capture_placeholders.size(),
                " inputs but the node has ", c.inputs.size());
  auto out = specs_from_attrs(c.attrs, "T", n);
  for (size_t i = 0; i < n; ++i) {
    if (c.inputs[i].dtype != out[i].dtype)
      throw_error(Code::InvalidArgument, "While: loop var ", i, " is ", dtype_name(c.inputs[i].dtype),
                  " but the loop carries ", dtype_name(out[i].dtype));
  }
  return out;
}

std::string var_name(const std::vector<std::string>& names, size_t i) {
  if (i < names.size() && !names[i].empty()) return "'" + names[i] + "'";
  return "";
}

}  // namespace

bool graph_is_stateful(const Graph& g) {
  if (!g.stateful_nodes.empty()) return true;
  for (const Node& n : g.nodes())
    for (auto& kv : n.attrs.items())
      if (auto* sub = std::get_if<std::shared_ptr<Graph>>(&kv.second))
        if (*sub && graph_is_stateful(**sub)) return true;
  return false;
}

std::vector<TensorPtr> build_if(const TensorPtr& pred, GraphBuilder& then_b, GraphBuilder& else_b,
                                const std::string& name, const std::vector<std::string>& names) {
  const Graph& tg = *then_b.graph();
  const Graph& eg = *else_b.graph();
  check_pred(pred->spec());
  auto mismatch = [&](const std::string& detail) {
    throw_error(Code::TypeError,
                "true_fn and false_fn arguments to fn.cond must have the same number, type, and "
                "overall structure of return values.\n\ntrue_fn output: ",
                describe_outputs(tg), "\nfalse_fn output: ", describe_outputs(eg), "\n\nError details:\n", detail);
  };
  if (tg.outputs.size() != eg.outputs.size())
    mismatch("true_fn returns " + std::to_string(tg.outputs.size()) + " values but false_fn returns " +
             std::to_string(eg.outputs.size()));
  std::vector<DType> tout;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < tg.outputs.size(); ++i) {
    const TensorSpec &a = spec_of(tg, tg.outputs[i]), &b = spec_of(eg, eg.outputs[i]);
    if (a.dtype != b.dtype) {
      if (i < names.size() && !names[i].empty())
        throw_error(Code::TypeError, "'", names[i], "' has dtype ", dtype_name(a.dtype),
                    " in the main branch, but dtype ", dtype_name(b.dtype), " in the else branch");
      mismatch(describe(tg, tg.outputs[i]) + " and " + describe(eg, eg.outputs[i]) + " have different types");
    }
    tout.push_back(a.dtype);
    shapes.push_back(a.shape == b.shape ? a.shape : a.shape.most_specific_common_supertype(b.shape));
  }
  std::vector<TensorPtr> all = union_captures(then_b.captured_values(), else_b.captured_values());
  align_captures(then_b, all);
  align_captures(else_b, all);
  Attrs attrs;
  attrs.set("Tcond", pred->dtype());
  attrs.set("then_branch", then_b.graph());
  attrs.set("else_branch", else_b.graph());
  attrs.set("Tout", tout);
  attrs.set("output_shapes", shapes);
  auto cache = std::make_shared<SubgraphCache>();
  cache->compiled.resize(2);
  attrs.set("_compiled", std::shared_ptr<HostObject>(cache));
  std::vector<TensorPtr> inputs;
  inputs.reserve(all.size() + 1);
  inputs.push_back(pred);
  inputs.insert(inputs.end(), all.begin(), all.end());
  bool stateful = graph_is_stateful(tg) || graph_is_stateful(eg);
  return dispatch(stateful ? "If" : "StatelessIf", inputs, std::move(attrs), name);
}

std::vector<TensorPtr> build_while(const std::vector<TensorPtr>& loop_vars, GraphBuilder& cond_b, GraphBuilder& body_b,
                                   int64_t maximum_iterations, const std::string& name,
                                   const std::vector<std::string>& names) {
  const Graph& cg = *cond_b.graph();
  const Graph& bg = *body_b.graph();
  size_t n = loop_vars.size();
  if (cg.arg_placeholders.size() != n || bg.arg_placeholders.size() != n)
    throw_error(Code::Internal, "while_loop: cond and body must take the ", n, " loop vars");
  if (cg.outputs.size() != 1)
    throw_error(Code::TypeError, "The condition of a while loop must return one boolean scalar, got ",
                cg.outputs.size(), " values");
  const TensorSpec& cs = spec_of(cg, cg.outputs[0]);
  if (cs.dtype != DType::Bool || (cs.shape.has_rank() && cs.shape.rank() != 0))
    throw_error(Code::TypeError, "The condition of a while loop must return a boolean scalar, got ",
                describe(cg, cg.outputs[0]));
  if (bg.outputs.size() != n)
    throw_error(Code::ValueError, "The body of a while loop returned ", bg.outputs.size(), " values for ", n,
                " loop variables");
  std::vector<DType> types;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < n; ++i) {
    const TensorSpec& inv = bg.node(bg.arg_placeholders[i]).outputs[0];
    const TensorSpec& init = loop_vars[i]->spec();
    const TensorSpec& out = spec_of(bg, bg.outputs[i]);
    std::string named = var_name(names, i);
    std::string label = named.empty() ? tensor_label(loop_vars[i]) : named;
    if (init.dtype != inv.dtype)
      throw_error(Code::Internal, "while_loop: loop var ", label, " placeholder dtype differs");
    if (!init.shape.is_subtype_of(inv.shape))
      throw_error(Code::ValueError, "The shape invariant specified for ", label,
                  " is not compatible with the initial shape of the loop variable. It enters the "
                  "loop with shape ",
                  init.shape.to_string(), ", but the specified shape invariant is ", inv.shape.to_string(), ".");
    if (out.dtype != inv.dtype) {
      if (!named.empty())
        throw_error(Code::TypeError, named, " has dtype ", dtype_name(inv.dtype), " before the loop, but dtype ",
                    dtype_name(out.dtype), " after one iteration");
      throw_error(Code::TypeError, "Loop var ", label, " enters the loop with type ", dtype_name(inv.dtype),
                  " but has type ", dtype_name(out.dtype), " after 1 iteration. ", label,
                  " type should remain constant.");
    }
    if (!out.shape.is_subtype_of(inv.shape)) {
      const char* fix =
          ". To allow the shape to vary across iterations, use the `shape_invariants` "
          "argument of fn.while_loop to specify a less-specific shape (None for a "
          "dimension that varies).";
      if (!named.empty())  // a loop AutoGraph converted: the user wrote no while_loop call
        throw_error(Code::ValueError, named, " has shape ", inv.shape.to_string(), " before the loop, but shape ",
                    out.shape.to_string(),
                    " after one iteration. Use "
                    "fn.autograph.experimental.set_loop_options to set shape invariants.");
      throw_error(Code::ValueError, "Input tensor `", label, "` enters the loop with shape ", inv.shape.to_string(),
                  ", but has shape ", out.shape.to_string(), " after one iteration", fix);
    }
    types.push_back(inv.dtype);
    shapes.push_back(inv.shape);
  }
  std::vector<TensorPtr> all = union_captures(cond_b.captured_values(), body_b.captured_values());
  align_captures(cond_b, all);
  align_captures(body_b, all);
  Attrs attrs;
  attrs.set("T", types);
  attrs.set("cond", cond_b.graph());
  attrs.set("body", body_b.graph());
  attrs.set("output_shapes", shapes);
  attrs.set("maximum_iterations", maximum_iterations);
  attrs.set("parallel_iterations", int64_t{10});
  auto cache = std::make_shared<SubgraphCache>();
  cache->compiled.resize(2);
  attrs.set("_compiled", std::shared_ptr<HostObject>(cache));
  std::vector<TensorPtr> inputs = loop_vars;
  inputs.insert(inputs.end(), all.begin(), all.end());
  bool stateful = graph_is_stateful(cg) || graph_is_stateful(bg);
  return dispatch(stateful ? "While" : "StatelessWhile", inputs, std::move(attrs), name);
}

GradFn if_gradient();     // control_flow_grad.cpp
GradFn while_gradient();  // while_grad.cpp

void register_control_flow_ops(OpRegistry& r) {
  auto no_kernel = [](const char* op) {
    return [op](KernelContext&, const std::vector<EagerPtr>&) -> std::vector<EagerPtr> {
      throw_error(Code::Unimplemented, op,
                  " runs in the executor (exec/control_flow.cpp), which "
                  "was not initialised");
    };
  };
  for (const char* op : {"If", "StatelessIf"}) {
    OpDef def = OpDef{op, "cond", -1, if_infer, no_kernel(op), if_gradient()}.with_control_flow(ControlFlow::Cond);
    def.stateful = std::string(op) == "If";
    r.add(std::move(def));
  }
  for (const char* op : {"While", "StatelessWhile"}) {
    OpDef def =
        OpDef{op, "while", -1, while_infer, no_kernel(op), while_gradient()}.with_control_flow(ControlFlow::Loop);
    def.stateful = std::string(op) == "While";
    r.add(std::move(def));
  }
}

}  // namespace fn
