// Reference (plain loop) kernels for elementwise ops with NumPy broadcasting. These are the
// oracle for the oneDNN kernels and the fast path for tiny tensors.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace fn {
namespace ref {

// Strides (in elements) of `in` viewed in the rank of `out`, 0 along broadcast dimensions.
inline std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  int r = out.rank(), ri = in.rank();
  std::vector<int64_t> s(r, 0);
  int64_t acc = 1;
  for (int i = ri - 1; i >= 0; --i) {
    int o = r - ri + i;
    s[o] = in[i] == 1 && out[o] != 1 ? 0 : acc;
    acc *= in[i];
  }
  return s;
}

// out[i] = f(a[ia], b[ib]) over the broadcast of a's and b's shapes (`out_shape`).
template <typename A, typename B, typename O, typename F>
void binary(const A* a, const Shape& sa, const B* b, const Shape& sb, O* out, const Shape& out_shape, F f) {
  int64_t n = out_shape.num_elements();
  if (n == 0) return;
  int64_t na = sa.num_elements(), nb = sb.num_elements();
  if (na == n && nb == n) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
    return;
  }
  if (nb == 1 && na == n) {
    const B bv = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
    return;
  }
  if (na == 1 && nb == n) {
    const A av = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
    return;
  }
  int r = out_shape.rank();
  auto st_a = broadcast_strides(sa, out_shape), st_b = broadcast_strides(sb, out_shape);
  std::vector<int64_t> idx(r, 0);
  int64_t inner = out_shape[r - 1], ia = 0, ib = 0;
  int64_t sa_in = st_a[r - 1], sb_in = st_b[r - 1];
  for (int64_t pos = 0; pos < n; pos += inner) {
    for (int64_t j = 0; j < inner; ++j) out[pos + j] = f(a[ia + j * sa_in], b[ib + j * sb_in]);
    // advance the outer index (odometer), keeping ia/ib in step
    for (int d = r - 2; d >= 0; --d) {
      ++idx[d];
      ia += st_a[d];
      ib += st_b[d];
      if (idx[d] < out_shape[d]) break;
      ia -= st_a[d] * idx[d];
      ib -= st_b[d] * idx[d];
      idx[d] = 0;
    }
  }
}

template <typename A, typename O, typename F>
void unary(const A* a, O* out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i]);
}

}  // namespace ref
}  // namespace fn
