// fn._core.serialize_graph / deserialize_graph: the graph IR to bytes and back (SavedModel).
#include <pybind11/pybind11.h>

#include "bindings/py_types.h"
#include "graph/serialize.h"
#include "ops/control_flow.h"
#include "ops/op.h"
#include "ops/random.h"

namespace fn {

namespace {

// Host objects a graph may hold: per-node caches and random state are re-made fresh; Python
// callables (py_function, print to a Python stream) make a graph unsaveable.
void check_saveable(const Graph& g) {
  for (const Node& n : g.nodes())
    for (auto& kv : n.attrs.items()) {
      if (auto* sub = std::get_if<std::shared_ptr<Graph>>(&kv.second)) {
        if (*sub) check_saveable(**sub);
      } else if (std::holds_alternative<std::shared_ptr<HostObject>>(kv.second) && kv.first != "_compiled" &&
                 kv.first != "_state" && !(kv.first == "grad_fn" && n.attrs.has("_grad_graph"))) {
        throw_error(Code::ValueError, "Unable to save function because node '", n.name, "' (op ", n.op,
                    ") calls back into Python (fn.py_function, fn.numpy_function or fn.print to a Python "
                    "stream). The operation must run in the same address space as the Python program that "
                    "calls it and is not serializable: a SavedModel loaded elsewhere could not find the "
                    "callback (TensorFlow: \"Could not find callback with key=pyfunc_0 in the registry.\").");
      }
    }
}

}  // namespace

void init_serialize(py::module_& m) {
  m.def("serialize_graph", [](const Graph& g) {
    check_saveable(g);
    return py::bytes(serialize_graph(g));
  });
  m.def("deserialize_graph", [](const py::bytes& data) {
    std::string bytes = data;
    GraphReaderHooks hooks;
    hooks.resolve_op = [](const std::string& op) { return OpRegistry::global().find(op); };
    hooks.make_host = [](const std::string& op, const std::string& attr) -> std::shared_ptr<HostObject> {
      if (attr == "_compiled") {
        auto cache = std::make_shared<SubgraphCache>();
        cache->compiled.resize(2);
        return cache;
      }
      if (attr == "_state") return make_random_state();
      // A saved custom gradient runs its traced graph (_grad_graph) in place of the callable.
      if (op == "CustomGradient" && attr == "grad_fn") return std::make_shared<HostObject>();
      return nullptr;
    };
    return deserialize_graph(bytes, hooks);
  });
}

}  // namespace fn
