// Special functions: Erf (unary) and Atan2 (broadcasting binary), float types only. Reference
// loops over std::erf / std::atan2; gradients are compositions of existing ops.
#include <cmath>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/grad_util.h"
#include "trace/context.h"

namespace fn {

namespace {

struct ErfOp {
  template <typename A>
  static A apply(A x) {
    return std::erf(x);
  }
};
struct Atan2Op {
  template <typename A>
  static A apply(A y, A x) {
    return std::atan2(y, x);
  }
};

using Grads = std::vector<TensorPtr>;

// d/dx erf(x) = 2/sqrt(pi) * exp(-x^2)
Grads erf_grad(const GradContext& g) {
  if (!g.out_grads[0]) return {nullptr};
  const TensorPtr& x = g.inputs[0];
  TensorPtr e = grad::op1("Exp", grad::neg(grad::op1("Square", x)));
  return {grad::mul(g.out_grads[0], grad::scale(e, 2.0 / std::sqrt(M_PI)))};
}

// atan2(y, x): dy = x / (x^2 + y^2), dx = -y / (x^2 + y^2)
Grads atan2_grad(const GradContext& g) {
  const TensorPtr& d = g.out_grads[0];
  if (!d) return {nullptr, nullptr};
  const TensorPtr &y = g.inputs[0], &x = g.inputs[1];
  TensorPtr inv = grad::div(d, grad::add(grad::op1("Square", x), grad::op1("Square", y)));
  return {unbroadcast(grad::mul(x, inv), y), unbroadcast(grad::neg(grad::mul(y, inv)), x)};
}

}  // namespace

void register_special_ops(OpRegistry& r) {
  r.add(
      OpDef{"Erf", "Erf", 1, unary_infer("Erf", kFloatTypes, false), unary_kernel<ErfOp, kFloatTypes>("Erf"), erf_grad}
          .with_output_args({"y"})
          .with_class(OpClass::Unary, "Erf"));
  r.add(OpDef{"Atan2", "Atan2", 2, binary_infer("Atan2", kFloatTypes, false),
              binary_kernel<Atan2Op, kFloatTypes>("Atan2"), atan2_grad}
            .with_output_args({"z"})
            .with_class(OpClass::Binary));
}

}  // namespace fn
