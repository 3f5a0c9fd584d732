// PyCall: an op whose kernel calls back into the host language (py_function, fn.print). Its
// kernel is installed by the bindings, which own the interpreter; ops/ only knows its rules.
#include "core/error.h"
#include "ops/families.h"
#include "ops/host.h"
#include "ops/op.h"

namespace fn {

GradFn& custom_gradient_rule() {
  static GradFn rule;
  return rule;
}

void register_host_ops(OpRegistry& r) {
  OpDef def{"PyCall",
            "EagerPyFunc",
            -1,
            [](const InferContext& c) {
              std::vector<TensorSpec> out;
              const auto& types = c.attrs.get_or<std::vector<DType>>("Tout", {});
              const auto& shapes = c.attrs.get_or<std::vector<Shape>>("Tout_shapes", {});
              for (size_t i = 0; i < types.size(); ++i)
                out.push_back(TensorSpec{types[i], i < shapes.size() ? shapes[i] : Shape::unknown_rank()});
              return out;
            },
            [](KernelContext&, const std::vector<EagerPtr>&) -> std::vector<EagerPtr> {
              throw_error(Code::Unimplemented, "PyCall needs the Python bindings");
            },
            {}};
  def.stateful = true;
  def.needs_host = true;
  r.add(std::move(def));

  // fn.custom_gradient: outputs are the first `num_outputs` inputs (the function's results);
  // the remaining inputs (its tensor arguments) receive the gradient that the Python grad_fn in
  // the attrs computes (installed by the bindings). TensorFlow records an IdentityN here.
  OpDef cg{"CustomGradient",
           "IdentityN",
           -1,
           [](const InferContext& c) {
             auto n = static_cast<size_t>(c.attrs.get_or<int64_t>("num_outputs", 0));
             if (n > c.inputs.size()) throw_error(Code::InvalidArgument, "CustomGradient: num_outputs too large");
             return std::vector<TensorSpec>(c.inputs.begin(), c.inputs.begin() + static_cast<long>(n));
           },
           [](KernelContext& k, const std::vector<EagerPtr>& in) {
             auto n = static_cast<size_t>(k.attrs.get_or<int64_t>("num_outputs", 0));
             if (n > in.size()) throw_error(Code::InvalidArgument, "CustomGradient: num_outputs too large");
             return std::vector<EagerPtr>(in.begin(), in.begin() + static_cast<long>(n));
           },
           [](const GradContext& c) -> std::vector<TensorPtr> {
             const GradFn& rule = custom_gradient_rule();
             if (!rule) throw_error(Code::Unimplemented, "CustomGradient needs the Python bindings");
             return rule(c);
           }};
  r.add(std::move(cg));

  // tf.no_op / tf.group and the statically true asserts inside a Function: nothing to compute,
  // only control inputs to wait for. Stateful so that two of them (with different control
  // inputs) are never merged, and never pruned when the caller holds its Operation.
  OpDef noop{"NoOp",
             "NoOp",
             0,
             [](const InferContext&) { return std::vector<TensorSpec>{}; },
             [](KernelContext&, const std::vector<EagerPtr>&) { return std::vector<EagerPtr>{}; },
             {}};
  noop.stateful = true;
  r.add(std::move(noop));
}

}  // namespace fn
