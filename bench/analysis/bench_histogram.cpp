// Histogram of a 1M-instance group (issue 25: at most 50 ms). Two figures:
//  - compute: computeHistogram over in-memory columns (no storage): N kernels of one name (the
//    group) among N others on 8 streams under a step > phase > layer > op tree, by kernel name,
//    by kind (all 2N kernels: a 2M-instance group) and by scope instances of an op (N/4);
//  - end to end: a synthetic N-kernel run (tests/support/synthrun) in a file, opened, its
//    profile and activities loaded and the histogram of kind `kernel` (every kernel: an
//    N-instance group) computed: what `wheretime stats F --group-by kind --histogram kernel` does
//    after process start.
// Median (min - max) of --repeats.
// usage: bench_histogram [--kernels N (1000000)] [--repeats R (7)] [--file PATH]
#include "analysis/activityview.h"
#include "analysis/histogram.h"
#include "analysis/histogramtable.h"
#include "analysis/runprofile.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <time.h>
#include <unistd.h>
#include <vector>

using namespace wt;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
// CPU time of this thread (user + system): what a figure costs when the cores are not shared.
double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

void print(const char* what, std::vector<double> ms, int64_t n)
{
    std::sort(ms.begin(), ms.end());
    std::printf("%-58s n %9lld   median %7.2f ms   min %7.2f   max %7.2f   (%zu runs)\n", what, (long long)n, ms[ms.size() / 2], ms.front(),
                ms.back(), ms.size());
}

}  // namespace

int main(int argc, char** argv)
{
    int64_t n = 1000000;
    int repeats = 7;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) n = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else { std::fprintf(stderr, "usage: bench_histogram [--kernels N] [--repeats R] [--file PATH]\n"); return 2; }
    }

    // In memory: tree step(1) > phase(2) > layer(3) > op(4); one op instance per 4 kernels.
    Strings strings{{1, "step"}, {2, "phase"}, {3, "layer"}, {4, "op"}, {10, "step"}, {11, "forward"}, {12, "decoder"},
                    {13, "ffn_up"}, {20, "sm90_xmma_gemm_f16f16"}, {21, "elementwise"}, {22, "reduce"}, {23, "softmax"}, {24, "copy"}};
    ScopeTree tree({ScopeNode{1, 0, 10, 1, 1}, ScopeNode{2, 1, 11, 2, 2}, ScopeNode{3, 2, 12, 3, 3}, ScopeNode{4, 3, 13, 4, 4}}, strings);
    struct Track {
        std::vector<int64_t> start;
        std::vector<uint32_t> dur, name, inst;
    };
    std::vector<Track> tracks(8);
    std::vector<uint32_t> instNode, instParent;
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> logn(9.0, 1.2);   // ~8 us median, a long tail
    std::vector<int64_t> now(8, 0);
    for (int64_t k = 0; k < 2 * n; ++k) {
        if (k % 4 == 0) {   // op instance under a fresh step/phase/layer chain every 1000 kernels
            if (k % 1000 == 0) {
                for (uint32_t lvl = 0; lvl < 3; ++lvl) {
                    instParent.push_back(lvl == 0 ? kNoInstance : uint32_t(instNode.size() - 1));
                    instNode.push_back(lvl);
                }
            }
            uint32_t layer = uint32_t(instNode.size() - 1);
            while (instNode[layer] != 2)
                layer = instParent[layer];
            instParent.push_back(layer);
            instNode.push_back(3);
        }
        Track& t = tracks[size_t(rng() % 8)];
        int64_t& at = now[size_t(&t - tracks.data())];
        at += int64_t(rng() % 500);
        const uint32_t d = uint32_t(std::min(4e9, logn(rng)));
        t.start.push_back(at);
        t.dur.push_back(d);
        t.name.push_back(k % 2 == 0 ? 20 : uint32_t(21 + rng() % 4));
        t.inst.push_back(uint32_t(instNode.size() - 1));
        at += d;
    }
    ActivityView view;
    view.instanceNode = instNode.data();
    view.instanceParent = instParent.data();
    view.instanceCount = instNode.size();
    for (const Track& t : tracks) {
        int64_t longest = 0;
        for (uint32_t d : t.dur)
            longest = std::max<int64_t>(longest, d);
        view.tracks.push_back(TrackActivities{t.start.data(), t.dur.data(), t.name.data(), t.inst.data(), nullptr, t.start.size(), longest, 0});
    }
    auto bench = [&](const char* what, const HistogramGroup& g) {
        std::vector<double> ms, cpu;
        int64_t count = 0;
        for (int r = 0; r < repeats; ++r) {
            const auto t0 = Clock::now();
            const double c0 = cpuMs();
            const Histogram h = computeHistogram(view, tree, strings, g, HistogramOptions{10, 10, 2 * n / 1000});
            const Table bins = histogramTable(h);
            ms.push_back(msSince(t0));
            cpu.push_back(cpuMs() - c0);
            count = h.count == int64_t(0) && !bins.rows.empty() ? -1 : h.count;
        }
        print(what, ms, count);
        print("  the same, CPU time of the thread", cpu, count);
    };
    HistogramGroup byName;
    byName.level.groupBy = GroupBy::Kernel;
    byName.key = "sm90_xmma_gemm_f16f16";
    bench("compute: kernel name (N of 2N kernels)", byName);
    HistogramGroup byKind;
    byKind.level.groupBy = GroupBy::Kind;
    byKind.key = "kernel";
    bench("compute: kind kernel (all 2N kernels)", byKind);
    HistogramGroup ops;
    ops.level.groupBy = GroupBy::Op;
    ops.key = "ffn_up";
    ops.of = HistogramOf::Scopes;
    bench("compute: op scope instances (GPU spans)", ops);

    // End to end from a file.
    if (file.empty())
        file = "/tmp/wheretime-bench-histogram-" + std::to_string(n) + ".wt";
    if (::access(file.c_str(), R_OK) != 0) {
        Database db(file, OpenMode::ReadWrite);
        Writer writer(db);
        synth::Options o;
        o.kernels = n;
        o.memcpyEvery = 0;
        const auto t = Clock::now();
        synth::generate(writer, o);
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        std::printf("generated %s (%lld kernels) in %.0f ms\n", file.c_str(), (long long)n, msSince(t));
    }
    std::vector<double> all, load, compute, computeCpu;
    int64_t count = 0;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        Database db(file, OpenMode::ReadOnly);
        db.exec("BEGIN");
        Reader reader(db);
        const int64_t runId = reader.resolveRun("");
        auto profile = RunProfile::load(reader, runId, nullptr);
        ActivityColumns columns = ActivityColumns::load(reader, runId, profile->tree);
        db.rollback();
        const double loaded = msSince(t0);
        const auto t1 = Clock::now();
        const double c1 = cpuMs();
        const ActivityView v = columns.view();
        const Histogram h = computeHistogram(v, profile->tree, profile->strings, byKind);
        const Table bins = histogramTable(h);
        compute.push_back(msSince(t1));
        computeCpu.push_back(cpuMs() - c1);
        all.push_back(msSince(t0));
        load.push_back(loaded);
        count = h.count == int64_t(0) && !bins.rows.empty() ? -1 : h.count;
    }
    print("end to end: open, load profile + activities, histogram", all, count);
    print("  of which: open and load", load, count);
    print("  of which: the histogram", compute, count);
    print("  the histogram, CPU time of the thread", computeCpu, count);
    return 0;
}
