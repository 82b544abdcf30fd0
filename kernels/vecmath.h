// exp and log for the CPU row kernels, written branch-free on plain floats so that GCC
// vectorizes the loops that call them (cpurows.cpp compiles those loops once per instruction
// set and picks one at run time). Host only; the CUDA kernels keep expf/logf.
//
// Accuracy (tst_vecmath checks it against std::exp / std::log in double, on a dense grid):
//   vexp(x): relative error < 3e-7 (about 2.5 ulp; measured 2.55e-7 over every float) for x in
//            [-87.3, 88.7]; x below -87.33 (and -inf) gives 0, above 88.72 +inf; NaN gives NaN.
//   vlog(x): absolute error < 1e-7 for x in [0.5, 2] (measured 7.0e-8), relative error
//            < 1.5e-7 elsewhere (measured 1.26e-7), for normal positive x; 0 gives -inf, +inf
//            gives +inf. Negative x and denormals: not handled (the kernels never pass them).
//   verfcPos(a), erfc for a >= 0: absolute error < 7e-7 (measured 6.0e-7 over every float of
//            [0, 9]); +inf gives 0, NaN gives NaN. No exp: a degree-9 polynomial and one
//            division (scripts/fit-erfc.py fits it). verf(x) = sign(x) (1 - verfcPos(|x|)):
//            absolute error < 7e-7 for every finite x; +-inf gives +-1. vnormcdf(x): absolute
//            error < 3.5e-7. For GELU only.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

// Forced inline: the vectorized loops that call them are compiled once per instruction set.
#if defined(__GNUC__)
#define WT_VEC_INLINE inline __attribute__((always_inline))
#else
#define WT_VEC_INLINE inline
#endif

namespace wt::kernels::vec {

WT_VEC_INLINE float asFloat(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
WT_VEC_INLINE uint32_t asBits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// exp(x) = 2^k * exp(r), k = round(x / ln 2), r = x - k ln 2 in [-ln2/2, ln2/2] (ln 2 split in a
// high part exact in float and a low part, Cody-Waite), exp(r) by its degree-6 Taylor
// polynomial (the remainder r^7/7! < 2e-8 there), 2^k built in the exponent bits.
WT_VEC_INLINE float vexp(float x)
{
    constexpr float kHi = 88.72f, kLo = -87.33f;
    const float xc = x > kHi ? kHi : (x < kLo ? kLo : x);
    // Round to nearest by the 1.5 * 2^23 trick (no libm call: the SSE2 build vectorizes it too).
    const float kf = (xc * 1.44269504088896341f + 12582912.f) - 12582912.f;
    const float r = (xc - kf * 0.693145751953125f) - kf * 1.428606765330187e-6f;
    float p = 1.f / 720.f;
    p = p * r + 1.f / 120.f;
    p = p * r + 1.f / 24.f;
    p = p * r + 1.f / 6.f;
    p = p * r + 0.5f;
    p = p * r + 1.f;
    p = p * r + 1.f;
    // 2^k in two halves so that k = 128 (x near 88.72) does not overflow the exponent field.
    const int32_t k = int32_t(kf);
    const int32_t k1 = k >> 1, k2 = k - k1;
    const float s1 = asFloat(uint32_t(k1 + 127) << 23), s2 = asFloat(uint32_t(k2 + 127) << 23);
    float y = p * s1 * s2;
    y = x < kLo ? 0.f : y;
    y = x > kHi ? std::numeric_limits<float>::infinity() : y;
    return x != x ? x : y;
}

// log(x) = e ln 2 + log(m), x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s),
// s = (m - 1) / (m + 1), |s| <= 0.1716, by its series to s^9 (remainder s^11 2/11 < 1e-9).
WT_VEC_INLINE float vlog(float x)
{
    const uint32_t u = asBits(x);
    // Shift the mantissa range so that m lands in [sqrt(1/2), sqrt(2)).
    const uint32_t t = u - 0x3f3504f3u;
    const int32_t e = int32_t(t) >> 23;
    const float m = asFloat((t & 0x007fffffu) + 0x3f3504f3u);
    const float s = (m - 1.f) / (m + 1.f), s2 = s * s;
    float p = 2.f / 9.f;
    p = p * s2 + 2.f / 7.f;
    p = p * s2 + 2.f / 5.f;
    p = p * s2 + 2.f / 3.f;
    p = p * s2 + 2.f;
    float y = float(e) * 0.693147180559945309f + p * s;
    y = x == 0.f ? -std::numeric_limits<float>::infinity() : y;
    y = x == std::numeric_limits<float>::infinity() ? x : y;
    return y;
}

// erfc(a) = (1 + a p(a))^-4 for a in [0, 4), 0 from 4 on (erfc(4) = 1.5e-8): p of degree 8
// is the minimax fit (in erfc's absolute error) of (erfc(a)^(-1/4) - 1) / a on [0, 4], by
// scripts/fit-erfc.py. The 4th power (two squarings) amplifies the rounding of 1 / (1 + a p)
// four times where Abramowitz & Stegun 7.1.28's 16th power would amplify it 16 times; exp-free,
// so GELU's forward costs one division and 14 multiply-adds.
WT_VEC_INLINE float verfcPos(float a)
{
    const float ac = a > 4.f ? 4.f : a;   // NaN stays NaN
    float p = 4.22093814e-4f;
    p = p * ac - 2.17826571e-3f;
    p = p * ac + 6.68106228e-3f;
    p = p * ac - 6.83165528e-3f;
    p = p * ac + 1.55165251e-2f;
    p = p * ac + 1.80629175e-2f;
    p = p * ac + 7.52823278e-2f;
    p = p * ac + 1.98827922e-1f;
    p = p * ac + 2.82099426e-1f;
    const float r = 1.f / (1.f + p * ac), r2 = r * r;
    return a >= 4.f ? 0.f : r2 * r2;
}

WT_VEC_INLINE float verf(float x)
{
    const float y = 1.f - verfcPos(x < 0.f ? -x : x);
    return x < 0.f ? -y : y;
}

// The standard normal CDF, Phi(x) = erfc(-x / sqrt 2) / 2, absolute error < 3.5e-7 (half
// erfc's), without forming 1 + erf(x / sqrt 2), which cancels for x < 0.
WT_VEC_INLINE float vnormcdf(float x)
{
    const float h = 0.5f * verfcPos((x < 0.f ? -x : x) * 0.70710678118654752f);
    return x < 0.f ? h : 1.f - h;
}

}  // namespace wt::kernels::vec
