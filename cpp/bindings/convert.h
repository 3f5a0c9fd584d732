// Python value -> tensor conversion with TensorFlow's inference rules, and attrs from Python.
#pragma once
#include <pybind11/pybind11.h>

#include "core/tensor.h"
#include "graph/attrs.h"

namespace fn {
namespace py = pybind11;

bool is_tensor(py::handle obj);
// Objects that convert to tensors themselves (variables, via __fn_tensor__) rather than as
// Python data; Python scalars and sequences skip the attribute probe (it is slow).
bool has_tensor_hook(py::handle obj);
// `dtype`: required dtype (TypeError/ValueError when impossible), or nullptr. In a graph
// context Python values become Const nodes; tensors pass through unchanged.
// While tracing a Python value becomes a Const node named `const_name` (default "Const").
TensorPtr convert_to_tensor(py::handle value, const DType* dtype, const DType* hint = nullptr,
                            const std::string& const_name = "");
// Always an eager tensor (never adds graph nodes): Python data -> EagerTensor.
EagerPtr to_eager(py::handle value, const DType* dtype);
// to_eager for a constant of the graph being traced: the errors of TF's make_tensor_proto (a
// Python int past 64 bits: OverflowError when a dtype is asked for or hinted, else TypeError, as
// for mixed types).
EagerPtr graph_constant(py::handle value, const DType* dtype, const DType* hint);
Attrs attrs_from_py(py::handle dict);
// A Python str as UTF-8 (TF's ValueError for lone surrogates).
std::string py_utf8(py::handle s);
// Holds a Python object inside attrs (py_function's callable, print's stream).
struct PyHostObject : HostObject {
  explicit PyHostObject(py::object o) : obj(std::move(o)) {}
  ~PyHostObject() override {
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
  py::object obj;
};

}  // namespace fn
