// KeyBuilder: the trace type of a Python value (tensors by dtype/shape, Python scalars by value,
// containers by structure, other objects by the tracing protocol or by identity).
#include "bindings/trace_key.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "bindings/convert.h"
#include "bindings/py_types.h"

namespace fn {

namespace {

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

}  // namespace

TypePtr KeyBuilder::build(py::handle v) {
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

}  // namespace fn
