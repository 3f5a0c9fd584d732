// FN_MULTIVERSION: compile a hot loop for AVX-512, AVX2 and baseline x86-64 and pick one at load
// time (GCC's target_clones). Off under ASan (its interceptors and ifuncs do not mix) and elsewhere.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define FN_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FN_MULTIVERSION
#endif
