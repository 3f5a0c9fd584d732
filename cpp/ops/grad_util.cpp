#include "ops/grad_util.h"

#include "core/error.h"

namespace fn {
namespace grad {

TensorPtr constant(const EagerPtr& v) {
  if (!current_builder()) return v;
  return dispatch1("Const", {}, Attrs{{"value", v}, {"dtype", v->dtype()}});
}

TensorPtr scalar_like(const TensorPtr& t, double v) { return constant(make_scalar(t->dtype(), v)); }

TensorPtr int_vector(const std::vector<int64_t>& v) {
  auto t = make_tensor(DType::Int32, Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t->data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  return constant(t);
}

TensorPtr cast(const TensorPtr& x, DType to) {
  if (x->dtype() == to) return x;
  return dispatch1("Cast", {x}, Attrs{{"SrcT", x->dtype()}, {"DstT", to}, {"Truncate", false}});
}

TensorPtr scale(const TensorPtr& x, double s) { return mul(x, scalar_like(x, s)); }

TensorPtr mask_like(const TensorPtr& cond, const TensorPtr& like) { return cast(cond, like->dtype()); }

TensorPtr reduce_sum(const TensorPtr& x, const std::vector<int64_t>& axes, bool keep_dims) {
  return dispatch1("Sum", {x, int_vector(axes)}, Attrs{{"keep_dims", keep_dims}});
}

TensorPtr broadcast_like(const TensorPtr& grad, const TensorPtr& x) {
  const Shape& xs = x->shape();
  if (grad->shape() == xs && xs.is_fully_defined()) return grad;
  if (xs.is_fully_defined() && OpRegistry::global().find("BroadcastTo"))
    return dispatch1("BroadcastTo", {grad, int_vector(xs.dims())});
  return add(grad, op1("ZerosLike", x));
}

std::vector<TensorPtr> none(size_t n) { return std::vector<TensorPtr>(n); }

}  // namespace grad
}  // namespace fn
