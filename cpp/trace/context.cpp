#include "trace/context.h"
#include "trace/context_share.h"

#include <unordered_map>

#include <atomic>
#include <cmath>

#include "core/error.h"
#include "trace/tape.h"

namespace fn {

namespace {
std::vector<Frame>& stack() {
  thread_local std::vector<Frame> frames;
  return frames;
}
// Set once by the bindings at import; read while tracing.
std::function<std::string()>& location_provider() {
  static std::function<std::string()> provider;
  return provider;
}
}  // namespace

ContextScope::ContextScope(GraphBuilder* builder) {
  auto& s = stack();
  if (builder) {  // the graphs being built around it (up to an eager frame) learn of it
    for (auto it = s.rbegin(); it != s.rend() && it->builder; ++it)
      if (it->builder != builder) it->builder->note_inner_graph(builder->graph()->id());
  }
  s.push_back(Frame{builder});
}
ContextScope::~ContextScope() { stack().pop_back(); }

std::vector<Frame> current_frames() { return stack(); }

SharedContextScope::SharedContextScope(std::vector<Frame> frames) : count_(frames.size()) {
  auto& s = stack();
  s.insert(s.end(), frames.begin(), frames.end());
}
SharedContextScope::~SharedContextScope() {
  auto& s = stack();
  s.resize(s.size() - count_);
}

GraphBuilder* current_builder() {
  auto& s = stack();
  return s.empty() ? nullptr : s.back().builder;
}
bool executing_eagerly() { return current_builder() == nullptr; }
int context_depth() { return static_cast<int>(stack().size()); }

GraphBuilder* outer_builder_of(GraphBuilder* b) {
  auto& s = stack();
  for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
    if (s[i].builder == b) {
      // The enclosing frame; an eager frame (init_scope) stops the search.
      return i > 0 ? s[i - 1].builder : nullptr;
    }
  }
  return nullptr;
}

void set_location_provider(std::function<std::string()> provider) { location_provider() = std::move(provider); }
std::string current_location() {
  auto& p = location_provider();
  return p ? p() : std::string();
}

[[noreturn]] void throw_out_of_scope(const Tensor& t, bool inner) {
  std::string where;
  if (auto g = graph_of(t)) {
    if (t.node >= 0 && t.node < g->num_nodes()) where = g->node(t.node).defined_at;
  }
  std::string desc =
      "<fn.Tensor '" + t.name() + "' shape=" + t.shape().to_string() + " dtype=" + dtype_name(t.dtype()) + ">";
  std::string msg = desc +
                    " is out of scope and cannot be used here. Use return values, explicit Python locals or "
                    "TensorFlow collections to access it.\nPlease see "
                    "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
                    " for more information.\n\n" +
                    desc + " was defined here:\n" + (where.empty() ? std::string("    <unknown>") : where) +
                    "\n\nThe tensor " + desc + " cannot be accessed from here, because it was defined in " +
                    "another function or code block.";
  throw Error(inner ? Code::ValueError : Code::TypeError, msg);
}

// ---- GraphBuilder ----

TensorPtr GraphBuilder::symbolic(int node, int index) const {
  const TensorSpec& s = graph_->node(node).outputs[index];
  auto t = std::make_shared<Tensor>(s.dtype, s.shape);
  t->graph = graph_;
  t->graph_id = graph_->id();
  t->node = node;
  t->index = index;
  return t;
}

TensorPtr GraphBuilder::add_placeholder(const std::string& name, const TensorSpec& spec) {
  Node n;
  n.op = kPlaceholderOp;
  n.def = &OpRegistry::global().get(kPlaceholderOp);
  n.name = name;
  n.attrs.set("dtype", spec.dtype);
  n.attrs.set("shape", spec.shape);
  // TF records the name asked for (the parameter's or the TensorSpec's) before the graph makes
  // it unique: `x`, `x_1` both say "x" (Operation.get_attr, GraphDef export).
  n.attrs.set("_user_specified_name", name);
  n.outputs = {spec};
  int idx = graph_->add_node(std::move(n));
  graph_->arg_placeholders.push_back(idx);
  return symbolic(idx, 0);
}

NodeOutput GraphBuilder::capture_by_reference(const TensorPtr& outer_value, const std::string& name) {
  auto it = outer_captures_.find(outer_value.get());
  if (it != outer_captures_.end()) return it->second;
  Node n;
  n.op = kPlaceholderOp;
  n.def = &OpRegistry::global().get(kPlaceholderOp);
  n.name = name;
  n.attrs.set("dtype", outer_value->dtype());
  n.attrs.set("shape", outer_value->shape());
  n.outputs = {outer_value->spec()};
  int idx = graph_->add_node(std::move(n));
  graph_->capture_placeholders.push_back(idx);
  captured_values_.push_back(outer_value);
  NodeOutput o{idx, 0};
  outer_captures_[outer_value.get()] = o;
  return o;
}

void GraphBuilder::bind_input(const TensorPtr& outer_value, NodeOutput input) {
  keepalive_.push_back(outer_value);  // the map is keyed by raw pointer
  outer_captures_[outer_value.get()] = input;
}

NodeOutput GraphBuilder::use(const TensorPtr& t, GraphBuilder* outer) {
  if (t->is_eager()) return capture_by_reference(t, "capture");
  if (t->graph_id == graph_->id()) return NodeOutput{t->node, t->index};
  // A tensor of an enclosing graph that is being built right now: capture it.
  for (GraphBuilder* b = outer; b; b = outer_builder_of(b)) {
    if (b->graph()->id() == t->graph_id) return capture_by_reference(t, "capture");
  }
  throw_out_of_scope(*t, inner_graphs_.count(t->graph_id) != 0);
}

EagerPtr GraphBuilder::constant_value(const NodeOutput& o) const {
  const Node& n = graph_->node(o.node);
  if (n.def && n.def->constant) return n.attrs.get<EagerPtr>("value");
  auto it = folded_.find(o.node);
  if (it != folded_.end() && o.index < static_cast<int>(it->second.size())) return it->second[o.index];
  return nullptr;
}

namespace {
constexpr int64_t kMaxFoldElements = 1024;
bool small_int(const TensorSpec& s) {
  return (s.dtype == DType::Int32 || s.dtype == DType::Int64) && s.shape.is_fully_defined() &&
         s.shape.num_elements() <= kMaxFoldElements;
}
}  // namespace

// Shape arithmetic folds at trace time so shape rules downstream see values (TF's
// constant_value): shape-only ops on static shapes, and pure ops whose inputs are all known
// and whose outputs are small integer tensors. Failures just leave the value unknown.
void GraphBuilder::try_fold(const OpDef& def, int node, const std::vector<TensorSpec>& in_specs,
                            const std::vector<EagerPtr>& values) {
  if (def.stateful || def.needs_host || !def.kernel || in_specs.empty()) return;
  const Node& n = graph_->node(node);
  for (const TensorSpec& s : n.outputs)
    if (!small_int(s)) return;
  for (auto& kv : n.attrs.items())
    if (std::holds_alternative<std::shared_ptr<Graph>>(kv.second)) return;  // control flow
  std::vector<EagerPtr> in(in_specs.size());
  for (size_t i = 0; i < in_specs.size(); ++i) {
    if (values[i]) {
      if (values[i]->num_elements() > kMaxFoldElements) return;
      in[i] = values[i];
    } else if (def.shape_only && in_specs[i].shape.is_fully_defined()) {
      in[i] = std::make_shared<EagerTensor>(in_specs[i].dtype, in_specs[i].shape, Buffer::wrap(nullptr, 0, nullptr));
    } else {
      return;
    }
  }
  try {
    KernelContext kc{n.attrs, n.name};
    folded_[node] = def.kernel(kc, in);
  } catch (const std::exception&) {}
}

// Partial values of shape arithmetic (shape(x)[0], stack([n, -1]), ...): kept per node so
// shape rules downstream see the known elements; a fully known one becomes a folded value.
void GraphBuilder::record_partial(const OpDef& def, int node, const std::vector<TensorSpec>& in_specs,
                                  const std::vector<EagerPtr>& values, const std::vector<Shape>& partials) {
  const Node& n = graph_->node(node);
  if (n.outputs.empty()) return;
  const TensorSpec& out = n.outputs[0];
  if ((out.dtype != DType::Int32 && out.dtype != DType::Int64) || !out.shape.has_rank() || out.shape.rank() > 1) return;
  Shape p;
  try {
    p = def.partial(InferContext{in_specs, n.attrs, values, &partials});
  } catch (const std::exception&) { return; }
  if (!p.has_rank() || (out.shape.rank() == 0 && p.rank() != 1) ||
      (out.shape.rank() == 1 && out.shape[0] >= 0 && out.shape[0] != p.rank()))
    return;
  partial_[node] = p;
  if (!p.is_fully_defined()) return;
  auto t = make_tensor(out.dtype, out.shape.rank() == 0 ? Shape{} : Shape{p.rank()});
  for (int i = 0; i < p.rank(); ++i) {
    if (out.dtype == DType::Int64)
      t->data<int64_t>()[i] = p[i];
    else
      t->data<int32_t>()[i] = static_cast<int32_t>(p[i]);
  }
  folded_[node] = {t};
}

NodeOutput GraphBuilder::add_node(const OpDef& def, const std::vector<NodeOutput>& inputs, Attrs attrs,
                                  const std::string& name, std::vector<TensorSpec>* out_specs) {
  std::vector<TensorSpec> in_specs;
  std::vector<EagerPtr> values;
  std::vector<Shape> partials;
  in_specs.reserve(inputs.size());
  for (const NodeOutput& o : inputs) {
    in_specs.push_back(graph_->node(o.node).outputs[o.index]);
    values.push_back(constant_value(o));
    auto it = o.index == 0 && !partial_.empty() ? partial_.find(o.node) : partial_.end();
    partials.push_back(it != partial_.end() ? it->second : Shape::unknown_rank());
  }
  InferContext ctx{in_specs, attrs, values, &partials};
  std::vector<TensorSpec> outs;
  try {
    outs = def.infer(ctx);
  } catch (const Error& e) {
    // TF's graph construction turns a shape function's InvalidArgument into ValueError
    // (ops.py _create_c_op); other classes pass as they are.
    if (e.code() == Code::InvalidArgument) throw Error(Code::ValueError, e.what());
    throw;
  }
  if (out_specs) *out_specs = outs;
  Node n;
  n.op = def.name;
  n.def = &def;
  n.name = graph_->name_scope + (name.empty() ? def.default_name : name);
  n.inputs = inputs;
  n.attrs = std::move(attrs);
  n.outputs = std::move(outs);
  n.defined_at = current_location();
  int idx = graph_->add_node(std::move(n));
  try_fold(def, idx, in_specs, values);
  if (def.partial && !folded_.count(idx)) record_partial(def, idx, in_specs, values, partials);
  return NodeOutput{idx, 0};
}

// ---- dispatch ----

namespace {
std::atomic<bool> g_check_numerics{false};

void check_outputs(const OpDef& op, const std::vector<EagerPtr>& outs) {
  for (size_t i = 0; i < outs.size(); ++i) {
    const EagerPtr& t = outs[i];
    if (!t || !is_floating(t->dtype())) continue;
    bool bad = false;
    visit_pod(t->dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* d = t->data<T>();
      for (int64_t k = 0; k < t->num_elements() && !bad; ++k) bad = !std::isfinite(to_double(d[k]));
      return 0;
    });
    if (bad)
      throw_error(Code::InvalidArgument, "\n\n!!! Detected Infinity or NaN in output ", i, " of ",
                  current_builder() ? "graph" : "eagerly-executing", " op \"", op.name,
                  "\" (# of outputs: ", outs.size(), ") !!!\n  dtype: ", dtype_name(t->dtype()),
                  "\n  shape: ", t->shape().to_string(), "\n");
  }
}
}  // namespace

void set_check_numerics(bool enabled) { g_check_numerics = enabled; }
bool check_numerics_enabled() { return g_check_numerics.load(std::memory_order_relaxed); }

std::vector<EagerPtr> run_kernel(const OpDef& op, const std::vector<EagerPtr>& inputs, const Attrs& attrs,
                                 const std::string& node_name) {
  if (!op.kernel) throw_error(Code::Unimplemented, "Op ", op.name, " has no kernel");
  KernelContext kc{attrs, node_name};
  std::vector<EagerPtr> out = op.kernel(kc, inputs);
  if (g_check_numerics.load(std::memory_order_relaxed)) check_outputs(op, out);
  return out;
}

// TF's eager errors end with the op call's name argument (" name: " when none was given, which
// is how fn's public wrappers call: they pass TF's default node names only while tracing).
static const char* const kEagerNameTag = " name: ";

// TF 2.21 runs each eager op as a wrapped function named after the kernel it picks (oneDNN's
// for MatMul, Conv2D, ...) and the op's number attrs (ConcatV2_N_2, Split_num_split_3); a
// kernel's error message starts with that function's name and device.
static std::string eager_error_prefix(const OpDef& op, size_t num_inputs, const Attrs& attrs) {
  static const std::unordered_map<std::string, std::string> onednn = {
      {"MatMul", "__MklMatMul"},
      {"BatchMatMulV2", "__MklBatchMatMulV2"},
      {"Einsum", "__MklEinsum"},
      {"Conv2D", "__MklNativeConv2D"},
      {"DepthwiseConv2dNative", "__MklNativeDepthwiseConv2dNative"},
      {"FusedBatchNormV3", "__MklNativeFusedBatchNormV3"}};
  auto it = onednn.find(op.name);
  std::string name = it == onednn.end() ? op.name : it->second;
  const int64_t n = static_cast<int64_t>(num_inputs);
  if (op.name == "ConcatV2")
    name += "_N_" + std::to_string(n - 1);
  else if (op.name == "Pack" || op.name == "AddN" || op.name == "Einsum")
    name += "_N_" + std::to_string(n);
  else if (op.name == "Split" || op.name == "SplitV")
    name += "_num_split_" + std::to_string(attrs.get_or("num_split", int64_t{1}));
  else if (op.name == "Unpack")
    name += "_num_" + std::to_string(attrs.get_or("num", int64_t{-1}));
  else if (op.name == "PyCall")  // TF's py_function op, named with its input and output counts
    name = "EagerPyFunc_Tin_" + std::to_string(n) + "_Tout_" +
           std::to_string(attrs.get_or<std::vector<DType>>("Tout", {}).size());
  return "{{function_node __wrapped__" + name + "_device_/job:localhost/replica:0/task:0/device:CPU:0}} ";
}

namespace {
thread_local bool t_graph_node_errors = false;  // the next dispatch runs a graph's node (GraphNodeErrors)
}  // namespace

GraphNodeErrors::GraphNodeErrors() { t_graph_node_errors = true; }
GraphNodeErrors::~GraphNodeErrors() { t_graph_node_errors = false; }

std::vector<TensorPtr> dispatch(const OpDef& op, const std::vector<TensorPtr>& inputs, Attrs attrs,
                                const std::string& name) {
  // Taken by this call only: ops the kernel runs in turn (a py_function's) are eager ops.
  const bool graph_node = t_graph_node_errors;
  t_graph_node_errors = false;
  GraphBuilder* b = current_builder();
  std::vector<TensorPtr> result;
  {
    std::vector<DType> dtypes;
    if (!op.input_types.empty() || op.num_inputs != static_cast<int>(inputs.size()) || op.min_inputs ||
        !op.attr_mins.empty() || !op.attr_allowed.empty()) {
      dtypes.reserve(inputs.size());
      for (const TensorPtr& t : inputs) dtypes.push_back(t->dtype());
      try {
        check_op_inputs(op, dtypes, attrs, b != nullptr);
      } catch (const Error& e) {
        if (b || graph_node || e.code() >= Code::ValueError) throw;
        throw Error(e.code(), std::string(e.what()) + " [Op:" + op.name + "]" + kEagerNameTag);
      }
    }
  }
  if (!b) {
    std::vector<EagerPtr> ein;
    ein.reserve(inputs.size());
    for (const TensorPtr& t : inputs) {
      if (!t->is_eager()) throw_out_of_scope(*t);
      ein.push_back(std::static_pointer_cast<EagerTensor>(t));
    }
    std::vector<EagerPtr> outs;
    try {
      outs = run_kernel(op, ein, attrs, name.empty() ? op.default_name : name);
    } catch (const Error& e) {
      if (graph_node) throw;  // the caller tags it with its node, as a graph's run does
      // Eager kernel errors read as TensorFlow's: the wrapping function's prefix and the op tag.
      // Errors a kernel already tagged (dtype checks TF makes before running a kernel) keep
      // their text, as TF's do.
      std::string msg = e.what();
      if (e.code() < Code::ValueError && msg.find("[Op:") == std::string::npos) {
        // Dtype and attr checks run before TF picks a kernel: no wrapping function named.
        bool before_kernel = msg.rfind("cannot compute ", 0) == 0 || msg.rfind("Value for attr ", 0) == 0;
        const std::string tag = op.name == "PyCall" ? "EagerPyFunc" : op.name;  // TF's op for py_function
        msg = (before_kernel ? "" : eager_error_prefix(op, inputs.size(), attrs)) + msg + " [Op:" + tag + "]";
      }
      if (e.code() < Code::ValueError && msg.size() > 1 && msg.back() == ']' && msg.find(" [Op:") != std::string::npos)
        msg += kEagerNameTag;
      throw Error(e.code(), msg);
    }
    // A kernel may return an input unchanged (Identity, a no-op Cast): give the output its
    // own tensor object over the same buffer, as TF's eager tensors are distinct; tapes key
    // gradients by tensor identity.
    for (auto& o : outs)
      for (const TensorPtr& t : inputs)
        if (o.get() == t.get()) {
          o = reshaped(o, o->shape());
          break;
        }
    result.assign(outs.begin(), outs.end());
  } else {
    GraphBuilder* outer = outer_builder_of(b);
    std::vector<NodeOutput> ins;
    ins.reserve(inputs.size());
    for (const TensorPtr& t : inputs) ins.push_back(b->use(t, outer));
    // The attrs move into the node unless a tape needs them below.
    bool taped = !active_tapes().empty() && any_tape_recording();
    NodeOutput first =
        taped ? b->add_node(op, ins, attrs, name, nullptr) : b->add_node(op, ins, std::move(attrs), name, nullptr);
    size_t n_out = b->graph()->node(first.node).outputs.size();
    result.reserve(n_out);
    for (size_t i = 0; i < n_out; ++i) result.push_back(b->symbolic(first.node, static_cast<int>(i)));
    if (taped) record_on_tapes(op, inputs, result, attrs);
    return result;
  }
  if (!active_tapes().empty() && any_tape_recording()) record_on_tapes(op, inputs, result, attrs);
  return result;
}

std::vector<TensorPtr> dispatch(const std::string& op, const std::vector<TensorPtr>& inputs, Attrs attrs,
                                const std::string& name) {
  return dispatch(OpRegistry::global().get(op), inputs, std::move(attrs), name);
}

TensorPtr dispatch1(const std::string& op, const std::vector<TensorPtr>& inputs, Attrs attrs, const std::string& name) {
  auto r = dispatch(op, inputs, std::move(attrs), name);
  if (r.empty()) throw_error(Code::Internal, "op ", op, " has no outputs");
  return r[0];
}

}  // namespace fn
