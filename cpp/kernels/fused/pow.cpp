// fused::pow (kernels/fused/pow.h): glibc's powf (sysdeps/ieee754/flt-32/e_powf.c) as its FMA
// variant __powf_fma computes it, with the same double operations in the same order, many lanes
// at a time: log2(x) from a 16-entry table and a degree-5 polynomial (x = 2^k z), times y, then
// 2^(y log2 x) from a 32-entry table and a cubic, rounded to float once. Only its main path runs
// in lanes; a lane that would leave it (its special-case tests, repeated here) is std::pow.
#include "kernels/fused/pow.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/multiversion.h"

#if FN_X86_LEVELS
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // as in exp.cpp (GCC 12's intrinsics)
#include <immintrin.h>
#endif

namespace fn {
namespace fused {

namespace {

#if FN_X86_LEVELS
// glibc's __powf_log2_data (POWF_SCALE 1 on x86-64): 1/c, log2(c), and the polynomial.
alignas(64) constexpr double kInvC[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0,  0x1.3c995b0b80385p+0, 0x1.30d190c8864a5p+0,
    0x1.25e227b0b8eap+0,  0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0, 0x1.0953f419900a7p+0, 0x1p+0,
    0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,  0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1,
    0x1.767dcf5534862p-1,
};
alignas(64) constexpr double kLog2C[16] = {
    -0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2, -0x1.01d9bf3f2b631p-2,
    -0x1.97c1d1b3b7afp-3,  -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4, -0x1.a6f9db6475fcep-5, 0x0p+0,
    0x1.338ca9f24f53dp-4,  0x1.476a9543891bap-3,  0x1.e840b4ac4e4d2p-3,  0x1.40645f0c6651cp-2,  0x1.88e9c2c1b9ff8p-2,
    0x1.ce0a44eb17bccp-2,
};
constexpr double kA0 = 0x1.27616c9496e0bp-2, kA1 = -0x1.71969a075c67ap-2, kA2 = 0x1.ec70a6ca7baddp-2,
                 kA3 = -0x1.7154748bef6c8p-1, kA4 = 0x1.71547652ab82bp0;
// glibc's __exp2f_data: 2^(i/32) as double bits less i << 47, the rounding shift 0x1.8p52 / 32, and
// the cubic for 2^r.
alignas(64) constexpr uint64_t kExp2[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
    0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
    0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
    0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
constexpr double kShift = 0x1.8p+52 / 32;
constexpr double kC0 = 0x1.c6af84b912394p-5, kC1 = 0x1.ebfce50fac4f3p-3, kC2 = 0x1.62e42ff0c52d6p-1;
constexpr int kOff = 0x3f330000;

// 8 lanes. Returns the results and, in *slow, the lanes that must be std::pow instead.
FN_TARGET_V4 inline __m256 pow8_v4(__m256 x, __m256 y, __mmask8* slow) {
  const __m256i ix = _mm256_castps_si256(x), iy = _mm256_castps_si256(y);
  // glibc's tests: x not a positive normal finite float, or y zero, infinite or NaN.
  const __m256i xbad = _mm256_cmpeq_epi32(
      _mm256_max_epu32(_mm256_sub_epi32(ix, _mm256_set1_epi32(0x00800000)), _mm256_set1_epi32(0x7f000000)),
      _mm256_sub_epi32(ix, _mm256_set1_epi32(0x00800000)));
  const __m256i iy2 = _mm256_sub_epi32(_mm256_add_epi32(iy, iy), _mm256_set1_epi32(1));
  const __m256i ybad = _mm256_cmpeq_epi32(_mm256_max_epu32(iy2, _mm256_set1_epi32(static_cast<int>(0xfeffffffu))), iy2);
  const __m256i tmp = _mm256_sub_epi32(ix, _mm256_set1_epi32(kOff));
  const __m256i i = _mm256_and_si256(_mm256_srli_epi32(tmp, 23 - 4), _mm256_set1_epi32(15));
  const __m256i top = _mm256_and_si256(tmp, _mm256_set1_epi32(static_cast<int>(0xff800000u)));
  const __m256i iz = _mm256_sub_epi32(ix, top);
  const __m256i k = _mm256_srai_epi32(top, 23);
  const __m512i idx = _mm512_cvtepu32_epi64(i);
  const __m512d invc = _mm512_permutex2var_pd(_mm512_load_pd(kInvC), idx, _mm512_load_pd(kInvC + 8));
  const __m512d logc = _mm512_permutex2var_pd(_mm512_load_pd(kLog2C), idx, _mm512_load_pd(kLog2C + 8));
  const __m512d z = _mm512_cvtps_pd(_mm256_castsi256_ps(iz));
  const __m512d r = _mm512_fmsub_pd(z, invc, _mm512_set1_pd(1.0));
  const __m512d y0 = _mm512_add_pd(logc, _mm512_cvtepi32_pd(k));
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d p5 = _mm512_fmadd_pd(_mm512_set1_pd(kA0), r, _mm512_set1_pd(kA1));
  const __m512d p = _mm512_fmadd_pd(_mm512_set1_pd(kA2), r, _mm512_set1_pd(kA3));
  const __m512d r4 = _mm512_mul_pd(r2, r2);
  __m512d q = _mm512_fmadd_pd(_mm512_set1_pd(kA4), r, y0);
  q = _mm512_fmadd_pd(p, r2, q);
  const __m512d logx = _mm512_fmadd_pd(p5, r4, q);
  const __m512d ylogx = _mm512_mul_pd(_mm512_cvtps_pd(y), logx);
  // |y log2 x| >= 126: glibc's overflow/underflow tests follow; std::pow does them.
  const __mmask8 big = _mm512_cmp_pd_mask(_mm512_abs_pd(ylogx), _mm512_set1_pd(126.0), _CMP_GE_OQ);
  *slow = static_cast<__mmask8>(big | _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(xbad, ybad))));
  // 2^ylogx
  __m512d kd = _mm512_add_pd(ylogx, _mm512_set1_pd(kShift));
  const __m512i ki = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, _mm512_set1_pd(kShift));
  const __m512d rr = _mm512_sub_pd(ylogx, kd);
  const __m512i lo = _mm512_permutex2var_epi64(_mm512_load_si512(kExp2), ki, _mm512_load_si512(kExp2 + 8));
  const __m512i hi = _mm512_permutex2var_epi64(_mm512_load_si512(kExp2 + 16), ki, _mm512_load_si512(kExp2 + 24));
  const __m512i tab = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), lo, hi);
  const __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(tab, _mm512_slli_epi64(ki, 47)));
  const __m512d ze = _mm512_fmadd_pd(_mm512_set1_pd(kC0), rr, _mm512_set1_pd(kC1));
  const __m512d rr2 = _mm512_mul_pd(rr, rr);
  __m512d e = _mm512_fmadd_pd(_mm512_set1_pd(kC2), rr, _mm512_set1_pd(1.0));
  e = _mm512_fmadd_pd(ze, rr2, e);
  return _mm512_cvtpd_ps(_mm512_mul_pd(e, s));
}

FN_TARGET_V4 void pow_v4(const float* x, const float* y, int64_t y_step, float* out, int64_t n) {
  alignas(32) float xb[8], yb[8], ob[8];
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t m = std::min<int64_t>(8, n - i);
    __m256 xv, yv;
    if (m == 8) {
      xv = _mm256_loadu_ps(x + i);
      yv = y_step ? _mm256_loadu_ps(y + i) : _mm256_set1_ps(*y);
    } else {  // the tail, padded with 1 ** 1
      std::fill(xb, xb + 8, 1.f);
      std::fill(yb, yb + 8, 1.f);
      for (int64_t j = 0; j < m; ++j) xb[j] = x[i + j], yb[j] = y[(i + j) * y_step];
      xv = _mm256_load_ps(xb);
      yv = _mm256_load_ps(yb);
    }
    __mmask8 slow;
    _mm256_store_ps(ob, pow8_v4(xv, yv, &slow));
    _mm256_store_ps(xb, xv);
    _mm256_store_ps(yb, yv);
    for (unsigned bits = slow; bits != 0; bits &= bits - 1) {
      const int j = __builtin_ctz(bits);
      ob[j] = std::pow(xb[j], yb[j]);
    }
    std::copy(ob, ob + m, out + i);
  }
}
#endif

}  // namespace

void pow(const float* x, const float* y, int64_t y_step, float* out, int64_t n) {
#if FN_X86_LEVELS
  if (libm_is_glibc_fma() && cpu_level() >= 4) return pow_v4(x, y, y_step, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], y[i * y_step]);
}

}  // namespace fused
}  // namespace fn
