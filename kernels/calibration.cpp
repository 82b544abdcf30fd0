#include "kernels/calibration.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace wt::kernels {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

double measureGemmFlops(Backend& backend, bool bf16)
{
    const int n = 1024;
    std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 0.5f), c(size_t(n) * n, 0.0f);
    double best = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = Clock::now();
        if (bf16)
            backend.gemmBf16(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
        else
            backend.gemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
        auto t1 = Clock::now();
        if (rep > 0)
            best = std::min(best, seconds(t0, t1));
    }
    return 2.0 * n * n * double(n) / best;
}

double measureCopyBytesPerS()
{
    const size_t bytes = size_t(64) << 20;
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    double best = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = Clock::now();
        std::memcpy(dst.data(), src.data(), bytes);
        auto t1 = Clock::now();
        if (rep > 0)
            best = std::min(best, seconds(t0, t1));
    }
    return 2.0 * double(bytes) / best;
}

double measureSmallOpNs(Backend& backend)
{
    float a = 1.0f, b = 0.5f, c = 0.0f;
    std::vector<double> ns;
    for (int rep = 0; rep < 201; ++rep) {
        auto t0 = Clock::now();
        backend.gemm(false, false, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
        auto t1 = Clock::now();
        ns.push_back(seconds(t0, t1) * 1e9);
    }
    std::nth_element(ns.begin(), ns.begin() + 100, ns.end());
    return ns[100];
}

}  // namespace wt::kernels
