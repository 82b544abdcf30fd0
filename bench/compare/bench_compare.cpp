// Compare benchmark: two synthetic N-kernel runs (one file, different seeds), compared by layer
// from the stored totals, and the kernel-level diff of the softmax layer. Each figure is the
// whole path a user waits for: open the file, load both runs (totals, scope tree, step count),
// compare. Median and max of --repeats.
// usage: bench_compare [--kernels N] [--file PATH] [--repeats R] [--regenerate]
#include "analysis/compare.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <time.h>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;
static double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
// CPU time of this thread (user + system): what a figure costs when the cores are not shared.
static double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Figure {
    std::vector<double> ms;
    void print(const char* what) const
    {
        std::vector<double> s = ms;
        std::sort(s.begin(), s.end());
        std::printf("%-44s median %7.2f ms   min %7.2f   max %7.2f   (%zu runs)\n", what, s[s.size() / 2], s.front(), s.back(),
                    s.size());
    }
};

int main(int argc, char** argv)
{
    int64_t kernels = 1000000;
    std::string file;
    int repeats = 15;
    bool regenerate = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--regenerate")) regenerate = true;
        else { std::fprintf(stderr, "usage: bench_compare [--kernels N] [--file PATH] [--repeats R] [--regenerate]\n"); return 2; }
    }
    if (file.empty())
        file = "/tmp/wheretime-bench-compare-" + std::to_string(kernels) + ".wt";
    if (regenerate || ::access(file.c_str(), R_OK) != 0) {
        for (const char* suffix : {"", "-wal", "-shm"})
            ::unlink((file + suffix).c_str());
        wt::Database db(file, wt::OpenMode::ReadWrite);
        wt::Writer writer(db);
        for (int i = 0; i < 2; ++i) {
            wt::synth::Options o;
            o.kernels = kernels;
            o.seed = uint64_t(1 + i);
            o.name = i == 0 ? "base" : "other";
            auto t = Clock::now();
            wt::synth::generate(writer, o);
            std::printf("generated run '%s' (%lld kernels) in %.0f ms\n", o.name.c_str(), (long long)kernels, msSince(t));
        }
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }

    Figure open, load, steps, byLayer, byLayerAll, byLayerCpu, diff, diffAll, diffCpu;
    size_t groups = 0, rows = 0;
    int64_t stepCount = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        auto t0 = Clock::now();
        double c0 = cpuMs();
        wt::Database db(file, wt::OpenMode::ReadOnly);
        wt::Reader reader(db);
        int64_t a = reader.resolveRun("base"), b = reader.resolveRun("other");
        open.ms.push_back(msSince(t0));
        auto t1 = Clock::now();
        wt::CompareRun ra = wt::loadCompareRun(reader, a, file, nullptr, true, false);
        wt::CompareRun rb = wt::loadCompareRun(reader, b, file, nullptr, true, false);
        load.ms.push_back(msSince(t1));
        double cLoaded = cpuMs();
        stepCount = ra.steps;
        auto t2 = Clock::now();
        wt::Comparison c = wt::compareRuns({&ra, &rb}, wt::CompareOptions{});
        byLayer.ms.push_back(msSince(t2));
        byLayerAll.ms.push_back(msSince(t0));
        byLayerCpu.ms.push_back(cpuMs() - c0);
        groups = c.groups.size();
        auto t3 = Clock::now();
        double c3 = cpuMs();
        wt::KernelDiffOptions ko;
        ko.filters = {{wt::GroupBy::Layer, "softmax"}};
        wt::KernelDiff d = wt::diffKernels(ra, rb, ko);
        diff.ms.push_back(msSince(t3));
        diffAll.ms.push_back(msSince(t0) - byLayer.ms.back());
        diffCpu.ms.push_back(cLoaded - c0 + cpuMs() - c3);
        rows = d.rows.size();
        // The step count alone (it reads the scope instances).
        auto t4 = Clock::now();
        wt::countSteps(reader, a, ra.tree);
        steps.ms.push_back(msSince(t4));
    }
    std::printf("two runs of %lld kernels each, %lld steps each; %zu layer groups, %zu kernel rows in softmax\n",
                (long long)kernels, (long long)stepCount, groups, rows);
    open.print("open file, resolve both runs");
    load.print("load both runs (totals, tree, step count)");
    steps.print("  of which the step count of one run");
    byLayer.print("compare by layer (after loading)");
    byLayerAll.print("compare by layer, end to end");
    byLayerCpu.print("  the same, CPU time of the thread");
    diff.print("kernel diff of softmax (after loading)");
    diffAll.print("kernel diff of softmax, end to end");
    diffCpu.print("  the same, CPU time of the thread");
    return 0;
}
