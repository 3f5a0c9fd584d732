// PyCall: an op whose kernel calls back into the host language (py_function, fn.print). Its
// kernel is installed by the bindings, which own the interpreter; ops/ only knows its rules.
#include "core/error.h"
#include "ops/families.h"
#include "ops/op.h"

namespace fn {

void register_host_ops(OpRegistry& r) {
  OpDef def{"PyCall", "EagerPyFunc", -1,
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
}

}  // namespace fn
