// The PyCall kernel: takes the GIL, calls the Python callable held in the node's attrs with
// the input tensors, and checks what it returns against the declared output dtypes.
#include <pybind11/stl.h>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "ops/op.h"

namespace fn {

void init_host(py::module_& m) {
  OpRegistry::global().set_kernel("PyCall", [](KernelContext& k, const std::vector<EagerPtr>& in) {
    py::gil_scoped_acquire gil;
    auto host = std::dynamic_pointer_cast<PyHostObject>(k.attrs.get<std::shared_ptr<HostObject>>("callable"));
    if (!host) throw_error(Code::Internal, "PyCall without a Python callable");
    const auto& tout = k.attrs.get_or<std::vector<DType>>("Tout", {});
    py::list args;
    for (auto& t : in) args.append(py::cast(std::static_pointer_cast<Tensor>(t)));
    py::object result;
    try {
      result = host->obj(*args);
    } catch (py::error_already_set& e) {
      // Surface the Python exception's class and text, as TF's py_function does.
      std::string what = e.what();
      if (e.matches(PyExc_StopIteration))
        throw Error(Code::OutOfRange, "StopIteration: " + what);
      throw Error(Code::InvalidArgument, what);
    }
    std::vector<EagerPtr> out;
    if (tout.empty()) return out;
    py::list items;
    if (py::isinstance<py::list>(result) || py::isinstance<py::tuple>(result)) items = py::list(result);
    else items.append(result);
    if (items.size() != tout.size())
      throw_error(Code::InvalidArgument, "py_function returned ", items.size(), " values but ", tout.size(),
                  " were declared in Tout");
    for (size_t i = 0; i < tout.size(); ++i) {
      DType d = tout[i];
      EagerPtr t = to_eager(items[i], &d);
      out.push_back(t);
    }
    return out;
  });
  (void)m;
}

}  // namespace fn
