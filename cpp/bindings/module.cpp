// fn._core: the C++ core. Each area binds itself in its own bind_*.cpp.
#include <pybind11/pybind11.h>

#include "bindings/py_types.h"
#include "exec/start_up.h"
#include "kernels/multiversion.h"
#include <oneapi/dnnl/dnnl_version.h>

namespace fn {
void add_host_kernels(OpRegistry& r);
void init_tensor(py::module_& m);
void init_ops(py::module_& m);
void init_graph(py::module_& m);
void init_tape(py::module_& m);
void init_operators(py::module_& m);
void init_function(py::module_& m);
void init_host(py::module_& m);
void init_state(py::module_& m);
void init_control_flow(py::module_& m);
void init_serialize(py::module_& m);
void init_collective(py::module_& m);
}  // namespace fn

PYBIND11_MODULE(_core, m) {
  m.doc() = "fn's C++ core: tensors, ops, graphs, executor.";
  fn::init_numpy();
  fn::start_up(fn::add_host_kernels);  // every op registered now, read-only from here on
  fn::init_py_types(m);
  fn::init_graph(m);
  fn::init_tensor(m);
  fn::init_operators(m);
  fn::init_ops(m);
  fn::init_tape(m);
  fn::init_function(m);
  fn::init_host(m);
  fn::init_state(m);
  fn::init_control_flow(m);
  fn::init_serialize(m);
  fn::init_collective(m);
  m.attr("onednn_version") = DNNL_VERSION_MAJOR * 10000 + DNNL_VERSION_MINOR * 100 + DNNL_VERSION_PATCH;
  m.attr("cpu_level") = fn::cpu_level();  // the x86-64 level fn's own vector kernels run at (FN_CPU_LEVEL caps it)
}
