// _FusedElementwise's definition (ops/fused_elementwise.h): its kernel decodes the program the
// fusion pass wrote into attrs and runs it.
#include "ops/fused_elementwise.h"

#include "core/error.h"
#include "kernels/fused/blocks.h"
#include "ops/forward.h"

namespace fn {

namespace {

std::vector<EagerPtr> fused_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const auto& prog = k.attrs.get<std::vector<int64_t>>("program");
  const auto& bcast = k.attrs.get<std::vector<int64_t>>("bcast");
  const Shape& shape = k.attrs.get<Shape>("shape");
  if (bcast.size() != 2 * in.size() || prog.size() % 3 != 0)
    throw_error(Code::Internal, "malformed fused elementwise node");
  std::vector<fused::Operand> ops(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    // The plan was made for these shapes: a mismatch is a bug, never a wrong read.
    if (in[i]->dtype() != DType::Float32 || in[i]->num_elements() != bcast[2 * i + 1])
      throw_error(Code::Internal, "fused elementwise input ", i, " has shape ", in[i]->shape().to_string(),
                  ", not the traced one");
    ops[i] = fused::Operand{in[i]->data<float>(), bcast[2 * i], bcast[2 * i + 1]};
  }
  std::vector<fused::Instr> instrs(prog.size() / 3);
  for (size_t i = 0; i < instrs.size(); ++i)
    instrs[i] = fused::Instr{static_cast<int>(prog[3 * i]), static_cast<int>(prog[3 * i + 1]),
                             static_cast<int>(prog[3 * i + 2])};
  // In place when an input of the output's size dies here and can be forwarded (ops/forward.h;
  // elements are read before they are written).
  EagerPtr out;
  for (size_t i = 0; i < in.size() && !out; ++i)
    if (!k.attrs.has("reduce") && bcast[2 * i] == 1 && bcast[2 * i + 1] == shape.num_elements() && forwardable(in[i]) &&
        in[i]->shape() == shape)
      out = in[i];
  fused::Reduce red;
  if (k.attrs.has("reduce")) {
    const auto& r = k.attrs.get<std::vector<int64_t>>("reduce");
    if (r.size() != 2 && r.size() != 3) throw_error(Code::Internal, "malformed fused elementwise reduction");
    red.kind = static_cast<int>(r[0]);
    red.mid = r[1];
    red.inner = r.size() == 3 ? r[2] : 1;  // columns (absent: rows)
    out = make_tensor(DType::Float32, k.attrs.get<Shape>("out_shape"));
    if (red.mid <= 0 || red.inner <= 0 || out->num_elements() * red.mid != shape.num_elements() ||
        out->num_elements() % red.inner != 0)
      throw_error(Code::Internal, "fused elementwise reduction does not match its shapes");
  }
  if (!out) out = make_tensor(DType::Float32, shape);
  // Extra outputs: intermediates read elsewhere too (stacked for a gradient, read by another tree),
  // written by their instruction from the same tiles. Fresh buffers, never an input's.
  std::vector<EagerPtr> result{out};
  std::vector<float*> stores;
  if (k.attrs.has("extra_outputs")) {
    const auto& extra = k.attrs.get<std::vector<int64_t>>("extra_outputs");
    stores.assign(instrs.size(), nullptr);
    for (int64_t at : extra) {
      if (at < 0 || static_cast<size_t>(at) >= instrs.size() || stores[static_cast<size_t>(at)])
        throw_error(Code::Internal, "malformed fused elementwise extra output ", at);
      result.push_back(make_tensor(DType::Float32, shape));
      stores[static_cast<size_t>(at)] = result.back()->data<float>();
    }
  }
  // Big trees run as blocks on the task pool (kernels/fused/blocks.h: same bits on any thread count).
  fused::run_blocks(instrs, ops, out->data<float>(), shape.num_elements(), red, stores);
  return result;
}

}  // namespace

const OpDef& fused_elementwise_op() {
  static const OpDef def{"_FusedElementwise",
                         "fused",
                         -1,
                         [](const InferContext& c) {
                           auto specs =
                               one(DType::Float32, c.attrs.get<Shape>(c.attrs.has("reduce") ? "out_shape" : "shape"));
                           if (c.attrs.has("extra_outputs"))  // full-size intermediates, in order
                             for (size_t e = 0; e < c.attrs.get<std::vector<int64_t>>("extra_outputs").size(); ++e)
                               specs.push_back(TensorSpec{DType::Float32, c.attrs.get<Shape>("shape")});
                           return specs;
                         },
                         fused_kernel,
                         {}};
  return def;
}

}  // namespace fn
