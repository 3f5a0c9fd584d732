// Variables' resource handles for Python (fn.Variable is defined in python/fn/variables.py).
#include <pybind11/stl.h>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "ops/state.h"

namespace fn {

void init_state(py::module_& m) {
  m.def(
      "create_variable",
      [](const TensorPtr& value, bool trainable, const std::string& name) {
        if (!value->is_eager()) throw_error(Code::ValueError, "A variable's initial value must be computed eagerly");
        return make_variable_handle(std::make_shared<VariableState>(as_eager(value), trainable, name));
      },
      "A new resource handle holding `value` (a scalar tensor of dtype resource).");
  m.def("variable_info", [](const TensorPtr& handle) {
    if (!handle->is_eager()) throw_error(Code::TypeError, "variable_info needs an eager handle");
    VariableState& s = variable_state(*as_eager(handle));
    return py::make_tuple(s.id(), dtype_to_py(s.dtype()), shape_to_py(s.shape()), s.trainable(), s.name());
  });
}

}  // namespace fn
