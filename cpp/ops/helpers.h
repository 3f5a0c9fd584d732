// Shared pieces of shape rules and kernels: TF-style type names and checks.
#pragma once
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/op.h"

namespace fn {

// Eager kernels: InvalidArgumentError "cannot compute Op as input #i(zero-based) was expected
// to be a T tensor but is a U tensor [Op:Op]" when inputs' dtypes differ.
void check_same_dtype_eager(const std::string& op, const std::vector<EagerPtr>& in);
// Shape rules (graph construction): TypeError "Input 'y' of 'Op' Op has type U that does not
// match type T of argument 'x'."
void check_same_dtype_graph(const std::string& op, const std::vector<TensorSpec>& in);
// The eager op suffix TensorFlow appends to kernel errors.
inline std::string op_suffix(const std::string& op) { return " [Op:" + op + "]"; }

// Arithmetic type for a storage type (half types compute in float).
template <typename T>
struct Arith {
  using type = T;
};
template <>
struct Arith<half_t> {
  using type = float;
};
template <>
struct Arith<bfloat16_t> {
  using type = float;
};
template <typename T>
inline typename Arith<T>::type widen(T v) {
  return v;
}
template <>
inline float widen(half_t v) {
  return half_to_float(v.bits);
}
template <>
inline float widen(bfloat16_t v) {
  return bf16_to_float(v.bits);
}
template <typename T, typename V>
inline T narrow(V v) {
  return static_cast<T>(v);
}
template <>
inline half_t narrow<half_t, float>(float v) {
  return half_t{float_to_half(v)};
}
template <>
inline bfloat16_t narrow<bfloat16_t, float>(float v) {
  return bfloat16_t{float_to_bf16(v)};
}

// Reads an int32/int64 1-D or scalar tensor as int64 values.
std::vector<int64_t> read_int_list(const EagerTensor& t);

}  // namespace fn
