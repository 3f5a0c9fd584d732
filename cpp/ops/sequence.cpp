// Generated sequences: Range (tf.range), LinSpace, OneHot.
#include <cmath>
#include <type_traits>

#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/shape_util.h"

namespace fn {

namespace {

// ---- Range ----

// `single`: float32 (and narrower) ranges, whose size TF computes in float: (1.1f - 0.1f) / 0.1f
// is 9.99999 there (10 elements) but 10.000000000000002 in double (11).
int64_t range_size(double start, double limit, double delta, bool integral, bool graph = false, bool single = false) {
  if (delta == 0) {
    if (graph) throw_error(Code::InvalidArgument, "Requires delta != 0");
    throw_error(Code::InvalidArgument, "Requires delta != 0: ", delta);
  }
  if (delta > 0 && start > limit)
    throw_error(Code::InvalidArgument, "Requires start <= limit when delta > 0: ", start, "/", limit);
  if (delta < 0 && start < limit)
    throw_error(Code::InvalidArgument, "Requires start >= limit when delta < 0: ", start, "/", limit);
  if (integral) {  // 128-bit: limit - start may not fit in 64 bits
    auto s = static_cast<__int128>(start), l = static_cast<__int128>(limit), d = static_cast<__int128>(delta);
    __int128 span = l > s ? l - s : s - l, step = d > 0 ? d : -d;
    __int128 n = (span + step - 1) / step;
    if (n > INT64_MAX) throw_error(Code::InvalidArgument, "Requires ((limit - start) / delta) <= 9223372036854775807");
    return static_cast<int64_t>(n);
  }
  double n = single ? static_cast<double>(std::ceil(std::fabs((static_cast<float>(limit) - static_cast<float>(start)) /
                                                              static_cast<float>(delta))))
                    : std::ceil(std::fabs((limit - start) / delta));
  if (!(n <= 9.2233720368547758e18))
    throw_error(Code::InvalidArgument, "Requires ((limit - start) / delta) <= 9223372036854775807");
  return static_cast<int64_t>(n);
}

std::vector<TensorSpec> range_infer(const InferContext& c) {
  DType d = c.inputs[0].dtype;
  for (int i = 0; i < 3; ++i)
    if (c.inputs[i].shape.rank() > 0)
      throw_error(Code::ValueError, "Shape must be rank 0 but is rank ", c.inputs[i].shape.rank(),
                  " for '{{node range}} = Range[]' with input shapes: ", tf_shapes(c.inputs), ".");
  if (!c.value(0) || !c.value(1) || !c.value(2)) return one(d, Shape{Shape::kUnknown});
  int64_t n = graph_rule(
      c, "Range",
      [&] {
        return range_size(c.value(0)->scalar_as_double(), c.value(1)->scalar_as_double(),
                          c.value(2)->scalar_as_double(), is_integer(d), true,
                          d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16);
      },
      "range");
  return one(d, Shape{n});
}

std::vector<EagerPtr> range_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_same_dtype_eager("Range", in);
  static const char* names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i)
    if (in[i]->shape().rank() != 0)
      throw_error(Code::InvalidArgument, names[i], " must be a scalar, not shape ", tf_shape(in[i]->shape()));
  DType d = in[0]->dtype();
  if (!is_numeric(d)) throw_unsupported_dtype("Range", d);
  if (is_unsigned(d)) throw_no_kernel("Range", d);  // TF 2.21 defines uint16/32/64 ranges, runs none
  if (d == DType::Int64) {
    int64_t s = in[0]->data<int64_t>()[0], l = in[1]->data<int64_t>()[0], dl = in[2]->data<int64_t>()[0];
    range_size(static_cast<double>(s), static_cast<double>(l), static_cast<double>(dl), true);  // checks
    __int128 span = static_cast<__int128>(l) - s, step = dl;
    if (span < 0) span = -span;
    if (step < 0) step = -step;
    int64_t n = static_cast<int64_t>((span + step - 1) / step);  // < 2**64 / 1: fits after the checks
    auto out = make_tensor(d, Shape{n});
    // s + i * dl stays in range, but i * dl alone may not: compute modulo 2**64.
    for (int64_t i = 0; i < n; ++i)
      out->data<int64_t>()[i] =
          static_cast<int64_t>(static_cast<uint64_t>(s) + static_cast<uint64_t>(i) * static_cast<uint64_t>(dl));
    return {out};
  }
  double s = in[0]->scalar_as_double(), l = in[1]->scalar_as_double(), dl = in[2]->scalar_as_double();
  int64_t n =
      range_size(s, l, dl, is_integer(d), false, d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16);
  auto out = make_tensor(d, Shape{n});
  visit_pod(d, [&](auto tag) {
    using T = decltype(tag);
    using A = typename Arith<T>::type;
    A a0 = widen(in[0]->data<T>()[0]), ad = widen(in[2]->data<T>()[0]);
    if constexpr (std::is_integral<A>::value) {  // narrow ints: i * delta in 64 bits (no overflow)
      for (int64_t i = 0; i < n; ++i)
        out->data<T>()[i] = static_cast<T>(static_cast<int64_t>(a0) + i * static_cast<int64_t>(ad));
    } else {
      for (int64_t i = 0; i < n; ++i) out->data<T>()[i] = narrow<T>(static_cast<A>(a0 + static_cast<A>(i) * ad));
    }
    return 0;
  });
  return {out};
}

// ---- LinSpace ----

std::vector<EagerPtr> linspace_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_same_dtype_eager("LinSpace", {in[0], in[1]});
  DType d = in[0]->dtype();
  if (!is_floating(d)) throw_unsupported_dtype("LinSpace", d);
  check_index_type("LinSpace", "Tidx", in[2]->dtype());
  for (int i = 0; i < 3; ++i)
    if (in[i]->shape().rank() != 0)
      throw_error(Code::InvalidArgument,
                  i == 0   ? "start"
                  : i == 1 ? "stop"
                           : "num",
                  " must be a scalar, but got shape ", tf_shape(in[i]->shape()));
  int64_t num = in[2]->scalar_as_int(0);
  if (num <= 0) throw_error(Code::InvalidArgument, "Requires num > 0: ", num);
  auto out = make_tensor(d, Shape{num});
  visit_pod(d, [&](auto tag) {
    using T = decltype(tag);
    using A = typename Arith<T>::type;
    A start = widen(in[0]->data<T>()[0]), stop = widen(in[1]->data<T>()[0]);
    T* o = out->data<T>();
    if (num == 1) {
      o[0] = narrow<T>(start);
      return 0;
    }
    A step = (stop - start) / static_cast<A>(num - 1);
    for (int64_t i = 0; i + 1 < num; ++i) o[i] = narrow<T>(static_cast<A>(start + step * static_cast<A>(i)));
    o[num - 1] = narrow<T>(stop);
    return 0;
  });
  return {out};
}

// ---- OneHot ----

int64_t one_hot_axis(int64_t axis, int rank) {
  if (axis != -1 && (axis < 0 || axis > rank))
    throw_error(Code::InvalidArgument, "Expected axis to be -1 or between [0, ", rank + 1, ").  But received: ", axis);
  return axis == -1 ? rank : axis;
}

std::vector<TensorSpec> one_hot_infer(const InferContext& c) {
  const Shape& ind = c.inputs[0].shape;
  DType d = c.inputs[2].dtype;
  if (!ind.has_rank()) return one(d, Shape::unknown_rank());
  int64_t axis = graph_rule(
      c, "OneHot", [&] { return one_hot_axis(c.attrs.get_or("axis", int64_t{-1}), ind.rank()); }, "one_hot");
  int64_t depth = Shape::kUnknown;
  if (c.value(1)) {
    depth = c.value(1)->scalar_as_int(0);
    if (depth < 0)
      throw_error(Code::ValueError, "Dimension size, given by scalar input 1, must be non-negative but is ", depth,
                  " for '{{node one_hot}} = OneHot[]' with input shapes: ", tf_shapes(c.inputs), ".");
  }
  auto dims = ind.dims();
  dims.insert(dims.begin() + axis, depth);
  return one(d, Shape(dims));
}

std::vector<EagerPtr> one_hot_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr &ind = in[0], &on = in[2], &off = in[3];
  if (!is_index_type(ind->dtype()) && ind->dtype() != DType::UInt8)
    throw_error(Code::InvalidArgument, "Value for attr 'TI' of ", dtype_name(ind->dtype()),
                " is not in the list of allowed values: uint8, int32, int64 for op OneHot");
  check_same_dtype_eager("OneHot", {on, off});
  if (on->shape().rank() != 0)
    throw_error(Code::InvalidArgument, "on_value must be a scalar, but got: ", tf_shape(on->shape()));
  if (off->shape().rank() != 0)
    throw_error(Code::InvalidArgument, "off_value must be a scalar, but got: ", tf_shape(off->shape()));
  int64_t depth = in[1]->scalar_as_int(0);
  if (depth < 0) throw_error(Code::InvalidArgument, "depth must be non-negative, got: ", depth);
  const auto& id = ind->shape().dims();
  int64_t axis = one_hot_axis(k.attrs.get_or("axis", int64_t{-1}), static_cast<int>(id.size()));
  auto od = id;
  od.insert(od.begin() + axis, depth);
  auto out = make_tensor(on->dtype(), Shape(od));
  int64_t outer = prod(id, 0, axis), inner = prod(id, axis, id.size());
  auto idx = read_int_list(*ind);
  visit_move(on->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T onv = elems<T>(*on)[0], offv = elems<T>(*off)[0];
    T* o = elems<T>(*out);
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t dd = 0; dd < depth; ++dd)
        for (int64_t i = 0; i < inner; ++i) *o++ = idx[a * inner + i] == dd ? onv : offv;
    return 0;
  });
  return {out};
}

}  // namespace

void register_sequence_ops(OpRegistry& r) {
  // TF's Tidx list: the usual range types plus uint16/32/64 (which have no CPU kernel).
  std::vector<DType> tidx = kRangeDTypes;
  tidx.insert(tidx.end(), {DType::UInt16, DType::UInt32, DType::UInt64});
  r.add(OpDef{"Range", "range", 3, range_infer, range_kernel, {}}.with_input_types(
      {{0, "start", "Tidx", tidx}, {1, "limit", "Tidx", tidx}, {2, "delta", "Tidx", tidx}}));
  r.add(OpDef{
      "LinSpace",
      "LinSpace",
      3,
      [](const InferContext& c) {
        int64_t n = c.value(2) ? c.value(2)->scalar_as_int(0) : Shape::kUnknown;
        if (c.value(2) && n <= 0)
          throw_error(Code::ValueError, "Requires num > 0: ", n, " for '{{node LinSpace}} = LinSpace[]'");
        return one(c.inputs[0].dtype, Shape{n});
      },
      linspace_kernel,
      {}}.with_input_types({{2, "num", "Tidx", kIndexDTypes}}));
  r.add(OpDef{"OneHot", "one_hot", 4, one_hot_infer, one_hot_kernel, {}}.with_input_types(
      {{0, "indices", "TI", {DType::UInt8, DType::Int8, DType::Int32, DType::Int64}},
       {1, "depth", "depth", {DType::Int32}}}));
}

}  // namespace fn
