// FN_MULTIVERSION: compile a hot loop for AVX-512, AVX2 and baseline x86-64 and pick one at load
// time (GCC's target_clones). Off under ASan (its interceptors and ifuncs do not mix) and elsewhere.
// Auto-vectorised loops adapt to each clone's vector width by themselves. Code written with
// explicit GCC vectors must instead pick a width per level (a 64-byte vector in the AVX2 clone is
// lowered through the stack, ~30x slower): FN_TARGET_V4/V3 and cpu_level() below.
#pragma once

#include <cstdlib>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FN_X86_LEVELS 1
#define FN_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#define FN_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define FN_X86_LEVELS 0
#define FN_TARGET_V4
#define FN_TARGET_V3
#endif

#if FN_X86_LEVELS && !defined(__SANITIZE_ADDRESS__)
#define FN_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FN_MULTIVERSION
#endif

namespace fn {

// The x86-64 micro-architecture level this CPU supports: 4 (AVX-512), 3 (AVX2 + FMA) or 0.
inline int detected_cpu_level() {
#if FN_X86_LEVELS
  return __builtin_cpu_supports("x86-64-v4") ? 4 : __builtin_cpu_supports("x86-64-v3") ? 3 : 0;
#else
  return 0;
#endif
}

// Whether float32 std::exp/log/pow are glibc's FMA variants (the test of glibc's ifunc), so the
// lanes that repeat those algorithms (kernels/fused/exp.cpp, log.cpp, pow.cpp) give their bits.
inline bool libm_is_glibc_fma() {
#if FN_X86_LEVELS && defined(__GLIBC__)
  static const bool yes = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

// The level fn's explicit-vector kernels run at: the detected one, capped by FN_CPU_LEVEL (0, 3
// or 4; read once) so every level's body can be tested on one machine, as oneDNN's
// ONEDNN_MAX_CPU_ISA caps its own. (GCC's target_clones pick their clone at load, uncapped.)
inline int cpu_level() {
  static const int level = [] {
    int detected = detected_cpu_level();
    const char* cap = std::getenv("FN_CPU_LEVEL");
    if (cap == nullptr || *cap == '\0') return detected;
    char* end = nullptr;
    long want = std::strtol(cap, &end, 10);
    if (*end != '\0' || want < 0) return detected;  // not a level: ignored, as a typo should not crash
    return static_cast<int>(want < detected ? (want >= 4 ? 4 : want >= 3 ? 3 : 0) : detected);
  }();
  return level;
}

}  // namespace fn
