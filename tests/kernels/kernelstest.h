// Helpers of the kernels tests: deterministic random data and host<->device copies that work
// on every backend.
#pragma once

#include "kernels/layers.h"
#include "kernels/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <vector>

namespace wt::test {

inline std::vector<float> randomVector(size_t n, uint64_t seed, float scale = 1.f)
{
    std::vector<float> v(n);
    uint64_t s = seed * 2654435761ull + 12345;
    for (auto& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = scale * (float((s >> 40) & 0xffffff) / 16777216.f * 2.f - 1.f);
    }
    return v;
}

inline void put(kernels::Runtime& rt, kernels::Buffer& b, const std::vector<float>& v)
{
    rt.ensure(b, v.size() * 4);
    rt.backend().upload(b.f(), v.data(), v.size() * 4);
}
inline void putInts(kernels::Runtime& rt, kernels::Buffer& b, const std::vector<int32_t>& v)
{
    rt.ensure(b, v.size() * 4);
    rt.backend().upload(b.i(), v.data(), v.size() * 4);
}
inline std::vector<float> get(kernels::Runtime& rt, const float* p, size_t n)
{
    std::vector<float> v(n);
    rt.backend().download(v.data(), p, n * 4);
    return v;
}
inline std::vector<float> getParam(kernels::Runtime& rt, kernels::Param& p) { return get(rt, p.w.f(), size_t(p.numel())); }
inline std::vector<float> getGrad(kernels::Runtime& rt, kernels::Param& p) { return get(rt, p.g.f(), size_t(p.numel())); }
inline void setParam(kernels::Runtime& rt, kernels::Param& p, const std::vector<float>& v)
{
    rt.backend().upload(p.w.f(), v.data(), v.size() * 4);
}

// ||a - b|| / max(||b||, tiny)
template <class A, class B>
double relError(const A& a, const B& b)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        num += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        den += double(b[i]) * double(b[i]);
    }
    return std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
}

// A GEMM test problem (tst_smallgemm, tst_blockedgemm): op(A) op(B) with padded leading
// dimensions, random A, B and C0.
struct Problem {
    bool ta, tb;
    int64_t M, N, K, lda, ldb, ldc;
    std::vector<float> A, B, C0;
};

inline Problem make(bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t pad, uint64_t seed)
{
    Problem p{ta, tb, M, N, K, (ta ? M : K) + pad, (tb ? K : N) + pad, N + pad, {}, {}, {}};
    p.A = randomVector(size_t((ta ? K : M) * p.lda + 1), seed, 2.f);
    p.B = randomVector(size_t((tb ? N : K) * p.ldb + 1), seed + 1, 3.f);
    p.C0 = randomVector(size_t(M * p.ldc + 1), seed + 2);
    return p;
}

// The largest error over the fp32 bound (K + 2) 2^-23 (|alpha| sum |a b| + |beta c|); and
// whether C's elements past column N of each row (the leading dimension's padding) kept their bits.
inline double worstRatio(const Problem& p, const std::vector<float>& C, float alpha, float beta, bool* untouched)
{
    auto a = [&](int64_t i, int64_t k) { return double(p.ta ? p.A[size_t(k * p.lda + i)] : p.A[size_t(i * p.lda + k)]); };
    auto b = [&](int64_t k, int64_t j) { return double(p.tb ? p.B[size_t(j * p.ldb + k)] : p.B[size_t(k * p.ldb + j)]); };
    double worst = 0;
    *untouched = true;
    std::vector<double> s(size_t(p.N)), mag(size_t(p.N));
    for (int64_t i = 0; i < p.M; ++i) {
        std::fill(s.begin(), s.end(), 0.0);
        std::fill(mag.begin(), mag.end(), 0.0);
        for (int64_t k = 0; k < p.K; ++k) {
            const double aik = a(i, k);
            for (int64_t j = 0; j < p.N; ++j) {
                const double t = aik * b(k, j);
                s[size_t(j)] += t;
                mag[size_t(j)] += std::fabs(t);
            }
        }
        for (int64_t j = 0; j < p.ldc; ++j) {
            const size_t at = size_t(i * p.ldc + j);
            if (j >= p.N) {
                *untouched &= std::memcmp(&C[at], &p.C0[at], 4) == 0;
                continue;
            }
            const double c0 = beta == 0.f ? 0.0 : double(beta) * p.C0[at];
            const double bound =
                double(p.K + 2) * std::ldexp(1.0, -23) * (std::fabs(alpha) * mag[size_t(j)] + std::fabs(c0)) + 1e-30;
            worst = std::max(worst, std::fabs(double(C[at]) - (double(alpha) * s[size_t(j)] + c0)) / bound);
        }
    }
    return worst;
}

inline bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

}  // namespace wt::test
