// Python operators on fn.Tensor, in C++ for speed: + - * / // % ** (and reflected), unary
// - and abs(), < <= > >= == !=. TensorFlow's conversion rules: the non-tensor operand is
// converted to the tensor's dtype (strictly, TypeError when impossible; `+` only as a hint,
// so `int_tensor + 1.5` reaches AddV2 and fails there as in TF). & | ^ ~ and @ are in
// python/fn/math_ops.py.
#include "bindings/convert.h"
#include "bindings/py_types.h"
#include "trace/context.h"

namespace fn {

std::vector<TensorPtr> execute(const OpDef& op, const std::vector<TensorPtr>& in, Attrs attrs, const std::string& name);

namespace {

enum class Conv { Hint, Strict };

struct BinaryOp {
  const char* op;       // TF op type
  const char* name;     // node name TF's operator gives it
  const char* reflect;  // Python's reflected method of the other operand ("__radd__")
  Conv conv;
  const OpDef* def = nullptr;  // resolved once in init_operators (nullptr: truediv)
};

// `op_name`: the node name of the operator; a Python operand converted while tracing is a
// Const in its scope, as TF names it (`mul/y`, or `mul/x` for the reflected operand).
TensorPtr other_operand(py::handle other, DType self_dtype, Conv conv, const char* op_name = nullptr,
                        bool reflected = false) {
  if (is_tensor(other)) return other.cast<TensorPtr>();
  if (has_tensor_hook(other)) return convert_to_tensor(other, nullptr);
  std::string const_name;
  if (GraphBuilder* gb = current_builder(); gb && op_name) {
    // The op will be named scope + peek; the Const goes in its scope (add_node adds the prefix).
    const std::string& scope = gb->graph()->name_scope;
    const_name = gb->graph()->peek_unique_name(scope + op_name).substr(scope.size()) + (reflected ? "/x" : "/y");
  }
  if (conv == Conv::Hint) return convert_to_tensor(other, nullptr, &self_dtype, const_name);
  return convert_to_tensor(other, &self_dtype, nullptr, const_name);
}

// TF's truediv: integers are cast to float (8- and 16-bit -> float32, wider -> float64).
std::vector<TensorPtr> truediv(TensorPtr x, TensorPtr y, const std::string& name) {
  DType d = x->dtype();
  if (!is_numeric(d) && !is_complex(d)) {
    throw_error(Code::TypeError, "Invalid dtype fn.", dtype_name(d),
                " in __truediv__. Expected one of {fn.uint8, fn.int8, fn.uint16, fn.int16, fn.uint32, "
                "fn.int32, fn.uint64, fn.int64, fn.bfloat16, fn.float16, fn.float32, fn.float64, fn.complex64, "
                "fn.complex128}.");
  }
  if (y->dtype() != d)
    throw_error(Code::TypeError, "`x` and `y` must have the same dtype, got fn.", dtype_name(d), " != fn.",
                dtype_name(y->dtype()), ".");
  if (is_integer(d)) {
    DType f = dtype_size(d) >= 4 ? DType::Float64 : DType::Float32;
    Attrs a{{"SrcT", d}, {"DstT", f}, {"Truncate", false}};
    static const OpDef& cast = OpRegistry::global().get("Cast");
    x = execute(cast, {x}, a, "Cast")[0];
    y = execute(cast, {y}, a, "Cast")[0];
  }
  static const OpDef& div = OpRegistry::global().get("RealDiv");
  return execute(div, {x, y}, {}, name);
}

py::object run(const BinaryOp& b, const TensorPtr& x, const TensorPtr& y) {
  if (!b.def) return py::cast(truediv(x, y, b.name)[0]);
  return py::cast(execute(*b.def, {x, y}, {}, b.name)[0]);
}

// self OP other (reflected: other OP self). When the other operand cannot be converted, its
// own reflected method gets a chance (TF's binary_op_wrapper), else the conversion error.
py::object binary_operator(const BinaryOp& b, py::handle self, py::handle other, bool reflected) {
  TensorPtr t = self.cast<TensorPtr>();
  TensorPtr o;
  try {
    o = other_operand(other, t->dtype(), b.conv, b.name, reflected);
  } catch (const Error& e) {
    if (reflected || (e.code() != Code::TypeError && e.code() != Code::ValueError) || !py::hasattr(other, b.reflect))
      throw;
    py::object r = other.attr(b.reflect)(self);
    if (r.is(py::handle(Py_NotImplemented))) throw;
    return r;
  }
  return reflected ? run(b, o, t) : run(b, t, o);
}

template <const BinaryOp& B>
void def_binary(py::class_<Tensor, std::shared_ptr<Tensor>>& cls, const char* fwd, const char* rev) {
  cls.def(fwd, [](py::handle a, py::handle b) { return binary_operator(B, a, b, false); });
  if (rev) cls.def(rev, [](py::handle a, py::handle b) { return binary_operator(B, a, b, true); });
}

BinaryOp kAdd{"AddV2", "add", "__radd__", Conv::Hint};
BinaryOp kSub{"Sub", "sub", "__rsub__", Conv::Strict};
BinaryOp kMul{"Mul", "mul", "__rmul__", Conv::Strict};
BinaryOp kDiv{"/", "truediv", "__rtruediv__", Conv::Strict};
BinaryOp kFloorDiv{"FloorDiv", "floordiv", "__rfloordiv__", Conv::Strict};
BinaryOp kMod{"FloorMod", "mod", "__rmod__", Conv::Strict};
BinaryOp kPow{"Pow", "pow", "__rpow__", Conv::Strict};
BinaryOp kLess{"Less", "Less", "__gt__", Conv::Strict};
BinaryOp kLessEqual{"LessEqual", "LessEqual", "__ge__", Conv::Strict};
BinaryOp kGreater{"Greater", "Greater", "__lt__", Conv::Strict};
BinaryOp kGreaterEqual{"GreaterEqual", "GreaterEqual", "__le__", Conv::Strict};

// == and != are elementwise (TF2); None compares unequal; shapes that do not broadcast give
// a scalar False/True (incompatible_shape_error=False).
py::object equality(py::handle self, py::handle other, bool equal) {
  if (other.is_none()) return py::bool_(!equal);
  TensorPtr t = self.cast<TensorPtr>();
  TensorPtr o = other_operand(other, t->dtype(), Conv::Strict);
  static const OpDef& eq = OpRegistry::global().get("Equal");
  static const OpDef& ne = OpRegistry::global().get("NotEqual");
  return py::cast(
      execute(equal ? eq : ne, {t, o}, Attrs{{"incompatible_shape_error", false}}, equal ? "Equal" : "NotEqual")[0]);
}

py::object unary(const char* op, py::handle self) {
  const OpDef& def = OpRegistry::global().get(op);
  return py::cast(execute(def, {self.cast<TensorPtr>()}, {}, op)[0]);
}

}  // namespace

void init_operators(py::module_& m) {
  // The name TF gives an op's Python operand while tracing (`Greater/y`), "" when eager.
  m.def(
      "operand_const_name",
      [](const std::string& op_name, bool reflected) {
        GraphBuilder* gb = current_builder();
        if (!gb) return std::string();
        const std::string& scope = gb->graph()->name_scope;
        return gb->graph()->peek_unique_name(scope + op_name).substr(scope.size()) + (reflected ? "/x" : "/y");
      },
      py::arg("op_name"), py::arg("reflected") = false);
  auto cls = py::reinterpret_borrow<py::class_<Tensor, std::shared_ptr<Tensor>>>(m.attr("Tensor"));
  for (BinaryOp* b : {&kAdd, &kSub, &kMul, &kFloorDiv, &kMod, &kPow, &kLess, &kLessEqual, &kGreater, &kGreaterEqual})
    b->def = &OpRegistry::global().get(b->op);
  def_binary<kAdd>(cls, "__add__", "__radd__");
  def_binary<kSub>(cls, "__sub__", "__rsub__");
  def_binary<kMul>(cls, "__mul__", "__rmul__");
  def_binary<kDiv>(cls, "__truediv__", "__rtruediv__");
  def_binary<kFloorDiv>(cls, "__floordiv__", "__rfloordiv__");
  def_binary<kMod>(cls, "__mod__", "__rmod__");
  def_binary<kPow>(cls, "__pow__", "__rpow__");
  def_binary<kLess>(cls, "__lt__", nullptr);
  def_binary<kLessEqual>(cls, "__le__", nullptr);
  def_binary<kGreater>(cls, "__gt__", nullptr);
  def_binary<kGreaterEqual>(cls, "__ge__", nullptr);
  cls.def("__eq__", [](py::handle a, py::handle b) { return equality(a, b, true); });
  cls.def("__ne__", [](py::handle a, py::handle b) { return equality(a, b, false); });
  cls.def("__neg__", [](py::handle a) { return unary("Neg", a); });
  cls.def("__abs__", [](py::handle a) { return unary("Abs", a); });
  m.def(
      "truediv", [](const TensorPtr& x, const TensorPtr& y, const std::string& name) { return truediv(x, y, name)[0]; },
      "TF's truediv on two tensors: integer inputs are cast to float first.");
}

}  // namespace fn
