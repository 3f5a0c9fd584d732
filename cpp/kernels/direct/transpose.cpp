#include "kernels/direct/transpose.h"

#include <cstring>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fn {
namespace direct {

namespace {

struct E16 {
  uint64_t lo, hi;
};

// Merged dims: input dims d (row-major strides is), output dim i is input dim p[i].
struct Canon {
  std::vector<int64_t> d, p;
};

Canon canonicalize(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  int r = static_cast<int>(dims.size());
  // Drop size-1 dims: renumber the rest.
  std::vector<int> keep(r, -1);
  std::vector<int64_t> d;
  for (int i = 0; i < r; ++i)
    if (dims[i] != 1) {
      keep[i] = static_cast<int>(d.size());
      d.push_back(dims[i]);
    }
  std::vector<int64_t> p;
  for (int i = 0; i < r; ++i)
    if (keep[perm[i]] >= 0) p.push_back(keep[perm[i]]);
  // Merge runs of output dims that are consecutive input dims (p[i+1] == p[i] + 1).
  Canon c;
  std::vector<std::vector<int64_t>> runs;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i > 0 && p[i] == p[i - 1] + 1)
      runs.back().push_back(p[i]);
    else
      runs.push_back({p[i]});
  }
  // Merged input dims in input order: the runs ordered by their first input dim.
  std::vector<int> rank_of(runs.size());
  {
    std::vector<int> by_head(d.size(), -1);
    for (size_t k = 0; k < runs.size(); ++k) by_head[runs[k][0]] = static_cast<int>(k);
    int next = 0;
    for (size_t j = 0; j < d.size(); ++j)
      if (by_head[j] >= 0) rank_of[by_head[j]] = next++;
  }
  c.d.assign(runs.size(), 1);
  c.p.resize(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    for (int64_t j : runs[k]) c.d[rank_of[k]] *= d[j];
    c.p[k] = rank_of[k];
  }
  return c;
}

template <typename T>
void copy_runs(const T* src, T* dst, const Canon& c, const std::vector<int64_t>& is) {
  int r = static_cast<int>(c.d.size());
  const int64_t run = c.d[r - 1];
  const size_t bytes = static_cast<size_t>(run) * sizeof(T);
  // Output order: dims 0..r-2 of the output (input dims p[0..r-2]), the last is the run.
  std::vector<int64_t> idx(r, 0);
  int64_t so = 0;
  T* out = dst;
  while (true) {
    std::memcpy(out, src + so, bytes);
    out += run;
    int i = r - 2;
    for (; i >= 0; --i) {
      int64_t j = c.p[i];
      so += is[j];
      if (++idx[i] < c.d[j]) break;
      so -= is[j] * c.d[j];
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

// dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols, in tiles of BR x BC: BR elements
// make one 64-byte line of a dst row, and only BC dst rows are written at a time, so that
// power-of-two strides (1024 floats: every dst row in the same L1 set) do not evict each other.
template <typename T>
inline void tile_transpose(const T* src, int64_t lds, T* dst, int64_t ldd, int64_t rows, int64_t cols) {
  constexpr int64_t BR = sizeof(T) >= 8 ? 8 : 16;
  constexpr int64_t BC = 8;
  for (int64_t r0 = 0; r0 < rows; r0 += BR) {
    int64_t r1 = r0 + BR < rows ? r0 + BR : rows;
    for (int64_t c0 = 0; c0 < cols; c0 += BC) {
      int64_t c1 = c0 + BC < cols ? c0 + BC : cols;
      if (r1 - r0 == BR && c1 - c0 == BC) {
#if defined(__SSE2__)
        if constexpr (sizeof(T) == 4) {  // 4x4 blocks through registers (SSE2 is x86-64's baseline)
          for (int64_t cc = 0; cc < BC; cc += 4)
            for (int64_t rr = 0; rr < BR; rr += 4) {
              const float* s0 = reinterpret_cast<const float*>(src + (r0 + rr) * lds + c0 + cc);
              __m128 x0 = _mm_loadu_ps(s0), x1 = _mm_loadu_ps(s0 + lds), x2 = _mm_loadu_ps(s0 + 2 * lds),
                     x3 = _mm_loadu_ps(s0 + 3 * lds);
              _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
              float* d0 = reinterpret_cast<float*>(dst + (c0 + cc) * ldd + r0 + rr);
              _mm_storeu_ps(d0, x0);
              _mm_storeu_ps(d0 + ldd, x1);
              _mm_storeu_ps(d0 + 2 * ldd, x2);
              _mm_storeu_ps(d0 + 3 * ldd, x3);
            }
          continue;
        }
#endif
        for (int64_t cc = 0; cc < BC; ++cc)
          for (int64_t rr = 0; rr < BR; ++rr) dst[(c0 + cc) * ldd + r0 + rr] = src[(r0 + rr) * lds + c0 + cc];
      } else {
        for (int64_t cc = c0; cc < c1; ++cc)
          for (int64_t rr = r0; rr < r1; ++rr) dst[cc * ldd + rr] = src[rr * lds + cc];
      }
    }
  }
}

template <typename T>
void copy_tiles(const T* src, T* dst, const Canon& c, const std::vector<int64_t>& is, const std::vector<int64_t>& os) {
  int r = static_cast<int>(c.d.size());
  // Input dim a becomes the output's innermost; the input's innermost (r-1) sits at output dim b.
  int a = static_cast<int>(c.p[r - 1]), b = 0;
  while (c.p[b] != r - 1) ++b;
  const int64_t rows = c.d[a], cols = c.d[r - 1], lds = is[a], ldd = os[b];
  // The other output dims, in output order.
  std::vector<int> outer;
  for (int i = 0; i < r; ++i)
    if (i != b && i != r - 1) outer.push_back(i);
  int no = static_cast<int>(outer.size());
  std::vector<int64_t> idx(no, 0);
  int64_t so = 0, dof = 0;
  while (true) {
    tile_transpose(src + so, lds, dst + dof, ldd, rows, cols);
    int k = no - 1;
    for (; k >= 0; --k) {
      int i = outer[k];
      int64_t j = c.p[i];
      so += is[j];
      dof += os[i];
      if (++idx[k] < c.d[j]) break;
      so -= is[j] * c.d[j];
      dof -= os[i] * c.d[j];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

template <typename T>
void transpose_t(const T* src, T* dst, const Canon& c) {
  int r = static_cast<int>(c.d.size());
  std::vector<int64_t> is(r), os(r);
  int64_t acc = 1;
  for (int i = r - 1; i >= 0; --i) {
    is[i] = acc;
    acc *= c.d[i];
  }
  acc = 1;
  for (int i = r - 1; i >= 0; --i) {
    os[i] = acc;
    acc *= c.d[c.p[i]];
  }
  if (c.p[r - 1] == r - 1)
    copy_runs(src, dst, c, is);
  else
    copy_tiles(src, dst, c, is, os);
}

}  // namespace

void transpose_copy(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& perm) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) return;
  Canon c = canonicalize(dims, perm);
  if (c.d.size() <= 1) {  // no reordering left: one block
    std::memcpy(dst, src, static_cast<size_t>(n) * elem_size);
    return;
  }
  switch (elem_size) {
    case 1: transpose_t(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), c); break;
    case 2: transpose_t(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), c); break;
    case 4: transpose_t(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), c); break;
    case 8: transpose_t(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), c); break;
    default: transpose_t(static_cast<const E16*>(src), static_cast<E16*>(dst), c); break;
  }
}

}  // namespace direct
}  // namespace fn
