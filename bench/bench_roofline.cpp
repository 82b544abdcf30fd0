// Roofline of the CPU backend (issue 28): per op of a workload, the achieved FLOP/s and B/s
// against this machine's limits, and how far each op is from its bound.
//
// Limits, measured first with `wheretime calibrate`'s own measurement (kernels/cpulimits.h:
// OpenBLAS 1024^3 best of 5; memcpy of 64 MiB, bytes read + written, best of 5; the row
// kernels' vexp over an L1-resident block on every pool thread, best of 30 runs of about a
// millisecond; the median 1x1x1 sgemm call).
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
// --before vectorized: the A side is the vectorized kernels on one thread (the pool's effect).
// --kernels: the row kernels alone on the pool (no capture, no tracer), at the shapes of the
// small presets, in cache and out of it, each against the same bound: which part of an op's
// distance to its bound is the kernel's own.
#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"
#include "analysis/rooflinetable.h"
#include "capture/capture.h"
#include "kernels/backend.h"
#include "kernels/cpulimits.h"
#include "kernels/cpurows.h"
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
    wt::DeviceSpec device;  // fp32Flops, bf16Flops, memoryBytesPerS (copy, 1 thread), launchOverheadNs, expPerS
    double bytesPool = 0;   // B/s, the same copy split over the pool's threads (shown, not used)
    double sgemmLarge = 0, sgemmTile = 0;   // FLOP/s, the two measures the fp32 roof is the larger of (shown)
};

Limits measureLimits()
{
    const wt::kernels::CpuLimits c = wt::kernels::measureCpuLimits();
    Limits l;
    wt::DeviceSpec& d = l.device;
    d.name = "cpu";
    d.kind = "cpu";
    d.fp32Flops = c.sgemmFlopPerS;
    d.bf16Flops = c.bf16FlopPerS;
    d.memoryBytesPerS = d.hostLinkBytesPerS = c.copyBytesPerS;
    d.launchOverheadNs = c.smallOpNs;
    d.expPerS = c.expPerS;
    l.bytesPool = c.copyPoolBytesPerS;
    l.sgemmLarge = c.sgemmLargeFlopPerS;
    l.sgemmTile = c.sgemmTileFlopPerS;
    return l;
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
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> workloads = {"gcn", "transformer", "bert"};
    std::string preset = "small", variant = "adaptive", file = "/tmp/wheretime-bench-roofline.wt";
    int steps = 2, rounds = 3;
    bool ab = false, kernelsOnly = false;
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
                                 "[--steps N] [--rounds R] [--ab [--before plain|vectorized]] [--min-ms MS] [--file PATH] | --kernels\n");
            return 2;
        }
    }

    setConfig(1);
    const Limits lim = measureLimits();
    double load[3] = {0, 0, 0};
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = -1;
        std::fclose(f);
    }
    const wt::DeviceSpec& dev = lim.device;
    std::printf("limits: sgemm %.1f GFLOP/s (1024^3 %.1f, in-cache tile on every thread %.1f), bf16 GEMM %.1f GFLOP/s, copy %.2f GB/s (1 thread, calibrate's; %.2f GB/s on %d threads), "
                "exp %.2f Gexp/s (%d threads), launch %.0f ns (calibrate's small op); load average %.2f %.2f %.2f\n",
                dev.fp32Flops / 1e9, lim.sgemmLarge / 1e9, lim.sgemmTile / 1e9, dev.bf16Flops / 1e9, dev.memoryBytesPerS / 1e9, lim.bytesPool / 1e9,
                wt::kernels::cpu::threads(), dev.expPerS / 1e9, wt::kernels::cpu::threads(), dev.launchOverheadNs, load[0],
                load[1], load[2]);

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
