// Variants and sweep benchmark: what the variants view of 4 runs and the scaling view of a
// 16-run sweep wait for, from stored totals: open the file, list the runs (and their sweep
// tags), load each run's totals, scope tree and step count, compute the table. Median, min and
// max of --repeats. Without --file it captures its runs first (CPU tracer, gcn, tiny preset, 2
// steps): every softmax variant, and a 4 x 4 grid (hidden x variant) tagged as one sweep.
// usage: bench_variants [--file PATH] [--sweep ID] [--repeats R] [--regenerate]
#include "analysis/sweep.h"
#include "analysis/variants.h"
#include "capture/capture.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;
static double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Figure {
    std::vector<double> ms;
    void print(const char* what) const
    {
        std::vector<double> s = ms;
        std::sort(s.begin(), s.end());
        std::printf("%-52s median %7.2f ms   min %7.2f   max %7.2f   (%zu runs)\n", what, s[s.size() / 2], s.front(), s.back(),
                    s.size());
    }
};

static void capture(const std::string& file, const std::string& variant, const std::string& hidden,
                    std::vector<std::pair<std::string, std::string>> metadata)
{
    wt::capture::CaptureOptions o;
    o.workload = "gcn";
    o.preset = "tiny";
    o.backend = "cpu";
    o.variant = variant;
    o.steps = 2;
    o.warmup = 0;
    o.output = file;
    if (!hidden.empty())
        o.overrides = {{"hidden", hidden}};
    o.metadata = std::move(metadata);
    wt::capture::runCapture(o);
}

static int runBench(int argc, char** argv)
{
    std::string file, sweepId;
    int repeats = 15;
    bool regenerate = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!std::strcmp(argv[i], "--sweep") && i + 1 < argc) sweepId = argv[++i];
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--regenerate")) regenerate = true;
        else { std::fprintf(stderr, "usage: bench_variants [--file PATH] [--sweep ID] [--repeats R] [--regenerate]\n"); return 2; }
    }
    if (file.empty()) {
        file = "/tmp/wheretime-bench-variants.wt";
        if (regenerate || ::access(file.c_str(), R_OK) != 0) {
            for (const char* suffix : {"", "-wal", "-shm"})
                ::unlink((file + suffix).c_str());
            auto t = Clock::now();
            const char* variants[] = {"full", "adaptive", "bucketed", "fused"};
            for (const char* v : variants)
                capture(file, v, "", {});
            int index = 0;
            for (const char* h : {"8", "16", "32", "64"})
                for (const char* v : variants)
                    capture(file, v, h,
                            {{wt::kSweepIdKey, "bench"}, {wt::kSweepKeyKey, "hidden"}, {wt::kSweepValueKey, h},
                             {wt::kSweepKey2Key, "variant"}, {wt::kSweepValue2Key, v}, {wt::kSweepIndexKey, std::to_string(index++)}});
            std::printf("captured 20 tiny runs in %.0f ms\n", msSince(t));
        }
    }

    Figure variants, sweep;
    size_t variantRows = 0, sweepRuns = 0, series = 0;
    std::string setting;
    for (int rep = 0; rep < repeats; ++rep) {
        {
            auto t0 = Clock::now();
            wt::Database db(file, wt::OpenMode::ReadOnly);
            wt::Reader reader(db);
            std::vector<wt::RunInfo> runs = reader.runs();
            // The variants view's selection: the newest run and its other variants (4 runs in
            // the generated file and in a hidden x variant sweep).
            auto anchor = wt::newestCapture(runs);
            if (!anchor) {
                std::fprintf(stderr, "%s holds no complete capture\n", file.c_str());
                return 1;
            }
            std::vector<int64_t> ids = wt::selectVariantRuns(runs, *anchor);
            std::vector<wt::CompareRun> loaded;
            for (int64_t id : ids)
                loaded.push_back(wt::loadCompareRun(reader, id, file));
            std::vector<const wt::CompareRun*> ptrs;
            for (const auto& r : loaded)
                ptrs.push_back(&r);
            wt::VariantsTable t = wt::computeVariants(ptrs);
            variants.ms.push_back(msSince(t0));
            variantRows = t.rows.size();
            setting = t.setting;
        }
        {
            auto t0 = Clock::now();
            wt::Database db(file, wt::OpenMode::ReadOnly);
            wt::Reader reader(db);
            wt::SweepTable t = wt::loadSweep(reader, sweepId, {}, file);
            sweep.ms.push_back(msSince(t0));
            sweepRuns = t.sweep.runIds.size();
            series = t.series.size();
        }
    }
    std::printf("%s\n", file.c_str());
    variants.print(("variants table, " + std::to_string(variantRows) + " runs (differ in " + setting + ")").c_str());
    sweep.print(("scaling table, " + std::to_string(sweepRuns) + " runs, " + std::to_string(series) + " series").c_str());
    return 0;
}

int main(int argc, char** argv)
{
    // A damaged or foreign --file is a one-line error, as in the CLI.
    try {
        return runBench(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_variants: error: %s\n", e.what());
        return 1;
    }
}
