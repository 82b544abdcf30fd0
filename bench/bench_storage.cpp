// Storage benchmark: insert rate, file bytes per kernel, window query latency, breakdown time.
// usage: bench_storage [--kernels N] [--streams S] [--file PATH] [--keep] [--no-scopes]
#include "analysis/breakdown.h"
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
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

using Clock = std::chrono::steady_clock;
static double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int main(int argc, char** argv)
{
    int64_t kernels = 1000000;
    int streams = 8;
    std::string file = "/tmp/wheretime-bench-storage.db";
    bool keep = false;
    bool scopes = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--streams") && i + 1 < argc) streams = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!std::strcmp(argv[i], "--keep")) keep = true;
        else if (!std::strcmp(argv[i], "--no-scopes")) scopes = false;
        else { std::fprintf(stderr, "usage: bench_storage [--kernels N] [--streams S] [--file PATH] [--keep] [--no-scopes]\n"); return 2; }
    }
    for (const char* suffix : {"", "-wal", "-shm"})
        ::unlink((file + suffix).c_str());

    wt::synth::Result res;
    double insertMs = 0;
    {
        wt::Database db(file, wt::OpenMode::ReadWrite);
        wt::Writer writer(db);
        wt::synth::Options o;
        o.kernels = kernels;
        o.streams = streams;
        o.scopes = scopes;
        auto t = Clock::now();
        res = wt::synth::generate(writer, o);
        insertMs = msSince(t);
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    struct stat st {};
    ::stat(file.c_str(), &st);
    std::printf("kernels               %lld (+%lld memcpy, %lld scope instances) on %d streams\n",
                (long long)res.kernels, (long long)res.memcpys, (long long)res.scopeInstances, streams);
    std::printf("insert                %.0f ms, %.0f kernel rows/s (all rows: %.0f/s)\n", insertMs,
                res.kernels / (insertMs / 1000.0), (res.kernels + res.memcpys + res.scopeInstances) / (insertMs / 1000.0));
    std::printf("file size             %.1f MB, %.1f bytes per kernel\n", st.st_size / 1e6, double(st.st_size) / res.kernels);

    wt::Database db(file, wt::OpenMode::ReadOnly);
    wt::Reader reader(db);
    auto tracks = reader.tracks(res.runId);
    wt::RunInfo run = reader.run(res.runId);
    // Window queries: choose windows that hold about 10k kernels on one track.
    std::mt19937_64 rng(7);
    const wt::Track& track = tracks.front();
    double span = double(run.spanEndNs - run.spanStartNs);
    double windowNs = span * 10000.0 / double(std::max<int64_t>(1, track.count));
    std::vector<double> times;
    size_t returned = 0;
    for (int i = 0; i < 50; ++i) {
        std::uniform_real_distribution<double> u(run.spanStartNs, std::max<double>(run.spanStartNs + 1, run.spanEndNs - windowNs));
        int64_t t0 = int64_t(u(rng));
        auto t = Clock::now();
        auto acts = reader.activities(track.id, t0, t0 + int64_t(windowNs));
        times.push_back(msSince(t));
        returned += acts.size();
    }
    std::sort(times.begin(), times.end());
    std::printf("window query          median %.2f ms, p95 %.2f ms (avg %.0f kernels returned)\n", times[times.size() / 2],
                times[times.size() * 95 / 100], double(returned) / times.size());

    {
        auto t = Clock::now();
        int64_t n = 0, sum = 0;
        reader.forEachActivity(res.runId, [&](const wt::Activity& a) { ++n; sum += a.endNs - a.startNs; return true; });
        double ms = msSince(t);
        std::printf("full read             %.0f ms for %lld activities (%.0f ns each)\n", ms, (long long)n, ms * 1e6 / double(n));
    }
    std::vector<double> bt;
    for (int i = 0; i < 5; ++i) {
        auto t = Clock::now();
        wt::BreakdownOptions opt;
        opt.groupBy = wt::GroupBy::Scope;
        opt.depth = 3;
        auto stats = wt::computeRunStats(reader, res.runId, opt);
        bt.push_back(msSince(t));
        if (i == 0)
            std::printf("breakdown groups      %zu (kernel time %lld ns)\n", stats.breakdown.groups.size(), (long long)stats.kernelTimeNs);
    }
    std::sort(bt.begin(), bt.end());
    std::printf("scope-depth breakdown median %.1f ms (from the stored per-scope totals)\n", bt[bt.size() / 2]);
    {
        // The same breakdown from a full scan of the activities (what a time-range breakdown costs).
        auto t = Clock::now();
        std::vector<int64_t> instanceScope;
        for (const wt::ScopeInstance& si : reader.scopeInstances(res.runId)) {
            if (size_t(si.id) >= instanceScope.size())
                instanceScope.resize(size_t(si.id) + 1, 0);
            instanceScope[size_t(si.id)] = si.scopeId;
        }
        std::unordered_map<uint64_t, wt::TotalRow> rows;
        reader.forEachActivity(res.runId, [&](const wt::Activity& a) {
            int64_t scope = size_t(a.scopeInstanceId) < instanceScope.size() ? instanceScope[size_t(a.scopeInstanceId)] : 0;
            uint64_t key = (uint64_t(scope) << 24) ^ (uint64_t(a.nameId) << 2) ^ uint64_t(a.kind);
            wt::TotalRow& r = rows[key];
            r.scopeId = scope;
            r.nameId = a.nameId;
            r.kind = a.kind;
            r.count += 1;
            r.timeNs += a.endNs - a.startNs;
            return true;
        });
        std::vector<wt::TotalRow> totals;
        for (auto& [k, r] : rows)
            totals.push_back(r);
        wt::BreakdownOptions opt;
        opt.groupBy = wt::GroupBy::Scope;
        opt.depth = 3;
        auto b = wt::computeBreakdown(totals, wt::ScopeTree::load(reader, res.runId), reader.strings(), opt);
        std::printf("breakdown by full scan %.0f ms (%zu groups)\n", msSince(t), b.groups.size());
    }
    if (!keep)
        for (const char* suffix : {"", "-wal", "-shm"})
            ::unlink((file + suffix).c_str());
    return 0;
}
