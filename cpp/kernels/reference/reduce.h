// Reference reduction over any set of axes. The input's dims are merged into alternating
// kept/reduced groups (size-1 dims dropped); every input element is then folded into its
// output accumulator, with the innermost group walked contiguously. Works for all patterns
// (inner, outer, strided) in one pass over the input.
#pragma once
#include <cstdint>
#include <vector>

namespace fn {
namespace ref {

struct ReduceGroup {
  int64_t size;
  bool reduced;
};

// Merged groups of `dims` where `reduced[i]` marks reduced axes.
inline std::vector<ReduceGroup> reduce_groups(const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
  std::vector<ReduceGroup> g;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!g.empty() && g.back().reduced == reduced[i])
      g.back().size *= dims[i];
    else
      g.push_back(ReduceGroup{dims[i], static_cast<bool>(reduced[i])});
  }
  return g;
}

namespace detail {
template <typename T, typename Acc, typename F>
void reduce_rec(const std::vector<ReduceGroup>& g, size_t k, const std::vector<int64_t>& in_stride,
                const std::vector<int64_t>& out_stride, const T* in, Acc* acc, F& fold) {
  const ReduceGroup& grp = g[k];
  if (k + 1 == g.size()) {
    if (grp.reduced) {
      Acc a = *acc;
      for (int64_t i = 0; i < grp.size; ++i) a = fold(a, in[i]);
      *acc = a;
    } else {
      for (int64_t i = 0; i < grp.size; ++i) acc[i] = fold(acc[i], in[i]);
    }
    return;
  }
  for (int64_t i = 0; i < grp.size; ++i)
    reduce_rec(g, k + 1, in_stride, out_stride, in + i * in_stride[k], acc + (grp.reduced ? 0 : i * out_stride[k]),
               fold);
}
}  // namespace detail

// acc[out] = fold(acc[out], in[i]) for every input element; `acc` holds one initialised
// accumulator per output element (the product of the kept dims).
template <typename T, typename Acc, typename F>
void reduce(const T* in, const std::vector<int64_t>& dims, const std::vector<bool>& reduced, Acc* acc, F fold) {
  for (int64_t d : dims)
    if (d == 0) return;
  std::vector<ReduceGroup> g = reduce_groups(dims, reduced);
  if (g.empty()) {  // every dim is 1: one element
    acc[0] = fold(acc[0], in[0]);
    return;
  }
  std::vector<int64_t> in_stride(g.size()), out_stride(g.size());
  int64_t si = 1, so = 1;
  for (int k = static_cast<int>(g.size()) - 1; k >= 0; --k) {
    in_stride[k] = si;
    out_stride[k] = so;
    si *= g[k].size;
    if (!g[k].reduced) so *= g[k].size;
  }
  detail::reduce_rec(g, 0, in_stride, out_stride, in, acc, fold);
}

}  // namespace ref
}  // namespace fn
