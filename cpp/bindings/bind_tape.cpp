// Gradient tapes from Python: fn.GradientTape (python/fn/tape.py) drives these. The C++ Tape
// records ops (trace/tape.h); compute_gradients (autodiff/backward.h) runs the backward pass.
#include <algorithm>

#include <pybind11/stl.h>

#include "autodiff/backward.h"
#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "trace/context.h"

namespace fn {

void init_tape(py::module_& m) {
  py::class_<Tape, std::shared_ptr<Tape>>(m, "Tape")
      .def(py::init<bool, bool>(), py::arg("persistent") = false, py::arg("watch_accessed_variables") = true)
      .def_readonly("persistent", &Tape::persistent)
      .def_readonly("watch_accessed_variables", &Tape::watch_accessed_variables)
      .def("watch", &Tape::watch)
      .def("is_watched", [](const Tape& t, const TensorPtr& x) { return t.is_watched(x.get()); })
      .def("watched_tensors", &Tape::watched_tensors)
      .def("num_entries", [](const Tape& t) { return t.entries().size(); })
      .def(
          "gradient",
          [](const Tape& tape, const std::vector<TensorPtr>& targets, const std::vector<TensorPtr>& sources,
             const std::vector<TensorPtr>& output_gradients, bool unconnected_zero) {
            GradientRequest req{targets, sources, output_gradients, unconnected_zero};
            // A snapshot: a tape recording its own gradient ops must not revisit them.
            std::vector<TapeEntry> entries = tape.entries();
            return compute_gradients(entries, tape, req);
          },
          py::arg("targets"), py::arg("sources"), py::arg("output_gradients"), py::arg("unconnected_zero"),
          "Gradients of sum(targets) with respect to each source (None when unconnected).");

  // The thread's active tapes, innermost last. Python pushes on __enter__ and pops on
  // __exit__ (or when a non-persistent tape computes its gradient inside its context).
  m.def("push_tape", [](const std::shared_ptr<Tape>& t) { active_tapes().push_back(t); });
  m.def("pop_tape", [](const std::shared_ptr<Tape>& t) {
    auto& v = active_tapes();
    auto it = std::find(v.rbegin(), v.rend(), t);
    if (it == v.rend()) return false;
    v.erase(std::next(it).base());
    return true;
  });
  m.def("tape_is_active", [](const std::shared_ptr<Tape>& t) {
    auto& v = active_tapes();
    return std::find(v.begin(), v.end(), t) != v.end();
  });
  m.def(
      "symbolic_gradients",
      [](const std::vector<TensorPtr>& targets, const std::vector<TensorPtr>& sources,
         const std::vector<TensorPtr>& output_gradients, bool unconnected_zero) {
        GraphBuilder* b = current_builder();
        if (!b)
          throw_error(Code::RuntimeError,
                      "tf.gradients is not supported when eager execution is enabled. Use "
                      "tf.GradientTape instead.");
        GradientRequest req{targets, sources, output_gradients, unconnected_zero};
        return symbolic_gradients(b, req);
      },
      "tf.gradients: gradients through the graph being traced.");
  m.def(
      "notify_variable_accessed", [](const TensorPtr& handle) { notify_variable_accessed(handle); },
      "Called by variables when read: tapes with watch_accessed_variables watch the handle.");
}

}  // namespace fn
