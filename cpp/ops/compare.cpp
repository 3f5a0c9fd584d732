// Comparisons (-> bool), logical ops on bools and bitwise ops on integers. None of them is
// differentiable.
#include "kernels/fused/elementwise.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "trace/context.h"

namespace fn {

namespace {

constexpr unsigned kEqualTypes = kNumberTypes | kBoolType | kStringType;

int alg(dnnl::algorithm a) { return static_cast<int>(a); }

// Equal / NotEqual: strings too, and with incompatible_shape_error=False (Python's ==) shapes
// that do not broadcast compare unequal as a whole (a scalar).
template <typename Op>
KernelFn equality_kernel(std::string op, bool equal, int dnnl_alg) {
  return [op, equal, dnnl_alg](KernelContext& k, const std::vector<EagerPtr>& in) {
    check_same_dtype_eager(op, in);
    if (!k.attrs.get_or("incompatible_shape_error", true)) {
      try {
        broadcast_shapes(in[0]->shape(), in[1]->shape());
      } catch (const Error&) {
        auto out = make_tensor(DType::Bool, Shape{});
        out->data<bool>()[0] = !equal;
        return std::vector<EagerPtr>{out};
      }
    }
    if (in[0]->dtype() == DType::String) return std::vector<EagerPtr>{string_compare(*in[0], *in[1], equal)};
    return std::vector<EagerPtr>{binary_compute<Op, kEqualTypes & ~kStringType>(op, *in[0], *in[1], dnnl_alg)};
  };
}

// Logical ops take bool inputs only (no type attr): TF's messages differ from the T-typed ops.
void check_bool_eager(const std::string& op, const std::vector<EagerPtr>& in) {
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i]->dtype() != DType::Bool)
      throw_error(Code::InvalidArgument, "cannot compute ", op, " as input #", i,
                  "(zero-based) was expected to be a bool tensor but is a ", tf_type_string(in[i]->dtype()), " tensor");
}

InferFn logical_infer(std::string op) {
  return [op](const InferContext& c) {
    static const char* names[] = {"x", "y"};
    for (size_t i = 0; i < c.inputs.size(); ++i)
      if (c.inputs[i].dtype != DType::Bool)
        throw_error(Code::TypeError, "Input '", names[i], "' of '", op, "' Op has type ", dtype_name(c.inputs[i].dtype),
                    " that does not match expected type of bool.");
    if (c.inputs.size() == 1) return one(DType::Bool, c.inputs[0].shape);
    Shape s;
    try {
      s = broadcast_shapes(c.inputs[0].shape, c.inputs[1].shape);
    } catch (const Error&) {
      throw_error(Code::ValueError, "Dimensions must be equal, but are ", c.inputs[0].shape.to_string(), " and ",
                  c.inputs[1].shape.to_string(), " for '{{node ", op, "}}'");
    }
    return one(DType::Bool, s);
  };
}

template <typename Op>
KernelFn logical_kernel(std::string op) {
  return [op](KernelContext&, const std::vector<EagerPtr>& in) {
    check_bool_eager(op, in);
    return std::vector<EagerPtr>{binary_compute<Op, kBoolType>(op, *in[0], *in[1])};
  };
}

KernelFn logical_not_kernel() {
  return [](KernelContext&, const std::vector<EagerPtr>& in) {
    check_bool_eager("LogicalNot", in);
    return std::vector<EagerPtr>{unary_compute<ref::LogicalNot, kBoolType>("LogicalNot", *in[0])};
  };
}

// LeftShift / RightShift: the shift clamped to [0, bits - 1] as TF's kernels do; a left shift runs
// in the unsigned type (no signed overflow), a right shift of a signed value is arithmetic.
struct LeftShift {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (ref::is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      constexpr T kMax = static_cast<T>(sizeof(T) * 8 - 1);
      T n = b < T(0) ? T(0) : (b > kMax ? kMax : b);
      return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<unsigned>(n)));
    } else {
      return a;
    }
  }
};
struct RightShift {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (ref::is_int_v<T>) {
      constexpr T kMax = static_cast<T>(sizeof(T) * 8 - 1);
      T n = b < T(0) ? T(0) : (b > kMax ? kMax : b);
      return static_cast<T>(a >> static_cast<unsigned>(n));
    } else {
      return a;
    }
  }
};

OpDef compare_op(const char* name, unsigned mask, KernelFn kernel, bool bool_out = true) {
  return OpDef{name, name, 2, binary_infer(name, mask, bool_out), std::move(kernel), {}}
      .with_output_args({"z"})
      .with_class(OpClass::Binary);
}

}  // namespace

// oneDNN 3.2's binary_gt/binary_ge answer true for NaN operands (tests_cpp/test_math_kernels.cpp):
// Greater and GreaterEqual always use the reference loop.
void register_compare_ops(OpRegistry& r) {
  using namespace dnnl;
  r.add(compare_op("Equal", kEqualTypes, equality_kernel<ref::Equal>("Equal", true, alg(algorithm::binary_eq)))
            .with_onnx("Equal"));
  r.add(compare_op("NotEqual", kEqualTypes,
                   equality_kernel<ref::NotEqual>("NotEqual", false, alg(algorithm::binary_ne))));
  r.add(compare_op("Less", kNumberTypes, binary_kernel<ref::Less, kNumberTypes>("Less", alg(algorithm::binary_lt)))
            .with_onnx("Less")
            .with_fusion(fused::kLess));
  r.add(compare_op("LessEqual", kNumberTypes,
                   binary_kernel<ref::LessEqual, kNumberTypes>("LessEqual", alg(algorithm::binary_le)))
            .with_onnx("LessOrEqual")
            .with_fusion(fused::kLessEqual));
  r.add(compare_op("Greater", kNumberTypes, binary_kernel<ref::Greater, kNumberTypes>("Greater"))
            .with_onnx("Greater")
            .with_fusion(fused::kGreater));
  r.add(compare_op("GreaterEqual", kNumberTypes, binary_kernel<ref::GreaterEqual, kNumberTypes>("GreaterEqual"))
            .with_onnx("GreaterOrEqual")
            .with_fusion(fused::kGreaterEqual));

  r.add(OpDef{
      "LogicalAnd", "LogicalAnd", 2, logical_infer("LogicalAnd"), logical_kernel<ref::LogicalAnd>("LogicalAnd"), {}}
            .with_output_args({"z"})
            .with_class(OpClass::Binary, "And"));
  r.add(OpDef{"LogicalOr", "LogicalOr", 2, logical_infer("LogicalOr"), logical_kernel<ref::LogicalOr>("LogicalOr"), {}}
            .with_output_args({"z"})
            .with_class(OpClass::Binary, "Or"));
  r.add(OpDef{"LogicalNot", "LogicalNot", 1, logical_infer("LogicalNot"), logical_not_kernel(), {}}
            .with_output_args({"y"})
            .with_class(OpClass::Unary, "Not"));

  r.add(compare_op("BitwiseAnd", kIntTypes, binary_kernel<ref::BitwiseAnd, kIntTypes>("BitwiseAnd"), false));
  r.add(compare_op("BitwiseOr", kIntTypes, binary_kernel<ref::BitwiseOr, kIntTypes>("BitwiseOr"), false));
  r.add(compare_op("BitwiseXor", kIntTypes, binary_kernel<ref::BitwiseXor, kIntTypes>("BitwiseXor"), false));
  r.add(compare_op("LeftShift", kIntTypes, binary_kernel<LeftShift, kIntTypes>("LeftShift"), false));
  r.add(compare_op("RightShift", kIntTypes, binary_kernel<RightShift, kIntTypes>("RightShift"), false));
  r.add(OpDef{"Invert",
              "Invert",
              1,
              unary_infer("Invert", kIntTypes, false),
              unary_kernel<ref::Invert, kIntTypes>("Invert"),
              {}}
            .with_output_args({"y"})
            .with_class(OpClass::Unary));
}

}  // namespace fn
