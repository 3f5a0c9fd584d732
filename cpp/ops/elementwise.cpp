// Elementwise ops. Binary ops broadcast like NumPy; each op's gradient sits next to it.
#include <string>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "trace/context.h"

namespace fn {

[[noreturn]] void throw_unsupported_dtype(const std::string& op, DType d) {
  throw_error(Code::InvalidArgument, "Value for attr 'T' of ", dtype_name(d),
              " is not in the list of allowed values for op ", op);
}

InferFn binary_infer(std::string op, unsigned mask, bool bool_out) {
  return [op, mask, bool_out](const InferContext& c) {
    check_same_dtype_graph(op, c.inputs);
    DType d = c.inputs[0].dtype;
    if (!(mask & bit(d)))
      throw_error(Code::TypeError, "Value passed to parameter 'x' has DataType ", dtype_name(d),
                  " not in list of allowed values for ", op);
    Shape s;
    try {
      s = broadcast_shapes(c.inputs[0].shape, c.inputs[1].shape);
    } catch (const Error& e) {
      throw_error(Code::ValueError, "Dimensions must be equal, but are ",
                  c.inputs[0].shape.to_string(), " and ", c.inputs[1].shape.to_string(),
                  " for '", op, "' (", e.what(), ")");
    }
    return one(bool_out ? DType::Bool : d, s);
  };
}

TensorPtr unbroadcast(const TensorPtr& grad, const TensorPtr& input) {
  if (!grad) return nullptr;
  const Shape& gs = grad->shape();
  const Shape& is = input->shape();
  if (gs == is && gs.is_fully_defined()) return grad;
  if (!gs.has_rank() || !is.has_rank())
    throw_error(Code::Unimplemented, "gradient of a broadcast with unknown rank");
  if (OpRegistry::global().find("Sum") == nullptr)
    throw_error(Code::Unimplemented, "gradient with broadcasting needs the Sum op");
  std::vector<int64_t> axes;
  int lead = gs.rank() - is.rank();
  for (int i = 0; i < gs.rank(); ++i) {
    int j = i - lead;
    if (j < 0 || (is[j] == 1 && gs[i] != 1)) axes.push_back(i);
  }
  TensorPtr out = grad;
  if (!axes.empty()) {
    auto ax = make_tensor(DType::Int32, Shape{static_cast<int64_t>(axes.size())});
    for (size_t i = 0; i < axes.size(); ++i) ax->data<int32_t>()[i] = static_cast<int32_t>(axes[i]);
    out = dispatch1("Sum", {out, ax}, Attrs{{"keep_dims", false}});
  }
  if (out->shape() != is) {
    auto dims = make_tensor(DType::Int32, Shape{static_cast<int64_t>(is.rank())});
    for (int i = 0; i < is.rank(); ++i) dims->data<int32_t>()[i] = static_cast<int32_t>(is[i]);
    out = dispatch1("Reshape", {out, dims});
  }
  return out;
}

namespace {

struct AddOp { template <typename T> static T apply(T a, T b) { return static_cast<T>(a + b); } };

std::vector<EagerPtr> add_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  static const std::string kOp = "AddV2";
  check_same_dtype_eager(kOp, in);
  if (in[0]->dtype() == DType::String) {   // string concatenation with broadcasting
    Shape s = broadcast_shapes(in[0]->shape(), in[1]->shape());
    auto out = make_tensor(DType::String, s);
    auto st_a = ref::broadcast_strides(in[0]->shape(), s), st_b = ref::broadcast_strides(in[1]->shape(), s);
    auto strides = row_major_strides(s.dims());
    for (int64_t i = 0; i < s.num_elements(); ++i) {
      int64_t rem = i, a = 0, b = 0;
      for (int d = 0; d < s.rank(); ++d) {
        int64_t q = rem / strides[d];
        rem %= strides[d];
        a += q * st_a[d];
        b += q * st_b[d];
      }
      out->strings()[i] = in[0]->strings()[a] + in[1]->strings()[b];
    }
    return {out};
  }
  return {binary_compute<AddOp>(kOp, kNumberTypes, *in[0], *in[1],
                                static_cast<int>(dnnl::algorithm::binary_add))};
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  r.add(OpDef{"AddV2", "add", 2, binary_infer("AddV2", kNumberTypes | bit(DType::String), false),
              add_kernel,
              [](const GradContext& g) {
                return std::vector<TensorPtr>{unbroadcast(g.out_grads[0], g.inputs[0]),
                                              unbroadcast(g.out_grads[0], g.inputs[1])};
              }});
}

}  // namespace fn
