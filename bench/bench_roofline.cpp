// Roofline of the CPU backend (issue 28): per op of a workload, the achieved FLOP/s and B/s
// against this machine's limits, and how far each op is from its bound.
//
// Limits, measured first with `wheretime calibrate`'s own measurement (kernels/cpulimits.h:
// the backend's GEMM at 1024^3 best of 5 and its register tile on every pool thread; the copy
// of 8 MiB slices of 128 MiB buffers on every pool thread, ordinary stores and memcpy, bytes
// read + written; the row kernels' vexp over an L1-resident block on every pool thread; each
// of these three the best pass of a 4 s window in which every thread ran together and
// unpreempted; the median 1x1x1 sgemm call).
// Ops: each workload is captured with the CPU tracer into a scratch file and read back as op
// features (analysis/opfeatures.h), and the table is analysis/rooflinetable.h's, what
// `wheretime roofline` prints for a capture: an op's bound is the sum over its launches of the
// roofline time of analysis/costmodel.h (the one `wheretime predict` uses),
//   max(FLOPs / sgemm rate (the bf16 GEMM's for bf16gemm_*), bytes / copy bandwidth, exps / exp throughput)
//     + the fixed cost of a launch,
// with exps = elements x the exps per element of the op's definition (analysis' transcendentals);
// "x bound" is the measured time over the bound time (1.0 = at the machine's limit); "bound by"
// names the largest term ("launch" where the fixed cost outweighs the work). Times per step are
// medians over the rounds; the table is printed as Markdown for docs/performance.md.
// --ab alternates, in this one process, the plain functor loops on one thread (the backend
// before issue 28) and the vectorized kernels on the pool (now), and adds their times.
//
// usage: bench_roofline [--workloads gcn,transformer,bert] [--preset P] [--variant V]
//                       [--steps N] [--rounds R] [--ab [--before plain|vectorized]] [--min-ms MS]
//                       [--file PATH]
//        bench_roofline --kernels
//        bench_roofline --limits N [--window S]
// --before vectorized: the A side is the vectorized kernels on one thread (the pool's effect).
// --kernels: the row kernels alone on the pool (no capture, no tracer), at the shapes of the
// small presets, in cache and out of it, each against the same bound: which part of an op's
// distance to its bound is the kernel's own.
// --limits N: N calibrations back to back, each beside the fifth round's measures (memcpy on
// one thread best of 5, vexp on the pool best of 30 passes without the checks), to show how
// much repeated calibrations agree; --window S: the calibration's window (default 4 s).
#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"
#include "analysis/rooflinetable.h"
#include "capture/capture.h"
#include "kernels/backend.h"
#include "kernels/cpulimits.h"
#include "kernels/cpurows.h"
#include "kernels/layers.h"
#include "kernels/runtime.h"
#include "render/tablewriter.h"
#include "render/textformat.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// This machine as a cost-model device: calibrate's measurement.
struct Limits {
    wt::DeviceSpec device;  // fp32Flops, bf16Flops, memoryBytesPerS (copy on every thread), launchOverheadNs, expPerS
    wt::kernels::CpuLimits cpu;   // the measurement, with the parts of each roof (shown)
};

double g_window = 4.0;   // --window: calibration's window, s

Limits measureLimits()
{
    const wt::kernels::CpuLimits c = wt::kernels::measureCpuLimits(g_window);
    Limits l;
    l.cpu = c;
    wt::DeviceSpec& d = l.device;
    d.name = "cpu";
    d.kind = "cpu";
    d.fp32Flops = c.sgemmFlopPerS;
    d.bf16Flops = c.bf16FlopPerS;
    d.memoryBytesPerS = d.hostLinkBytesPerS = c.copyBytesPerS;
    d.launchOverheadNs = c.smallOpNs;
    d.expPerS = c.expPerS;
    return l;
}

double loadAverage()
{
    double load = -1;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1)
            load = -1;
        std::fclose(f);
    }
    return load;
}

void printLimits(const Limits& lim)
{
    const wt::kernels::CpuLimits& c = lim.cpu;
    const wt::DeviceSpec& dev = lim.device;
    std::printf("limits: sgemm %.1f GFLOP/s (1024^3 %.1f, in-cache tile on every thread %.1f), bf16 GEMM %.1f GFLOP/s, "
                "copy %.2f GB/s (on every thread, read + written: ordinary stores %.2f, memcpy %.2f; memcpy on 1 thread %.2f), "
                "exp %.2f Gexp/s (%d threads), launch %.0f ns (calibrate's small op); passes that counted: copy %d/%d, %d/%d, "
                "exp %d/%d, tile %d/%d in %.1f s; load average %.2f\n",
                dev.fp32Flops / 1e9, c.sgemmLargeFlopPerS / 1e9, c.sgemmTileFlopPerS / 1e9, dev.bf16Flops / 1e9,
                dev.memoryBytesPerS / 1e9, c.copyStoreBytesPerS / 1e9, c.copyMemcpyBytesPerS / 1e9,
                c.copyOneThreadBytesPerS / 1e9, dev.expPerS / 1e9, c.threads, dev.launchOverheadNs, c.validPasses[0],
                c.passes[0], c.validPasses[1], c.passes[1], c.validPasses[2], c.passes[2], c.validPasses[3], c.passes[3],
                c.windowSeconds, loadAverage());
}

// --limits N: N calibrations, each with the fifth round's exp measure beside it (vexp on the
// pool, best of 30 passes, a pass whatever threads ran it) and its copy (memcpy of 64 MiB on
// one thread, best of 5: CpuLimits::copyOneThreadBytesPerS), then each figure's spread.
void repeatLimits(int runs)
{
    namespace cpu = wt::kernels::cpu;
    std::vector<double> copyOld, copyNew, expOld, expNew, tile;
    for (int run = 0; run < runs; ++run) {
        const int T = cpu::threads();
        std::vector<std::vector<float>> in(size_t(T), std::vector<float>(4096)), out(size_t(T), std::vector<float>(4096));
        for (auto& v : in)
            for (size_t i = 0; i < v.size(); ++i)
                v[i] = -20.f + 40.f * float(i) / 4096.f;
        double best = 1e30;
        for (int rep = 0; rep < 31; ++rep) {
            auto t0 = Clock::now();
            cpu::parallelFor(T, 1, [&](int64_t lo, int64_t hi) {
                for (int64_t t = lo; t < hi; ++t)
                    for (int r = 0; r < 200; ++r)
                        cpu::expRange(in[size_t(t)].data(), out[size_t(t)].data(), 4096);
            });
            if (rep > 0)
                best = std::min(best, seconds(t0, Clock::now()));
        }
        const double oldExp = double(T) * 4096.0 * 200.0 / best;
        const Limits lim = measureLimits();
        std::printf("run %d: fifth round's measure: copy %.2f GB/s (memcpy, 1 thread), exp %.2f Gexp/s; now: ", run + 1,
                    lim.cpu.copyOneThreadBytesPerS / 1e9, oldExp / 1e9);
        printLimits(lim);
        copyOld.push_back(lim.cpu.copyOneThreadBytesPerS);
        copyNew.push_back(lim.device.memoryBytesPerS);
        expOld.push_back(oldExp);
        expNew.push_back(lim.device.expPerS);
        tile.push_back(lim.cpu.sgemmTileFlopPerS);
    }
    auto spread = [](const char* what, std::vector<double> v, double unit) {
        std::sort(v.begin(), v.end());
        std::printf("%s: %.2f - %.2f (max / min %.2f)\n", what, v.front() / unit, v.back() / unit, v.back() / v.front());
    };
    spread("copy GB/s, fifth round's (memcpy, 1 thread, best of 5)", copyOld, 1e9);
    spread("copy GB/s, now (every thread, best pass of the window)", copyNew, 1e9);
    spread("exp Gexp/s, fifth round's (pool, best of 30)", expOld, 1e9);
    spread("exp Gexp/s, now (every thread together, best pass of the window)", expNew, 1e9);
    spread("tile GFLOP/s, now", tile, 1e9);
}

// A table as Markdown, each cell in the writer's text (render::cellText), its text columns only;
// `extra` adds columns (header, one cell per row).
void printMarkdown(const wt::Table& t, const std::vector<std::pair<std::string, std::vector<std::string>>>& extra = {})
{
    std::vector<size_t> shown;
    for (size_t c = 0; c < t.columns.size(); ++c)
        if (t.columns[c].inText)
            shown.push_back(c);
    std::string line = "|", rule = "|";
    for (size_t c : shown)
        line += " " + t.columns[c].title + " |", rule += " --- |";
    for (const auto& [title, cells] : extra)
        line += " " + title + " |", rule += " --- |";
    std::printf("%s\n%s\n", line.c_str(), rule.c_str());
    for (size_t r = 0; r < t.rows.size(); ++r) {
        line = "|";
        for (size_t c : shown)
            line += " " + wt::render::cellText(t.columns[c], t.rows[r][c]) + " |";
        for (const auto& [title, cells] : extra)
            line += " " + (r < cells.size() ? cells[r] : std::string()) + " |";
        std::printf("%s\n", line.c_str());
    }
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

bool g_beforeVectorized = false;   // --before vectorized: A = the vectorized kernels on 1 thread

void setConfig(int config)
{
    wt::kernels::cpu::setVectorized(config == 1 || g_beforeVectorized);
    wt::kernels::cpu::setThreads(config == 1 ? 0 : 1);
}

// --kernels: best of 7 of each row kernel on the pool, against its bound from the limits.
void timeKernels(const Limits& lim)
{
    namespace cpu = wt::kernels::cpu;
    auto best = [](auto&& f) {
        double b = 1e30;
        for (int rep = 0; rep < 8; ++rep) {
            auto t0 = Clock::now();
            f();
            if (rep > 0)
                b = std::min(b, seconds(t0, Clock::now()));
        }
        return b;
    };
    std::printf("\n| kernel | rows x n | data MB | ms | bound by | bound ms | x bound |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    auto row = [&](const char* name, int64_t rows, int64_t n, double seconds, double exps, double bytes) {
        const double te = exps / lim.device.expPerS, tb = bytes / lim.device.memoryBytesPerS, bound = std::max(te, tb);
        std::printf("| %s | %lld x %lld | %.1f | %.3f | %s | %.3f | %.2f |\n", name, static_cast<long long>(rows),
                    static_cast<long long>(n), bytes / 1e6, seconds * 1e3, te >= tb ? "exp" : "mem", bound * 1e3,
                    seconds / bound);
    };
    // The head of gcn small (1,024 tokens x 10,002: out of cache) and paper (4,096), one that fits in L2, the
    // encoder's attention rows (S = 128), and the optimizer's and the norm's streams.
    const std::pair<int64_t, int64_t> shapes[] = {{1024, 10002}, {4096, 10002}, {16, 10002}, {4096, 128}};
    for (const auto& [rows, n] : shapes) {
        const size_t size = size_t(rows * n);
        std::vector<float> x(size), y(size), dy(size, 0.f), dx(size);
        for (size_t i = 0; i < size; ++i)
            x[i] = float((i * 7919) % 1000) * 0.01f - 5.f;
        for (size_t i = 0; i < size; i += 97)
            dy[i] = -0.01f;
        const int64_t minRows = std::max<int64_t>(1, 32768 / n);   // launch.h's kCpuMinWork
        const double e = double(size);
        row("log_softmax_forward", rows, n, best([&] {
                cpu::parallelFor(rows, minRows, [&](int64_t lo, int64_t hi) {
                    cpu::logSoftmaxForwardRows(x.data(), y.data(), n, n, n, lo, hi);
                });
            }), e, 12 * e);   // the bytes the op declares (softmax.cpp): x read twice, y written
        row("log_softmax_backward", rows, n, best([&] {
                cpu::parallelFor(rows, minRows, [&](int64_t lo, int64_t hi) {
                    cpu::logSoftmaxBackwardRows(y.data(), dy.data(), dx.data(), n, n, lo, hi);
                });
            }), e, 16 * e);
        {
            std::vector<int32_t> target(static_cast<size_t>(rows));
            std::vector<float> loss(static_cast<size_t>(rows));
            for (int64_t r = 0; r < rows; ++r)
                target[size_t(r)] = int32_t((r * 37) % n);
            std::vector<float> g = x;   // in place: each call works on the last one's gradient (same work)
            row("fused_logsoftmax_loss_grad", rows, n, best([&] {
                    cpu::parallelFor(rows, minRows, [&](int64_t lo, int64_t hi) {
                        cpu::fusedLogSoftmaxLossRows(g.data(), n, n, target.data(), 1.f / float(rows), loss.data(), nullptr,
                                                     lo, hi);
                    });
                }), e, 12 * e);   // one exp per logit; x read twice (the second time from cache) and written
        }
        if (n <= 1024)
            row("attention_softmax_forward", rows, n, best([&] {
                    cpu::parallelFor(rows, minRows, [&](int64_t lo, int64_t hi) {
                        cpu::softmaxRows(x.data(), y.data(), n, 0.125f, false, lo, hi);
                    });
                }), e, 8 * e);
    }
    // The causal softmax of the transformer (2,048 rows of 128: exps counted for every score, as
    // the op declares, though only the seen half needs one), GELU (2,048 x 1,024: its ffn) and
    // GLU (1,024 x 256, h 1,024 x 512: gcn's), col2im (gcn: k 4), as forEach / rowOp split them.
    {
        const int64_t rows = 2048, S = 128;
        std::vector<float> x(static_cast<size_t>(rows * S)), p(x.size());
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = float((i * 7919) % 1000) * 0.01f - 5.f;
        row("causal_softmax_forward", rows, S, best([&] {
                cpu::parallelFor(rows, std::max<int64_t>(1, 32768 / S), [&](int64_t lo, int64_t hi) {
                    cpu::softmaxRows(x.data(), p.data(), S, 0.125f, true, lo, hi);
                });
            }), double(rows * S), 8.0 * double(rows * S));
    }
    {
        const int64_t n = 2048 * 1024;
        std::vector<float> x(static_cast<size_t>(n)), dy(static_cast<size_t>(n), 0.5f), y(static_cast<size_t>(n)), dx(static_cast<size_t>(n));
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = float((i * 7919) % 1000) * 0.008f - 4.f;
        row("gelu_forward", 1, n, best([&] {
                cpu::parallelFor(n, 32768, [&](int64_t lo, int64_t hi) { cpu::geluForwardRange(x.data(), y.data(), lo, hi); });
            }), double(n), 8.0 * double(n));
        row("gelu_backward", 1, n, best([&] {
                cpu::parallelFor(n, 32768, [&](int64_t lo, int64_t hi) { cpu::geluBackwardRange(x.data(), dy.data(), dx.data(), lo, hi); });
            }), 2.0 * double(n), 12.0 * double(n));
    }
    {
        const int64_t T = 1024, C = 256, K = 4, S = 128, n = T * C;
        std::vector<float> h(static_cast<size_t>(2 * n)), dout(static_cast<size_t>(n), 0.5f), out(static_cast<size_t>(n)), dh(static_cast<size_t>(2 * n));
        for (size_t i = 0; i < h.size(); ++i)
            h[i] = float((i * 7919) % 1000) * 0.01f - 5.f;
        row("glu_forward", T, C, best([&] {
                cpu::parallelFor(n, 32768, [&](int64_t lo, int64_t hi) { cpu::gluForwardRange(h.data(), out.data(), C, lo, hi); });
            }), double(n), 12.0 * double(n));
        row("glu_backward", T, C, best([&] {
                cpu::parallelFor(n, 32768, [&](int64_t lo, int64_t hi) { cpu::gluBackwardRange(h.data(), dout.data(), dh.data(), C, lo, hi); });
            }), double(n), 20.0 * double(n));
        std::vector<float> dcol(static_cast<size_t>(n * K), 0.25f), dx(static_cast<size_t>(n));
        row("col2im", T, C, best([&] {
                cpu::parallelFor(n, 32768, [&](int64_t lo, int64_t hi) { cpu::col2imRange(dcol.data(), dx.data(), S, C, K, false, lo, hi); });
            }), 0, 4.0 * double(n) * double(K + 1));
    }
    // The column reductions (bias_grad, layernorm_param_grad) as colReduce runs them: column
    // chunks of at least 128 on the pool; the shapes of the small presets (1,024 x 256, bert's 1,024 x 1,024) and a taller one.
    for (const auto& [rows, n] : {std::pair<int64_t, int64_t>{1024, 256}, {4096, 256}, {1024, 1024}}) {
        const size_t size = size_t(rows * n);
        std::vector<float> x(size, 0.5f), y(size, 0.25f), mean(size_t(rows), 0.1f), rstd(size_t(rows), 2.f);
        std::vector<float> out(static_cast<size_t>(n)), g(static_cast<size_t>(n)), b(static_cast<size_t>(n));
        const int64_t minColumns = std::max<int64_t>(128, 32768 / rows);
        row("bias_grad", rows, n, best([&] {
                cpu::parallelFor(n, minColumns, [&](int64_t lo, int64_t hi) {
                    cpu::columnSumColumns(y.data(), out.data(), rows, n, lo, hi);
                });
            }), 0, 4.0 * double(size));
        row("layernorm_param_grad", rows, n, best([&] {
                cpu::parallelFor(n, minColumns, [&](int64_t lo, int64_t hi) {
                    cpu::layerNormParamGradColumns(x.data(), y.data(), mean.data(), rstd.data(), g.data(), b.data(), rows, n,
                                                   lo, hi);
                });
            }), 0, 8.0 * double(size));
    }
    for (int64_t n : {int64_t(65536), int64_t(4) << 20}) {
        std::vector<float> w(size_t(n), 1.f), g(size_t(n), 0.01f), v(size_t(n), 0.f);
        row("sgd_update (momentum)", 1, n, best([&] {
                cpu::parallelFor(n, 32768, [&](int64_t lo, int64_t hi) { cpu::sgdRange(w.data(), g.data(), v.data(), 0.1f, 0.9f, 1.f, lo, hi); });
            }), 0, 20.0 * double(n));
        volatile double sink = 0;
        row("grad_norm_sq", 1, n, best([&] {
                const int64_t blocks = (n + 16383) / 16384;   // launch.h's reduceAdd blocks
                std::vector<double> part(static_cast<size_t>(blocks));
                cpu::parallelFor(blocks, 2, [&](int64_t lo, int64_t hi) {
                    for (int64_t b = lo; b < hi; ++b)
                        part[size_t(b)] = cpu::sumSquaresRange(g.data(), b * 16384, std::min(n, (b + 1) * 16384));
                });
                double t = 0;
                for (double p : part)
                    t += p;
                sink = sink + t;
            }), 0, 4.0 * double(n));
    }
    // A layer's gradient norm as the update runs it (op::gradNormSq on the CPU runtime): bert
    // small's encoder layer, 12 tensors of 256 to 262,144 floats, in one launch, and the same
    // tensors one launch each (the sixth round's launches), alternating.
    {
        const int64_t d = 256, ffn = 1024;
        const int64_t sizes[] = {3 * d * d, 3 * d, d * d, d, d, d, ffn * d, ffn, d * ffn, d, d, d};
        std::vector<std::vector<float>> grads;
        std::vector<std::pair<const float*, int64_t>> tensors;
        double total = 0;
        for (int64_t n : sizes) {
            grads.emplace_back(size_t(n), 0.01f);
            total += double(n);
        }
        for (const auto& g : grads)
            tensors.emplace_back(g.data(), int64_t(g.size()));
        wt::kernels::Runtime rt(wt::kernels::makeCpuBackend());
        float normSq = 0.f;
        double one = 1e30, each = 1e30;
        for (int rep = 0; rep < 16; ++rep) {
            auto t0 = Clock::now();
            wt::kernels::op::gradNormSq(rt, tensors, &normSq);
            auto t1 = Clock::now();
            for (const auto& t : tensors)
                wt::kernels::op::gradNormSq(rt, {t}, &normSq);
            auto t2 = Clock::now();
            if (rep > 0) {
                one = std::min(one, seconds(t0, t1));
                each = std::min(each, seconds(t1, t2));
            }
        }
        row("grad_norm_sq (a layer: 12 tensors, 1 launch)", 1, int64_t(total), one, 0, 4.0 * total);
        row("grad_norm_sq (a layer: 12 tensors, 12 launches)", 12, int64_t(total), each, 0, 4.0 * total);
    }
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> workloads = {"gcn", "transformer", "bert"};
    std::string preset = "small", variant = "adaptive", file = "/tmp/wheretime-bench-roofline.wt";
    int steps = 2, rounds = 3;
    bool ab = false, kernelsOnly = false;
    int limitRuns = 0;
    double minMs = 1.0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_roofline: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--workloads") {
            workloads.clear();
            std::string v = next();
            for (size_t at = 0; at <= v.size();) {
                size_t comma = v.find(',', at);
                if (comma == std::string::npos)
                    comma = v.size();
                if (comma > at)
                    workloads.push_back(v.substr(at, comma - at));
                at = comma + 1;
            }
        } else if (a == "--preset") preset = next();
        else if (a == "--variant") variant = next();
        else if (a == "--steps") steps = std::max(1, std::atoi(next().c_str()));
        else if (a == "--rounds") rounds = std::max(1, std::atoi(next().c_str()));
        else if (a == "--min-ms") minMs = std::atof(next().c_str());
        else if (a == "--file") file = next();
        else if (a == "--ab") ab = true;
        else if (a == "--kernels") kernelsOnly = true;
        else if (a == "--limits") limitRuns = std::max(1, std::atoi(next().c_str()));
        else if (a == "--window") g_window = std::max(0.0, std::atof(next().c_str()));
        else if (a == "--before") {
            std::string v = next();
            if (v != "plain" && v != "vectorized") {
                std::fprintf(stderr, "bench_roofline: --before is plain or vectorized\n");
                return 2;
            }
            g_beforeVectorized = v == "vectorized";
        }
        else {
            std::fprintf(stderr, "usage: bench_roofline [--workloads gcn,transformer,bert] [--preset P] [--variant V] "
                                 "[--steps N] [--rounds R] [--ab [--before plain|vectorized]] [--min-ms MS] [--file PATH] [--window S] | --kernels | --limits N\n");
            return 2;
        }
    }

    setConfig(1);
    if (limitRuns > 0) {
        repeatLimits(limitRuns);
        return 0;
    }
    const Limits lim = measureLimits();
    printLimits(lim);

    if (kernelsOnly) {
        timeKernels(lim);
        return 0;
    }
    for (const std::string& workload : workloads) {
        using Key = std::pair<std::string, std::string>;   // (layer family, op)
        std::map<Key, wt::RooflineOp> features;            // the same in every run
        std::map<Key, std::vector<double>> ns[2];          // per round: [0] before, [1] now
        std::vector<double> stepNs[2];
        for (int round = 0; round < rounds; ++round) {
            for (int k = 0; k < (ab ? 2 : 1); ++k) {
                // Alternate which configuration goes first, so drift in the load hits both.
                const int config = ab ? ((round + k) % 2) : 1;
                setConfig(config);
                for (const char* suffix : {"", "-wal", "-shm"})
                    ::unlink((file + suffix).c_str());
                wt::capture::CaptureOptions o;
                o.workload = workload;
                o.preset = preset;
                o.variant = variant;
                o.backend = "cpu";
                o.steps = steps;
                o.warmup = 1;
                o.output = file;
                wt::capture::CaptureResult res;
                try {
                    res = wt::capture::runCapture(o);
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "bench_roofline: %s: %s\n", workload.c_str(), e.what());
                    return 1;
                }
                wt::Database db(file, wt::OpenMode::ReadOnly);
                wt::Reader reader(db);
                const wt::RunSamples rs = wt::loadRunSamples(reader, res.runId);
                if (rs.launches.empty() || rs.steps < 1) {
                    std::fprintf(stderr, "bench_roofline: %s: the capture stored no op features\n", workload.c_str());
                    return 1;
                }
                double total = 0;
                for (const wt::RooflineOp& op : wt::rooflineOps(rs, lim.device)) {
                    const Key key{op.layer, op.op};
                    features.try_emplace(key, op);
                    ns[config][key].push_back(op.measuredNs);
                    total += op.measuredNs;
                }
                stepNs[config].push_back(total);
            }
        }
        setConfig(1);

        // The ops with their median time now, largest first: rooflineTable's rows.
        std::vector<wt::RooflineOp> now;
        for (auto [key, op] : features) {
            op.measuredNs = median(ns[1][key]);
            now.push_back(op);
        }
        std::stable_sort(now.begin(), now.end(), [](const wt::RooflineOp& a, const wt::RooflineOp& b) { return a.measuredNs > b.measuredNs; });
        wt::RooflineOptions options;
        options.minNs = minMs * 1e6;
        const wt::Table table = wt::rooflineTable(now, lim.device, options);

        std::printf("\n%s %s %s: %d rounds x %d steps%s; per step, medians over rounds\n\n", workload.c_str(),
                    preset.c_str(), variant.c_str(), rounds, steps,
                    !ab ? ""
                        : g_beforeVectorized ? " (A/B alternating: before = vectorized on 1 thread, now = vectorized on the pool)"
                                             : " (A/B alternating: before = plain loops on 1 thread, now = vectorized on the pool)");
        std::vector<std::pair<std::string, std::vector<std::string>>> extra;
        double softNow = 0, softBefore = 0;
        for (const wt::RooflineOp& op : now)
            if (op.layer == "softmax") {
                softNow += op.measuredNs;
                softBefore += ab ? median(ns[0][{op.layer, op.op}]) : 0;
            }
        if (ab) {
            // Before, per row of the table: its op, the folded ops, the step.
            std::vector<std::string> before, speedup;
            double foldedBefore = 0, foldedNow = 0;
            auto add = [&](double b, double n) {
                before.push_back(wt::formatDuration(b));
                speedup.push_back(wt::fixedText(n > 0 ? b / n : 0.0, 2) + "x");
            };
            for (const wt::RooflineOp& op : now) {
                const double b = median(ns[0][{op.layer, op.op}]);
                if (op.measuredNs < options.minNs)
                    foldedBefore += b, foldedNow += op.measuredNs;
                else
                    add(b, op.measuredNs);
            }
            if (table.rows.size() > before.size() + 1)
                add(foldedBefore, foldedNow);
            add(median(stepNs[0]), median(stepNs[1]));
            extra = {{"before", before}, {"speedup", speedup}};
        }
        printMarkdown(table, extra);
        std::printf("\nsoftmax layer: %s a step%s; step (sum of its ops): %s\n", wt::formatDuration(softNow).c_str(),
                    ab ? (" (before " + wt::formatDuration(softBefore) + ")").c_str() : "",
                    wt::formatDuration(median(stepNs[1])).c_str());
    }
    return 0;
}
