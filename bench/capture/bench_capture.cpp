// Capture benchmark: tracer overhead (traced vs untraced step time, median of several
// alternating runs) and the cost of writing the file beyond the compute itself.
// usage: bench_capture [--workload gcn|transformer|all] [--preset small] [--steps N] [--repeats R] [--backend cpu|cuda]
#include "capture/capture.h"
#include "capture/cputracer.h"
#include "capture/recordsink.h"
#include "storage/database.h"
#include "storage/writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The cost of one commit point (Writer::commit at a step boundary) on the sink's writer
// thread: `launches` activities with their op scope instances, then the commit, for `steps`
// steps; the median commit time. The file is on /tmp like the capture's.
static double commitCostNs(int64_t launches, int steps)
{
    std::string file = "/tmp/wheretime-bench-commit.wt";
    for (const char* s : {"", "-wal", "-shm"})
        ::unlink((file + s).c_str());
    wt::Database db(file, wt::OpenMode::ReadWrite);
    wt::Writer w(db);
    wt::RunInfo info;
    info.backend = "cpu";
    w.beginRun(info);
    int64_t track = w.addTrack(0, 0, wt::TrackKind::Kernel);
    int64_t step = w.addScope(0, "step", "step");
    int64_t layer = w.addScope(w.addScope(step, "forward", "phase"), "conv1", "layer");
    std::vector<int64_t> ops;
    std::vector<uint32_t> names;
    for (int i = 0; i < 40; ++i) {
        ops.push_back(w.addScope(layer, "op" + std::to_string(i), "op"));
        names.push_back(w.intern("kernel_" + std::to_string(i)));
    }
    std::vector<double> costs;
    int64_t t = 0;
    for (int s = 0; s < steps; ++s) {
        int64_t si = w.beginScopeInstance(step, 0, t);
        for (int64_t i = 0; i < launches; ++i) {
            int64_t oi = w.beginScopeInstance(ops[size_t(i) % ops.size()], si, t);
            wt::Activity a;
            a.trackId = track;
            a.startNs = t + 10;
            a.endNs = t + 900;
            a.nameId = names[size_t(i) % names.size()];
            a.scopeInstanceId = oi;
            w.addActivity(a);
            t += 1000;
            w.endScopeInstance(oi, t);
        }
        w.endScopeInstance(si, t);
        auto c0 = Clock::now();
        w.commit();
        costs.push_back(std::chrono::duration<double, std::nano>(Clock::now() - c0).count());
    }
    w.finishRun(wt::RunStatus::Complete, t);
    return median(costs);
}

int main(int argc, char** argv)
{
    std::string workload = "all", preset = "small", backend = "cpu";
    int steps = 10, repeats = 5;
    for (int i = 1; i < argc; ++i) {
        auto next = [&] { return i + 1 < argc ? argv[++i] : (std::fprintf(stderr, "missing value\n"), std::exit(2), ""); };
        if (!std::strcmp(argv[i], "--workload")) workload = next();
        else if (!std::strcmp(argv[i], "--preset")) preset = next();
        else if (!std::strcmp(argv[i], "--backend")) backend = next();
        else if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(next());
        else if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(next());
        else { std::fprintf(stderr, "usage: bench_capture [--workload W|all] [--preset P] [--steps N] [--repeats R] [--backend cpu|cuda]\n"); return 2; }
    }
    // The tracer's own cost per op (scope enter + launch begin/end + scope exit), measured in
    // a tight loop: unlike step-time differences it is not drowned by machine noise.
    double perOpNs = 0;
    {
        std::string file = "/tmp/wheretime-bench-tracer.wt";
        for (const char* s : {"", "-wal", "-shm"})
            ::unlink((file + s).c_str());
        wt::Database db(file, wt::OpenMode::ReadWrite);
        wt::Writer writer(db);
        wt::RunInfo info;
        info.backend = "cpu";
        writer.beginRun(info);
        const int n = 200000;
        {
            wt::capture::RecordSink sink(writer);
            wt::capture::CpuTracer tracer(sink, nullptr);
            const char* names[] = {"sgemm_nn", "glu_forward", "residual_add", "log_softmax"};
            tracer.scopeEnter("step", wt::kernels::ScopeLevel::Step);
            tracer.scopeEnter("forward", wt::kernels::ScopeLevel::Phase);
            tracer.scopeEnter("conv1", wt::kernels::ScopeLevel::Layer);
            auto t0 = Clock::now();
            for (int i = 0; i < n; ++i) {
                tracer.scopeEnter(names[i % 4], wt::kernels::ScopeLevel::Op);
                tracer.launchBegin(wt::kernels::OpLaunch{names[i % 4], 0, 0});
                tracer.launchEnd();
                tracer.scopeExit();
            }
            perOpNs = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / n;
            tracer.closeOpenScopes();
            sink.close();
        }
        writer.finishRun(wt::RunStatus::Complete, 0);
        std::printf("CPU tracer cost per op (scope + launch, %d ops): %.0f ns\n\n", n, perOpNs);
    }
    std::vector<std::string> workloads = workload == "all" ? std::vector<std::string>{"gcn", "transformer"} : std::vector<std::string>{workload};
    std::vector<std::tuple<std::string, int64_t, double>> commits;
    std::printf("%-12s %-8s %6s %14s %14s %9s %10s %16s\n", "workload", "preset", "steps", "untraced step", "traced step", "overhead",
                "by cost", "file outside steps");
    for (const std::string& w : workloads) {
        std::vector<double> untraced, traced, untracedTotal, tracedTotal, fileOverhead;
        int64_t launchesPerStep = 0;
        for (int r = 0; r < repeats; ++r) {
            // Alternate traced and untraced runs so drifts of the machine hit both alike.
            for (bool trace : {false, true}) {
                wt::capture::CaptureOptions o;
                o.workload = w;
                o.preset = preset;
                o.backend = backend;
                o.steps = steps;
                o.warmup = 1;
                o.trace = trace;
                std::string file = "/tmp/wheretime-bench-capture.wt";
                for (const char* s : {"", "-wal", "-shm"})
                    ::unlink((file + s).c_str());
                o.output = file;
                auto t0 = Clock::now();
                auto res = wt::capture::runCapture(o);
                double total = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
                (trace ? traced : untraced).push_back(res.medianStepNs);
                if (trace && res.stepsDone > 0)
                    launchesPerStep = res.kernels / res.stepsDone;
                if (trace)
                    fileOverhead.push_back(double(res.fileOverheadNs));
                (trace ? tracedTotal : untracedTotal).push_back(total);
            }
        }
        double u = median(untraced), t = median(traced);
        double beyond = median(fileOverhead);
        // Launches per step come from the traced runs' kernel counts.
        double byCost = perOpNs * double(launchesPerStep) / u * 100;
        std::printf("%-12s %-8s %6d %11.3f ms %11.3f ms %8.2f%% %9.3f%% %13.1f ms\n", w.c_str(), preset.c_str(), steps, u / 1e6,
                    t / 1e6, (t / u - 1) * 100, byCost, beyond / 1e6);
        commits.emplace_back(w, launchesPerStep, u);
    }
    // Durability: every step ends with a commit point on the writer thread (a kill -9 loses
    // at most the step in progress). Its cost against the untraced step time:
    std::printf("\n%-12s %18s %14s %14s\n", "workload", "records per step", "commit", "of a step");
    for (const auto& [w, launches, stepNs] : commits) {
        double c = commitCostNs(launches, 200);
        std::printf("%-12s %18lld %11.1f us %13.3f%%\n", w.c_str(), (long long)launches, c / 1e3, c / stepNs * 100);
    }
    return 0;
}
