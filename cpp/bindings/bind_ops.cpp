// Op execution from Python, graphs, graph building contexts.
#include <algorithm>
#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <frameobject.h>

#include <cstring>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "exec/plan.h"
#include "ops/random.h"
#include "trace/context.h"

namespace fn {

std::vector<TensorPtr> execute(const OpDef& op, const std::vector<TensorPtr>& in, Attrs attrs, const std::string& name);

namespace {
std::string op_name_arg(py::handle name) {
  if (name.is_none()) return std::string();
  if (!PyUnicode_Check(name.ptr()))
    throw_error(Code::TypeError, "name must be a string, got ", std::string(py::repr(name)));
  return py_utf8(name);
}
// Where user frames start and which functions are AutoGraph's: set once at import
// (set_location_skip), read while tracing.
struct FrameRules {
  std::string skip;                // fn's own files: frames under it are not the user's
  std::vector<std::string> parts;  // the converter's statement parts (fn/_autograph/transformer.py)
};
FrameRules& frame_rules() {
  static FrameRules rules;
  return rules;
}

// Whether `name` is one of the functions AutoGraph's converter writes for a statement's parts
// (a part's base name, alone or + "_N").
bool is_generated_part(const std::string& name) {
  for (const std::string& base : frame_rules().parts) {
    const size_t n = base.size();
    if (name.compare(0, n, base) != 0) continue;
    if (name.size() == n) return true;
    if (name[n] != '_' || name.size() == n + 1) continue;
    if (name.find_first_not_of("0123456789", n + 1) == std::string::npos) return true;
  }
  return false;
}

// The user's frames, outermost first, one `  File "<file>", line <n>, in <function>` line each:
// every Python frame whose file does not start with `skip` (fn's own modules) and is not
// importlib's or embedded (TF's user frames); "  <unknown>" if none. The innermost is the last line.
std::string user_frame_location(const std::string& skip) {
  struct Frame {
    PyFrameObject* frame;  // new references, released below
    PyCodeObject* code;
    int lasti;
  };
  // A frame's line is a function of (code object, instruction): the previous call's lines are
  // kept by depth and reused where they match (between nodes mostly only the innermost frame
  // moves; line numbers come from a scan of the line table). The code objects are held so their
  // addresses cannot be reused by others while cached (one set per thread, never released: a
  // thread_local py::object would be released after Python finalized).
  struct Line {
    PyObject* code;
    int lasti;
    std::string text;
    std::string name;  // the function the line names
  };
  thread_local std::vector<Line> lines;  // outermost first
  thread_local std::string joined;
  std::vector<Frame> user;                                         // innermost first
  PyFrameObject* f = PyThreadState_GetFrame(PyThreadState_Get());  // new reference
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);  // new reference
    Py_ssize_t len = 0;
    const char* file = PyUnicode_AsUTF8AndSize(code->co_filename, &len);
    if (!file) PyErr_Clear();
    PyFrameObject* back = PyFrame_GetBack(f);  // new reference
    // importlib's and embedded frames are "<frozen importlib._bootstrap>", "<embedded ...>".
    if (file && !(static_cast<size_t>(len) >= skip.size() && std::memcmp(file, skip.data(), skip.size()) == 0) &&
        (file[0] != '<' || (std::strstr(file, "importlib") == nullptr && std::strncmp(file, "<embedded", 9) != 0))) {
      user.push_back(Frame{f, code, PyFrame_GetLasti(f)});
    } else {
      Py_DECREF(code);
      Py_DECREF(f);
    }
    f = back;
  }
  bool changed = user.size() != lines.size();
  bool outer_changed = changed;
  for (size_t d = 0; d < user.size(); ++d) {
    const Frame& u = user[user.size() - 1 - d];
    if (d < lines.size() && lines[d].code == reinterpret_cast<PyObject*>(u.code) && lines[d].lasti == u.lasti) continue;
    changed = true;
    if (d + 1 < user.size()) outer_changed = true;
    Py_ssize_t len = 0;
    const char* file = PyUnicode_AsUTF8AndSize(u.code->co_filename, &len);
    const char* raw_name = PyUnicode_AsUTF8(u.code->co_name);
    if (!raw_name) PyErr_Clear();
    std::string name = raw_name ? raw_name : "?";
    // AutoGraph's generated statement parts (loop_body, if_body, ...) read as the function
    // they were written in, as TF's frames do.
    if (d > 0 && is_generated_part(name)) name = lines[d - 1].name;
    std::string text;
    text.append("  File \"").append(file, static_cast<size_t>(len)).append("\", line ");
    text.append(std::to_string(PyFrame_GetLineNumber(u.frame))).append(", in ").append(name);
    Py_INCREF(u.code);
    if (d < lines.size()) {
      Py_DECREF(lines[d].code);
      lines[d] = Line{reinterpret_cast<PyObject*>(u.code), u.lasti, std::move(text), std::move(name)};
    } else {
      lines.push_back(Line{reinterpret_cast<PyObject*>(u.code), u.lasti, std::move(text), std::move(name)});
    }
  }
  while (lines.size() > user.size()) {
    Py_DECREF(lines.back().code);
    lines.pop_back();
  }
  if (changed) {
    // The outer lines' text is rebuilt only when one of them moved (mostly the innermost does).
    thread_local std::string outer;
    thread_local size_t outer_lines = 0;
    if (outer_changed || outer_lines + 1 != lines.size()) {
      outer.clear();
      for (size_t d = 0; d + 1 < lines.size(); ++d) outer.append(lines[d].text).push_back('\n');
      outer_lines = lines.empty() ? 0 : lines.size() - 1;
    }
    joined.assign(outer);
    if (!lines.empty()) joined.append(lines.back().text);
  }
  for (const Frame& u : user) {
    Py_DECREF(u.code);
    Py_DECREF(u.frame);
  }
  return user.empty() ? std::string("  <unknown>") : joined;
}

// An op's facts as Python sees them (fn._core.op_def): read from its OpDef, never restated.
py::dict op_def_dict(const OpDef& d) {
  py::dict out;
  out["name"] = d.name;
  out["default_name"] = d.default_name;
  out["num_inputs"] = d.num_inputs;  // -1: variadic
  out["min_inputs"] = d.min_inputs;
  out["stateful"] = d.stateful;
  out["needs_host"] = d.needs_host;
  out["shape_only"] = d.shape_only;
  out["differentiable"] = static_cast<bool>(d.grad);
  py::list types;
  for (const InputType& t : d.input_types) {
    py::list allowed;
    for (DType a : t.allowed) allowed.append(dtype_name(a));
    types.append(py::dict(py::arg("input") = t.input, py::arg("param") = t.param, py::arg("attr") = t.attr,
                          py::arg("allowed") = allowed));
  }
  out["input_types"] = types;
  py::dict mins;
  for (const auto& m : d.attr_mins) mins[py::str(m.first)] = m.second;
  out["attr_mins"] = mins;
  py::list outs;
  for (const std::string& a : d.output_args) outs.append(a);
  if (d.output_args.empty()) outs.append("output");
  out["output_args"] = outs;
  static const char* const kClasses[] = {"other", "unary", "binary", "reduction"};
  out["op_class"] = kClasses[static_cast<int>(d.op_class)];
  out["onnx"] = d.onnx;
  out["fused_opcode"] = d.fusion.opcode;  // -1: the elementwise fuser leaves it alone
  out["fused_reduce"] = d.fusion.reduce;
  out["relabels_dims"] = d.relabels_dims;
  out["broadcast_view"] = d.broadcast_view;
  static const char* const kCollective[] = {"", "start", "done"};
  out["collective"] = kCollective[static_cast<int>(d.collective)];  // "": not a split collective
  static const char* const kComplex[] = {"", "add", "sub", "mul", "div", "neg", "abs", "cast", "zeros", "ones"};
  out["complex"] = kComplex[static_cast<int>(d.complex)];  // "": no complex path added by with_complex
  return out;
}

}  // namespace

void init_ops(py::module_& m) {
  m.def(
      "execute",
      [](const std::string& op, const std::vector<TensorPtr>& inputs, py::handle attrs, py::handle name) {
        const OpDef& def = OpRegistry::global().get(op);
        return execute(def, inputs, attrs_from_py(attrs), op_name_arg(name));
      },
      py::arg("op"), py::arg("inputs"), py::arg("attrs") = py::none(), py::arg("name") = py::none(),
      "Runs (eagerly) or records (while tracing) one op; the single dispatch path.");
  m.def("op_names", [] { return OpRegistry::global().names(); });
  m.def(
      "op_def", [](const std::string& n) { return op_def_dict(OpRegistry::global().get(n)); }, py::arg("name"),
      "One op's facts from its definition (TF's op type, default node name, inputs, index-input "
      "dtypes, attr minimums, traits); NotFoundError for an unknown op.");
  m.def(
      "op_defs",
      [] {
        py::dict out;
        const OpRegistry& r = OpRegistry::global();
        for (const std::string& n : r.names()) out[py::str(n)] = op_def_dict(r.get(n));
        return out;
      },
      "Every registered op's facts (op_def), by op type.");
  m.def("has_op", [](const std::string& n) { return OpRegistry::global().find(n) != nullptr; });
  m.def("executing_eagerly", &executing_eagerly);
  m.def(
      "current_graph_id",
      [] {
        GraphBuilder* b = current_builder();
        return b ? b->graph()->id() : uint64_t{0};
      },
      "Id of the graph being traced on this thread (0 when eager).");
  // C++ host objects carried in attrs (random ops' generator state).
  py::class_<HostObject, std::shared_ptr<HostObject>>(m, "HostObject");
  m.def("_random_state", &make_random_state,
        "A fresh generator state for one random op instance (its \"_state\" attr).");
  // One op's gradient rule, run directly (tests check each rule against finite differences).
  m.def(
      "_op_gradient",
      [](const std::string& op, const std::vector<TensorPtr>& inputs, py::handle attrs,
         const std::vector<TensorPtr>& outputs, const std::vector<py::object>& out_grads) {
        const OpDef& def = OpRegistry::global().get(op);
        if (!def.grad) throw_error(Code::NotFound, "No gradient defined for operation '", op, "'");
        std::vector<TensorPtr> og;
        for (auto& g : out_grads) og.push_back(g.is_none() ? nullptr : g.cast<TensorPtr>());
        Attrs a = attrs_from_py(attrs);
        auto grads = def.grad(GradContext{inputs, outputs, og, a});
        py::list out;
        for (auto& g : grads) out.append(g ? py::cast(g) : py::none());
        return out;
      },
      py::arg("op"), py::arg("inputs"), py::arg("attrs"), py::arg("outputs"), py::arg("out_grads"));
  m.def("set_check_numerics", &set_check_numerics);
  m.def("check_numerics_enabled", &check_numerics_enabled);
  m.def(
      "set_location_skip",
      [](const std::string& prefix, const std::vector<std::string>& generated_parts) {
        // The same rule as a Python provider walking sys._getframe, in C++ (tracing calls it once
        // per node): the innermost frame whose file is outside `prefix` and not importlib's;
        // frames of AutoGraph's `generated_parts` read as the function they were written in.
        frame_rules() = FrameRules{prefix, generated_parts};
        set_location_provider([]() -> std::string {
          py::gil_scoped_acquire gil;
          return user_frame_location(frame_rules().skip);
        });
      },
      py::arg("prefix"), py::arg("generated_parts"));
  m.def(
      "_current_location", [] { return innermost_frame(current_location()); },
      "The user's source location as nodes record it (tests compare it with Python's frames).");
  m.def("set_location_provider", [](py::function f) {
    // The provider outlives the interpreter (a static std::function): hold a strong reference
    // that is deliberately never released, so nothing touches Python after it finalizes.
    PyObject* fp = f.ptr();
    Py_INCREF(fp);
    set_location_provider([fp]() -> std::string {
      py::gil_scoped_acquire gil;
      return py::reinterpret_borrow<py::function>(fp)().cast<std::string>();
    });
  });
}

void init_graph(py::module_& m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph")
      .def(py::init<std::string>(), py::arg("name") = "graph")
      .def_property_readonly("name", &Graph::name)
      .def_property_readonly("id", &Graph::id)
      .def("num_nodes", &Graph::num_nodes)
      .def("to_text", &Graph::to_text)
      .def("verify", &Graph::verify)
      .def("node_name", [](const Graph& g, int i) { return g.node(i).name; })
      .def("node_op", [](const Graph& g, int i) { return g.node(i).op; })
      // A CustomGradient node's Python grad_fn (None when the attr holds no Python object), and
      // the traced gradient graph a SavedModel stores in its place (saved_model/_save.py).
      .def("_node_host",
           [](const Graph& g, int i, const std::string& k) -> py::object {
             const AttrValue* v = g.node(i).attrs.find(k);
             auto* h = v ? std::get_if<std::shared_ptr<HostObject>>(v) : nullptr;
             auto py_host = h ? std::dynamic_pointer_cast<PyHostObject>(*h) : nullptr;
             return py_host ? py_host->obj : py::none();
           })
      .def("_set_custom_gradient_graph",
           [](Graph& g, int i, std::shared_ptr<Graph> grad, std::vector<int64_t> none_mask) {
             if (g.node(i).op != "CustomGradient") throw_error(Code::InvalidArgument, "not a CustomGradient node");
             g.mutable_node(i).attrs.set("_grad_graph", std::move(grad));
             g.mutable_node(i).attrs.set("_grad_none", std::move(none_mask));
           })
      .def("node_defined_at", [](const Graph& g, int i) { return innermost_frame(g.node(i).defined_at); })
      .def("node_stack", [](const Graph& g, int i) { return g.node(i).defined_at; })
      .def("node_inputs",
           [](const Graph& g, int i) {
             std::vector<std::string> out;
             for (auto& in : g.node(i).inputs)
               out.push_back(g.node(in.node).name + (in.index ? ":" + std::to_string(in.index) : ""));
             for (int c : g.node(i).control_inputs) out.push_back("^" + g.node(c).name);
             return out;
           })
      .def("node_attr_names",
           [](const Graph& g, int i) {
             std::vector<std::string> out;
             for (auto& kv : g.node(i).attrs.items()) out.push_back(kv.first);
             return out;
           })
      .def("node_attr_text",
           [](const Graph& g, int i, const std::string& k) {
             const AttrValue* v = g.node(i).attrs.find(k);
             return v ? attr_to_string(*v) : std::string();
           })
      .def("node_attr",
           [](const Graph& g, int i, const std::string& k) -> py::object {
             // The attr as a Python value (for as_graph_def): tensors, dtypes, shapes, lists.
             const AttrValue* v = g.node(i).attrs.find(k);
             if (!v) return py::none();
             return std::visit(
                 [](const auto& x) -> py::object {
                   using T = std::decay_t<decltype(x)>;
                   if constexpr (std::is_same_v<T, std::monostate> || std::is_same_v<T, std::shared_ptr<HostObject>>) {
                     return py::none();
                   } else if constexpr (std::is_same_v<T, DType>) {
                     return dtype_to_py(x);
                   } else if constexpr (std::is_same_v<T, Shape>) {
                     return shape_to_py(x);
                   } else if constexpr (std::is_same_v<T, std::vector<DType>>) {
                     py::list l;
                     for (DType d : x) l.append(dtype_to_py(d));
                     return l;
                   } else if constexpr (std::is_same_v<T, std::vector<Shape>>) {
                     py::list l;
                     for (auto& s : x) l.append(shape_to_py(s));
                     return l;
                   } else if constexpr (std::is_same_v<T, EagerPtr>) {
                     return x ? py::cast(std::static_pointer_cast<Tensor>(x)) : py::none();
                   } else if constexpr (std::is_same_v<T, std::shared_ptr<Graph>>) {
                     return x ? py::cast(x) : py::none();
                   } else {
                     return py::cast(x);
                   }
                 },
                 *v);
           })
      .def("node_outputs",
           [](const Graph& g, int i) {
             py::list out;
             for (auto& s : g.node(i).outputs) out.append(py::make_tuple(dtype_to_py(s.dtype), shape_to_py(s.shape)));
             return out;
           })
      .def("node_subgraphs",
           [](const Graph& g, int i) {
             py::list out;
             for (auto& kv : g.node(i).attrs.items())
               if (auto* sub = std::get_if<std::shared_ptr<Graph>>(&kv.second))
                 if (*sub) out.append(py::make_tuple(kv.first, *sub));
             return out;
           })
      // Node output `index` as a symbolic tensor (tf.Operation.outputs/inputs of a graph's nodes).
      .def("node_tensor",
           [](const std::shared_ptr<Graph>& g, int i, int index) {
             if (i < 0 || i >= g->num_nodes()) throw_error(Code::InvalidArgument, "node ", i, " not in the graph");
             const Node& n = g->node(i);
             if (index < 0 || index >= static_cast<int>(n.outputs.size()))
               throw_error(Code::InvalidArgument, "node '", n.name, "' has no output ", index);
             auto t = std::make_shared<Tensor>(n.outputs[index].dtype, n.outputs[index].shape);
             t->graph = g;
             t->graph_id = g->id();
             t->node = i;
             t->index = index;
             return t;
           })
      // Producers of a node's data inputs, as (node, output index) pairs; control inputs apart.
      .def("node_input_refs",
           [](const Graph& g, int i) {
             std::vector<std::pair<int, int>> out;
             for (auto& in : g.node(i).inputs) out.emplace_back(in.node, in.index);
             return out;
           })
      .def("node_control_inputs", [](const Graph& g, int i) { return g.node(i).control_inputs; })
      // tf.control_dependencies: node `i` runs after `controls` (nodes made before it: no cycle).
      .def("add_control_inputs",
           [](Graph& g, int i, const std::vector<int>& controls) {
             if (i < 0 || i >= g.num_nodes()) throw_error(Code::InvalidArgument, "node ", i, " not in the graph");
             std::vector<int>& mine = g.mutable_node(i).control_inputs;
             for (int c : controls) {
               if (c < 0 || c >= i)
                 throw_error(Code::InvalidArgument, "control input ", c, " does not precede node ", i);
               if (std::find(mine.begin(), mine.end(), c) == mine.end()) mine.push_back(c);
             }
           })
      .def_property_readonly("arg_placeholders", [](const Graph& g) { return g.arg_placeholders; })
      .def_property_readonly("capture_placeholders", [](const Graph& g) { return g.capture_placeholders; });
}

}  // namespace fn
