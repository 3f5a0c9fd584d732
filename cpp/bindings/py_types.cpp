#include "bindings/py_types.h"
#include "exec/control_flow.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include <pybind11/stl.h>

namespace fn {

namespace {
// Strong references kept for the life of the process (deliberately never released: they
// must outlive module teardown, and Python frees them at exit anyway).
struct PyTypes {
  PyObject* dtypes[kNumDTypes] = {};
  PyObject* shape_cls = nullptr;
  PyObject* errors[32] = {};
};
PyTypes& types() {
  static PyTypes t;
  return t;
}
PyObject* keep(py::handle h) {
  Py_XINCREF(h.ptr());
  return h.ptr();
}
}  // namespace

py::object dtype_to_py(DType d) {
  PyObject* o = types().dtypes[static_cast<int>(d)];
  if (!o) return py::str(dtype_name(d));
  return py::reinterpret_borrow<py::object>(o);
}

bool is_py_dtype(py::handle obj) { return py::hasattr(obj, "_type_enum"); }

DType dtype_from_py(py::handle obj) {
  if (py::hasattr(obj, "_type_enum")) return static_cast<DType>(obj.attr("_type_enum").cast<int>());
  py::object name;
  if (py::isinstance<py::str>(obj)) {
    name = py::reinterpret_borrow<py::object>(obj);
  } else {
    try {
      name = py::module_::import("numpy").attr("dtype")(obj).attr("name");
    } catch (py::error_already_set&) {
      throw_error(Code::TypeError, "Cannot convert ", std::string(py::repr(obj)), " to a dtype.");
    }
  }
  std::string n = name.cast<std::string>();
  if (n == "object" || n.rfind("bytes", 0) == 0 || n.rfind("str", 0) == 0) return DType::String;
  DType d;
  if (!dtype_from_name(n, &d)) throw_error(Code::TypeError, "Cannot convert '", n, "' to a dtype.");
  return d;
}

py::object shape_to_py(const Shape& s) {
  py::object dims = py::none();
  if (s.has_rank()) {
    py::list l;
    for (int64_t d : s.dims()) l.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
    dims = l;
  }
  return py::reinterpret_borrow<py::object>(types().shape_cls)(dims);
}

Shape shape_from_py(py::handle obj) {
  if (obj.is_none()) return Shape::unknown_rank();
  if (py::hasattr(obj, "_dims") && py::hasattr(obj, "as_list")) {
    py::object dims = obj.attr("_dims");
    if (dims.is_none()) return Shape::unknown_rank();
    return shape_from_py(dims);
  }
  if (py::isinstance<py::int_>(obj)) return Shape({obj.cast<int64_t>()});
  std::vector<int64_t> d;
  for (py::handle x : obj) {
    if (x.is_none())
      d.push_back(Shape::kUnknown);
    else if (py::hasattr(x, "value") && !py::isinstance<py::int_>(x)) {
      py::object v = x.attr("value");
      d.push_back(v.is_none() ? Shape::kUnknown : v.cast<int64_t>());
    } else {
      d.push_back(py::int_(py::reinterpret_borrow<py::object>(x)).cast<int64_t>());
    }
  }
  return Shape(d);
}

py::object error_class(Code code) {
  PyObject* o = types().errors[static_cast<int>(code)];
  if (o) return py::reinterpret_borrow<py::object>(o);
  return py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
}

namespace {
thread_local PyObject* g_stash[3] = {nullptr, nullptr, nullptr};
}

void stash_python_error() {
  for (PyObject*& o : g_stash) Py_CLEAR(o);
  PyErr_Fetch(&g_stash[0], &g_stash[1], &g_stash[2]);
}

bool restore_stashed_error() {
  if (!g_stash[0]) return false;
  PyErr_Restore(g_stash[0], g_stash[1], g_stash[2]);
  g_stash[0] = g_stash[1] = g_stash[2] = nullptr;
  return true;
}

namespace {
// An error message as a Python str. Raw bytes in it (a string op's input quoted in a kernel's
// message, e.g. StringToNumber of b'\xff') are escaped: a strict UTF-8 decode would turn the
// error into a UnicodeDecodeError (TF 2.21 does that; fn raises the kernel's class).
py::str message_str(const char* what) {
  PyObject* s = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}
}  // namespace

void init_py_types(py::module_& m) {
  m.def("_register_dtypes", [](py::list dtypes) {
    for (py::handle d : dtypes) types().dtypes[d.attr("_type_enum").cast<int>()] = keep(d);
  });
  m.def("_register_shape_class", [](py::handle cls) { types().shape_cls = keep(cls); });
  m.def("_register_error", [](int code, py::handle cls) { types().errors[code] = keep(cls); });
  // Builtin exceptions map directly.
  types().errors[static_cast<int>(Code::ValueError)] = keep(PyExc_ValueError);
  types().errors[static_cast<int>(Code::TypeError)] = keep(PyExc_TypeError);
  types().errors[static_cast<int>(Code::IndexError)] = keep(PyExc_IndexError);
  types().errors[static_cast<int>(Code::AttributeError)] = keep(PyExc_AttributeError);
  types().errors[static_cast<int>(Code::NotImplementedError)] = keep(PyExc_NotImplementedError);
  types().errors[static_cast<int>(Code::RuntimeError)] = keep(PyExc_RuntimeError);
  types().errors[static_cast<int>(Code::LookupError)] = keep(PyExc_LookupError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object cls = error_class(e.code());
      if (e.code() < Code::ValueError) {
        // fn.errors.OpError(node_def, op, message)
        PyErr_SetObject(cls.ptr(), cls(py::none(), py::none(), message_str(e.what())).ptr());
      } else {
        PyErr_SetObject(cls.ptr(), message_str(e.what()).ptr());
      }
    } catch (const Interrupted&) {  // a signal handler's exception, raised under C++ frames
      if (!restore_stashed_error()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const std::bad_alloc&) {  // an allocation nobody sized: TF's OOM class
      py::object cls = error_class(Code::ResourceExhausted);
      PyErr_SetObject(cls.ptr(), cls(py::none(), py::none(), "OOM when allocating memory").ptr());
    } catch (const std::length_error& e) {
      py::object cls = error_class(Code::ResourceExhausted);
      PyErr_SetObject(cls.ptr(), cls(py::none(), py::none(), std::string("OOM: ") + e.what()).ptr());
    }
  });
  py::dict codes;
  const char* names[] = {
      "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",   "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",         "DATA_LOSS",
      "UNAUTHENTICATED"};
  for (int i = 0; i < 16; ++i) codes[names[i]] = i;
  m.attr("_error_codes") = codes;
}

}  // namespace fn
