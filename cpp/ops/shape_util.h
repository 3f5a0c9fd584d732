// Shared pieces of the shape / data-movement ops: element visitors that move bytes without
// caring about arithmetic, small int-tensor builders, TF-style shape text and error helpers,
// and helpers gradients use to build shape tensors (constants when the shape is static).
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "ops/helpers.h"
#include "ops/op.h"

namespace fn {

inline const std::string kTransposeOp = "Transpose";  // named by passes/fold_transpose.cpp

struct Bytes16 {
  uint64_t lo, hi;
};

// Calls f(T{}) with T an unsigned type as wide as d's elements, or std::string for strings:
// data-movement kernels only copy elements, so one instantiation per element size suffices.
template <typename F>
auto visit_move(DType d, F&& f) {
  if (d == DType::String) return f(std::string{});
  switch (dtype_size(d)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    case 16: return f(Bytes16{});  // complex128
    default: throw_error(Code::InvalidArgument, "Data type ", dtype_name(d), " is not supported here");
  }
}

template <typename T>
T* elems(EagerTensor& t) {
  if constexpr (std::is_same<T, std::string>::value)
    return t.strings().data();
  else
    return static_cast<T*>(t.raw());
}
template <typename T>
const T* elems(const EagerTensor& t) {
  if constexpr (std::is_same<T, std::string>::value)
    return t.strings().data();
  else
    return static_cast<const T*>(t.raw());
}

// A tensor of `shape` sharing `src`'s storage from element `offset` on (POD dtypes only):
// contiguous slices (x[i], unstack/split along axis 0) cost no copy.
EagerPtr view_of(const EagerPtr& src, int64_t offset, const Shape& shape);

// Small int tensors (d is Int32 or Int64).
EagerPtr int_vector(DType d, const std::vector<int64_t>& v);
EagerPtr int_scalar(DType d, int64_t v);
inline bool is_index_type(DType d) { return d == DType::Int32 || d == DType::Int64; }
void check_index_type(const std::string& op, const std::string& arg, DType d);

// Product of dims[from, to).
int64_t prod(const std::vector<int64_t>& dims, size_t from, size_t to);
int64_t prod(const std::vector<int64_t>& dims);

// "[2,3]" with "?" for unknown dims / rank, as TensorFlow's shape-inference messages print.
std::string tf_shape(const Shape& s);
std::string tf_shapes(const std::vector<TensorSpec>& specs);  // "[2,3], [1]"

// Shape rules share their validation with kernels: validators throw InvalidArgument (the eager
// error); graph_rule turns that into TF's ValueError "... for 'Op' with input shapes: ...".
// `node` is the node's default name when it differs from the op type ("range" for Range).
template <typename F>
auto graph_rule(const InferContext& c, const std::string& op, F&& f, const std::string& node = "") -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.code() != Code::InvalidArgument) throw;
    throw Error(Code::ValueError, std::string(e.what()) + " for '{{node " + (node.empty() ? op : node) + "}} = " + op +
                                      "[]' with input shapes: " + tf_shapes(c.inputs) + ".");
  }
}

// A shape passed as an int vector input (reshape's shape, fill's dims, ...): what is known of
// it while tracing (exact when constant; known elements of shape arithmetic; else its length).
inline Shape shape_input(const InferContext& c, size_t i) {
  if (c.inputs[i].shape.rank() > 1) return Shape::unknown_rank();
  if (c.inputs[i].shape.rank() == 0 && !c.value(i)) return Shape::unknown_rank();
  return c.partial_value(i);
}

// shape_input for ops whose shape function is TF's MakeShapeFromShapeTensor (random ops): a
// known dim below -1 is its "Invalid value in tensor used for shape" (ValueError while tracing).
inline Shape dims_input(const InferContext& c, size_t i) {
  Shape s = shape_input(c, i);
  if (s.has_rank())
    for (int k = 0; k < s.rank(); ++k)
      if (s[k] < -1) throw_error(Code::InvalidArgument, "Invalid value in tensor used for shape: ", s[k]);
  return s;
}

// Canonical axis in [0, rank) (or [0, rank] with `inclusive`), else InvalidArgument `msg`.
int64_t canonical_axis(int64_t axis, int64_t rank, bool inclusive = false);

// ---- for gradients (work eagerly and while tracing) ----
// `v` as a tensor usable now: itself eagerly, a Const node while tracing.
TensorPtr const_tensor(const EagerPtr& v);
// The value of `t` when it is known now (an eager tensor, or a Const node of the graph being
// built); nullptr otherwise.
EagerPtr known_value(const TensorPtr& t);
// shape(t) as a 1-D int tensor of dtype d: a constant when static, else a Shape node.
TensorPtr shape_tensor(const TensorPtr& t, DType d = DType::Int32);
// t.shape[axis] as a scalar int tensor (constant when static).
TensorPtr dim_tensor(const TensorPtr& t, int axis, DType d = DType::Int32);
// transpose(x, perm) (perm already checked): x itself for the identity, else a copy.
EagerPtr transpose(const EagerPtr& x, const std::vector<int64_t>& perm);
// zeros with t's shape and dtype.
TensorPtr zeros_like(const TensorPtr& t);
// Gradient inputs may be nullptr (zero): replace them with zeros like the matching output.
std::vector<TensorPtr> densify(const std::vector<TensorPtr>& grads, const std::vector<TensorPtr>& like);

}  // namespace fn

namespace fn {

// dst[i . dst_strides] = src[i . src_strides] for every index i over `dims` (row-major order).
template <typename T>
void strided_copy(const T* src, const std::vector<int64_t>& src_strides, T* dst,
                  const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& dims) {
  int r = static_cast<int>(dims.size());
  for (int64_t d : dims)
    if (d == 0) return;
  if (r == 0) {
    *dst = *src;
    return;
  }
  std::vector<int64_t> idx(r, 0);
  const int64_t n = dims[r - 1], ss = src_strides[r - 1], ds = dst_strides[r - 1];
  int64_t so = 0, doff = 0;
  while (true) {
    if (ss == 1 && ds == 1) {
      std::copy(src + so, src + so + n, dst + doff);
    } else {
      for (int64_t j = 0; j < n; ++j) dst[doff + j * ds] = src[so + j * ss];
    }
    int d = r - 2;
    for (; d >= 0; --d) {
      ++idx[d];
      so += src_strides[d];
      doff += dst_strides[d];
      if (idx[d] < dims[d]) break;
      so -= src_strides[d] * idx[d];
      doff -= dst_strides[d] * idx[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace fn
