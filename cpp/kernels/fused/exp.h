// std::exp over float32 arrays with std::exp's bits, vectorised (the fused kernels' Exp).
#pragma once
#include <cstdint>

namespace fn {
namespace fused {

// y[i] = std::exp(x[i]) bit for bit (y may be x). Where std::exp(float) is glibc's FMA variant
// (x86-64 with FMA and AVX2: its ifunc's pick) its algorithm runs 8 or 4 lanes at a time; anywhere
// else each element is std::exp. (glibc's expf has been this algorithm since 2.28; a glibc that
// changed it, or GLIBC_TUNABLES masking FMA or AVX2 from its ifunc, would break the promise, which
// tests_cpp/test_fused_exp.cpp checks on the machine it runs on.)
void exp(const float* x, float* y, int64_t n);

}  // namespace fused
}  // namespace fn
