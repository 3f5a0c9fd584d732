// std::pow over float32 arrays with std::pow's bits, vectorised (the fused kernels' Pow with an
// exponent that is not a small integer, e.g. (var + eps) ** -0.5 or x ** 1.5).
#pragma once
#include <cstdint>

namespace fn {
namespace fused {

// out[i] = std::pow(x[i], y[i * y_step]) bit for bit (y_step 0: one exponent for all; 1: one per
// element; out may be x). Where std::pow(float, float) is glibc's FMA variant (x86-64 with FMA and
// AVX2) and the CPU has AVX-512, its algorithm runs 8 lanes at a time for positive normal x and finite nonzero y with
// |y log2 x| < 126; the other elements (zeros, negatives, subnormals, infinities, NaNs, overflow
// and underflow) and any other platform take std::pow itself. tests_cpp/test_fused_pow.cpp checks
// the promise on the machine it runs on.
void pow(const float* x, const float* y, int64_t y_step, float* out, int64_t n);

}  // namespace fused
}  // namespace fn
