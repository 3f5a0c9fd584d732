#include "bindings/convert.h"

#include <pybind11/stl.h>

#include <climits>
#include <cmath>
#include <optional>

#include "bindings/py_types.h"
#include "ops/helpers.h"
#include "trace/context.h"

namespace fn {

bool is_tensor(py::handle obj) { return py::isinstance<Tensor>(obj); }

bool has_tensor_hook(py::handle b) {
  PyObject* p = b.ptr();
  if (PyLong_Check(p) || PyFloat_Check(p) || PyUnicode_Check(p) || PyBytes_Check(p) || PyList_Check(p) ||
      PyTuple_Check(p))
    return false;
  return py::hasattr(b, "__fn_tensor__");
}

namespace {

[[noreturn]] void cannot_convert(py::handle v, DType d) {
  throw_error(Code::TypeError, "Cannot convert ", std::string(py::repr(v)), " to EagerTensor of dtype ",
              tf_type_string(d));  // TF's DataTypeString: "float", "double", "int32"
}

// A Python scalar as a 0-d tensor of dtype d (TF: ints wrap into unsigned/narrow types,
// floats into ints are refused).
EagerPtr scalar_of(py::handle v, DType d) {
  if (d == DType::String) {
    if (PyBytes_Check(v.ptr())) return make_string_scalar(v.cast<std::string>());
    if (PyUnicode_Check(v.ptr())) return make_string_scalar(py_utf8(v));
    cannot_convert(v, d);
  }
  if (!is_pod(d)) cannot_convert(v, d);
  if (PyUnicode_Check(v.ptr())) py_utf8(v);  // a lone surrogate: TF's ValueError before the dtype's
  if (PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr())) cannot_convert(v, d);
  if (d == DType::Bool && !PyBool_Check(v.ptr())) cannot_convert(v, d);  // TF: no int -> bool
  auto t = make_tensor(d, Shape{});
  if (PyFloat_Check(v.ptr())) {
    if (!is_floating(d)) cannot_convert(v, d);
    double x = PyFloat_AS_DOUBLE(v.ptr());
    visit_pod(d, [&](auto tag) {
      using T = decltype(tag);
      t->data<T>()[0] = from_double<T>(x);
      return 0;
    });
    return t;
  }
  // int or bool
  if (d == DType::UInt64 && !PyBool_Check(v.ptr())) {  // the upper half of uint64 is past long long
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
      if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        throw_error(Code::ValueError, "Can't convert Python sequence with out-of-range integer to Tensor.");
      }
      t->data<uint64_t>()[0] = u;
      return t;
    }
  }
  long long x = PyLong_AsLongLong(v.ptr());
  if (x == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw_error(Code::ValueError, "Can't convert Python sequence with out-of-range integer to Tensor.");
  }
  if (d == DType::Int64) {
    t->data<int64_t>()[0] = x;
    return t;
  }
  visit_pod(d, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value)
      t->data<T>()[0] = static_cast<T>(x);  // wraps like TF (e.g. -1 -> 255 for uint8)
    else
      t->data<T>()[0] = from_double<T>(static_cast<double>(x));
    return 0;
  });
  return t;
}

EagerPtr from_python_scalar(py::handle v, const DType* dtype) {
  if (dtype) return scalar_of(v, *dtype);
  if (PyBool_Check(v.ptr())) return scalar_of(v, DType::Bool);
  if (PyLong_Check(v.ptr())) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow) throw_error(Code::ValueError, "Can't convert Python sequence with out-of-range integer to Tensor.");
    return scalar_of(v, (x >= INT32_MIN && x <= INT32_MAX) ? DType::Int32 : DType::Int64);
  }
  if (PyFloat_Check(v.ptr())) return scalar_of(v, DType::Float32);
  return scalar_of(v, DType::String);
}

// A leaf of a nested list/tuple that is not str/bytes.
bool has_non_string_leaf(py::handle v) {
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) {
    for (py::handle x : py::reinterpret_borrow<py::sequence>(v))
      if (has_non_string_leaf(x)) return true;
    return false;
  }
  return !PyUnicode_Check(v.ptr()) && !PyBytes_Check(v.ptr()) && !is_numpy_scalar(v) && !is_ndarray(v);
}

// A Python int (not a NumPy scalar) among the leaves of a nested list/tuple.
bool has_python_int_leaf(py::handle v) {
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) {
    for (py::handle x : py::reinterpret_borrow<py::sequence>(v))
      if (has_python_int_leaf(x)) return true;
    return false;
  }
  return PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());
}

// Every leaf a Python int (NumPy made floats of them: some value is past 64 bits).
bool only_python_int_leaves(py::handle v) {
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) {
    for (py::handle x : py::reinterpret_borrow<py::sequence>(v))
      if (!only_python_int_leaves(x)) return false;
    return true;
  }
  return PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());
}

// Nested Python sequences go through NumPy, then TF's defaults: Python ints -> int32 (int64
// when out of range), Python floats -> float32.
EagerPtr from_sequence(py::handle v, const DType* dtype) {
  py::module_ np = py::module_::import("numpy");
  py::object arr;
  if (dtype && *dtype == DType::UInt64 && has_python_int_leaf(v)) {
    // ints past int64 only fit NumPy's uint64 when asked for (alone NumPy makes them floats)
    try {
      return tensor_from_ndarray(np.attr("array")(v, "uint64"), true);
    } catch (py::error_already_set&) {  // negative or mixed: the general path below
    }
  }
  try {
    arr = np.attr("array")(v);
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_ValueError))
      throw_error(Code::ValueError, "Can't convert non-rectangular Python sequence to Tensor.");
    if (e.matches(PyExc_OverflowError))
      throw_error(Code::ValueError, "Can't convert Python sequence with out-of-range integer to Tensor.");
    throw;
  }
  std::string kind = py::str(arr.attr("dtype").attr("kind"));
  if ((kind == "U" || kind == "S") && has_non_string_leaf(v))  // NumPy made [2, 'a'] strings
    throw_error(Code::ValueError, "Can't convert Python sequence with mixed types to Tensor.");
  // NumPy's fixed-width strings drop trailing NULs (a serialized proto ending in 0x00): keep the
  // Python objects themselves
  if (kind == "U" || kind == "S") arr = np.attr("array")(v, "object");
  if (kind == "O") {
    // Mixed objects: tensors inside lists (tf.constant([t1, t2])) or ragged data.
    py::list flat;
    bool ragged = false;
    for (py::handle x : arr.attr("ravel")()) {
      if (py::isinstance<py::list>(x) || py::isinstance<py::tuple>(x)) ragged = true;
    }
    if (ragged) throw_error(Code::ValueError, "Can't convert non-rectangular Python sequence to Tensor.");
    for (py::handle x : arr.attr("ravel")())  // ints NumPy kept as objects: past 64 bits
      if (PyLong_Check(x.ptr()) && !PyBool_Check(x.ptr())) {
        int overflow = 0;
        PyLong_AsLongLongAndOverflow(x.ptr(), &overflow);
        if (overflow)
          throw_error(Code::ValueError, "Can't convert Python sequence with out-of-range integer to Tensor.");
      }
    // tensors or bytes/str objects
    bool any_tensor = false;
    for (py::handle x : arr.attr("ravel")()) any_tensor |= is_tensor(x);
    if (any_tensor) {
      py::list vals;
      for (py::handle x : arr.attr("ravel")()) {
        if (is_tensor(x)) {
          auto t = x.cast<TensorPtr>();
          if (!t->is_eager()) throw_error(Code::TypeError, "Expected any non-tensor type, but got a tensor instead.");
          vals.append(tensor_to_numpy(as_eager(t), false));
        } else {
          vals.append(x);
        }
      }
      arr = np.attr("array")(vals).attr("reshape")(arr.attr("shape"));
      kind = py::str(arr.attr("dtype").attr("kind")).cast<std::string>();
    }
  }
  if (!dtype) {
    // NumPy reads Python ints past int64 as uint64; TF's default (int32/int64) refuses them
    if ((kind == "u" || (kind == "f" && only_python_int_leaves(v))) && has_python_int_leaf(v))
      throw_error(Code::ValueError, "Can't convert Python sequence with out-of-range integer to Tensor.");
    if (kind == "i" && py::str(arr.attr("dtype").attr("name")).cast<std::string>() == "int64") {
      // Python ints: int32 unless some value needs 64 bits
      bool fits = arr.attr("size").cast<int64_t>() == 0 ||
                  (arr.attr("min")().cast<int64_t>() >= INT32_MIN && arr.attr("max")().cast<int64_t>() <= INT32_MAX);
      DType d = fits ? DType::Int32 : DType::Int64;
      return cast_tensor(tensor_from_ndarray(arr, true), d);
    }
    if (kind == "f" && py::str(arr.attr("dtype").attr("name")).cast<std::string>() == "float64")
      return cast_tensor(tensor_from_ndarray(arr, true), DType::Float32);
    if (arr.attr("size").cast<int64_t>() == 0)
      return make_tensor(DType::Float32, tensor_from_ndarray(arr.attr("astype")("float32"), true)->shape());
    return tensor_from_ndarray(arr, true);
  }
  if (*dtype == DType::String) return tensor_from_ndarray(arr.attr("astype")("object"), true);
  auto t = tensor_from_ndarray(arr, true);
  // An empty sequence has no values to refuse (NumPy makes it float64): [] and [[]] take any dtype.
  bool empty = arr.attr("size").cast<int64_t>() == 0;
  if (t->dtype() == DType::String && !empty) cannot_convert(v, *dtype);
  if (empty && t->dtype() == DType::String) t = tensor_from_ndarray(arr.attr("astype")("float32"), true);
  if (is_floating(t->dtype()) && !is_floating(*dtype) && !empty) cannot_convert(v, *dtype);
  if (*dtype == DType::Bool && t->dtype() != DType::Bool && !empty) cannot_convert(v, *dtype);
  return cast_tensor(t, *dtype);
}

}  // namespace

// Complex Python values, or any value asked for as complex: NumPy converts (TF: complex128 default).
EagerPtr complex_via_numpy(py::handle value, const DType* dtype) {
  py::module_ np = py::module_::import("numpy");
  const char* name = dtype ? dtype_name(*dtype) : "complex128";
  py::object arr;
  try {
    arr = np.attr("asarray")(value, name);
  } catch (py::error_already_set&) {
    throw_error(Code::TypeError, "Cannot convert ", std::string(py::repr(value)), " to EagerTensor of dtype ", name);
  }
  return tensor_from_ndarray(arr, true);
}

EagerPtr to_eager(py::handle value, const DType* dtype) {
  if (!is_tensor(value) && (PyComplex_Check(value.ptr()) || (dtype && is_complex(*dtype))))
    return complex_via_numpy(value, dtype);
  if (is_tensor(value)) {
    auto t = value.cast<TensorPtr>();
    if (!t->is_eager()) throw_out_of_scope(*t);
    auto e = as_eager(t);
    if (dtype && *dtype != e->dtype()) return cast_tensor(e, *dtype);
    return e;
  }
  PyObject* p = value.ptr();
  if (is_ndarray(value) || is_numpy_scalar(value)) {
    py::object arr = py::module_::import("numpy").attr("asarray")(value);
    if (current_builder() && (!dtype || *dtype == DType::String) &&
        py::str(arr.attr("dtype").attr("kind")).cast<std::string>() == "O")
      for (py::handle x : arr.attr("ravel")())  // TF's make_tensor_proto reads objects as strings
        if (!PyUnicode_Check(x.ptr()) && !PyBytes_Check(x.ptr()))
          throw_error(Code::TypeError, "Expected binary or unicode string, got ", std::string(py::repr(x)));
    auto t = tensor_from_ndarray(arr, true);
    if (dtype && *dtype != t->dtype()) {
      if (*dtype == DType::String && t->dtype() != DType::String && !current_builder() && t->num_elements() > 0)
        throw_error(Code::ValueError, "Failed to convert a NumPy array to a Tensor (Unsupported object type ",
                    std::string(py::str(py::type::of(arr.attr("flat")[py::int_(0)].attr("item")()).attr("__name__"))),
                    ").");  // TF reads the numbers as objects that must be strings
      if (*dtype == DType::String || t->dtype() == DType::String) cannot_convert(value, *dtype);
      return cast_tensor(t, *dtype);
    }
    return t;
  }
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || PyUnicode_Check(p) || PyBytes_Check(p))
    return from_python_scalar(value, dtype);
  if (PyList_Check(p) || PyTuple_Check(p)) return from_sequence(value, dtype);
  if (Py_IS_TYPE(p, &PyRange_Type)) {  // TF converts a range as the list of its values
    py::list items = py::reinterpret_steal<py::list>(PySequence_List(p));
    if (!items) throw py::error_already_set();
    return from_sequence(items, dtype);
  }
  if (value.is_none())
    throw_error(Code::ValueError,
                "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.");
  if (current_builder())  // TF builds graph constants through make_tensor_proto: its TypeError
    throw_error(Code::TypeError, "Failed to convert elements of ", std::string(py::repr(value)),
                " to Tensor. Consider casting elements to a supported type. See "
                "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.");
  throw_error(Code::ValueError, "Attempt to convert a value (", std::string(py::repr(value)),
              ") with an unsupported type (", std::string(py::str(py::type::of(value))), ") to a Tensor.");
}

namespace {

// Whether a (nested) list or tuple holds a graph tensor (TF packs it into one tensor); `first_dtype`
// gets the first tensor's dtype, eager or not.
bool holds_graph_tensor(py::handle v, std::optional<DType>* first_dtype) {
  if (is_tensor(v)) {
    auto t = v.cast<TensorPtr>();
    if (!*first_dtype) *first_dtype = t->dtype();
    return !t->is_eager();
  }
  bool any = false;
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr()))
    for (py::handle x : py::reinterpret_borrow<py::sequence>(v)) any = holds_graph_tensor(x, first_dtype) || any;
  return any;
}

// TF's autopacking: nested lists become Pack nodes ("packed"), other leaves constants of the
// first tensor's dtype.
TensorPtr autopack(py::handle v, DType dtype) {
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) {
    std::vector<TensorPtr> parts;
    for (py::handle x : py::reinterpret_borrow<py::sequence>(v)) parts.push_back(autopack(x, dtype));
    return dispatch1("Pack", parts, Attrs{{"axis", int64_t{0}}, {"N", static_cast<int64_t>(parts.size())}}, "packed");
  }
  if (is_tensor(v) && v.cast<TensorPtr>()->is_eager() && !current_builder())
    return v.cast<TensorPtr>();  // eagerly another dtype among the tensors is Pack's error, as TF
  return convert_to_tensor(v, &dtype);
}

}  // namespace

namespace {
bool is_message(const Error& e, const char* text) { return std::string(e.what()) == text; }
}  // namespace

EagerPtr graph_constant(py::handle value, const DType* dtype, const DType* hint) {
  static const char* kRange = "Can't convert Python sequence with out-of-range integer to Tensor.";
  static const char* kMixed = "Can't convert Python sequence with mixed types to Tensor.";
  auto failed = [&](const Error& e, bool typed) {
    if (typed && is_message(e, kRange)) {
      PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C long");
      throw py::error_already_set();
    }
    if (is_message(e, kRange) || is_message(e, kMixed))
      throw_error(Code::TypeError, "Failed to convert elements of ", std::string(py::repr(value)),
                  " to Tensor. Consider casting elements to a supported type. See "
                  "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.");
    throw e;
  };
  if (!dtype && hint) {
    try {
      return to_eager(value, hint);
    } catch (const Error& e) {
      if (is_message(e, kRange)) failed(e, true);
    }
    try {
      return to_eager(value, nullptr);
    } catch (const Error& e) { failed(e, false); }
  }
  try {
    return to_eager(value, dtype);
  } catch (const Error& e) { failed(e, dtype != nullptr); }
  return nullptr;  // not reached: failed() throws
}

TensorPtr convert_to_tensor(py::handle value, const DType* dtype, const DType* hint, const std::string& const_name) {
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    // TF's autopacking, eagerly too: a list holding a tensor takes the first tensor's dtype
    // ([int64 tensor, 2] is int64), not the dtype its numbers would give.
    std::optional<DType> first;
    bool graph = holds_graph_tensor(value, &first);
    if (graph) return autopack(value, dtype ? *dtype : *first);
    // Eagerly a requested dtype other than the tensors' converts the values (TF's autopacking
    // declines and the constant conversion reads the tensors as numbers).
    if (first && !current_builder() && (!dtype || *dtype == *first)) return autopack(value, *first);
  }
  if (is_tensor(value)) {
    auto t = value.cast<TensorPtr>();
    if (dtype && *dtype != t->dtype())
      throw_error(Code::ValueError, "Tensor conversion requested dtype ", dtype_name(*dtype), " for Tensor with dtype ",
                  dtype_name(t->dtype()), ": ", std::string(py::repr(value)));
    return t;
  }
  if (has_tensor_hook(value)) {
    py::object r = value.attr("__fn_tensor__")(dtype ? dtype_to_py(*dtype) : py::none());
    return r.cast<TensorPtr>();
  }
  EagerPtr e;
  if (current_builder()) {
    e = graph_constant(value, dtype, hint);
    return dispatch1("Const", {}, Attrs{{"value", e}, {"dtype", e->dtype()}}, const_name);
  }
  if (!dtype && hint) {
    try {
      e = to_eager(value, hint);
    } catch (const Error&) { e = to_eager(value, nullptr); }
  } else {
    e = to_eager(value, dtype);
  }
  return e;
}

std::string py_utf8(py::handle s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s.ptr(), &n);
  if (!p) {  // lone surrogates: TF's ValueError, not the codec's UnicodeEncodeError
    PyErr_Clear();
    throw_error(Code::ValueError, "Error converting unicode string while converting Python sequence to Tensor.");
  }
  return std::string(p, static_cast<size_t>(n));
}

namespace {
int64_t attr_int(const std::string& k, py::handle v) {
  py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow)
    throw_error(Code::ValueError, "Attr '", k, "' value ", std::string(py::repr(v)), " is out of range for an int64");
  return x;
}
}  // namespace

Attrs attrs_from_py(py::handle dict) {
  Attrs a;
  if (dict.is_none()) return a;
  for (auto kv : py::reinterpret_borrow<py::dict>(dict)) {
    std::string k = kv.first.cast<std::string>();
    py::handle v = kv.second;
    if (v.is_none()) continue;
    if (PyBool_Check(v.ptr()))
      a.set(k, v.cast<bool>());
    else if (PyLong_Check(v.ptr()))
      a.set(k, attr_int(k, v));
    else if (PyFloat_Check(v.ptr()))
      a.set(k, v.cast<double>());
    else if (PyUnicode_Check(v.ptr()))
      a.set(k, py_utf8(v));
    else if (is_py_dtype(v))
      a.set(k, dtype_from_py(v));
    else if (py::hasattr(v, "_dims") && py::hasattr(v, "as_list"))
      a.set(k, shape_from_py(v));
    else if (is_tensor(v))
      a.set(k, as_eager(v.cast<TensorPtr>()));
    else if (py::isinstance<Graph>(v))
      a.set(k, v.cast<std::shared_ptr<Graph>>());
    else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      if (seq.size() > 0 && is_py_dtype(seq[0])) {
        std::vector<DType> ds;
        for (py::handle x : seq) ds.push_back(dtype_from_py(x));
        a.set(k, ds);
      } else if (seq.size() > 0 && py::hasattr(seq[0], "_dims")) {
        std::vector<Shape> ss;
        for (py::handle x : seq) ss.push_back(shape_from_py(x));
        a.set(k, ss);
      } else {
        std::vector<int64_t> ints;
        for (py::handle x : seq) {
          if (!PyLong_Check(x.ptr()) && !py::isinstance(x, py::module_::import("numpy").attr("integer")))
            throw_error(Code::TypeError, "Expected int for argument '", k, "' not ", std::string(py::repr(x)), ".");
          ints.push_back(attr_int(k, x));
        }
        a.set(k, ints);
      }
    } else if (py::isinstance<HostObject>(v)) {  // a C++ host object (random op state)
      a.set(k, v.cast<std::shared_ptr<HostObject>>());
    } else {
      a.set(k, std::shared_ptr<HostObject>(std::make_shared<PyHostObject>(py::reinterpret_borrow<py::object>(v))));
    }
  }
  return a;
}

}  // namespace fn
