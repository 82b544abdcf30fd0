// WT_HD marks functions compiled for both host and device, so the CPU loops and the CUDA
// kernels run the same math (the CPU tests then check what the GPU runs).
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define WT_HD __host__ __device__ inline
#else
#define WT_HD inline
#endif

namespace wt::kernels::hd {

WT_HD float sigmoid(float x) { return 1.f / (1.f + expf(-x)); }
WT_HD float gelu(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
WT_HD float geluGrad(float x)
{
    float cdf = 0.5f * (1.f + erff(x * 0.70710678118654752f));
    float pdf = 0.39894228040143268f * expf(-0.5f * x * x);
    return cdf + x * pdf;
}
WT_HD float fmaxf_(float a, float b) { return a > b ? a : b; }

// Online log-sum-exp state: running max and sum of exp(x - max).
struct Lse {
    float m;
    float s;
};
WT_HD Lse lseInit() { return {-INFINITY, 0.f}; }
WT_HD void lseAdd(Lse& a, float x)
{
    if (x > a.m) {
        a.s = a.s * expf(a.m - x) + 1.f;
        a.m = x;
    } else {
        a.s += expf(x - a.m);
    }
}
WT_HD Lse lseCombine(Lse a, Lse b)
{
    if (b.m == -INFINITY)
        return a;
    if (a.m == -INFINITY)
        return b;
    float m = a.m > b.m ? a.m : b.m;
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}
WT_HD float lseValue(Lse a) { return a.m + logf(a.s); }

// Device atomics with a plain host fallback (the CPU loops are serial).
WT_HD void atomicAddF(float* p, float v)
{
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
}

}  // namespace wt::kernels::hd
