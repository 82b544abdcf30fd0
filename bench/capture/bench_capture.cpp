// Capture benchmark: tracer overhead (traced vs untraced step time, median of several
// alternating runs) and the cost of writing the file beyond the compute itself.
// usage: bench_capture [--workload gcn|transformer|all] [--preset small] [--steps N] [--repeats R] [--backend cpu|cuda]
#include "capture/capture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
    std::vector<std::string> workloads = workload == "all" ? std::vector<std::string>{"gcn", "transformer"} : std::vector<std::string>{workload};
    std::printf("%-12s %-8s %6s %14s %14s %9s %16s\n", "workload", "preset", "steps", "untraced step", "traced step", "overhead", "write beyond");
    for (const std::string& w : workloads) {
        std::vector<double> untraced, traced, untracedTotal, tracedTotal;
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
                (trace ? tracedTotal : untracedTotal).push_back(total);
            }
        }
        double u = median(untraced), t = median(traced);
        double beyond = median(tracedTotal) - median(untracedTotal);
        std::printf("%-12s %-8s %6d %11.3f ms %11.3f ms %8.2f%% %13.1f ms\n", w.c_str(), preset.c_str(), steps, u / 1e6,
                    t / 1e6, (t / u - 1) * 100, beyond / 1e6);
    }
    return 0;
}
