// fused::exp (kernels/fused/exp.h): glibc's expf (sysdeps/ieee754/flt-32/e_expf.c) as its FMA
// variant __expf_fma computes it, with the same double operations in the same order, many lanes
// at a time. x * 32 / ln 2 = k + r; 2^(k/32) from a 32-entry table; 2^(r/32) by a cubic; rounded to
// float once. The out-of-range inputs take its error paths' products. A libm call per element
// was ~20x the cost of any other fused op.
#include "kernels/fused/exp.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/multiversion.h"

#if FN_X86_LEVELS
// GCC 12's AVX-512 conversion, shift and permute intrinsics start from _mm512_undefined_*(),
// which -Wmaybe-uninitialized reports at every use.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#endif

namespace fn {
namespace fused {

namespace {

constexpr double kInvLn2N = 0x1.71547652b82fep+5;  // 32 / ln 2
constexpr double kShift = 0x1.8p+52;               // adding it rounds to an integer in the low bits
constexpr double kC0 = 0x1.c6af84b912394p-20, kC1 = 0x1.ebfce50fac4f3p-13, kC2 = 0x1.62e42ff0c52d6p-6;
// 2^(i/32) as double bits, less i << 47 (glibc's __exp2f_data.tab; the exponent k/32 is added back).
alignas(64) constexpr uint64_t kTable[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
    0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
    0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
    0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
// The thresholds of glibc's error paths: overflow to inf, underflow to 0, and the range below
// which it returns __math_may_uflowf's product (the smallest subnormal, rounded at run time).
constexpr float kOver = 0x1.62e42ep6f, kUnder = -0x1.9fe368p6f, kMayUnder = -0x1.9d1d9ep6f;

// The error paths' results, rounded at run time as glibc's barriers make them (flush-to-zero
// mode, if set, applies as it does there).
struct Limits {
  float over, under, may_under;
};
Limits limits() {
  volatile float big = 0x1p97f, tiny = 0x1p-95f, may = 0x1.4p-75f;
  return Limits{big * big, tiny * tiny, may * may};
}

#if FN_X86_LEVELS
FN_TARGET_V4 __attribute__((always_inline)) inline float exp_one_v4(float x, const Limits& lim) {
  const double xd = x;
  double kd = __builtin_fma(kInvLn2N, xd, kShift);
  uint64_t ki;
  std::memcpy(&ki, &kd, sizeof ki);
  kd -= kShift;
  const double r = __builtin_fma(kInvLn2N, xd, -kd);
  const uint64_t t = kTable[ki & 31] + (ki << 47);
  double s;
  std::memcpy(&s, &t, sizeof s);
  const double z = __builtin_fma(kC0, r, kC1);
  const double r2 = r * r;
  double y = __builtin_fma(r, kC2, 1.0);
  y = __builtin_fma(z, r2, y);
  if (x != x || x == std::numeric_limits<float>::infinity()) return x + x;
  if (x > kOver) return lim.over;
  if (x < kUnder) return lim.under;
  if (x < kMayUnder) return lim.may_under;
  return static_cast<float>(y * s);
}

// 8 lanes: the double computation on one 512-bit vector.
FN_TARGET_V4 inline __m256 exp8_v4(__m256 x, const Limits& lim) {
  const __m512d xd = _mm512_cvtps_pd(x);
  __m512d kd = _mm512_fmadd_pd(_mm512_set1_pd(kInvLn2N), xd, _mm512_set1_pd(kShift));
  const __m512i ki = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, _mm512_set1_pd(kShift));
  const __m512d r = _mm512_fmsub_pd(_mm512_set1_pd(kInvLn2N), xd, kd);
  // The table lookup as two 16-entry permutes (a gather was ~3x slower): bits 0-3 pick within
  // a half, bit 4 the half.
  const __m512i t0 = _mm512_load_si512(kTable), t1 = _mm512_load_si512(kTable + 8);
  const __m512i t2 = _mm512_load_si512(kTable + 16), t3 = _mm512_load_si512(kTable + 24);
  const __m512i lo = _mm512_permutex2var_epi64(t0, ki, t1), hi = _mm512_permutex2var_epi64(t2, ki, t3);
  const __m512i tab = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), lo, hi);
  const __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(tab, _mm512_slli_epi64(ki, 47)));
  const __m512d z = _mm512_fmadd_pd(_mm512_set1_pd(kC0), r, _mm512_set1_pd(kC1));
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(r, _mm512_set1_pd(kC2), _mm512_set1_pd(1.0));
  y = _mm512_fmadd_pd(z, r2, y);
  __m256 f = _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
  const __m256 nan_or_inf =
      _mm256_or_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q),
                   _mm256_cmp_ps(x, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ));
  f = _mm256_blendv_ps(f, _mm256_set1_ps(lim.may_under), _mm256_cmp_ps(x, _mm256_set1_ps(kMayUnder), _CMP_LT_OQ));
  f = _mm256_blendv_ps(f, _mm256_set1_ps(lim.under), _mm256_cmp_ps(x, _mm256_set1_ps(kUnder), _CMP_LT_OQ));
  f = _mm256_blendv_ps(f, _mm256_set1_ps(lim.over), _mm256_cmp_ps(x, _mm256_set1_ps(kOver), _CMP_GT_OQ));
  return _mm256_blendv_ps(f, _mm256_add_ps(x, x), nan_or_inf);
}

FN_TARGET_V4 void exp_v4(const float* x, float* y, int64_t n) {
  const Limits lim = limits();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {  // two independent halves in flight
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    _mm256_storeu_ps(y + i, exp8_v4(a, lim));
    _mm256_storeu_ps(y + i + 8, exp8_v4(b, lim));
  }
  for (; i < n; ++i) y[i] = exp_one_v4(x[i], lim);
}

// 4 lanes: the double computation on one 256-bit vector.
FN_TARGET_V3 inline __m128 exp4_v3(__m128 x, const Limits& lim) {
  const __m256d xd = _mm256_cvtps_pd(x);
  __m256d kd = _mm256_fmadd_pd(_mm256_set1_pd(kInvLn2N), xd, _mm256_set1_pd(kShift));
  const __m256i ki = _mm256_castpd_si256(kd);
  kd = _mm256_sub_pd(kd, _mm256_set1_pd(kShift));
  const __m256d r = _mm256_fmsub_pd(_mm256_set1_pd(kInvLn2N), xd, kd);
  const __m256i idx = _mm256_and_si256(ki, _mm256_set1_epi64x(31));
  const __m256i tab = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(kTable), idx, 8);
  const __m256d s = _mm256_castsi256_pd(_mm256_add_epi64(tab, _mm256_slli_epi64(ki, 47)));
  const __m256d z = _mm256_fmadd_pd(_mm256_set1_pd(kC0), r, _mm256_set1_pd(kC1));
  const __m256d r2 = _mm256_mul_pd(r, r);
  __m256d y = _mm256_fmadd_pd(r, _mm256_set1_pd(kC2), _mm256_set1_pd(1.0));
  y = _mm256_fmadd_pd(z, r2, y);
  __m128 f = _mm256_cvtpd_ps(_mm256_mul_pd(y, s));
  const __m128 nan_or_inf = _mm_or_ps(_mm_cmp_ps(x, x, _CMP_UNORD_Q),
                                      _mm_cmp_ps(x, _mm_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ));
  f = _mm_blendv_ps(f, _mm_set1_ps(lim.may_under), _mm_cmp_ps(x, _mm_set1_ps(kMayUnder), _CMP_LT_OQ));
  f = _mm_blendv_ps(f, _mm_set1_ps(lim.under), _mm_cmp_ps(x, _mm_set1_ps(kUnder), _CMP_LT_OQ));
  f = _mm_blendv_ps(f, _mm_set1_ps(lim.over), _mm_cmp_ps(x, _mm_set1_ps(kOver), _CMP_GT_OQ));
  return _mm_blendv_ps(f, _mm_add_ps(x, x), nan_or_inf);
}

FN_TARGET_V3 void exp_v3(const float* x, float* y, int64_t n) {
  const Limits lim = limits();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
    _mm_storeu_ps(y + i, exp4_v3(a, lim));
    _mm_storeu_ps(y + i + 4, exp4_v3(b, lim));
  }
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}
#endif

}  // namespace

void exp(const float* x, float* y, int64_t n) {
#if FN_X86_LEVELS
  if (libm_is_glibc_fma()) {
    const int level = cpu_level();
    if (level >= 4) return exp_v4(x, y, n);
    if (level >= 3) return exp_v3(x, y, n);
  }
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

}  // namespace fused
}  // namespace fn
