// Tracing support and the Function fast path: trace-type keys computed from Python arguments,
// graph-building scopes, concrete functions, and Function.__call__ that runs a cached graph
// without entering Python.
#include <pybind11/stl.h>

#include <atomic>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "function/cache.h"
#include "function/concrete.h"
#include "trace/tape.h"

namespace fn {

namespace {

std::atomic<bool> g_run_eagerly{false};
// While > 0, Function calls skip the C++ cache fast path: the Python path adds the trace context
// (e.g. the replica of a multi-replica strategy.run) to the cache key.
std::atomic<int> g_context_keyed_calls{0};

// A trace type defined in Python (a tf.types.experimental.TraceType returned by
// __tf_tracing_type__), compared through its Python methods.
class PyTraceType : public TraceType {
 public:
  explicit PyTraceType(py::object t) : TraceType(Kind::Opaque), obj(std::move(t)) {
    py::gil_scoped_acquire gil;
    h = py::hash(obj);
  }
  ~PyTraceType() override {
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
  size_t hash() const override { return static_cast<size_t>(h); }
  bool equals(const TraceType& o) const override {
    if (o.kind != Kind::Opaque) return false;
    auto* p = dynamic_cast<const PyTraceType*>(&o);
    if (!p) return false;
    py::gil_scoped_acquire gil;
    return obj.equal(p->obj);
  }
  bool is_subtype_of(const TraceType& o) const override {
    auto* p = dynamic_cast<const PyTraceType*>(&o);
    if (!p) return false;
    py::gil_scoped_acquire gil;
    if (!py::hasattr(obj, "is_subtype_of")) return obj.equal(p->obj);
    return obj.attr("is_subtype_of")(p->obj).cast<bool>();
  }
  std::string to_string() const override {
    py::gil_scoped_acquire gil;
    return py::repr(obj);
  }
  py::object obj;
  py::ssize_t h;
};

// Any other Python object: matched by equality and hash while it lives (held weakly).
class WeakrefType : public TraceType {
 public:
  WeakrefType(py::handle o, py::ssize_t hash, std::string desc)
      : TraceType(Kind::Opaque), ref(py::weakref(o)), h(hash), desc(std::move(desc)) {}
  ~WeakrefType() override {
    py::gil_scoped_acquire gil;
    ref = py::weakref();
  }
  size_t hash() const override { return static_cast<size_t>(h); }
  bool equals(const TraceType& o) const override {
    auto* w = dynamic_cast<const WeakrefType*>(&o);
    if (!w) return false;
    py::gil_scoped_acquire gil;
    py::object a = ref(), b = w->ref();
    if (a.is_none() || b.is_none()) return false;  // a dead object matches nothing
    return a.is(b) || a.equal(b);
  }
  std::string to_string() const override { return desc; }
  py::weakref ref;
  py::ssize_t h;
  std::string desc;
};

// A hashable object that cannot be weakly referenced (e.g. a list_iterator): matched by
// equality and hash, held strongly, like TF's Literal fallback.
class StrongRefType : public TraceType {
 public:
  StrongRefType(py::handle o, py::ssize_t hash)
      : TraceType(Kind::Opaque), obj(py::reinterpret_borrow<py::object>(o)), h(hash) {}
  ~StrongRefType() override {
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
  size_t hash() const override { return static_cast<size_t>(h); }
  bool equals(const TraceType& o) const override {
    auto* w = dynamic_cast<const StrongRefType*>(&o);
    if (!w) return false;
    py::gil_scoped_acquire gil;
    return obj.is(w->obj) || obj.equal(w->obj);
  }
  std::string to_string() const override {
    py::gil_scoped_acquire gil;
    return "Literal[" + std::string(py::repr(obj)) + "]";
  }
  py::object obj;
  py::ssize_t h;
};

PyTypeObject* eager_tensor_type() {
  static PyTypeObject* const t = reinterpret_cast<PyTypeObject*>(py::type::of<EagerTensor>().ptr());
  return t;
}

// isinstance(v, Tensor) without pybind's per-call type-registry lookup.
bool is_tensor_fast(py::handle v) {
  static PyTypeObject* const tensor_type = reinterpret_cast<PyTypeObject*>(py::type::of<Tensor>().ptr());
  PyTypeObject* t = Py_TYPE(v.ptr());
  return t == eager_tensor_type() || t == tensor_type || PyType_IsSubtype(t, tensor_type);
}

// v.cast<TensorPtr>() for a tensor; an exact EagerTensor's holder is read directly (pybind's
// generic caster looks the type up on every call).
TensorPtr tensor_of(py::handle v) {
  static const py::detail::type_info* const eager_info = py::detail::get_type_info(typeid(EagerTensor));
  if (Py_TYPE(v.ptr()) == eager_tensor_type() && eager_info) {
    auto vh = reinterpret_cast<py::detail::instance*>(v.ptr())->get_value_and_holder(eager_info, false);
    if (vh && vh.holder_constructed()) return vh.holder<std::shared_ptr<EagerTensor>>();
  }
  return v.cast<TensorPtr>();
}

struct KeyBuilder {
  std::vector<TensorPtr> leaves;  // tensors, in flattening order
  py::list spec_leaves;           // the Python leaf objects (tensors or TensorSpecs) in order
  bool has_specs = false;
  bool want_spec_leaves = true;  // the fast path needs only `leaves`
  // Each distinct Variable of a call, numbered in order of appearance (TF's VariableSpec
  // alias_id): f(v1, v1) and f(v1, v2) are different traces, f(v2, v2) reuses f(v1, v1)'s.
  std::unordered_map<const Tensor*, int> variable_alias;

  TypePtr build(py::handle v) {
    PyObject* p = v.ptr();
    if (is_tensor_fast(v)) {
      TensorPtr t = tensor_of(v);
      if (want_spec_leaves) spec_leaves.append(v);
      auto type = std::make_shared<TensorType>(t->dtype(), t->shape());
      leaves.push_back(std::move(t));
      return type;
    }
    if (is_ndarray(v)) {  // NumPy arrays are tensors to tf.function (trace type: their TensorSpec)
      TensorPtr t = to_eager(v, nullptr);
      leaves.push_back(t);
      spec_leaves.append(py::cast(t));
      return std::make_shared<TensorType>(t->dtype(), t->shape());
    }
    if (p == Py_None) return std::make_shared<LiteralType>(LiteralType::PyKind::None, "None", 0);
    if (PyBool_Check(p))
      return std::make_shared<LiteralType>(LiteralType::PyKind::Bool, p == Py_True ? "True" : "False", p == Py_True);
    if (PyLong_Check(p) && Py_TYPE(p) == &PyLong_Type)
      return std::make_shared<LiteralType>(LiteralType::PyKind::Int, py::repr(v), py::hash(v));
    if (PyFloat_Check(p) && Py_TYPE(p) == &PyFloat_Type)
      return std::make_shared<LiteralType>(LiteralType::PyKind::Float, py::repr(v), py::hash(v));
    if (PyUnicode_Check(p) && Py_TYPE(p) == &PyUnicode_Type)
      return std::make_shared<LiteralType>(LiteralType::PyKind::Str, py::repr(v), py::hash(v));
    if (PyBytes_Check(p)) return std::make_shared<LiteralType>(LiteralType::PyKind::Bytes, py::repr(v), py::hash(v));
    if (PyTuple_Check(p) || PyList_Check(p)) {
      std::vector<TypePtr> elems;
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      elems.reserve(seq.size());
      for (py::handle x : seq) elems.push_back(build(x));
      std::string name = PyList_Check(p) ? "list" : "tuple";
      if (PyTuple_Check(p) && Py_TYPE(p) != &PyTuple_Type && py::hasattr(v, "_fields"))
        name = py::str(py::type::of(v).attr("__qualname__"));
      return std::make_shared<SequenceType>(name, std::move(elems));
    }
    if (PyDict_Check(p)) {
      std::vector<std::pair<TypePtr, TypePtr>> entries;
      py::dict d = py::reinterpret_borrow<py::dict>(v);
      // Keys in repr order. Identifier keys (keyword arguments) sort as their UTF-8 bytes do:
      // their repr only adds quotes, and no identifier character sorts below the quote.
      std::vector<std::pair<std::string_view, py::handle>> named;
      bool identifiers = true;
      for (auto kv : d) {
        PyObject* k = kv.first.ptr();
        Py_ssize_t n = 0;
        const char* utf8 =
            Py_TYPE(k) == &PyUnicode_Type && PyUnicode_IsIdentifier(k) == 1 ? PyUnicode_AsUTF8AndSize(k, &n) : nullptr;
        if (!utf8) {
          PyErr_Clear();
          identifiers = false;
          break;
        }
        named.emplace_back(std::string_view(utf8, static_cast<size_t>(n)), kv.first);
      }
      if (identifiers) {
        std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& nk : named) {
          TypePtr kt = build(nk.second);
          entries.emplace_back(kt, build(d[nk.second]));
        }
        return std::make_shared<DictType>(std::move(entries));
      }
      py::list keys =
          py::module_::import("builtins")
              .attr("sorted")(d.attr("keys")(), py::arg("key") = py::module_::import("builtins").attr("repr"));
      for (py::handle k : keys) {
        TypePtr kt = build(k);
        entries.emplace_back(kt, build(d[k]));
      }
      return std::make_shared<DictType>(std::move(entries));
    }
    if (py::hasattr(v, "_fn_tensor_spec")) {  // fn.TensorSpec: a placeholder of that type
      has_specs = true;
      spec_leaves.append(v);
      leaves.push_back(nullptr);
      return std::make_shared<TensorType>(dtype_from_py(v.attr("dtype")), shape_from_py(v.attr("shape")));
    }
    if (py::hasattr(v, "__fn_composite__")) {
      // A value made of tensors (fn.data's datasets and iterators): its trace type (a Python
      // TraceType) plus its component tensors (or TensorSpecs), which become graph inputs.
      py::tuple r = v.attr("__fn_composite__")();
      for (py::handle c : py::reinterpret_borrow<py::sequence>(r[1])) {
        spec_leaves.append(c);
        if (is_tensor(c)) {
          leaves.push_back(c.cast<TensorPtr>());
        } else {
          has_specs = true;
          leaves.push_back(nullptr);
        }
      }
      return std::make_shared<PyTraceType>(r[0]);
    }
    if (!PyType_Check(p) && py::hasattr(py::type::of(v), "_fn_variable")) {
      // A Variable argument: its handle is a graph input; its type is dtype/shape (TF).
      py::object handle = v.attr("_fn_handle");
      TensorPtr h = handle.cast<TensorPtr>();
      int alias = variable_alias.emplace(h.get(), static_cast<int>(variable_alias.size())).first->second;
      leaves.push_back(std::move(h));
      spec_leaves.append(handle);
      return std::make_shared<PyTraceType>(v.attr("_fn_aliased_tracing_type")(alias));
    }
    if (!PyType_Check(p) && py::hasattr(py::type::of(v), "__tf_flatten__")) {
      // TF's extension-type protocol: (metadata, components); the type and the metadata name
      // the trace type, the components are traced like a tuple (their tensors become inputs).
      py::tuple r = v.attr("__tf_flatten__")();
      py::handle cls = py::type::of(v);
      std::string name = std::string(py::str(cls.attr("__module__"))) + "." +
                         std::string(py::str(cls.attr("__qualname__"))) + "[" + std::string(py::repr(r[0])) + "]";
      std::vector<TypePtr> elems;
      for (py::handle c : py::reinterpret_borrow<py::sequence>(r[1])) elems.push_back(build(c));
      return std::make_shared<SequenceType>(name, std::move(elems));
    }
    for (const char* hook : {"__fn_tracing_type__", "__tf_tracing_type__"}) {
      if (py::hasattr(v, hook)) return std::make_shared<PyTraceType>(v.attr(hook)(py::none()));
    }
    py::ssize_t h;
    try {
      h = py::hash(v);
    } catch (py::error_already_set&) {
      throw_error(Code::TypeError, "Could not generate a generic TraceType for ", std::string(py::repr(v)),
                  ".Please verify that it is immutable/hashable. Otherwise, consider implementing the Tracing "
                  "Protocol for it.");
    }
    try {
      return std::make_shared<WeakrefType>(v, h, std::string(py::str(py::type::of(v).attr("__qualname__"))));
    } catch (py::error_already_set&) { return std::make_shared<StrongRefType>(v, h); }
  }
};

class TraceKey {
 public:
  explicit TraceKey(TypePtr t) : type(std::move(t)) {}
  TypePtr type;
};

// How a cached call hands its outputs back: the fast path builds one tensor or a tuple of
// tensors itself; any other structure is repacked by the Python ConcreteFunction.
enum class OutputMode { OneTensor, TensorTuple, PythonPack };

// What a Function's cache holds: the concrete function plus how to rebuild its outputs.
struct CacheEntry {
  std::shared_ptr<ConcreteFunction> concrete;
  py::object python_concrete;  // the Python ConcreteFunction wrapper
  OutputMode output_mode = OutputMode::PythonPack;
  ~CacheEntry() {
    py::gil_scoped_acquire gil;
    python_concrete = py::object();
  }
};

class FunctionBase {
 public:
  FunctionCache<CacheEntry> cache;
  int fast_positional = -1;              // number of positional args for which the fast path applies
  py::tuple fast_defaults;               // defaults of the trailing positional parameters
  bool fast_varargs = false;             // the parameters end in *args: extra positional values are its items
  std::vector<std::string> param_names;  // positional parameter names (keyword calls)
  // Keyword-only parameters and **kwargs (fast_keywords): the canonical form is then
  // (positional values, {keyword-only values with defaults, then extra keywords}).
  bool fast_keywords = false;
  std::vector<std::string> kwonly_names;
  std::vector<py::object> kwonly_defaults;  // null: required
  bool var_keyword = false;
  // input_signature: the one key, and each positional argument's dtype/shape
  std::shared_ptr<TraceKey> signature_key;
  std::vector<TensorSpec> signature_specs;
  std::atomic<int64_t> fast_hits{0};
  // The key of the last fast call whose arguments were all plain tensors (a tuple of TensorTypes,
  // resource_id -1): a call with tensors of the same dtypes and shapes has exactly this key, so it
  // is reused rather than rebuilt (no per-tensor allocation). Read and written under the GIL.
  TypePtr last_tensor_key;
};

py::object run_entry(const CacheEntry& e, const std::vector<TensorPtr>& leaves) {
  std::vector<TensorPtr> out;
  bool release = !current_builder() && active_tapes().empty() && !e.concrete->plan()->needs_host();
  if (release) {
    py::gil_scoped_release nogil;
    out = e.concrete->call(leaves);
  } else {
    out = e.concrete->call(leaves);
  }
  if (e.output_mode == OutputMode::OneTensor) return py::cast(out[0]);
  if (e.output_mode == OutputMode::TensorTuple) {
    py::tuple t(out.size());
    for (size_t i = 0; i < out.size(); ++i) t[i] = py::cast(out[i]);
    return std::move(t);
  }
  return e.python_concrete.attr("_pack_outputs")(py::cast(out));
}

// The call's values for every positional parameter, in order (keywords placed, trailing
// defaults filled), as Python's binding would give them; false when only the slow path can
// bind this call (unknown keywords, missing or duplicate values: it raises the TypeError).
// With keyword-only parameters or **kwargs, `*kw` gets the keyword part of the canonical form
// (an empty dict when there is none).
bool canonical_args(const FunctionBase& f, const py::args& args, const py::kwargs& kwargs, py::tuple* out,
                    py::dict* kw = nullptr) {
  const int np_ = f.fast_positional, nargs = static_cast<int>(args.size());
  if (np_ < 0 || (nargs > np_ && !(f.fast_varargs && kwargs.empty()))) return false;
  if (f.fast_keywords != (kw != nullptr)) return false;
  if (kwargs.empty() && nargs >= np_ && !f.fast_keywords) {
    *out = args;
    return true;
  }
  // (param_names is empty when a parameter is positional-only: keywords bind the slow way)
  if (!kwargs.empty() && f.param_names.size() != static_cast<size_t>(np_)) return false;
  std::vector<py::object> slots(np_);
  std::vector<py::object> kwonly(f.kwonly_names.size());
  py::dict extra;
  for (int i = 0; i < nargs; ++i) slots[i] = py::reinterpret_borrow<py::object>(args[i]);
  for (auto kv : kwargs) {
    if (!PyUnicode_Check(kv.first.ptr())) return false;
    std::string key = py::str(kv.first);
    int idx = -1;
    for (int i = 0; i < np_; ++i)
      if (f.param_names[i] == key) {
        idx = i;
        break;
      }
    if (idx >= 0) {
      if (idx < nargs || slots[idx]) return false;
      slots[idx] = py::reinterpret_borrow<py::object>(kv.second);
      continue;
    }
    for (size_t j = 0; j < f.kwonly_names.size() && idx < 0; ++j)
      if (f.kwonly_names[j] == key) idx = static_cast<int>(j);
    if (idx >= 0) {
      kwonly[idx] = py::reinterpret_borrow<py::object>(kv.second);
    } else if (f.var_keyword) {
      extra[kv.first] = kv.second;
    } else {
      return false;  // unknown keyword: the slow path raises TypeError
    }
  }
  if (kw) {
    // Python's binding order: keyword-only parameters in order, then **kwargs as passed.
    py::dict d;
    for (size_t j = 0; j < kwonly.size(); ++j) {
      if (!kwonly[j] && !f.kwonly_defaults[j]) return false;  // missing: TypeError on the slow path
      d[py::str(f.kwonly_names[j])] = kwonly[j] ? kwonly[j] : f.kwonly_defaults[j];
    }
    for (auto kv : extra) d[kv.first] = kv.second;
    *kw = std::move(d);
  }
  const int nd = static_cast<int>(f.fast_defaults.size());
  py::tuple full(np_);
  for (int i = 0; i < np_; ++i) {
    if (slots[i]) {
      full[i] = slots[i];
      continue;
    }
    if (np_ - i > nd) return false;
    full[i] = f.fast_defaults[nd - (np_ - i)];
  }
  *out = full;
  return true;
}

// Runs the cached concrete function for these canonical arguments; a null object on a miss.
// `key_value`: the canonical arguments (a tuple), or (tuple, keyword dict) for keywords.
// True when `args` (a tuple) are tensors with the dtypes and shapes of `key`'s elements (a tuple
// of plain TensorTypes), i.e. building their key would give one equal to `key`; fills `leaves`.
bool matches_tensor_key(const TypePtr& key, py::handle args, std::vector<TensorPtr>* leaves) {
  auto& seq = static_cast<const SequenceType&>(*key);
  const Py_ssize_t n = PyTuple_GET_SIZE(args.ptr());
  if (static_cast<size_t>(n) != seq.elements.size()) return false;
  leaves->reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    py::handle a = PyTuple_GET_ITEM(args.ptr(), i);
    if (!is_tensor_fast(a)) return false;
    TensorPtr t = tensor_of(a);
    auto& tt = static_cast<const TensorType&>(*seq.elements[i]);
    if (t->dtype() != tt.dtype || t->shape() != tt.shape) return false;
    leaves->push_back(std::move(t));
  }
  return true;
}

bool is_plain_tensor_tuple(const TraceType& key) {
  if (key.kind != TraceType::Kind::Sequence) return false;
  auto& seq = static_cast<const SequenceType&>(key);
  if (seq.name != "tuple") return false;
  for (auto& e : seq.elements)
    if (e->kind != TraceType::Kind::Tensor || static_cast<const TensorType&>(*e).resource_id != -1) return false;
  return true;
}

py::object call_cached(FunctionBase& f, py::handle key_value) {
  const bool plain_tuple = Py_TYPE(key_value.ptr()) == &PyTuple_Type;
  if (plain_tuple && f.last_tensor_key) {
    std::vector<TensorPtr> leaves;
    if (matches_tensor_key(f.last_tensor_key, key_value, &leaves)) {
      TypePtr key = f.last_tensor_key;  // (held: running the entry may replace the memo)
      auto e = f.cache.lookup(key);
      if (!e) return py::object();
      f.fast_hits++;
      return run_entry(*e, leaves);
    }
  }
  KeyBuilder kb;
  kb.want_spec_leaves = false;
  TypePtr key = kb.build(key_value);
  if (kb.has_specs) return py::object();
  TypePtr stored;  // on an exact hit the cache's own key: equal, and compared by address next time
  auto e = f.cache.lookup(key, &stored);
  if (!e) return py::object();
  if (plain_tuple && is_plain_tensor_tuple(*key)) f.last_tensor_key = stored ? stored : key;
  f.fast_hits++;
  return run_entry(*e, kb.leaves);
}

// input_signature: tensors that fit the signature use its one trace directly.
py::object call_with_signature(FunctionBase& f, const py::args& args) {
  const size_t n = args.size();
  if (n != f.signature_specs.size()) return py::object();
  std::vector<TensorPtr> leaves;
  for (size_t i = 0; i < n; ++i) {
    py::handle a = args[i];
    if (!is_tensor(a)) return py::object();
    auto t = a.cast<TensorPtr>();
    if (t->dtype() != f.signature_specs[i].dtype || !t->shape().is_subtype_of(f.signature_specs[i].shape))
      return py::object();
    leaves.push_back(std::move(t));
  }
  auto e = f.cache.lookup(f.signature_key->type);
  if (!e) return py::object();
  f.fast_hits++;
  return run_entry(*e, leaves);
}

// Tracing: trace keys, graph builders, the context stack and name scopes.
void init_tracing(py::module_& m) {
  py::class_<TraceKey, std::shared_ptr<TraceKey>>(m, "TraceKey")
      .def("__hash__", [](const TraceKey& k) { return static_cast<py::ssize_t>(k.type->hash()); })
      .def("__eq__", [](const TraceKey& a, const TraceKey& b) { return a.type->equals(*b.type); })
      .def("is_subtype_of", [](const TraceKey& a, const TraceKey& b) { return a.type->is_subtype_of(*b.type); })
      .def("common_supertype",
           [](const TraceKey& a, const TraceKey& b) -> py::object {
             TypePtr c = a.type->common_supertype(*b.type, a.type);
             if (!c) return py::none();
             return py::cast(std::make_shared<TraceKey>(c));
           })
      .def("elements",
           [](const TraceKey& k) {
             py::list out;
             if (k.type->kind == TraceType::Kind::Sequence)
               for (auto& e : static_cast<const SequenceType&>(*k.type).elements)
                 out.append(std::make_shared<TraceKey>(e));
             return out;
           })
      .def("__repr__", [](const TraceKey& k) { return k.type->to_string(); });

  m.def(
      "make_key",
      [](py::handle value) {
        KeyBuilder kb;
        TypePtr t = kb.build(value);
        return py::make_tuple(std::make_shared<TraceKey>(t), kb.spec_leaves);
      },
      "Trace type of a value and its tensor/TensorSpec leaves in flattening order.");

  py::class_<GraphBuilder, std::shared_ptr<GraphBuilder>>(m, "GraphBuilder")
      .def(py::init<std::shared_ptr<Graph>>())
      .def_property_readonly("graph", &GraphBuilder::graph)
      .def("add_placeholder",
           [](GraphBuilder& b, const std::string& name, py::handle dtype, py::handle shape) {
             return b.add_placeholder(name, TensorSpec{dtype_from_py(dtype), shape_from_py(shape)});
           })
      .def("captured_values", &GraphBuilder::captured_values)
      .def("bind_input",
           [](GraphBuilder& b, const TensorPtr& outer_value, const TensorPtr& placeholder) {
             if (placeholder->graph_id != b.graph()->id()) throw_error(Code::Internal, "placeholder of another graph");
             b.bind_input(outer_value, NodeOutput{placeholder->node, placeholder->index});
           })
      .def(
          "capture_placeholders",
          [](GraphBuilder& b) {
            std::vector<TensorPtr> out;
            for (int n : b.graph()->capture_placeholders) out.push_back(b.symbolic(n, 0));
            return out;
          },
          "Graph tensors of the captured values' placeholders, in capture order.")
      .def("capture",
           [](GraphBuilder& b, const TensorPtr& value, const std::string& name) {
             NodeOutput o = b.capture_by_reference(value, name);
             return b.symbolic(o.node, o.index);
           })
      .def("set_outputs", [](GraphBuilder& b, const std::vector<TensorPtr>& outs) {
        auto& g = *b.graph();
        g.outputs.clear();
        for (auto& t : outs) {
          if (t->graph_id != g.id()) throw_error(Code::Internal, "output from another graph");
          g.outputs.push_back(NodeOutput{t->node, t->index});
        }
      });

  struct PyScope {
    std::shared_ptr<GraphBuilder> builder;
    std::unique_ptr<ContextScope> scope;
  };
  py::class_<PyScope>(m, "ContextScope")
      .def(py::init([](std::shared_ptr<GraphBuilder> b) {
             return PyScope{std::move(b), nullptr};
           }),
           py::arg("builder") = nullptr)
      .def("__enter__", [](PyScope& s) { s.scope = std::make_unique<ContextScope>(s.builder.get()); })
      .def("__exit__", [](PyScope& s, py::args) {
        s.scope.reset();
        return false;
      });
  m.def("context_depth", &context_depth);
  // tf.name_scope while tracing: enter returns the previous scope, which exit restores.
  m.def("name_scope_enter", [](const std::string& name) -> py::object {
    GraphBuilder* b = current_builder();
    if (!b) return py::none();
    Graph& g = *b->graph();
    std::string prev = g.name_scope;
    if (name.empty())
      g.name_scope.clear();
    else if (name.back() == '/')
      g.name_scope = name;  // an absolute scope, reused as given
    else
      g.name_scope = g.unique_name(prev + name) + "/";
    return py::make_tuple(prev, g.name_scope);
  });
  m.def("name_scope_exit", [](const std::string& prev) {
    if (GraphBuilder* b = current_builder()) b->graph()->name_scope = prev;
  });
  m.def("current_graph", []() -> py::object {
    GraphBuilder* b = current_builder();
    return b ? py::cast(b->graph()) : py::object(py::none());
  });
}

// Concrete functions and tf.function objects (the call fast path).
void init_function_objects(py::module_& m) {
  py::class_<ConcreteFunction, std::shared_ptr<ConcreteFunction>>(m, "ConcreteFunctionCore")
      .def(py::init([](std::shared_ptr<Graph> g, std::vector<TensorPtr> captures, std::string name) {
        auto c = std::make_shared<ConcreteFunction>(std::move(g), std::move(captures));
        c->name = std::move(name);
        return c;
      }))
      .def_property_readonly("graph", &ConcreteFunction::graph)
      .def_property_readonly("captures", &ConcreteFunction::captures)
      .def_property_readonly("name", [](const ConcreteFunction& c) { return c.name; })
      .def("call",
           [](const ConcreteFunction& c, const std::vector<TensorPtr>& args) {
             if (!current_builder() && active_tapes().empty() && !c.plan()->needs_host()) {
               py::gil_scoped_release nogil;
               return c.call(args);
             }
             return c.call(args);
           })
      .def("num_plan_steps", [](const ConcreteFunction& c) { return c.plan()->num_steps(); })
      .def("plan_step_ops", [](const ConcreteFunction& c) { return c.plan()->step_ops(); });

  py::enum_<OutputMode>(m, "OutputMode")
      .value("ONE_TENSOR", OutputMode::OneTensor)
      .value("TENSOR_TUPLE", OutputMode::TensorTuple)
      .value("PYTHON_PACK", OutputMode::PythonPack);
  py::class_<FunctionBase, std::shared_ptr<FunctionBase>>(m, "FunctionBase", py::dynamic_attr())
      .def(py::init<>())
      .def("__call__",
           [](py::object self, py::args args, py::kwargs kwargs) -> py::object {
             FunctionBase& f = self.cast<FunctionBase&>();
             if (!g_run_eagerly.load(std::memory_order_relaxed) &&
                 g_context_keyed_calls.load(std::memory_order_relaxed) == 0) {
               py::object hit;
               if (f.signature_key) {
                 if (kwargs.empty()) hit = call_with_signature(f, args);
               } else {
                 py::tuple full;
                 if (f.fast_keywords) {
                   py::dict kw;
                   if (canonical_args(f, args, kwargs, &full, &kw))
                     hit = kw.empty() ? call_cached(f, full) : call_cached(f, py::make_tuple(full, kw));
                 } else if (canonical_args(f, args, kwargs, &full)) {
                   hit = call_cached(f, full);
                 }
               }
               if (hit) return hit;
             }
             return self.attr("_call_slow")(args, kwargs);
           })
      .def_readwrite("_fast_positional", &FunctionBase::fast_positional)
      .def_readwrite("_fast_defaults", &FunctionBase::fast_defaults)
      .def_readwrite("_fast_varargs", &FunctionBase::fast_varargs)
      .def_readwrite("_param_names", &FunctionBase::param_names)
      .def("_set_fast_keywords",
           [](FunctionBase& f, std::vector<std::string> names, py::list defaults, std::vector<bool> has_default,
              bool var_keyword) {
             if (defaults.size() != names.size() || has_default.size() != names.size())
               throw_error(Code::ValueError, "_set_fast_keywords: one default per keyword-only parameter");
             f.kwonly_names = std::move(names);
             f.kwonly_defaults.clear();
             for (size_t j = 0; j < f.kwonly_names.size(); ++j)
               f.kwonly_defaults.push_back(has_default[j] ? py::reinterpret_borrow<py::object>(defaults[j])
                                                          : py::object());
             f.var_keyword = var_keyword;
             f.fast_keywords = true;
           })
      .def("_set_signature_fast",
           [](FunctionBase& f, std::shared_ptr<TraceKey> key, py::list specs) {
             f.signature_key = std::move(key);
             f.signature_specs.clear();
             for (py::handle s : specs)
               f.signature_specs.push_back(TensorSpec{dtype_from_py(s.attr("dtype")), shape_from_py(s.attr("shape"))});
           })
      .def_property_readonly("_fast_hits", [](const FunctionBase& f) { return f.fast_hits.load(); })
      .def("_cache_lookup",
           [](FunctionBase& f, const TraceKey& k) -> py::object {
             auto e = f.cache.lookup(k.type);
             return e ? e->python_concrete : py::object(py::none());
           })
      .def("_cache_insert",
           [](FunctionBase& f, const TraceKey& k, std::shared_ptr<ConcreteFunction> c, py::object python_concrete,
              OutputMode mode) {
             auto e = std::make_shared<CacheEntry>();
             e->concrete = std::move(c);
             e->python_concrete = std::move(python_concrete);
             e->output_mode = mode;
             f.cache.insert(k.type, e);
           })
      .def(
          "_cache_items",
          [](FunctionBase& f, size_t limit) {
            py::list out;
            for (auto& kv : f.cache.items(limit))
              out.append(py::make_tuple(std::make_shared<TraceKey>(kv.first), kv.second->python_concrete));
            return out;
          },
          py::arg("limit") = 0)
      .def("_cache_stats",
           [](FunctionBase& f) {
             auto s = f.cache.stats();
             return py::make_tuple(s.hits, s.misses, s.evictions);
           })
      .def("_cache_clear", [](FunctionBase& f) { f.cache.clear(); })
      .def("_cache_set_max_size",
           [](FunctionBase& f, int64_t n) { f.cache.set_max_size(n > 0 ? static_cast<size_t>(n) : 0); })
      .def("_cache_size", [](FunctionBase& f) { return f.cache.size(); });
}

}  // namespace

void init_function(py::module_& m) {
  init_tracing(m);
  init_function_objects(m);
  m.def("set_run_eagerly", [](bool v) { g_run_eagerly = v; });
  m.def("run_eagerly", [] { return g_run_eagerly.load(); });
  m.def("enter_context_keyed_calls", [] { ++g_context_keyed_calls; });
  m.def("exit_context_keyed_calls", [] { --g_context_keyed_calls; });
  m.def("tape_active", [] { return !active_tapes().empty() && any_tape_recording(); });
}

}  // namespace fn
