// Tracing's bindings: trace keys (_core.make_key, TraceKey), graph builders, the trace context
// stack and name scopes. Function.__call__'s fast path is bind_function.cpp.
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "bindings/trace_key.h"
#include "trace/context.h"
#include "trace/context_share.h"

namespace fn {

// Tracing: trace keys, graph builders, the context stack and name scopes.
void init_tracing(py::module_& m) {
  py::class_<TraceKey, std::shared_ptr<TraceKey>>(m, "TraceKey")
      .def("__hash__", [](const TraceKey& k) { return static_cast<py::ssize_t>(k.type->hash()); })
      .def("__eq__", [](const TraceKey& a, const TraceKey& b) { return a.type->equals(*b.type); })
      .def("is_subtype_of", [](const TraceKey& a, const TraceKey& b) { return a.type->is_subtype_of(*b.type); })
      .def("common_supertype",
           [](const TraceKey& a, const TraceKey& b) -> py::object {
             TypePtr c = a.type->common_supertype(*b.type, a.type);
             if (!c) return py::none();
             return py::cast(std::make_shared<TraceKey>(c));
           })
      .def("elements",
           [](const TraceKey& k) {
             py::list out;
             if (k.type->kind == TraceType::Kind::Sequence)
               for (auto& e : static_cast<const SequenceType&>(*k.type).elements)
                 out.append(std::make_shared<TraceKey>(e));
             return out;
           })
      .def("__repr__", [](const TraceKey& k) { return k.type->to_string(); });

  m.def(
      "make_key",
      [](py::handle value) {
        KeyBuilder kb;
        TypePtr t = kb.build(value);
        return py::make_tuple(std::make_shared<TraceKey>(t), kb.spec_leaves);
      },
      "Trace type of a value and its tensor/TensorSpec leaves in flattening order.");

  py::class_<GraphBuilder, std::shared_ptr<GraphBuilder>>(m, "GraphBuilder")
      .def(py::init<std::shared_ptr<Graph>>())
      .def_property_readonly("graph", &GraphBuilder::graph)
      .def("add_placeholder",
           [](GraphBuilder& b, const std::string& name, py::handle dtype, py::handle shape) {
             return b.add_placeholder(name, TensorSpec{dtype_from_py(dtype), shape_from_py(shape)});
           })
      .def("captured_values", &GraphBuilder::captured_values)
      .def("bind_input",
           [](GraphBuilder& b, const TensorPtr& outer_value, const TensorPtr& placeholder) {
             if (placeholder->graph_id != b.graph()->id()) throw_error(Code::Internal, "placeholder of another graph");
             b.bind_input(outer_value, NodeOutput{placeholder->node, placeholder->index});
           })
      .def(
          "capture_placeholders",
          [](GraphBuilder& b) {
            std::vector<TensorPtr> out;
            for (int n : b.graph()->capture_placeholders) out.push_back(b.symbolic(n, 0));
            return out;
          },
          "Graph tensors of the captured values' placeholders, in capture order.")
      .def("capture",
           [](GraphBuilder& b, const TensorPtr& value, const std::string& name) {
             NodeOutput o = b.capture_by_reference(value, name);
             return b.symbolic(o.node, o.index);
           })
      .def("set_outputs", [](GraphBuilder& b, const std::vector<TensorPtr>& outs) {
        auto& g = *b.graph();
        g.outputs.clear();
        for (auto& t : outs) {
          if (t->graph_id != g.id()) throw_error(Code::Internal, "output from another graph");
          g.outputs.push_back(NodeOutput{t->node, t->index});
        }
      });

  struct PyScope {
    std::shared_ptr<GraphBuilder> builder;
    std::unique_ptr<ContextScope> scope;
  };
  py::class_<PyScope>(m, "ContextScope")
      .def(py::init([](std::shared_ptr<GraphBuilder> b) {
             return PyScope{std::move(b), nullptr};
           }),
           py::arg("builder") = nullptr)
      .def("__enter__", [](PyScope& s) { s.scope = std::make_unique<ContextScope>(s.builder.get()); })
      .def("__exit__", [](PyScope& s, py::args) {
        s.scope.reset();
        return false;
      });
  m.def("context_depth", &context_depth);
  // A thread's tracing context, entered by another thread that traces into the same graphs
  // while the first one waits (tf.distribute's replica threads).
  struct PyFrames {
    std::vector<Frame> frames;
  };
  py::class_<PyFrames>(m, "ContextFrames");
  m.def("current_context_frames", []() { return PyFrames{current_frames()}; });
  struct PySharedScope {
    std::vector<Frame> frames;
    std::unique_ptr<SharedContextScope> scope;
  };
  py::class_<PySharedScope>(m, "SharedContextScope")
      .def(py::init([](const PyFrames& f) {
        return PySharedScope{f.frames, nullptr};
      }))
      .def("__enter__", [](PySharedScope& s) { s.scope = std::make_unique<SharedContextScope>(s.frames); })
      .def("__exit__", [](PySharedScope& s, py::args) {
        s.scope.reset();
        return false;
      });
  // tf.name_scope while tracing: enter returns the previous scope, which exit restores.
  m.def("name_scope_enter", [](const std::string& name) -> py::object {
    GraphBuilder* b = current_builder();
    if (!b) return py::none();
    Graph& g = *b->graph();
    std::string prev = g.name_scope;
    if (name.empty())
      g.name_scope.clear();
    else if (name.back() == '/')
      g.name_scope = name;  // an absolute scope, reused as given
    else
      g.name_scope = g.unique_name(prev + name) + "/";
    return py::make_tuple(prev, g.name_scope);
  });
  m.def("name_scope_exit", [](const std::string& prev) {
    if (GraphBuilder* b = current_builder()) b->graph()->name_scope = prev;
  });
  m.def("current_graph", []() -> py::object {
    GraphBuilder* b = current_builder();
    return b ? py::cast(b->graph()) : py::object(py::none());
  });
}

}  // namespace fn
