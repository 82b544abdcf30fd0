// Helpers of the kernels tests: deterministic random data and host<->device copies that work
// on every backend.
#pragma once

#include "kernels/layers.h"
#include "kernels/runtime.h"

#include <cmath>
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

}  // namespace wt::test
