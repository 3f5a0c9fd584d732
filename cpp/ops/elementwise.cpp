// Shared pieces of the elementwise families (dtype errors, shape rules, unbroadcast) and AddV2.
// The other binary ops live in binary.cpp, comparisons and logic in compare.cpp, unary math in
// unary.cpp. Each op's gradient sits next to it.
#include <string>

#include "kernels/fused/elementwise.h"
#include "ops/elementwise_impl.h"
#include "ops/complex.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "trace/context.h"

namespace fn {

namespace {
// TensorFlow lists allowed types in roughly this order.
constexpr DType kListOrder[] = {DType::BFloat16, DType::Float16, DType::Float32, DType::Float64, DType::UInt8,
                                DType::Int8,     DType::UInt16,  DType::Int16,   DType::Int32,   DType::UInt32,
                                DType::UInt64,   DType::Int64,   DType::Bool,    DType::String};
}  // namespace

std::string allowed_types(unsigned mask, bool python_names) {
  std::string out;
  for (DType d : kListOrder) {
    if (!(mask & bit(d))) continue;
    if (!out.empty()) out += ", ";
    out += python_names ? dtype_name(d) : tf_type_string(d);
  }
  return out;
}

std::string tf_enum_suffix(DType d) {
  std::string t = tf_type_string(d);
  for (auto& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return t;
}

[[noreturn]] void throw_unsupported_dtype(const std::string& op, DType d, unsigned mask) {
  throw_error(Code::InvalidArgument, "Value for attr 'T' of ", tf_type_string(d),
              " is not in the list of allowed values: ", allowed_types(mask, false), "\n\t; NodeDef: {{node ", op,
              "}}");
}

[[noreturn]] void throw_unsupported_dtype(const std::string& op, DType d) {
  throw_error(Code::InvalidArgument, "Value for attr 'T' of ", tf_type_string(d),
              " is not in the list of allowed values for op ", op);
}

[[noreturn]] void throw_no_kernel(const std::string& op, DType d) {
  throw_error(Code::NotFound, "Could not find device for node: {{node ", op, "}} = ", op, "[T=DT_", tf_enum_suffix(d),
              "]");
}

void check_dtype_graph(const std::string& op, DType d, unsigned mask, const char* param) {
  if (!(mask & bit(d)))
    throw_error(Code::TypeError, "Value passed to parameter '", param, "' has DataType ", dtype_name(d),
                " not in list of allowed values: ", allowed_types(mask, true));
}

// "Dimensions must be equal, but are 2 and 3" for the first pair (from the right) that clashes.
std::string mismatch_text(const Shape& a, const Shape& b) {
  for (int i = 1; i <= std::min(a.rank(), b.rank()); ++i) {
    int64_t x = a[a.rank() - i], y = b[b.rank() - i];
    if (x > 1 && y > 1 && x != y)
      return "Dimensions must be equal, but are " + std::to_string(x) + " and " + std::to_string(y);
  }
  return "Incompatible shapes";
}

InferFn binary_infer(std::string op, unsigned mask, bool bool_out) {
  return [op, mask, bool_out](const InferContext& c) {
    check_same_dtype_graph(op, c.inputs);
    DType d = c.inputs[0].dtype;
    check_dtype_graph(op, d, mask);
    Shape s;
    try {
      s = broadcast_shapes(c.inputs[0].shape, c.inputs[1].shape);
    } catch (const Error&) {
      // Equal/NotEqual with incompatible_shape_error=False: the result is a scalar at run time
      if (!c.attrs.get_or("incompatible_shape_error", true)) return one(DType::Bool, Shape::unknown_rank());
      throw_error(Code::ValueError, mismatch_text(c.inputs[0].shape, c.inputs[1].shape), " for '{{node ", op,
                  "}} = ", op, "[T=DT_", tf_enum_suffix(d), "]' with input shapes: ", c.inputs[0].shape.debug_string(),
                  ", ", c.inputs[1].shape.debug_string(), ".");
    }
    return one(bool_out ? DType::Bool : d, s);
  };
}

InferFn unary_infer(std::string op, unsigned mask, bool bool_out) {
  return [op, mask, bool_out](const InferContext& c) {
    DType d = c.inputs[0].dtype;
    check_dtype_graph(op, d, mask);
    return one(bool_out ? DType::Bool : d, c.inputs[0].shape);
  };
}

TensorPtr unbroadcast(const TensorPtr& grad, const TensorPtr& input) {
  if (!grad) return nullptr;
  const Shape& gs = grad->shape();
  const Shape& is = input->shape();
  if (gs == is) return grad;  // same (possibly partial) shape: assumed not broadcast
  if (!gs.has_rank() || !is.has_rank()) throw_error(Code::Unimplemented, "gradient of a broadcast with unknown rank");
  // Sum (keeping dims) where input had size 1 and grad does not (an unknown grad dim is
  // summed too: summing a size-1 dim is harmless), then sum away the leading dims input lacks.
  // Unknown input dims are assumed not broadcast. No Reshape is needed.
  std::vector<int64_t> inner, lead;
  int nlead = gs.rank() - is.rank();
  for (int i = 0; i < gs.rank(); ++i) {
    int j = i - nlead;
    if (j < 0)
      lead.push_back(i);
    else if (is[j] == 1 && gs[i] != 1)
      inner.push_back(i);
  }
  TensorPtr out = grad;
  if (!inner.empty()) out = grad::reduce_sum(out, inner, true);
  if (!lead.empty()) out = grad::reduce_sum(out, lead, false);
  return out;
}

namespace {
// Broadcasting loop over two string tensors (AddV2 concatenates, Equal/NotEqual compare).
template <typename R, typename F>
EagerPtr string_binary(const EagerTensor& a, const EagerTensor& b, DType out_dtype, F f) {
  Shape s = broadcast_shapes(a.shape(), b.shape());
  auto out = make_tensor(out_dtype, s);
  auto st_a = ref::broadcast_strides(a.shape(), s), st_b = ref::broadcast_strides(b.shape(), s);
  auto strides = row_major_strides(s.dims());
  for (int64_t i = 0; i < s.num_elements(); ++i) {
    int64_t rem = i, ia = 0, ib = 0;
    for (int d = 0; d < s.rank(); ++d) {
      int64_t q = rem / strides[d];
      rem %= strides[d];
      ia += q * st_a[d];
      ib += q * st_b[d];
    }
    R v = f(a.strings()[ia], b.strings()[ib]);
    if constexpr (std::is_same<R, std::string>::value)
      out->strings()[i] = std::move(v);
    else
      out->template data<R>()[i] = v;
  }
  return out;
}
}  // namespace

EagerPtr string_compare(const EagerTensor& a, const EagerTensor& b, bool equal) {
  if (equal)
    return string_binary<bool>(a, b, DType::Bool, [](const std::string& x, const std::string& y) { return x == y; });
  return string_binary<bool>(a, b, DType::Bool, [](const std::string& x, const std::string& y) { return x != y; });
}

namespace {

constexpr unsigned kAddTypes = kNumberTypes;

std::vector<EagerPtr> add_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  static const std::string kOp = "AddV2";
  check_same_dtype_eager(kOp, in);
  if (in[0]->dtype() == DType::String) {  // string concatenation with broadcasting
    return {string_binary<std::string>(*in[0], *in[1], DType::String,
                                       [](const std::string& x, const std::string& y) { return x + y; })};
  }
  return {binary_compute<ref::Add, kAddTypes>(kOp, *in[0], *in[1], static_cast<int>(dnnl::algorithm::binary_add))};
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  r.add(with_complex(OpDef{"AddV2", "add", 2, binary_infer("AddV2", kAddTypes | kStringType, false), add_kernel,
                           [](const GradContext& g) {
                             return std::vector<TensorPtr>{unbroadcast(g.out_grads[0], g.inputs[0]),
                                                           unbroadcast(g.out_grads[0], g.inputs[1])};
                           }},
                     ComplexPath::Add)
            .with_output_args({"z"})
            .with_class(OpClass::Binary, "Add")
            .with_fusion(fused::kAdd));
}

}  // namespace fn
