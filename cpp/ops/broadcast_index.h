// For each flat index of `out`, the flat index of the element of `in` broadcast to it (`in`
// right-aligned against `out`, size-1 dims repeated): batch indexing of broadcast operands.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace fn {

inline std::vector<int64_t> broadcast_flat_index(const Shape& in, const Shape& out) {
  int64_t n = out.num_elements();
  std::vector<int64_t> idx(static_cast<size_t>(n));
  int r = out.rank(), off = r - in.rank();
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, flat = 0, stride = 1;
    for (int d = r - 1; d >= 0; --d) {
      int64_t coord = rem % out[d];
      rem /= out[d];
      if (d >= off) {
        int64_t sd = in[d - off];
        flat += (sd == 1 ? 0 : coord) * stride;
        stride *= sd;
      }
    }
    idx[static_cast<size_t>(i)] = flat;
  }
  return idx;
}

}  // namespace fn
