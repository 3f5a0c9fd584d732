// Trace-type keys of Python call arguments (TF's trace_type.from_value): KeyBuilder walks a
// value into a TraceType (function/trace_type.h) and its tensor leaves. Used by tracing
// (bind_tracing.cpp: _core.make_key) and by Function.__call__'s fast path (bind_function.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "function/trace_type.h"

namespace fn {
namespace py = pybind11;

inline PyTypeObject* eager_tensor_type() {
  static PyTypeObject* const t = reinterpret_cast<PyTypeObject*>(py::type::of<EagerTensor>().ptr());
  return t;
}

// isinstance(v, Tensor) without pybind's per-call type-registry lookup.
inline bool is_tensor_fast(py::handle v) {
  static PyTypeObject* const tensor_type = reinterpret_cast<PyTypeObject*>(py::type::of<Tensor>().ptr());
  PyTypeObject* t = Py_TYPE(v.ptr());
  return t == eager_tensor_type() || t == tensor_type || PyType_IsSubtype(t, tensor_type);
}

// v.cast<TensorPtr>() for a tensor; an exact EagerTensor's holder is read directly (pybind's
// generic caster looks the type up on every call).
inline TensorPtr tensor_of(py::handle v) {
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

  TypePtr build(py::handle v);
};

class TraceKey {
 public:
  explicit TraceKey(TypePtr t) : type(std::move(t)) {}
  TypePtr type;
};

// Registers TraceKey, make_key, GraphBuilder, ContextScope and the name-scope functions (bind_tracing.cpp).
void init_tracing(py::module_& m);

}  // namespace fn
