// Python-side objects the bindings need: the canonical fn.DType instances, fn.TensorShape,
// and the fn.errors classes. Registered once from fn/__init__.py at import, read afterwards.
#pragma once
#include <pybind11/pybind11.h>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace fn {
namespace py = pybind11;

py::object dtype_to_py(DType d);
DType dtype_from_py(py::handle obj);  // fn.DType, numpy dtype, or a name
bool is_py_dtype(py::handle obj);
py::object shape_to_py(const Shape& s);  // fn.TensorShape
Shape shape_from_py(py::handle obj);     // TensorShape, list/tuple with None, None
py::object error_class(Code code);
// A Python exception raised under C++ frames (a signal handler's): stashed per thread while
// Interrupted unwinds the executor, re-raised by the exception translator.
void stash_python_error();
bool restore_stashed_error();
void init_py_types(py::module_& m);

// numpy bridge (bind_numpy.cpp, the one file that uses NumPy's C API)
void init_numpy();
py::object tensor_to_numpy(const EagerPtr& t, bool writeable_view);
bool is_ndarray(py::handle obj);
bool is_numpy_scalar(py::handle obj);
// Tensor from an ndarray, zero-copy when the array is contiguous, aligned and POD.
EagerPtr tensor_from_ndarray(py::handle arr, bool copy);

}  // namespace fn
