// Array ops: Const, Placeholder, Identity, Fill.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "ops/families.h"
#include "ops/helpers.h"
#include "ops/op.h"
#include "trace/context.h"

namespace fn {

namespace {

std::vector<TensorSpec> same_as_input(const InferContext& c) { return {c.inputs.at(0)}; }

// n copies of the es-byte element `elem` at `dst`: a memset for bytes, else a block grown by
// doubling to ~64 KiB and copied along (a memcpy per element took minutes for 2**31 elements).
void fill_bytes(char* dst, const char* elem, size_t es, int64_t n) {
  if (n <= 0) return;
  const size_t total = static_cast<size_t>(n) * es;  // fits: the buffer of that size exists
  if (es == 1) {
    std::memset(dst, static_cast<unsigned char>(*elem), total);
    return;
  }
  std::memcpy(dst, elem, es);
  const size_t block = std::min(total, std::max<size_t>(1, (size_t{1} << 16) / es) * es);
  size_t filled = es;
  while (filled < block) {
    size_t c = std::min(filled, block - filled);
    std::memcpy(dst + filled, dst, c);
    filled += c;
  }
  for (; filled < total; filled += std::min(block, total - filled))
    std::memcpy(dst + filled, dst, std::min(block, total - filled));
}

Shape fill_shape(const InferContext& c) {
  const TensorSpec& dims = c.inputs[0];
  if (dims.shape.rank() > 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", dims.shape.rank(), " for 'Fill' (dims)");
  if (c.value(0)) {  // TF's MakeShapeFromShapeTensor: -1 is an unknown dim (the kernel refuses it)
    auto v = read_int_list(*c.value(0));
    for (int64_t& d : v) {
      if (d < -1) throw_error(Code::InvalidArgument, "Invalid value in tensor used for shape: ", d);
      if (d == -1) d = Shape::kUnknown;
    }
    return Shape(v);
  }
  if (dims.shape.rank() == 0) return Shape::unknown_rank();
  return c.partial_value(0);  // what shape arithmetic knows (fn.zeros(fn.shape(x)))
}

}  // namespace

void register_array_ops(OpRegistry& r) {
  r.add(OpDef{
      kConstOp,
      kConstOp,
      0,
      [](const InferContext& c) {
        const EagerPtr& v = c.attrs.get<EagerPtr>("value");
        return one(v->dtype(), v->shape());
      },
      [](KernelContext& k, const std::vector<EagerPtr>&) {
        return std::vector<EagerPtr>{k.attrs.get<EagerPtr>("value")};
      },
      {}}.with_constant());
  r.add(OpDef{
      kPlaceholderOp,
      kPlaceholderOp,
      0,
      [](const InferContext& c) { return one(c.attrs.get<DType>("dtype"), c.attrs.get<Shape>("shape")); },
      [](KernelContext&, const std::vector<EagerPtr>&) -> std::vector<EagerPtr> {
        throw_error(Code::InvalidArgument, "You must feed a value for placeholder tensor");
      },
      {}}.with_graph_input());
  r.add(OpDef{
      "Identity", "Identity", 1, same_as_input,
      [](KernelContext&, const std::vector<EagerPtr>& in) { return std::vector<EagerPtr>{in[0]}; },
      [](const GradContext& g) {
        return std::vector<TensorPtr>{g.out_grads[0]};
      }}.with_class(OpClass::Unary, "Identity"));
  r.add(OpDef{
      "Fill",
      "Fill",
      2,
      [](const InferContext& c) {
        if (c.inputs[1].shape.rank() > 0)
          throw_error(Code::ValueError, "Shape must be rank 0 but is rank ", c.inputs[1].shape.rank(),
                      " for 'Fill' (value)");
        return one(c.inputs[1].dtype, fill_shape(c));
      },
      [](KernelContext&, const std::vector<EagerPtr>& in) {
        if (in[1]->shape().rank() != 0)
          throw_error(Code::InvalidArgument, "value must be a scalar, got shape ", in[1]->shape().to_string());
        if (in[0]->shape().rank() > 1)
          throw_error(Code::InvalidArgument, "dims must be a vector, got shape ", in[0]->shape().to_string());
        auto dims = read_int_list(*in[0]);
        for (int64_t d : dims)
          if (d < 0) throw_error(Code::InvalidArgument, "Dimension ", d, " must be >= 0");
        auto out = make_tensor(in[1]->dtype(), Shape(dims));
        int64_t n = out->num_elements();
        if (in[1]->dtype() == DType::String) {
          for (int64_t i = 0; i < n; ++i) out->strings()[i] = in[1]->strings()[0];
        } else {
          fill_bytes(static_cast<char*>(out->raw()), static_cast<const char*>(in[1]->raw()), dtype_size(in[1]->dtype()),
                     n);
        }
        return std::vector<EagerPtr>{out};
      },
      {}}.with_input_types({{0, "dims", "index_type", kIndexDTypes}}));
}

}  // namespace fn
