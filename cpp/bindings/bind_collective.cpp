// The collective transport hook: fn._mpi hands its FnCollectiveBackend table over as a PyCapsule
// named "fn.collective_backend"; fn._distribute registers each traced collective in its plan.
#include <pybind11/stl.h>

#include "bindings/py_types.h"
#include "ops/collective.h"

namespace fn {

void init_collective(py::module_& m) {
  m.def("_set_collective_backend", [](py::object capsule) {
    if (capsule.is_none()) {
      set_collective_backend(nullptr);
      return;
    }
    auto* table = static_cast<const FnCollectiveBackend*>(PyCapsule_GetPointer(capsule.ptr(), "fn.collective_backend"));
    if (!table) throw py::error_already_set();
    set_collective_backend(table);
  });
  m.def("_collective_backend_installed", [] { return collective_backend() != nullptr; });
  m.def("_collective_plan_add", &collective_plan_add, py::arg("plan_id"), py::arg("signature"));
  m.def("_collective_plan", &collective_plan, py::arg("plan_id"));
}

}  // namespace fn
