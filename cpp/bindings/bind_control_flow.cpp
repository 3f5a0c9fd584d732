// fn.cond / fn.while_loop support: building If and While nodes from sub-graphs traced in
// Python (each with its own GraphBuilder), and the executor's control-flow kernels.
#include <pybind11/stl.h>

#include <thread>

#include "bindings/py_types.h"
#include "exec/control_flow.h"
#include "ops/control_flow.h"

namespace fn {

namespace {
std::thread::id g_main_thread;

// Runs Python's signal handlers (only the main thread receives them); when one raised, its
// exception is stashed and an Interrupted exception unwinds the executor to the binding, which
// re-raises the stashed exception (KeyboardInterrupt, the SIGALRM handler's error).
void check_python_signals() {
  if (std::this_thread::get_id() != g_main_thread) return;
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return;
  stash_python_error();
  throw Interrupted();
}
}  // namespace

void init_control_flow(py::module_& m) {
  g_main_thread = std::this_thread::get_id();
  set_interrupt_check(&check_python_signals);
  m.def(
      "build_if",
      [](const TensorPtr& pred, GraphBuilder& then_b, GraphBuilder& else_b, const std::string& name,
         const std::vector<std::string>& names) { return build_if(pred, then_b, else_b, name, names); },
      py::arg("pred"), py::arg("then_builder"), py::arg("else_builder"), py::arg("name") = "cond",
      py::arg("names") = std::vector<std::string>{},
      "Adds an If node running one of two traced branch graphs (outputs set on each builder).");
  m.def(
      "build_while",
      [](const std::vector<TensorPtr>& loop_vars, GraphBuilder& cond_b, GraphBuilder& body_b,
         int64_t maximum_iterations, const std::string& name, const std::vector<std::string>& names) {
        return build_while(loop_vars, cond_b, body_b, maximum_iterations, name, names);
      },
      py::arg("loop_vars"), py::arg("cond_builder"), py::arg("body_builder"), py::arg("maximum_iterations") = -1,
      py::arg("name") = "while", py::arg("names") = std::vector<std::string>{},
      "Adds a While node from traced cond and body graphs taking the loop vars as arguments.");
  m.def("graph_is_stateful", [](const Graph& g) { return graph_is_stateful(g); });
}

}  // namespace fn
