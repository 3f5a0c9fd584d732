// fused::log (kernels/fused/log.h): glibc's logf (sysdeps/ieee754/flt-32/e_logf.c) as its FMA
// variant __logf_fma computes it, with the same double operations in the same order, many lanes
// at a time. x = 2^k z with z in [0x3f330000, 2 * that); log(x) = log1p(z / c - 1) + log(c) + k ln 2
// with 1/c and log(c) from a 16-entry table and log1p by a cubic; rounded to float once.
// Subnormals are scaled by 2^23 first; zeros, infinities, negatives and NaNs take its error
// paths' results. A libm call per element was the whole cost of Log.
#include "kernels/fused/log.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/multiversion.h"

#if FN_X86_LEVELS
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // as in exp.cpp (GCC 12's intrinsics)
#include <immintrin.h>
#endif

namespace fn {
namespace fused {

namespace {

#if FN_X86_LEVELS
// glibc's __logf_data: 1/c and log(c) per subinterval, ln 2, and the cubic's coefficients.
alignas(64) constexpr double kInvC[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0,  0x1.3c995b0b80385p+0, 0x1.30d190c8864a5p+0,
    0x1.25e227b0b8eap+0,  0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0, 0x1.0953f419900a7p+0, 0x1p+0,
    0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,  0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1,
    0x1.767dcf5534862p-1,
};
alignas(64) constexpr double kLogC[16] = {
    -0x1.57bf7808caadep-2, -0x1.2bef0a7c06ddbp-2, -0x1.01eae7f513a67p-2, -0x1.b31d8a68224e9p-3, -0x1.6574f0ac07758p-3,
    -0x1.1aa2bc79c81p-3,   -0x1.a4e76ce8c0e5ep-4, -0x1.1973c5a611cccp-4, -0x1.252f438e10c1ep-5, 0x0p+0,
    0x1.aa5aa5df25984p-5,  0x1.c5e53aa362eb4p-4,  0x1.526e57720db08p-3,  0x1.bc2860d22477p-3,   0x1.1058bc8a07ee1p-2,
    0x1.4043057b6ee09p-2,
};
constexpr double kLn2 = 0x1.62e42fefa39efp-1;
constexpr double kA0 = -0x1.00ea348b88334p-2, kA1 = 0x1.5575b0be00b6ap-2, kA2 = -0x1.ffffef20a4123p-2;
constexpr int kOff = 0x3f330000;

// 8 lanes: the integer split on 32-bit lanes, the double computation on one 512-bit vector.
FN_TARGET_V4 inline __m256 log8_v4(__m256 x) {
  __m256i ix = _mm256_castps_si256(x);
  // Positive subnormals (0 < ix < 2^23): glibc's x * 2^23, exponent less 23.
  const __m256i sub = _mm256_andnot_si256(_mm256_cmpeq_epi32(ix, _mm256_setzero_si256()),
                                          _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), ix));
  const __m256i scaled =
      _mm256_sub_epi32(_mm256_castps_si256(_mm256_mul_ps(x, _mm256_set1_ps(0x1p23f))), _mm256_set1_epi32(23 << 23));
  ix = _mm256_blendv_epi8(ix, scaled, sub);
  const __m256i tmp = _mm256_sub_epi32(ix, _mm256_set1_epi32(kOff));
  const __m256i i = _mm256_and_si256(_mm256_srli_epi32(tmp, 23 - 4), _mm256_set1_epi32(15));
  const __m256i k = _mm256_srai_epi32(tmp, 23);
  const __m256i iz = _mm256_sub_epi32(ix, _mm256_and_si256(tmp, _mm256_set1_epi32(static_cast<int>(0xff800000u))));
  const __m512i idx = _mm512_cvtepu32_epi64(i);
  const __m512d invc = _mm512_permutex2var_pd(_mm512_load_pd(kInvC), idx, _mm512_load_pd(kInvC + 8));
  const __m512d logc = _mm512_permutex2var_pd(_mm512_load_pd(kLogC), idx, _mm512_load_pd(kLogC + 8));
  const __m512d z = _mm512_cvtps_pd(_mm256_castsi256_ps(iz));
  const __m512d r = _mm512_fmsub_pd(z, invc, _mm512_set1_pd(1.0));
  const __m512d y0 = _mm512_fmadd_pd(_mm512_cvtepi32_pd(k), _mm512_set1_pd(kLn2), logc);
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(kA1), r, _mm512_set1_pd(kA2));
  y = _mm512_fmadd_pd(_mm512_set1_pd(kA0), r2, y);
  y = _mm512_fmadd_pd(y, r2, _mm512_add_pd(y0, r));
  __m256 f = _mm512_cvtpd_ps(y);
  // The error paths, as glibc orders them: 1 -> +0, 0 -> -inf, +inf -> +inf, and negatives or
  // NaNs -> (x - x) / (x - x) (a NaN: x's own, quieted, or the default one).
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  f = _mm256_blendv_ps(f, _mm256_setzero_ps(), _mm256_cmp_ps(x, _mm256_set1_ps(1.f), _CMP_EQ_OQ));
  const __m256 bad = _mm256_or_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  const __m256 d = _mm256_sub_ps(x, x);
  f = _mm256_blendv_ps(f, _mm256_div_ps(d, d), bad);
  f = _mm256_blendv_ps(f, inf, _mm256_cmp_ps(x, inf, _CMP_EQ_OQ));
  return _mm256_blendv_ps(f, _mm256_sub_ps(_mm256_setzero_ps(), inf),
                          _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
}

FN_TARGET_V4 void log_v4(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {  // two independent halves in flight
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    _mm256_storeu_ps(y + i, log8_v4(a));
    _mm256_storeu_ps(y + i + 8, log8_v4(b));
  }
  for (; i < n; i += 8) {  // the tail through the same lanes (padded with ones)
    const int64_t m = std::min<int64_t>(8, n - i);
    alignas(32) float buf[8] = {1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f};
    std::copy(x + i, x + i + m, buf);
    _mm256_store_ps(buf, log8_v4(_mm256_load_ps(buf)));
    std::copy(buf, buf + m, y + i);
  }
}

// 4 lanes: the integer split on 32-bit lanes, the double computation on one 256-bit vector.
FN_TARGET_V3 inline __m128 log4_v3(__m128 x) {
  __m128i ix = _mm_castps_si128(x);
  const __m128i sub =
      _mm_andnot_si128(_mm_cmpeq_epi32(ix, _mm_setzero_si128()), _mm_cmpgt_epi32(_mm_set1_epi32(0x00800000), ix));
  const __m128i scaled = _mm_sub_epi32(_mm_castps_si128(_mm_mul_ps(x, _mm_set1_ps(0x1p23f))), _mm_set1_epi32(23 << 23));
  ix = _mm_blendv_epi8(ix, scaled, sub);
  const __m128i tmp = _mm_sub_epi32(ix, _mm_set1_epi32(kOff));
  const __m128i i = _mm_and_si128(_mm_srli_epi32(tmp, 23 - 4), _mm_set1_epi32(15));
  const __m128i k = _mm_srai_epi32(tmp, 23);
  const __m128i iz = _mm_sub_epi32(ix, _mm_and_si128(tmp, _mm_set1_epi32(static_cast<int>(0xff800000u))));
  const __m256d invc = _mm256_i32gather_pd(kInvC, i, 8);
  const __m256d logc = _mm256_i32gather_pd(kLogC, i, 8);
  const __m256d z = _mm256_cvtps_pd(_mm_castsi128_ps(iz));
  const __m256d r = _mm256_fmsub_pd(z, invc, _mm256_set1_pd(1.0));
  const __m256d y0 = _mm256_fmadd_pd(_mm256_cvtepi32_pd(k), _mm256_set1_pd(kLn2), logc);
  const __m256d r2 = _mm256_mul_pd(r, r);
  __m256d y = _mm256_fmadd_pd(_mm256_set1_pd(kA1), r, _mm256_set1_pd(kA2));
  y = _mm256_fmadd_pd(_mm256_set1_pd(kA0), r2, y);
  y = _mm256_fmadd_pd(y, r2, _mm256_add_pd(y0, r));
  __m128 f = _mm256_cvtpd_ps(y);
  const __m128 inf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  f = _mm_blendv_ps(f, _mm_setzero_ps(), _mm_cmp_ps(x, _mm_set1_ps(1.f), _CMP_EQ_OQ));
  const __m128 bad = _mm_or_ps(_mm_cmp_ps(x, _mm_setzero_ps(), _CMP_LT_OQ), _mm_cmp_ps(x, x, _CMP_UNORD_Q));
  const __m128 d = _mm_sub_ps(x, x);
  f = _mm_blendv_ps(f, _mm_div_ps(d, d), bad);
  f = _mm_blendv_ps(f, inf, _mm_cmp_ps(x, inf, _CMP_EQ_OQ));
  return _mm_blendv_ps(f, _mm_sub_ps(_mm_setzero_ps(), inf), _mm_cmp_ps(x, _mm_setzero_ps(), _CMP_EQ_OQ));
}

FN_TARGET_V3 void log_v3(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
    _mm_storeu_ps(y + i, log4_v3(a));
    _mm_storeu_ps(y + i + 4, log4_v3(b));
  }
  for (; i < n; i += 4) {
    const int64_t m = std::min<int64_t>(4, n - i);
    alignas(16) float buf[4] = {1.f, 1.f, 1.f, 1.f};
    std::copy(x + i, x + i + m, buf);
    _mm_store_ps(buf, log4_v3(_mm_load_ps(buf)));
    std::copy(buf, buf + m, y + i);
  }
}
#endif

}  // namespace

void log(const float* x, float* y, int64_t n) {
#if FN_X86_LEVELS
  if (libm_is_glibc_fma()) {
    const int level = cpu_level();
    if (level >= 4) return log_v4(x, y, n);
    if (level >= 3) return log_v3(x, y, n);
  }
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
}

}  // namespace fused
}  // namespace fn
