// std::log over float32 arrays with std::log's bits, vectorised (the float32 Log kernel).
#pragma once
#include <cstdint>

namespace fn {
namespace fused {

// y[i] = std::log(x[i]) bit for bit (y may be x). Where std::log(float) is glibc's FMA variant
// (x86-64 with FMA and AVX2: its ifunc's pick) its algorithm runs 8 or 4 lanes at a time; anywhere
// else each element is std::log. (glibc's logf has been this algorithm since 2.28; as for
// fused::exp, tests_cpp/test_fused_log.cpp checks the promise on the machine it runs on.)
void log(const float* x, float* y, int64_t n);

}  // namespace fused
}  // namespace fn
