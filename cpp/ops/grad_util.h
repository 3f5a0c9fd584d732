// Small builders for gradient rules. Every helper goes through dispatch(), so a rule written
// with them works eagerly and while tracing (and is itself recorded by outer tapes, which is
// how higher-order gradients work).
#pragma once
#include <vector>

#include "ops/op.h"
#include "trace/context.h"

namespace fn {
namespace grad {

// A constant: a Const node while tracing (so shape rules can read its value), else `v` itself.
TensorPtr constant(const EagerPtr& v);
// Scalar constant of t's dtype.
TensorPtr scalar_like(const TensorPtr& t, double v);
// 1-D int32 constant.
TensorPtr int_vector(const std::vector<int64_t>& v);

inline TensorPtr op1(const char* op, const TensorPtr& x, Attrs a = {}) { return dispatch1(op, {x}, std::move(a)); }
inline TensorPtr op2(const char* op, const TensorPtr& x, const TensorPtr& y, Attrs a = {}) {
  return dispatch1(op, {x, y}, std::move(a));
}
inline TensorPtr add(const TensorPtr& x, const TensorPtr& y) { return op2("AddV2", x, y); }
inline TensorPtr sub(const TensorPtr& x, const TensorPtr& y) { return op2("Sub", x, y); }
inline TensorPtr mul(const TensorPtr& x, const TensorPtr& y) { return op2("Mul", x, y); }
inline TensorPtr div(const TensorPtr& x, const TensorPtr& y) { return op2("RealDiv", x, y); }
inline TensorPtr neg(const TensorPtr& x) { return op1("Neg", x); }
TensorPtr cast(const TensorPtr& x, DType to);
// x * scalar (a constant of x's dtype).
TensorPtr scale(const TensorPtr& x, double s);
// Float mask (0/1 in `like`'s dtype) of a bool tensor.
TensorPtr mask_like(const TensorPtr& cond, const TensorPtr& like);
// Sum over `axes` (int32 constant).
TensorPtr reduce_sum(const TensorPtr& x, const std::vector<int64_t>& axes, bool keep_dims);
// `grad` broadcast to x's shape (BroadcastTo when available and shapes are static, else
// grad + zeros_like(x), which works for partly unknown shapes too).
TensorPtr broadcast_like(const TensorPtr& grad, const TensorPtr& x);
// n null gradients (an op that is not differentiable in any input).
std::vector<TensorPtr> none(size_t n);

}  // namespace grad
}  // namespace fn
