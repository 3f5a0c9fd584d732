// The Function call fast path: Function.__call__ binds the call by its BindingSpec
// (bindings/binding_spec.h), keys it (bindings/trace_key.h) and runs the cached concrete function
// without entering Python; concrete functions' bindings. Tracing's bindings are bind_tracing.cpp.
#include <pybind11/stl.h>

#include <atomic>
#include <memory>

#include "bindings/binding_spec.h"
#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "bindings/trace_key.h"
#include "exec/inter_op.h"
#include "function/cache.h"
#include "function/concrete.h"
#include "passes/passes.h"
#include "trace/tape.h"

namespace fn {

namespace {

// `g` as text, then each sub-graph an attr holds (a While's cond and body, a cond's branches) as
// the sub-plan compiles it (exec/control_flow.cpp: optimize(), as for a function's graph).
std::string graph_text_with_subgraphs(const Graph& g, const std::string& path = "") {
  std::string text = g.to_text();
  for (const Node& n : g.nodes())
    for (const auto& kv : n.attrs.items())
      if (const auto* sub = std::get_if<std::shared_ptr<Graph>>(&kv.second)) {
        const std::string name = path + n.name + "." + kv.first;
        text += "graph " + name + ":\n" + graph_text_with_subgraphs(*optimize(**sub), name + "/");
      }
  return text;
}

std::atomic<bool> g_run_eagerly{false};
// While > 0, Function calls skip the C++ cache fast path: the Python path adds the trace context
// (e.g. the replica of a multi-replica strategy.run) to the cache key.
std::atomic<int> g_context_keyed_calls{0};

// How a cached call hands its outputs back: the fast path builds one tensor or a tuple of
// tensors itself; any other structure is repacked by the Python ConcreteFunction.
enum class OutputMode { OneTensor, TensorTuple, PythonPack };

// What a Function's cache holds: the concrete function plus how to rebuild its outputs.
struct CacheEntry {
  std::shared_ptr<ConcreteFunction> concrete;
  py::object python_concrete;  // the Python ConcreteFunction wrapper
  OutputMode output_mode = OutputMode::PythonPack;
  ~CacheEntry() {
    py::gil_scoped_acquire gil;
    python_concrete = py::object();
  }
};

class FunctionBase {
 public:
  FunctionCache<CacheEntry> cache;
  // How calls bind to the Python signature (null: no fast path, e.g. with an input_signature).
  // The canonical form, the cache key's value, is the positional values, or (positional values,
  // keyword values) when the keyword part is not empty, as the Python slow path makes it.
  std::shared_ptr<const BindingSpec> binding;
  // input_signature: the one key, and each positional argument's dtype/shape
  std::shared_ptr<TraceKey> signature_key;
  std::vector<TensorSpec> signature_specs;
  std::atomic<int64_t> fast_hits{0};
  // The key of the last fast call whose arguments were all plain tensors (a tuple of TensorTypes,
  // resource_id -1): a call with tensors of the same dtypes and shapes has exactly this key, so it
  // is reused rather than rebuilt (no per-tensor allocation). Read and written under the GIL.
  TypePtr last_tensor_key;
};

py::object run_entry(const CacheEntry& e, const std::vector<TensorPtr>& leaves) {
  std::vector<TensorPtr> out;
  bool release = !current_builder() && active_tapes().empty() && !e.concrete->plan()->needs_host();
  if (release) {
    py::gil_scoped_release nogil;
    InterOpScope parallel(true);  // no GIL held: the plan may use the inter-op worker
    out = e.concrete->call(leaves);
  } else {
    out = e.concrete->call(leaves);
  }
  if (e.output_mode == OutputMode::OneTensor) return py::cast(out[0]);
  if (e.output_mode == OutputMode::TensorTuple) {
    py::tuple t(out.size());
    for (size_t i = 0; i < out.size(); ++i) t[i] = py::cast(out[i]);
    return std::move(t);
  }
  return e.python_concrete.attr("_pack_outputs")(py::cast(out));
}

// True when `args` (a tuple) are tensors with the dtypes and shapes of `key`'s elements (a tuple
// of plain TensorTypes), i.e. building their key would give one equal to `key`; fills `leaves`.
bool matches_tensor_key(const TypePtr& key, py::handle args, std::vector<TensorPtr>* leaves) {
  auto& seq = static_cast<const SequenceType&>(*key);
  const Py_ssize_t n = PyTuple_GET_SIZE(args.ptr());
  if (static_cast<size_t>(n) != seq.elements.size()) return false;
  leaves->reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    py::handle a = PyTuple_GET_ITEM(args.ptr(), i);
    if (!is_tensor_fast(a)) return false;
    TensorPtr t = tensor_of(a);
    auto& tt = static_cast<const TensorType&>(*seq.elements[i]);
    if (t->dtype() != tt.dtype || t->shape() != tt.shape) return false;
    leaves->push_back(std::move(t));
  }
  return true;
}

bool is_plain_tensor_tuple(const TraceType& key) {
  if (key.kind != TraceType::Kind::Sequence) return false;
  auto& seq = static_cast<const SequenceType&>(key);
  if (seq.name != "tuple") return false;
  for (auto& e : seq.elements)
    if (e->kind != TraceType::Kind::Tensor || static_cast<const TensorType&>(*e).resource_id != -1) return false;
  return true;
}

// Runs the cached concrete function for these canonical arguments; a null object on a miss.
// `key_value`: the canonical arguments (a tuple), or (tuple, keyword dict) for keywords.
py::object call_cached(FunctionBase& f, py::handle key_value) {
  const bool plain_tuple = Py_TYPE(key_value.ptr()) == &PyTuple_Type;
  if (plain_tuple && f.last_tensor_key) {
    std::vector<TensorPtr> leaves;
    if (matches_tensor_key(f.last_tensor_key, key_value, &leaves)) {
      TypePtr key = f.last_tensor_key;  // (held: running the entry may replace the memo)
      auto e = f.cache.lookup(key);
      if (!e) return py::object();
      f.fast_hits++;
      return run_entry(*e, leaves);
    }
  }
  KeyBuilder kb;
  kb.want_spec_leaves = false;
  TypePtr key = kb.build(key_value);
  if (kb.has_specs) return py::object();
  TypePtr stored;  // on an exact hit the cache's own key: equal, and compared by address next time
  auto e = f.cache.lookup(key, &stored);
  if (!e) return py::object();
  if (plain_tuple && is_plain_tensor_tuple(*key)) f.last_tensor_key = stored ? stored : key;
  f.fast_hits++;
  return run_entry(*e, kb.leaves);
}

// input_signature: tensors that fit the signature use its one trace directly.
py::object call_with_signature(FunctionBase& f, const py::args& args) {
  const size_t n = args.size();
  if (n != f.signature_specs.size()) return py::object();
  std::vector<TensorPtr> leaves;
  for (size_t i = 0; i < n; ++i) {
    py::handle a = args[i];
    if (!is_tensor(a)) return py::object();
    auto t = a.cast<TensorPtr>();
    if (t->dtype() != f.signature_specs[i].dtype || !t->shape().is_subtype_of(f.signature_specs[i].shape))
      return py::object();
    leaves.push_back(std::move(t));
  }
  auto e = f.cache.lookup(f.signature_key->type);
  if (!e) return py::object();
  f.fast_hits++;
  return run_entry(*e, leaves);
}

// Concrete functions and tf.function objects (the call fast path).
void init_function_objects(py::module_& m) {
  py::class_<ConcreteFunction, std::shared_ptr<ConcreteFunction>>(m, "ConcreteFunctionCore")
      .def(py::init([](std::shared_ptr<Graph> g, std::vector<TensorPtr> captures, std::string name) {
        auto c = std::make_shared<ConcreteFunction>(std::move(g), std::move(captures));
        c->name = std::move(name);
        return c;
      }))
      .def_property_readonly("graph", &ConcreteFunction::graph)
      .def_property_readonly("captures", &ConcreteFunction::captures)
      .def_property_readonly("name", [](const ConcreteFunction& c) { return c.name; })
      .def_readwrite("_graph_errors", &ConcreteFunction::graph_errors,
                     "Run-time op errors read as a Function's (TF's \"Graph execution error\").")
      .def("call",
           [](const ConcreteFunction& c, const std::vector<TensorPtr>& args) {
             if (!current_builder() && active_tapes().empty() && !c.plan()->needs_host()) {
               py::gil_scoped_release nogil;
               InterOpScope parallel(true);  // no GIL held: the plan may use the inter-op worker
               return c.call(args);
             }
             return c.call(args);
           })
      .def("num_plan_steps", [](const ConcreteFunction& c) { return c.plan()->num_steps(); })
      .def("plan_parallel", [](const ConcreteFunction& c) { return c.plan()->parallel(); })
      .def("plan_step_ops", [](const ConcreteFunction& c) { return c.plan()->step_ops(); })
      // The graph the plan runs, after the passes (fusions), as text, each loop's or branch's
      // sub-graph after it as its plan runs it: for profiling by hand.
      .def("_plan_graph_text", [](const ConcreteFunction& c) { return graph_text_with_subgraphs(c.plan()->graph()); });

  py::enum_<OutputMode>(m, "OutputMode")
      .value("ONE_TENSOR", OutputMode::OneTensor)
      .value("TENSOR_TUPLE", OutputMode::TensorTuple)
      .value("PYTHON_PACK", OutputMode::PythonPack);
  py::class_<FunctionBase, std::shared_ptr<FunctionBase>>(m, "FunctionBase", py::dynamic_attr())
      .def(py::init<>())
      .def("__call__",
           [](py::object self, py::args args, py::kwargs kwargs) -> py::object {
             FunctionBase& f = self.cast<FunctionBase&>();
             if (!g_run_eagerly.load(std::memory_order_relaxed) &&
                 g_context_keyed_calls.load(std::memory_order_relaxed) == 0) {
               py::object hit;
               if (f.signature_key) {
                 if (kwargs.empty()) hit = call_with_signature(f, args);
               } else if (f.binding) {
                 py::object pos, kw;  // (kw stays null, no dict made, without a keyword part)
                 if (f.binding->bind(args, kwargs, &pos, &kw))
                   hit = !kw || PyDict_GET_SIZE(kw.ptr()) == 0 ? call_cached(f, pos)
                                                               : call_cached(f, py::make_tuple(pos, kw));
               }
               if (hit) return hit;
             }
             return self.attr("_call_slow")(args, kwargs);
           })
      .def(
          "_set_binding", [](FunctionBase& f, std::shared_ptr<const BindingSpec> spec) { f.binding = std::move(spec); },
          "The call fast path binds calls by this spec (None: every call takes the Python path).")
      .def("_set_signature_fast",
           [](FunctionBase& f, std::shared_ptr<TraceKey> key, py::list specs) {
             f.signature_key = std::move(key);
             f.signature_specs.clear();
             for (py::handle s : specs)
               f.signature_specs.push_back(TensorSpec{dtype_from_py(s.attr("dtype")), shape_from_py(s.attr("shape"))});
           })
      .def_property_readonly("_fast_hits", [](const FunctionBase& f) { return f.fast_hits.load(); })
      .def("_cache_lookup",
           [](FunctionBase& f, const TraceKey& k) -> py::object {
             auto e = f.cache.lookup(k.type);
             return e ? e->python_concrete : py::object(py::none());
           })
      .def("_cache_insert",
           [](FunctionBase& f, const TraceKey& k, std::shared_ptr<ConcreteFunction> c, py::object python_concrete,
              OutputMode mode) {
             auto e = std::make_shared<CacheEntry>();
             e->concrete = std::move(c);
             e->python_concrete = std::move(python_concrete);
             e->output_mode = mode;
             f.cache.insert(k.type, e);
           })
      .def(
          "_cache_items",
          [](FunctionBase& f, size_t limit) {
            py::list out;
            for (auto& kv : f.cache.items(limit))
              out.append(py::make_tuple(std::make_shared<TraceKey>(kv.first), kv.second->python_concrete));
            return out;
          },
          py::arg("limit") = 0)
      .def("_cache_stats",
           [](FunctionBase& f) {
             auto s = f.cache.stats();
             return py::make_tuple(s.hits, s.misses, s.evictions);
           })
      .def("_cache_clear", [](FunctionBase& f) { f.cache.clear(); })
      .def("_cache_set_max_size",
           [](FunctionBase& f, int64_t n) { f.cache.set_max_size(n > 0 ? static_cast<size_t>(n) : 0); })
      .def("_cache_size", [](FunctionBase& f) { return f.cache.size(); });
}

}  // namespace

void init_function(py::module_& m) {
  init_tracing(m);
  init_binding_spec(m);
  init_function_objects(m);
  m.def("set_run_eagerly", [](bool v) { g_run_eagerly = v; });
  m.def("run_eagerly", [] { return g_run_eagerly.load(); });
  m.def(
      "set_inter_op", [](bool on) { set_inter_op_enabled(on); },
      "Overrides FN_INTER_OP (tests: parallel vs sequential bits).");
  m.def("inter_op", [] { return inter_op_enabled(); });
  m.def("enter_context_keyed_calls", [] { ++g_context_keyed_calls; });
  m.def("exit_context_keyed_calls", [] { --g_context_keyed_calls; });
  m.def("tape_active", [] { return !active_tapes().empty() && any_tape_recording(); });
}

}  // namespace fn
