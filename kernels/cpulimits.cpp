#include "kernels/cpulimits.h"

#include "kernels/backend.h"
#include "kernels/cpurows.h"
#include "kernels/smallgemm.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace wt::kernels {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Best time of `body` over 5 runs after one warm-up.
template <class F>
double bestOf5(F&& body)
{
    double best = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = Clock::now();
        body();
        if (rep > 0)
            best = std::min(best, seconds(t0, Clock::now()));
    }
    return best;
}

// Best time over 30 runs (after a warm-up) of every pool thread t running perThread(t) at once:
// short runs (~1 ms), so that on a shared machine the best one is as unhindered as the short
// kernel timings it bounds (the best of 5 long runs came out below them).
template <class F>
double bestOf30OnEveryThread(int threads, F&& perThread)
{
    double best = 1e30;
    for (int rep = 0; rep < 31; ++rep) {
        auto t0 = Clock::now();
        cpu::parallelFor(threads, 1, [&](int64_t lo, int64_t hi) {
            for (int64_t t = lo; t < hi; ++t)
                perThread(size_t(t));
        });
        if (rep > 0)
            best = std::min(best, seconds(t0, Clock::now()));
    }
    return best;
}

}  // namespace

CpuLimits measureCpuLimits()
{
    CpuLimits l;
    auto backend = makeCpuBackend();
    const int n = 1024;
    std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 0.5f), c(size_t(n) * n, 0.0f);
    const double flop = 2.0 * n * n * double(n);
    l.sgemmLargeFlopPerS = flop / bestOf5([&] { backend->gemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); });
    l.bf16FlopPerS = flop / bestOf5([&] { backend->gemmBf16(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); });

    const size_t bytes = size_t(64) << 20;
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    l.copyBytesPerS = 2.0 * double(bytes) / bestOf5([&] { std::memcpy(dst.data(), src.data(), bytes); });
    l.copyPoolBytesPerS = 2.0 * double(bytes) / bestOf5([&] {
        cpu::parallelFor(int64_t(bytes), 1 << 20, [&](int64_t lo, int64_t hi) {
            std::memcpy(dst.data() + lo, src.data() + lo, size_t(hi - lo));
        });
    });

    // exp: every thread of the pool runs vexp over its own 4,096 floats, 200 times (about a
    // millisecond).
    l.threads = cpu::threads();
    const int64_t block = 4096, reps = 200;
    std::vector<std::vector<float>> in(size_t(l.threads)), out(size_t(l.threads));
    for (int t = 0; t < l.threads; ++t) {
        in[size_t(t)].resize(size_t(block));
        out[size_t(t)].resize(size_t(block));
        for (int64_t i = 0; i < block; ++i)
            in[size_t(t)][size_t(i)] = -20.f + 40.f * float(i) / float(block);
    }
    const double bestExp = bestOf30OnEveryThread(l.threads, [&](size_t t) {
        for (int64_t r = 0; r < reps; ++r)
            cpu::expRange(in[t].data(), out[t].data(), block);
    });
    l.expPerS = double(l.threads) * double(block) * double(reps) / bestExp;

    // The fp32 roof: the GEMM's register tile with its operands in cache, on every thread at
    // once (as the exp rate), where the backend's own GEMM has it (AVX-512F). The workloads'
    // products run above the 1024^3 rate (their panels fit the caches better), so 1024^3 alone
    // was a roof below the ops it bounds.
    if (cpu::smallGemmAvailable()) {
        const int64_t tm = 128, tn = 64, tk = 128, calls = 60;   // 60 x 2.1 MFLOP: ~1 ms on a Zen 5 core
        std::vector<std::vector<float>> ta(size_t(l.threads)), tb(size_t(l.threads)), tc(size_t(l.threads));
        for (int t = 0; t < l.threads; ++t) {
            ta[size_t(t)].assign(size_t(tm * tk), 0.5f);
            tb[size_t(t)].assign(size_t(tk * tn), 0.25f);
            tc[size_t(t)].assign(size_t(tm * tn), 0.f);
        }
        const double bestTile = bestOf30OnEveryThread(l.threads, [&](size_t t) {
            for (int64_t r = 0; r < calls; ++r)
                cpu::smallGemm(false, false, tm, tn, tk, 1.f, ta[t].data(), tk, tb[t].data(), tn, 0.f, tc[t].data(), tn);
        });
        l.sgemmTileFlopPerS = double(l.threads) * double(calls) * 2.0 * double(tm * tn * tk) / bestTile;
    }
    l.sgemmFlopPerS = std::max(l.sgemmLargeFlopPerS, l.sgemmTileFlopPerS);

    // One small op: the median of 201 1x1x1 sgemm calls.
    std::vector<double> small;
    for (int rep = 0; rep < 201; ++rep) {
        auto t0 = Clock::now();
        backend->gemm(false, false, 1, 1, 1, 1.0f, a.data(), 1, b.data(), 1, 0.0f, c.data(), 1);
        small.push_back(seconds(t0, Clock::now()) * 1e9);
    }
    std::nth_element(small.begin(), small.begin() + 100, small.end());
    l.smallOpNs = small[100];
    return l;
}

}  // namespace wt::kernels
