#include "kernels/cpulimits.h"

#include "kernels/backend.h"
#include "kernels/cpurows.h"
#include "kernels/smallgemm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <vector>

namespace wt::kernels {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

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

// One pass of perThread(slot) on every pool thread at once. The pool's threads claim one slot
// each and wait for each other (at most 20 ms) before they start, so a late worker cannot
// leave the caller to run every slot alone; the pass counts only if every thread's CPU time
// over its run is at least 90% of the run's wall time (none was preempted). Returns the wall
// time from the first start to the last end, and whether the pass counts.
struct Pass {
    double seconds = 0;
    bool counts = false;
};

template <class F>
Pass passOnEveryThread(int threads, F&& perThread)
{
    std::atomic<int> arrived{0};
    std::atomic<bool> missed{false};
    const size_t count = size_t(threads);
    std::vector<Clock::time_point> start(count), end(count);
    std::vector<double> cpu(size_t(threads), 0.0);
    cpu::parallelFor(threads, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t q = lo; q < hi; ++q) {
            const int slot = arrived.fetch_add(1);
            const auto w0 = Clock::now();
            while (arrived.load(std::memory_order_acquire) < threads)
                if (seconds(w0, Clock::now()) > 0.02) {
                    missed = true;
                    break;
                }
            if (slot >= threads)
                continue;
            const double c0 = threadCpuSeconds();
            start[size_t(slot)] = Clock::now();
            perThread(size_t(slot));
            end[size_t(slot)] = Clock::now();
            cpu[size_t(slot)] = threadCpuSeconds() - c0;
        }
    });
    Pass p;
    const auto t0 = *std::min_element(start.begin(), start.end());
    const auto t1 = *std::max_element(end.begin(), end.end());
    p.seconds = seconds(t0, t1);
    p.counts = !missed;
    for (int t = 0; t < threads; ++t)
        if (cpu[size_t(t)] < 0.9 * seconds(start[size_t(t)], end[size_t(t)]))
            p.counts = false;
    return p;
}

// The best pass of one measure: the best that counted, else (no pass counted: a machine too
// loaded for any) the best of all, which then understates the machine.
struct Best {
    double counted = 1e30, any = 1e30;
    int valid = 0, runs = 0;
    void add(const Pass& p)
    {
        ++runs;
        any = std::min(any, p.seconds);
        if (p.counts) {
            ++valid;
            counted = std::min(counted, p.seconds);
        }
    }
    double seconds() const { return valid > 0 ? counted : any; }
};

// The scalar loop of CpuLimits::scalarFlopPerS: out-of-line and with sizes known only at run
// time, so the compiler treats it as it treats a functor's loop (no constant divisions).
__attribute__((noinline)) void scalarStencil(const float* x, const float* w, float* y, int64_t n, int64_t S, int64_t C,
                                             int64_t K)
{
    const int64_t P = (K - 1) / 2;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t t = i / C, c = i % C, s = t % S;
        float acc = 0.f;
        for (int64_t k = 0; k < K; ++k) {
            const int64_t src = s + k - P;
            if (src < 0 || src >= S)
                continue;
            acc += w[c * K + k] * x[(t - s + src) * C + c];
        }
        y[i] = acc;
    }
}

}  // namespace

CpuLimits measureCpuLimits(double windowSeconds)
{
    CpuLimits l;
    auto backend = makeCpuBackend();
    const int n = 1024;
    std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 0.5f), c(size_t(n) * n, 0.0f);
    const double flop = 2.0 * n * n * double(n);
    l.sgemmLargeFlopPerS = flop / bestOf5([&] { backend->gemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); });
    l.bf16FlopPerS = flop / bestOf5([&] { backend->gemmBf16(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); });

    {
        const size_t bytes = size_t(64) << 20;
        std::vector<char> src(bytes, 1), dst(bytes, 0);
        l.copyOneThreadBytesPerS = 2.0 * double(bytes) / bestOf5([&] { std::memcpy(dst.data(), src.data(), bytes); });
    }

    l.threads = cpu::threads();
    const size_t T = size_t(l.threads);

    // Copy: each thread copies its own 8 MiB slice; the slices move through 128 MiB buffers
    // (4x the 32 MiB L3 of the development VM, more than any L3 of 2 to 16 cores), so a pass's
    // slices were last touched 128 MiB ago and come from memory.
    const size_t slice = size_t(2) << 20;   // floats: 8 MiB
    const size_t bufferFloats = std::max(size_t(32) << 20, 2 * T * slice);
    const size_t slots = bufferFloats / slice;   // slices in a buffer
    std::vector<float> src(bufferFloats, 1.f), dst(bufferFloats, 0.f);
    volatile float one = 1.f;
    const float s = one;

    // exp: every thread runs vexp over its own 4,096 floats, 200 times (about half a
    // millisecond on a Zen 5 core).
    const int64_t block = 4096, reps = 200;
    std::vector<std::vector<float>> in(T), out(T);
    for (size_t t = 0; t < T; ++t) {
        in[t].resize(size_t(block));
        out[t].resize(size_t(block));
        for (int64_t i = 0; i < block; ++i)
            in[t][size_t(i)] = -20.f + 40.f * float(i) / float(block);
    }

    // The fp32 roof: the GEMM's register tile with its operands in cache, on every thread at
    // once, where the backend's own GEMM has it (AVX-512F). The workloads' products run above
    // the 1024^3 rate (their panels fit the caches better), so 1024^3 alone was a roof below
    // the ops it bounds.
    const bool tile = cpu::smallGemmAvailable();
    const int64_t tm = 128, tn = 64, tk = 128, calls = 60;   // 60 x 2.1 MFLOP: ~0.5 ms on a Zen 5 core
    std::vector<std::vector<float>> ta(T), tb(T), tc(T);
    if (tile)
        for (size_t t = 0; t < T; ++t) {
            ta[t].assign(size_t(tm * tk), 0.5f);
            tb[t].assign(size_t(tk * tn), 0.25f);
            tc[t].assign(size_t(tm * tn), 0.f);
        }

    // The scalar loop: [256, 64] rows (64 KiB in, 64 KiB out: in L2), 4 taps, 4 calls a pass.
    volatile int64_t sizes[3] = {256, 64, 4};
    const int64_t sS = sizes[0], sC = sizes[1], sK = sizes[2], sN = sS * sC, scalarCalls = 4;
    std::vector<std::vector<float>> sx(T), sw(T), sy(T);
    for (size_t t = 0; t < T; ++t) {
        sx[t].assign(size_t(sN), 0.5f);
        sw[t].assign(size_t(sC * sK), 0.25f);
        sy[t].assign(size_t(sN), 0.f);
    }

    // The window: the four measures in turn, pass by pass, so each samples all of it (on the VM
    // the attainable bandwidth changes between regimes that last 0.1-2 s). At least 30 passes
    // of each (after a warm-up pass each) when the window is short.
    // The threads sharing one core (the VM's vCPUs on one host core, which the guest cannot
    // see: its CPU times still read 100%) show as an exp rate on every thread no better than
    // one thread's: then the window is extended, up to two more, until a pass shows the cores.
    Best best[5];
    Best alone;   // vexp on the calling thread alone
    const auto w0 = Clock::now();
    double window = windowSeconds;
    auto sharing = [&] {
        // A pass runs `reps` blocks on each thread: on T cores it takes one thread's time, on one
        // core T times that.
        return T > 1 && best[2].valid > 0 && alone.valid > 0 && best[2].seconds() > 0.75 * double(T) * alone.seconds();
    };
    for (int64_t pass = 0; pass < 31 || seconds(w0, Clock::now()) < window; ++pass) {
        if (pass >= 31 && seconds(w0, Clock::now()) >= window - 1e-9)
            break;
        const size_t at = size_t(pass) % (slots / T) * T;   // this pass's first slice
        const Pass store = passOnEveryThread(l.threads, [&](size_t t) {
            cpu::scaleCopyRange(src.data() + (at + t) * slice, dst.data() + (at + t) * slice, s, int64_t(slice));
        });
        const Pass copy = passOnEveryThread(l.threads, [&](size_t t) {
            const size_t o = (slots / 2 + at + t) % slots * slice;   // the other half of the buffers: cold too
            std::memcpy(dst.data() + o, src.data() + o, slice * sizeof(float));
        });
        const Pass exp = passOnEveryThread(l.threads, [&](size_t t) {
            for (int64_t r = 0; r < reps; ++r)
                cpu::expRange(in[t].data(), out[t].data(), block);
        });
        Pass gemm;
        if (tile)
            gemm = passOnEveryThread(l.threads, [&](size_t t) {
                for (int64_t r = 0; r < calls; ++r)
                    cpu::smallGemm(false, false, tm, tn, tk, 1.f, ta[t].data(), tk, tb[t].data(), tn, 0.f, tc[t].data(), tn);
            });
        const Pass scalar = passOnEveryThread(l.threads, [&](size_t t) {
            for (int64_t r = 0; r < scalarCalls; ++r)
                scalarStencil(sx[t].data(), sw[t].data(), sy[t].data(), sN, sS, sC, sK);
        });
        Pass one;
        if (pass % 8 == 0) {
            const double c0 = threadCpuSeconds();
            const auto t0 = Clock::now();
            for (int64_t r = 0; r < reps; ++r)
                cpu::expRange(in[0].data(), out[0].data(), block);
            one.seconds = seconds(t0, Clock::now());
            one.counts = threadCpuSeconds() - c0 >= 0.9 * one.seconds;
        }
        if (pass == 0)
            continue;   // warm-up: first touch of the slices, the pool's start
        best[0].add(store);
        best[1].add(copy);
        best[2].add(exp);
        if (tile)
            best[3].add(gemm);
        best[4].add(scalar);
        if (pass % 8 == 0)
            alone.add(one);
        if (seconds(w0, Clock::now()) >= window && sharing() && window < 3 * windowSeconds)
            window += windowSeconds;
    }
    l.windowSeconds = seconds(w0, Clock::now());
    const double copied = 2.0 * double(T * slice * sizeof(float));   // read + written, as the ops count
    l.copyStoreBytesPerS = copied / best[0].seconds();
    l.copyMemcpyBytesPerS = copied / best[1].seconds();
    l.copyBytesPerS = std::max(l.copyStoreBytesPerS, l.copyMemcpyBytesPerS);
    l.expPerS = double(T) * double(block) * double(reps) / best[2].seconds();
    if (tile)
        l.sgemmTileFlopPerS = double(T) * double(calls) * 2.0 * double(tm * tn * tk) / best[3].seconds();
    l.sgemmFlopPerS = std::max(l.sgemmLargeFlopPerS, l.sgemmTileFlopPerS);
    l.scalarFlopPerS = double(T) * double(scalarCalls) * 2.0 * double(sN * sK) / best[4].seconds();
    for (int k = 0; k < 5; ++k) {
        l.validPasses[k] = best[k].valid;
        l.passes[k] = best[k].runs;
    }

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
