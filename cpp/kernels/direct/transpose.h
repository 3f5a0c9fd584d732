// Transpose as a copy of plain elements (1 to 16 bytes), single-threaded: dims that stay
// adjacent are merged and size-1 dims dropped first; a perm that keeps the innermost dim copies
// contiguous runs (memcpy per run), any other moves 2-D tiles small enough for L1
// (a strided element-by-element walk streams one side through the cache with a stride).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fn {
namespace direct {

// dst (row-major, dims[perm[i]] along dim i) = transpose(src (row-major, dims), perm), for
// elements of elem_size bytes (1, 2, 4, 8 or 16); perm must be a permutation of 0..rank-1.
void transpose_copy(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& perm);

}  // namespace direct
}  // namespace fn
