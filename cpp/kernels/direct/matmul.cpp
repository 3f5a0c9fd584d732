#include "kernels/direct/matmul.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vector types cross no ABI boundary here

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/multiversion.h"

namespace fn {
namespace direct {

// One kernel per CPU level; each sums over k in the same order with the same contraction (FMA on
// v3 and v4), so v3 and v4 give the same bits. Block shapes fit the level's register file: 4 x 4
// zmm accumulators (of 32 registers), 4 x 2 ymm or xmm (of 16).
namespace {
#if FN_X86_LEVELS
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
namespace v4 {
#define FN_MM_W 16
#define FN_MM_NV 4
#include "kernels/direct/matmul_kernel.inc"
}  // namespace v4
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
namespace v3 {
#define FN_MM_W 8
#define FN_MM_NV 2
#include "kernels/direct/matmul_kernel.inc"
}  // namespace v3
#pragma GCC pop_options
#endif
namespace base {
#define FN_MM_W 4
#define FN_MM_NV 2
#include "kernels/direct/matmul_kernel.inc"
}  // namespace base
}  // namespace

void matmul_f32_at(int level, const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta,
                   bool tb, const float* add) {
#if FN_X86_LEVELS
  switch (std::min(level, detected_cpu_level())) {  // never an instruction this CPU lacks
    case 4: return v4::matmul(a, b, c, m, n, k, ta, tb, add);
    case 3: return v3::matmul(a, b, c, m, n, k, ta, tb, add);
    default: break;
  }
#endif
  (void)level;
  base::matmul(a, b, c, m, n, k, ta, tb, add);
}

void matmul_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                const float* add) {
  matmul_f32_at(cpu_level(), a, b, c, m, n, k, ta, tb, add);
}

}  // namespace direct
}  // namespace fn
