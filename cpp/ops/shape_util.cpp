#include "ops/shape_util.h"

#include "trace/context.h"

namespace fn {

EagerPtr view_of(const EagerPtr& src, int64_t offset, const Shape& shape) {
  size_t es = dtype_size(src->dtype());
  auto* base = static_cast<char*>(const_cast<void*>(src->raw()));
  std::shared_ptr<void> owner(src->buffer());
  auto buf = Buffer::wrap(base + offset * static_cast<int64_t>(es), static_cast<size_t>(shape.num_elements()) * es,
                          std::move(owner));
  return std::make_shared<EagerTensor>(src->dtype(), shape, std::move(buf));
}

EagerPtr int_vector(DType d, const std::vector<int64_t>& v) {
  auto t = make_tensor(d, Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    if (d == DType::Int64)
      t->data<int64_t>()[i] = v[i];
    else
      t->data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  }
  return t;
}

EagerPtr int_scalar(DType d, int64_t v) {
  auto t = make_tensor(d, Shape{});
  if (d == DType::Int64)
    t->data<int64_t>()[0] = v;
  else
    t->data<int32_t>()[0] = static_cast<int32_t>(v);
  return t;
}

void check_index_type(const std::string& op, const std::string& arg, DType d) {
  if (!is_index_type(d))
    throw_error(Code::InvalidArgument, "Value for attr '", arg, "' of ", dtype_name(d),
                " is not in the list of allowed values: int32, int64 for op ", op);
}

int64_t prod(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < dims.size(); ++i) p *= dims[i];
  return p;
}
int64_t prod(const std::vector<int64_t>& dims) { return prod(dims, 0, dims.size()); }

std::string tf_shape(const Shape& s) {
  if (!s.has_rank()) return "?";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    out += s[i] < 0 ? "?" : std::to_string(s[i]);
  }
  return out + "]";
}

std::string tf_shapes(const std::vector<TensorSpec>& specs) {
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i) out += (i ? ", " : "") + tf_shape(specs[i].shape);
  return out;
}

int64_t canonical_axis(int64_t axis, int64_t rank, bool inclusive) {
  int64_t n = inclusive ? rank + 1 : rank;
  if (axis < -n || axis >= n)
    throw_error(Code::InvalidArgument, "Expected axis in the range [", -n, ", ", n, "), but got ", axis);
  return axis < 0 ? axis + n : axis;
}

TensorPtr const_tensor(const EagerPtr& v) {
  if (!current_builder()) return v;
  return dispatch1("Const", {}, Attrs{{"value", v}, {"dtype", v->dtype()}});
}

EagerPtr known_value(const TensorPtr& t) {
  if (!t) return nullptr;
  if (t->is_eager()) return as_eager(t);
  GraphBuilder* b = current_builder();
  if (!b || t->graph_id != b->graph()->id()) return nullptr;
  return b->constant_value(NodeOutput{t->node, t->index});
}

TensorPtr shape_tensor(const TensorPtr& t, DType d) {
  if (t->shape().is_fully_defined()) return const_tensor(int_vector(d, t->shape().dims()));
  return dispatch1("Shape", {t}, Attrs{{"out_type", d}});
}

TensorPtr dim_tensor(const TensorPtr& t, int axis, DType d) {
  const Shape& s = t->shape();
  if (s.has_rank() && s[axis] >= 0) return const_tensor(int_scalar(d, s[axis]));
  TensorPtr shp = dispatch1("Shape", {t}, Attrs{{"out_type", d}});
  return dispatch1("StridedSlice",
                   {shp, const_tensor(int_vector(d, {axis})), const_tensor(int_vector(d, {axis + 1})),
                    const_tensor(int_vector(d, {1}))},
                   Attrs{{"shrink_axis_mask", int64_t{1}}});
}

TensorPtr zeros_like(const TensorPtr& t) { return dispatch1("ZerosLike", {t}); }

std::vector<TensorPtr> densify(const std::vector<TensorPtr>& grads, const std::vector<TensorPtr>& like) {
  std::vector<TensorPtr> out(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) out[i] = grads[i] ? grads[i] : zeros_like(like[i]);
  return out;
}

}  // namespace fn
