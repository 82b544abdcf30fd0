// libFuzzer target: bytes as a wheretime file, opened read-only and read the way the CLI and
// the GUI read it: the run list, each run's tracks, scope tree (validated), scope instances,
// totals, API calls, every activity (chunk decoders), window queries, and the breakdowns that
// walk the scope tree. Every failure must be a one-line StorageError; no crash, no hang.
// Seeds: small wheretime files with damaged pages and rows (fuzz_wtfile_seeds, scripts/fuzz.sh).
#include "analysis/breakdown.h"
#include "analysis/scopetree.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"
#include "storage/writer.h"

#include <sqlite3.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

void oneLine(const std::exception& e)
{
    if (std::strchr(e.what(), '\n'))
        std::abort();
}

void readRun(const wt::Reader& r, int64_t runId)
{
    using namespace wt;
    r.run(runId);
    r.devices(runId);
    r.metadata(runId);
    ScopeTree tree = ScopeTree::load(r, runId);
    for (const ScopeNode& n : tree.nodes()) {
        tree.path(n.id);
        tree.ancestorAtLevel(n.id, "layer");
    }
    r.scopeInstances(runId);
    r.apiCalls(runId);
    for (GroupBy g : {GroupBy::Layer, GroupBy::Scope}) {   // the groupings that walk the scope tree
        BreakdownOptions o;
        o.groupBy = g;
        computeRunStats(r, runId, o);
    }
    int64_t n = 0;
    r.forEachActivity(runId, [&](const Activity&) { return ++n < 1'000'000; });
    for (const Track& t : r.tracks(runId)) {
        r.activities(t.id, INT64_MIN, INT64_MAX);
        r.activities(t.id, 0, 1000);
    }
}

// Seeds: two small capture-like runs (steps > phases > layers > ops, two streams, memory
// activities, API calls) in 512-byte pages, and copies with damaged rows and pages.
void exec(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK)
        sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
}

void writeRun(wt::Database& db, int steps, bool finish)
{
    using namespace wt;
    Writer w(db);
    RunInfo info;
    info.name = finish ? "gcn-adaptive-tiny" : "interrupted";
    info.workload = "gcn";
    info.backend = "cpu";
    info.device = "CPU: seed";
    w.beginRun(info);
    w.addDevice(DeviceInfo{0, "CPU: seed", "{}"});
    int64_t k0 = w.addTrack(0, 0, TrackKind::Kernel), k1 = w.addTrack(0, 1, TrackKind::Kernel);
    int64_t mem = w.addTrack(0, 0, TrackKind::Memory);
    int64_t t = 0, corr = 1;
    for (int s = 0; s < steps; ++s) {
        int64_t step = w.addScope(0, "step", "step");
        int64_t si = w.beginScopeInstance(step, 0, t);
        for (const char* phase : {"forward", "backward"}) {
            int64_t ph = w.addScope(step, phase, "phase");
            int64_t pi = w.beginScopeInstance(ph, si, t);
            for (const char* layer : {"embedding", "conv1", "softmax"}) {
                int64_t ly = w.addScope(ph, layer, "layer");
                int64_t li = w.beginScopeInstance(ly, pi, t);
                int64_t op = w.addScope(ly, "gemm", "op");
                int64_t oi = w.beginScopeInstance(op, li, t);
                Activity a;
                a.trackId = (corr % 2) ? k0 : k1;
                a.startNs = t + 3;
                a.endNs = t + 40;
                a.nameId = w.intern(std::string(layer) + "_kernel");
                a.scopeInstanceId = oi;
                a.correlationId = corr;
                a.config.grid[0] = 4;
                a.config.block[0] = 128;
                w.addActivity(a);
                w.addApiCall(ApiCall{t, t + 2, 7, w.intern("cudaLaunchKernel"), corr++});
                t += 50;
                w.endScopeInstance(oi, t);
                w.endScopeInstance(li, t);
            }
            w.endScopeInstance(pi, t);
        }
        Activity m;
        m.trackId = mem;
        m.kind = ActivityKind::Memcpy;
        m.startNs = t;
        m.endNs = t + 10;
        m.bytes = 4096;
        m.nameId = w.intern("[memcpy HtoD]");
        w.addActivity(m);
        t += 20;
        w.endScopeInstance(si, t);
        w.commit();
    }
    w.setMetadata("steps", std::to_string(steps));
    w.finishRun(finish ? RunStatus::Complete : RunStatus::Interrupted, t);
}

void writeSeeds(const std::string& dir)
{
    std::string base = dir + "/small.wt";
    ::unlink(base.c_str());
    {
        wt::Database db(base, wt::OpenMode::ReadWrite);
        writeRun(db, 2, true);
        writeRun(db, 1, false);
    }
    exec(base, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;");
    std::ifstream in(base, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto variant = [&](const std::string& name, const std::string& sql) {
        std::string p = dir + "/" + name + ".wt";
        std::ofstream(p, std::ios::binary) << bytes;
        exec(p, sql);
    };
    variant("cycle", "UPDATE scopes SET parent_id = id WHERE run_id = 2");
    variant("dangling", "UPDATE scopes SET parent_id = 9999 WHERE id = (SELECT max(id) FROM scopes)");
    variant("depth", "UPDATE scopes SET depth = 100000");
    variant("writing", "UPDATE runs SET status = 'writing', writer_pid = 1, kernels = 0 WHERE id = 2");
    variant("blobs", "UPDATE activity_chunks SET data = substr(data, 1, length(data) / 2) || x'ffffffffffffffffff01';"
                     "UPDATE scope_instance_chunks SET data = x'0102ffffffffffffffffff01020304050607';"
                     "UPDATE api_call_chunks SET count = 99999, data = x'01';");
    variant("headers", "UPDATE activity_chunks SET start_ns = 9223372036854775000, first_seq = -9223372036854775800;"
                       "UPDATE totals SET time_ns = 9223372036854775000; UPDATE runs SET span_start_ns = -9223372036854775000");
    variant("rows", "DELETE FROM strings WHERE id % 2 = 0; DELETE FROM tracks WHERE id = 1; UPDATE scopes SET run_id = 1");
    // Damaged pages: a page of zeros, a page of 0xff, the file cut in the middle.
    for (size_t page : {size_t(3), size_t(7)}) {
        std::string b = bytes;
        if (page * 512 + 512 <= b.size()) {
            std::fill(b.begin() + long(page * 512), b.begin() + long(page * 512 + 512), char(page == 3 ? 0 : 0xff));
            std::ofstream(dir + "/page" + std::to_string(page) + ".wt", std::ios::binary) << b;
        }
    }
    std::ofstream(dir + "/cut.wt", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
}

}  // namespace

// WT_FUZZ_SEEDS=DIR: write the seed files into DIR and exit.
extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    // Per open, SQLite allocates a lookaside pool and page-cache pages; under ASan those large
    // allocations (fresh pages each time) cost more than the reading itself. A static page
    // cache and no lookaside make each input about 3x cheaper; larger pages still use malloc.
    static char pageCache[256 * (4096 + 512)];
    sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, pageCache, 4096 + 512, 256);
    if (const char* dir = std::getenv("WT_FUZZ_SEEDS")) {
        writeSeeds(dir);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace wt;
    // tmpfs when there is one: the file is rewritten for every input.
    static const std::string path = std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/wt-fuzz-wtfile-" +
                                    std::to_string(getpid()) + ".wt";
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        ::unlink((path + suffix).c_str());
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        std::vector<RunInfo> runs = r.runs();
        for (size_t i = 0; i < runs.size() && i < 8; ++i) {
            try {
                readRun(r, runs[i].id);
            } catch (const StorageError& e) {
                oneLine(e);   // this run is damaged; the others are still read
            }
        }
    } catch (const StorageError& e) {
        oneLine(e);
    }
    return 0;
}
