// fn.Tensor (symbolic, the base class) and EagerTensor (owns a buffer): properties, NumPy
// interop. The operator fast paths are in bind_operators.cpp.
#include <pybind11/stl.h>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "trace/context.h"

namespace fn {

namespace {

// Elements above which an eager op releases the GIL while its kernel runs.
constexpr int64_t kReleaseGilElements = 1 << 15;

bool big(const std::vector<TensorPtr>& in) {
  for (auto& t : in)
    if (t->is_eager() && t->shape().num_elements() >= kReleaseGilElements) return true;
  return false;
}

}  // namespace

std::vector<TensorPtr> execute(const OpDef& op, const std::vector<TensorPtr>& in, Attrs attrs,
                               const std::string& name) {
  // Collectives wait for the other workers: never hold the GIL while they do.
  if (!current_builder() && !op.needs_host && (big(in) || op.name.compare(0, 10, "Collective") == 0)) {
    py::gil_scoped_release nogil;
    return dispatch(op, in, std::move(attrs), name);
  }
  return dispatch(op, in, std::move(attrs), name);
}

namespace {

// tf.Tensor.set_shape of a symbolic tensor: writes the refined static shape into the tensor (the
// shape is protected state of Tensor; only this binding refines it, after checking compatibility).
struct ShapeRefiner : Tensor {
  static void refine(Tensor& t, Shape s) { t.*(&ShapeRefiner::shape_) = std::move(s); }
};

EagerPtr eager_of(const TensorPtr& t) {
  if (!t->is_eager()) throw_out_of_scope(*t);
  return as_eager(t);
}

}  // namespace

void init_tensor(py::module_& m) {
  py::class_<Tensor, std::shared_ptr<Tensor>> tensor(m, "Tensor", py::dynamic_attr());
  tensor.def_property_readonly("dtype", [](const Tensor& t) { return dtype_to_py(t.dtype()); })
      .def_property_readonly("shape", [](const Tensor& t) { return shape_to_py(t.shape()); })
      .def_property_readonly("ndim",
                             [](const Tensor& t) {
                               return t.shape().rank() < 0 ? py::object(py::none())
                                                           : py::object(py::int_(t.shape().rank()));
                             })
      .def_property_readonly("_rank", [](const Tensor& t) { return t.shape().rank(); })
      .def_property_readonly("_shape_tuple",
                             [](const Tensor& t) -> py::object {
                               if (!t.shape().has_rank()) return py::none();
                               py::tuple r(t.shape().rank());
                               for (int i = 0; i < t.shape().rank(); ++i)
                                 r[i] = t.shape()[i] < 0 ? py::object(py::none()) : py::object(py::int_(t.shape()[i]));
                               return r;
                             })
      .def_property_readonly("_is_eager", &Tensor::is_eager)
      .def_property_readonly("_id", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(&t); })
      .def_property_readonly("_graph_id", [](const Tensor& t) { return t.graph_id; })
      .def_property_readonly("_node_index", [](const Tensor& t) { return t.node; })
      .def_property_readonly("value_index", [](const Tensor& t) { return t.index; })
      .def_property_readonly("name",
                             [](const Tensor& t) -> py::object {
                               if (t.is_eager())
                                 throw_error(Code::AttributeError,
                                             "Tensor.name is undefined when eager execution is enabled.");
                               return py::str(t.name());
                             })
      .def_property_readonly("graph",
                             [](const Tensor& t) -> py::object {
                               if (t.is_eager())
                                 throw_error(Code::AttributeError,
                                             "Tensor.graph is undefined when eager execution is enabled.");
                               auto g = graph_of(t);
                               if (!g) return py::none();
                               return py::cast(g);
                             })
      .def("_refine_shape",
           [](Tensor& t, py::handle shape) {
             // set_shape of a symbolic tensor: Python merged the shapes (TF's ValueError on a
             // conflict); the tensor and its node's output spec take the result.
             if (t.is_eager()) return;
             Shape s = shape_from_py(shape);
             if (!t.shape().is_compatible_with(s))
               throw_error(Code::ValueError, "Shapes ", t.shape().to_string(), " and ", s.to_string(),
                           " are incompatible");
             ShapeRefiner::refine(t, s);
             if (auto g = graph_of(t)) {
               if (t.node >= 0 && t.node < g->num_nodes()) {
                 auto& outs = g->mutable_node(t.node).outputs;
                 if (t.index >= 0 && static_cast<size_t>(t.index) < outs.size()) outs[t.index].shape = s;
               }
             }
           })
      .def("__hash__", [](const Tensor&) -> py::int_ {
        throw_error(Code::TypeError, "Tensor is unhashable. Instead, use tensor.ref() as the key.");
      });
  // Operators (+, -, ==, ...) are installed by bind_operators.cpp.

  // Errors name the type as TensorFlow's do ("'Tensor' object has no attribute 'numpy'").
  reinterpret_cast<PyTypeObject*>(tensor.ptr())->tp_name = "Tensor";

  py::class_<EagerTensor, Tensor, std::shared_ptr<EagerTensor>>(m, "EagerTensor", py::buffer_protocol(),
                                                                py::dynamic_attr())
      .def(
          "numpy", [](const std::shared_ptr<EagerTensor>& t) { return tensor_to_numpy(t, true); },
          "The value as a NumPy array (zero-copy for numeric dtypes), like tf.Tensor.numpy.")
      .def("_numpy_readonly", [](const std::shared_ptr<EagerTensor>& t) { return tensor_to_numpy(t, false); })
      .def_buffer([](EagerTensor& t) -> py::buffer_info {
        if (!is_pod(t.dtype()) || t.dtype() == DType::BFloat16)
          throw_error(Code::TypeError, dtype_name(t.dtype()), " tensors do not support the buffer protocol");
        static const char* formats[] = {"?", "b", "B", "h", "i", "q", "e", "", "f", "d"};
        std::vector<py::ssize_t> shape(t.shape().dims().begin(), t.shape().dims().end());
        std::vector<py::ssize_t> strides;
        auto rs = row_major_strides(t.shape().dims());
        for (int64_t s : rs) strides.push_back(static_cast<py::ssize_t>(s * dtype_size(t.dtype())));
        return py::buffer_info(t.raw(), static_cast<py::ssize_t>(dtype_size(t.dtype())),
                               formats[static_cast<int>(t.dtype())], static_cast<py::ssize_t>(shape.size()), shape,
                               strides, /*readonly=*/true);
      })
      .def("_scalar_double", [](const EagerTensor& t) { return t.scalar_as_double(); });

  m.def("is_tensor", [](py::handle o) { return is_tensor(o); });
  m.def(
      "convert_to_tensor",
      [](py::handle value, py::handle dtype, py::handle hint, const std::string& name) {
        // `name`: the Const's name when tracing (TF's `Greater/y` for an op's Python operand).
        if (!dtype.is_none()) {
          DType d = dtype_from_py(dtype);
          return convert_to_tensor(value, &d, nullptr, name);
        }
        if (!hint.is_none()) {
          DType h = dtype_from_py(hint);
          return convert_to_tensor(value, nullptr, &h, name);
        }
        return convert_to_tensor(value, nullptr, nullptr, name);
      },
      py::arg("value"), py::arg("dtype") = py::none(), py::arg("dtype_hint") = py::none(),
      py::arg("name") = std::string());
  m.def(
      "to_eager",
      [](py::handle value, py::handle dtype) {
        if (!dtype.is_none()) {
          DType d = dtype_from_py(dtype);
          return current_builder() ? graph_constant(value, &d, nullptr) : to_eager(value, &d);
        }
        return current_builder() ? graph_constant(value, nullptr, nullptr) : to_eager(value, nullptr);
      },
      py::arg("value"), py::arg("dtype") = py::none());
  m.def(
      "from_numpy_view",
      [](py::handle arr) {
        if (!is_ndarray(arr)) throw_error(Code::TypeError, "from_numpy_view needs a NumPy array");
        return tensor_from_ndarray(arr, false);
      },
      "An EagerTensor sharing memory with a contiguous NumPy array (no copy).");
  m.def("reshape_eager", [](const TensorPtr& t, py::handle shape) {
    Shape s = shape_from_py(shape);
    auto e = eager_of(t);
    if (s.num_elements() != e->num_elements())
      throw_error(Code::InvalidArgument, "Cannot reshape a tensor with ", e->num_elements(), " elements to shape ",
                  s.to_string());
    return reshaped(e, s);
  });
}

}  // namespace fn
