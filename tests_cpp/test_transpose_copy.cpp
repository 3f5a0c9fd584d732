// kernels/direct/transpose: the Transpose copy (merged dims, contiguous runs, 2-D tiles) equals
// the element-by-element strided walk for every element size, rank 0-8, size-1 and zero-size
// dims, and every perm of small ranks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

#include "kernels/direct/transpose.h"
#include "ops/shape_util.h"

using namespace fn;

namespace {
template <typename T>
void check_one(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<T> src(static_cast<size_t>(std::max<int64_t>(n, 1))), got(src.size()), want(src.size());
  for (size_t i = 0; i < src.size(); ++i) std::memset(&src[i], static_cast<int>(i * 7 + 1), sizeof(T));
  for (size_t i = 0; i < src.size(); ++i) reinterpret_cast<unsigned char*>(&src[i])[0] = static_cast<unsigned char>(i);
  int r = static_cast<int>(dims.size());
  std::vector<int64_t> out_dims(r), src_strides(r);
  auto in_strides = row_major_strides(dims);
  for (int i = 0; i < r; ++i) {
    out_dims[i] = dims[perm[i]];
    src_strides[i] = in_strides[perm[i]];
  }
  strided_copy(src.data(), src_strides, want.data(), row_major_strides(out_dims), out_dims);
  direct::transpose_copy(src.data(), got.data(), sizeof(T), dims, perm);
  if (n > 0) CHECK(std::memcmp(got.data(), want.data(), static_cast<size_t>(n) * sizeof(T)) == 0);
}

struct E16 {
  uint64_t lo, hi;
};

void check_all_sizes(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  check_one<uint8_t>(dims, perm);
  check_one<uint16_t>(dims, perm);
  check_one<uint32_t>(dims, perm);
  check_one<uint64_t>(dims, perm);
  check_one<E16>(dims, perm);
}
}  // namespace

TEST_CASE("transpose_copy: every perm of rank 1-4, with size-1 and odd dims") {
  for (auto dims : std::vector<std::vector<int64_t>>{
           {5}, {3, 17}, {1, 19}, {33, 1}, {2, 3, 5}, {17, 1, 19}, {4, 1, 3, 1}, {3, 18, 5, 7}, {2, 9, 33, 4}}) {
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    do check_all_sizes(dims, perm);
    while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST_CASE("transpose_copy: the shapes that matter (attention heads, matrices, NHWC<->NCHW)") {
  check_all_sizes({8, 128, 4, 64}, {0, 2, 1, 3});
  check_all_sizes({8, 4, 128, 64}, {0, 2, 1, 3});
  check_all_sizes({1024, 256}, {1, 0});
  check_all_sizes({100, 37}, {1, 0});
  check_all_sizes({8, 28, 28, 32}, {0, 3, 1, 2});
  check_all_sizes({8, 32, 28, 28}, {0, 2, 3, 1});
}

TEST_CASE("transpose_copy: rank 0, zero-size dims, rank 5-8") {
  check_all_sizes({}, {});
  check_all_sizes({0, 3}, {1, 0});
  check_all_sizes({4, 0, 2}, {2, 0, 1});
  check_all_sizes({2, 3, 1, 2, 3}, {4, 2, 0, 3, 1});
  check_all_sizes({2, 2, 3, 1, 2, 3}, {5, 0, 4, 1, 3, 2});
  check_all_sizes({2, 1, 2, 3, 2, 1, 3}, {6, 5, 4, 3, 2, 1, 0});
  check_all_sizes({2, 3, 2, 1, 2, 3, 2, 2}, {1, 0, 3, 2, 7, 6, 4, 5});
  check_all_sizes({2, 3, 2, 1, 2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 7, 6});
}

// Timings, not run by default: ./test_transpose_copy "[bench]"
TEST_CASE("transpose_copy: timings against the strided walk", "[.][bench]") {
  using clock = std::chrono::steady_clock;
  struct P {
    std::vector<int64_t> dims, perm;
  };
  for (const P& p : {P{{8, 128, 4, 64}, {0, 2, 1, 3}}, P{{8, 4, 128, 64}, {0, 2, 1, 3}}, P{{1024, 256}, {1, 0}},
                     P{{32, 28, 28, 64}, {0, 3, 1, 2}}, P{{32, 64, 28, 28}, {0, 2, 3, 1}}}) {
    int64_t n = 1;
    for (int64_t d : p.dims) n *= d;
    std::vector<float> src(n, 1.f), dst(n);
    int r = static_cast<int>(p.dims.size());
    std::vector<int64_t> out_dims(r), src_strides(r);
    auto in_strides = row_major_strides(p.dims);
    for (int i = 0; i < r; ++i) {
      out_dims[i] = p.dims[p.perm[i]];
      src_strides[i] = in_strides[p.perm[i]];
    }
    auto dst_strides = row_major_strides(out_dims);
    double best_old = 1e9, best_new = 1e9;
    for (int rep = 0; rep < 50; ++rep) {
      auto t0 = clock::now();
      strided_copy(reinterpret_cast<const uint32_t*>(src.data()), src_strides, reinterpret_cast<uint32_t*>(dst.data()),
                   dst_strides, out_dims);
      auto t1 = clock::now();
      direct::transpose_copy(src.data(), dst.data(), 4, p.dims, p.perm);
      auto t2 = clock::now();
      best_old = std::min(best_old, std::chrono::duration<double, std::micro>(t1 - t0).count());
      best_new = std::min(best_new, std::chrono::duration<double, std::micro>(t2 - t1).count());
    }
    std::string s;
    for (int64_t d : p.dims) s += std::to_string(d) + " ";
    WARN(s << ": strided walk " << best_old << " us, transpose_copy " << best_new << " us");
  }
}
