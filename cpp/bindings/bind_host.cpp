// The PyCall kernel: takes the GIL, calls the Python callable held in the node's attrs with
// the input tensors, and checks what it returns against the declared output dtypes. Also
// variant tensors that hold a Python object (fn.data's dataset and iterator handles).
#include <pybind11/stl.h>

#include <cstring>

#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "ops/host.h"
#include "ops/op.h"
#include "graph/graph.h"
#include "trace/context.h"

namespace fn {

namespace {

// The buffer of a variant tensor made by make_variant: a tag (so that variants made elsewhere,
// e.g. tensor lists, are never mistaken for one) and the Python object.
struct PyVariant {
  char tag[8] = {'f', 'n', 'p', 'y', 'v', 'a', 'r', 0};
  py::object obj;
  explicit PyVariant(py::object o) : obj(std::move(o)) {}
  ~PyVariant() {
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
};

const PyVariant* as_py_variant(const TensorPtr& t) {
  if (!t->is_eager() || t->dtype() != DType::Variant) return nullptr;
  auto e = as_eager(t);
  if (!e->buffer() || e->buffer()->nbytes() != sizeof(PyVariant) || !e->raw()) return nullptr;
  auto* v = static_cast<const PyVariant*>(e->raw());
  return std::memcmp(v->tag, "fnpyvar", 8) == 0 ? v : nullptr;
}

// A Python exception raised by the callable, as the error the op fails with: fn.errors.OpError
// subclasses keep their status code and message; StopIteration is OutOfRange; anything else
// is InvalidArgument carrying the exception's class and text (as TF's py_function does).
[[noreturn]] void rethrow_from_python(py::error_already_set& e) {
  std::string what = e.what();
  if (e.matches(PyExc_StopIteration)) throw Error(Code::OutOfRange, "StopIteration: " + what);
  py::object value = e.value();
  if (py::hasattr(value, "error_code") && py::hasattr(value, "_message")) {
    int code = value.attr("error_code").cast<int>() - 1;  // fn.errors codes are 1-based
    if (code >= 0 && code < static_cast<int>(Code::ValueError))
      throw Error(static_cast<Code>(code), value.attr("_message").cast<std::string>());
  }
  throw Error(Code::InvalidArgument, what);
}

// A custom gradient loaded from a SavedModel: its traced gradient graph (inputs: the output
// gradients, then the outputs) run op by op through dispatch, so outer tapes see it.
std::vector<TensorPtr> saved_custom_gradient(const GradContext& c, size_t n) {
  const AttrValue* gv = c.attrs.find("_grad_graph");
  auto* gp = gv ? std::get_if<std::shared_ptr<Graph>>(gv) : nullptr;
  if (!gp || !*gp) throw_error(Code::Internal, "CustomGradient without a Python grad_fn");
  const Graph& g = **gp;
  if (g.arg_placeholders.size() != 2 * n) throw_error(Code::DataLoss, "saved custom gradient has a bad signature");
  std::vector<std::vector<TensorPtr>> values(g.num_nodes());
  for (size_t i = 0; i < n; ++i) {
    TensorPtr dy = c.out_grads[i];
    if (!dy) dy = dispatch(*OpRegistry::global().find("ZerosLike"), {c.outputs[i]}, Attrs{}, "zeros_like")[0];
    values[g.arg_placeholders[i]] = {dy};
    values[g.arg_placeholders[n + i]] = {c.outputs[i]};
  }
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (!values[i].empty()) continue;
    const Node& node = g.node(i);
    std::vector<TensorPtr> in;
    for (const NodeOutput& o : node.inputs) in.push_back(values[o.node][o.index]);
    values[i] = dispatch(*node.def, in, node.attrs, node.name);
  }
  std::vector<TensorPtr> grads(n, nullptr);
  const auto none = c.attrs.get_or<std::vector<int64_t>>("_grad_none", {});
  size_t k = 0;
  for (int64_t is_none : none) {
    if (is_none || k >= g.outputs.size()) {
      grads.push_back(nullptr);
    } else {
      const NodeOutput& o = g.outputs[k++];
      grads.push_back(values[o.node][o.index]);
    }
  }
  if (grads.size() != c.inputs.size())
    throw_error(Code::DataLoss, "saved custom gradient returns ", grads.size() - n, " gradients for ",
                c.inputs.size() - n, " inputs");
  return grads;
}

// PyCall's kernel: calls the node's Python callable (taking the GIL) and converts what it
// returns to the declared Tout dtypes.
std::vector<EagerPtr> py_call_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  py::gil_scoped_acquire gil;
  auto host = std::dynamic_pointer_cast<PyHostObject>(k.attrs.get<std::shared_ptr<HostObject>>("callable"));
  if (!host) throw_error(Code::Internal, "PyCall without a Python callable");
  const auto& tout = k.attrs.get_or<std::vector<DType>>("Tout", {});
  py::list args;
  for (auto& t : in) args.append(py::cast(std::static_pointer_cast<Tensor>(t)));
  py::object result;
  try {
    result = host->obj(*args);
  } catch (py::error_already_set& e) { rethrow_from_python(e); }
  std::vector<EagerPtr> out;
  if (tout.empty()) return out;
  py::list items;
  if (py::isinstance<py::list>(result) || py::isinstance<py::tuple>(result))
    items = py::list(result);
  else
    items.append(result);
  if (items.size() != tout.size())
    throw_error(Code::InvalidArgument, "py_function returned ", items.size(), " values but ", tout.size(),
                " were declared in Tout");
  for (size_t i = 0; i < tout.size(); ++i) {
    DType d = tout[i];
    EagerPtr t = to_eager(items[i], &d);
    out.push_back(t);
  }
  return out;
}

}  // namespace

void add_host_kernels(OpRegistry& r) { r.set_kernel("PyCall", py_call_kernel); }

void init_host(py::module_& m) {
  // CustomGradient's gradient: grad_fn(out_grads, outputs) -> one gradient (or None) per
  // argument input; the result inputs get none (the custom rule replaces their path).
  custom_gradient_rule() = [](const GradContext& c) -> std::vector<TensorPtr> {
    py::gil_scoped_acquire gil;
    auto host = std::dynamic_pointer_cast<PyHostObject>(c.attrs.get<std::shared_ptr<HostObject>>("grad_fn"));
    auto n = static_cast<size_t>(c.attrs.get_or<int64_t>("num_outputs", 0));
    if (!host) return saved_custom_gradient(c, n);
    py::list dys, ys;
    for (size_t i = 0; i < c.out_grads.size(); ++i) {
      dys.append(c.out_grads[i] ? py::cast(c.out_grads[i]) : py::none());
      ys.append(py::cast(c.outputs[i]));
    }
    py::object result;
    try {
      result = host->obj(dys, ys);
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_LookupError)) throw;  // "gradient registry has no entry for: ..." as TF's
      rethrow_from_python(e);
    }
    std::vector<TensorPtr> grads(n, nullptr);
    for (py::handle g : result) grads.push_back(g.is_none() ? nullptr : g.cast<TensorPtr>());
    if (grads.size() != c.inputs.size())
      throw_error(Code::InvalidArgument, "custom_gradient: the gradient function returned ", grads.size() - n,
                  " gradients for ", c.inputs.size() - n, " inputs");
    return grads;
  };
  m.def(
      "make_variant",
      [](py::object obj) -> TensorPtr {
        auto holder = std::make_shared<PyVariant>(std::move(obj));
        void* raw = holder.get();
        auto buf = Buffer::wrap(raw, sizeof(PyVariant), std::shared_ptr<void>(std::move(holder)));
        return std::make_shared<EagerTensor>(DType::Variant, Shape{}, std::move(buf));
      },
      "A scalar variant tensor holding a Python object (fn.data's dataset/iterator handles).");
  m.def(
      "variant_value",
      [](const TensorPtr& t) -> py::object {
        const PyVariant* v = as_py_variant(t);
        if (!v)
          throw_error(Code::InvalidArgument, "expected a variant tensor holding a Python object, got a ",
                      t->is_eager() ? "" : "symbolic ", dtype_name(t->dtype()), " tensor");
        return v->obj;
      },
      "The Python object held by a tensor made with make_variant.");
}

}  // namespace fn
