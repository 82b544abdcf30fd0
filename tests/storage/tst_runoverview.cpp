// The level-of-detail summary of a run (storage/runoverview.h): its buckets equal a
// brute-force aggregation of the activities and the scope lanes (random runs with wide items,
// overlaps, zero-length items and empty tracks; a synthetic capture-like run), the coarser
// levels merge exactly, the blob refuses damage, a version-4 file gets it from the pass after its
// migration (the open computes nothing), and a
// failure or a kill while it is written loses nothing committed.
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/runoverview.h"
#include "storage/storageerror.h"
#include "storage/summarybackfill.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <map>
#include <random>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace wt;

namespace {

struct Item {
    int64_t start, end, key;
};

// Buckets of one row computed the plain way: each item's clipped pieces per bucket, then per
// bucket the pieces sorted and merged (busy, extent) and the keys summed.
std::vector<OverviewBucket> bruteBuckets(const std::vector<Item>& items, const RunOverview& ov)
{
    std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> pieces;
    std::map<uint32_t, std::map<int64_t, int64_t>> keys;
    std::map<uint32_t, int64_t> counts;
    for (const Item& it : items) {
        const int64_t s = it.start, e = std::max(it.end, it.start + 1);
        counts[uint32_t((s - ov.originNs) / ov.bucketNs)] += 1;
        const uint32_t b0 = uint32_t((s - ov.originNs) / ov.bucketNs);
        const uint32_t b1 = std::min<uint32_t>(ov.bucketCount - 1, uint32_t((e - 1 - ov.originNs) / ov.bucketNs));
        for (uint32_t b = b0; b <= b1; ++b) {
            const int64_t bs = ov.originNs + int64_t(b) * ov.bucketNs, be = bs + ov.bucketNs;
            const int64_t lo = std::max(s, bs), hi = std::min(e, be);
            if (hi <= lo)
                continue;
            pieces[b].emplace_back(lo - bs, hi - bs);
            keys[b][it.key] += hi - lo;
        }
    }
    std::set<uint32_t> all;
    for (auto& [b, c] : counts)
        all.insert(b);
    for (auto& [b, p] : pieces)
        all.insert(b);
    std::vector<OverviewBucket> out;
    for (uint32_t b : all) {
        OverviewBucket o;
        o.index = b;
        o.count = counts.count(b) ? counts[b] : 0;
        auto& p = pieces[b];
        std::sort(p.begin(), p.end());
        int64_t cs = 0, ce = -1;
        bool first = true;
        for (auto [lo, hi] : p) {
            if (first) {
                o.coverStartNs = lo;
                first = false;
            }
            if (ce < 0 || lo > ce) {
                if (ce >= 0)
                    o.busyNs += ce - cs;
                cs = lo;
                ce = hi;
            } else {
                ce = std::max(ce, hi);
            }
            o.coverEndNs = std::max(o.coverEndNs, hi);
        }
        if (ce >= 0)
            o.busyNs += ce - cs;
        int64_t best = -1;
        for (auto [k, ns] : keys[b])   // ascending keys: ties keep the smaller
            if (ns > best) {
                best = ns;
                o.key = k;
            }
        out.push_back(o);
    }
    return out;
}

// The overview of a run computed from what the Reader hands out, without the production code:
// tracks by id; lanes from GPU spans found by walking every kernel's ancestors.
RunOverview bruteOverview(Database& db, int64_t runId)
{
    Reader reader(db);
    RunOverview ov;
    std::vector<Track> tracks = reader.tracks(runId);
    std::sort(tracks.begin(), tracks.end(), [](const Track& a, const Track& b) { return a.id < b.id; });
    std::map<int64_t, std::vector<Activity>> acts;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const Track& t : tracks) {
        acts[t.id] = reader.activities(t.id, -kMaxTimeNs, kMaxTimeNs);
        for (const Activity& a : acts[t.id]) {
            lo = std::min(lo, a.startNs);
            hi = std::max(hi, std::max(a.endNs, a.startNs + 1));
            ++ov.activities;
        }
    }
    if (lo > hi)
        return ov;
    ov.originNs = lo;
    const int64_t span = hi - lo;
    ov.bucketNs = std::max<int64_t>(1, (span + RunOverview::kBuckets - 1) / RunOverview::kBuckets);
    ov.bucketCount = uint32_t((span + ov.bucketNs - 1) / ov.bucketNs);
    std::map<int64_t, ScopeInstance> inst;
    for (const ScopeInstance& i : reader.scopeInstances(runId))
        inst[i.id] = i;
    std::map<int64_t, int32_t> depth;
    for (const ScopeNode& n : reader.scopes(runId))
        depth[n.id] = n.depth;
    // instance -> device -> (gpu start, gpu end)
    std::map<int64_t, std::map<int32_t, std::pair<int64_t, int64_t>>> spans;
    for (const Track& t : tracks) {
        OverviewRow r;
        r.kind = OverviewRow::Kind::Track;
        r.trackId = t.id;
        r.deviceId = t.deviceId;
        std::vector<Item> items;
        for (const Activity& a : acts[t.id]) {
            const int64_t key = a.scopeInstanceId && inst.count(a.scopeInstanceId) ? inst[a.scopeInstanceId].scopeId : -int64_t(a.nameId) - 1;
            items.push_back(Item{a.startNs, a.endNs, key});
            if (a.kind != ActivityKind::Kernel)
                continue;
            for (int64_t id = a.scopeInstanceId; id != 0 && inst.count(id); id = inst[id].parentId) {
                auto [it, fresh] = spans[id].try_emplace(t.deviceId, a.startNs, a.endNs);
                if (!fresh)
                    it->second = {std::min(it->second.first, a.startNs), std::max(it->second.second, a.endNs)};
            }
        }
        r.items = int64_t(items.size());
        r.buckets = bruteBuckets(items, ov);
        ov.rows.push_back(r);
    }
    // A lane item spans the instance's kernels on all devices (the timeline's GPU span).
    std::map<std::pair<int32_t, int32_t>, std::vector<Item>> lanes;
    for (auto& [id, byDevice] : spans) {
        int64_t s = INT64_MAX, e = INT64_MIN;
        for (auto& [dev, se] : byDevice) {
            s = std::min(s, se.first);
            e = std::max(e, se.second);
        }
        for (auto& [dev, se] : byDevice)
            lanes[{dev, depth[inst[id].scopeId]}].push_back(Item{s, e, inst[id].scopeId});
    }
    for (auto& [k, items] : lanes) {
        OverviewRow r;
        r.kind = OverviewRow::Kind::Lane;
        r.deviceId = k.first;
        r.depth = k.second;
        r.items = int64_t(items.size());
        r.buckets = bruteBuckets(items, ov);
        ov.rows.push_back(r);
    }
    return ov;
}

// A random run: two devices, three kernel tracks and a memory track (one track left empty),
// nested step > layer > op instances, kernels inside and outside scopes, wide items spanning
// hundreds of buckets, overlaps on one track and zero-length items.
int64_t writeRandomRun(Database& db, uint32_t seed)
{
    std::mt19937_64 rng(seed);
    auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
    Writer w(db);
    RunInfo info;
    info.name = "random-" + std::to_string(seed);
    info.backend = "import";
    const int64_t run = w.beginRun(info);
    w.addDevice(DeviceInfo{0, "gpu0", "{}"});
    w.addDevice(DeviceInfo{1, "gpu1", "{}"});
    const int64_t tracks[3] = {w.addTrack(0, 7, TrackKind::Kernel), w.addTrack(0, 8, TrackKind::Kernel), w.addTrack(1, 7, TrackKind::Kernel)};
    const int64_t memory = w.addTrack(0, 0, TrackKind::Memory);
    w.addTrack(1, 9, TrackKind::Kernel);   // stays empty
    const int64_t step = w.addScope(0, "step", "step");
    const int64_t layers[3] = {w.addScope(step, "layer0", "layer"), w.addScope(step, "layer1", "layer"), w.addScope(step, "layer2", "layer")};
    std::vector<int64_t> ops;
    for (int64_t l : layers)
        ops.push_back(w.addScope(l, "op" + std::to_string(l), "op"));
    const uint32_t names[4] = {w.intern("gemm"), w.intern("relu"), w.intern("softmax"), w.intern("copy")};
    const int64_t span = uni(50000, 5000000);
    int64_t t = uni(-1000, 1000);
    const int steps = int(uni(2, 5));
    for (int s = 0; s < steps; ++s) {
        const int64_t stepStart = t;
        const int64_t stepInst = w.addScopeInstance(step, 0, stepStart, stepStart + span);
        for (int l = 0; l < 3; ++l) {
            const int64_t layerInst = w.addScopeInstance(layers[l], stepInst, t, t + span / 3);
            const int64_t opInst = w.addScopeInstance(ops[size_t(l)], layerInst, t, t + span / 3);
            const int n = int(uni(5, 60));
            for (int k = 0; k < n; ++k) {
                Activity a;
                a.trackId = tracks[uni(0, 2)];
                a.startNs = t + uni(0, span / 3);
                const int64_t shape = uni(0, 20);
                a.endNs = a.startNs + (shape == 0 ? 0 : shape == 1 ? uni(span / 10, span) : uni(1, span / 200 + 1));
                a.nameId = names[uni(0, 2)];
                const int64_t where = uni(0, 3);
                a.scopeInstanceId = where == 0 ? 0 : where == 1 ? layerInst : opInst;
                w.addActivity(a);
                if (uni(0, 9) == 0) {
                    Activity m;
                    m.trackId = memory;
                    m.kind = ActivityKind::Memcpy;
                    m.startNs = a.startNs + uni(0, 100);
                    m.endNs = m.startNs + uni(0, 2000);
                    m.nameId = names[3];
                    m.bytes = 4096;
                    m.scopeInstanceId = where == 0 ? 0 : opInst;
                    w.addActivity(m);
                }
            }
            t += span / 3;
        }
        t = stepStart + span + uni(0, span / 2);
    }
    w.finishRun(RunStatus::Complete, t);
    return run;
}

void compareOverviews(const RunOverview& got, const RunOverview& want)
{
    QCOMPARE(got.originNs, want.originNs);
    QCOMPARE(got.bucketNs, want.bucketNs);
    QCOMPARE(got.bucketCount, want.bucketCount);
    QCOMPARE(got.activities, want.activities);
    QCOMPARE(got.rows.size(), want.rows.size());
    for (size_t r = 0; r < got.rows.size(); ++r) {
        const OverviewRow& a = got.rows[r];
        const OverviewRow& b = want.rows[r];
        QCOMPARE(int(a.kind), int(b.kind));
        QCOMPARE(a.trackId, b.trackId);
        QCOMPARE(a.deviceId, b.deviceId);
        QCOMPARE(a.depth, b.depth);
        QCOMPARE(a.items, b.items);
        QCOMPARE(a.buckets.size(), b.buckets.size());
        for (size_t k = 0; k < a.buckets.size(); ++k) {
            const OverviewBucket &x = a.buckets[k], &y = b.buckets[k];
            if (!(x == y))
                QFAIL(qPrintable(QStringLiteral("row %1 bucket %2: got (i %3 n %4 busy %5 cover %6-%7 key %8), want (i %9 n %10 busy %11 cover %12-%13 key %14)")
                                     .arg(r).arg(k).arg(x.index).arg(x.count).arg(x.busyNs).arg(x.coverStartNs).arg(x.coverEndNs).arg(x.key)
                                     .arg(y.index).arg(y.count).arg(y.busyNs).arg(y.coverStartNs).arg(y.coverEndNs).arg(y.key)));
        }
    }
}

int64_t activityRows(const std::string& path)
{
    Database db(path, OpenMode::ReadOnly);
    int64_t n = 0;
    Reader(db).forEachActivity(Reader(db).runs().front().id, [&](const Activity&) {
        ++n;
        return true;
    });
    return n;
}

}  // namespace

class TestRunOverview : public QObject {
    Q_OBJECT
private slots:
    void bucketsEqualBruteForce_data()
    {
        QTest::addColumn<uint>("seed");
        for (uint s = 1; s <= 6; ++s)
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(s))) << s;
    }
    void bucketsEqualBruteForce()
    {
        QFETCH(uint, seed);
        const std::string path = test::tempPath("random-" + std::to_string(seed) + ".wt");
        Database db(path, OpenMode::ReadWrite);
        const int64_t run = writeRandomRun(db, seed);
        std::optional<RunOverview> stored = Reader(db).overview(run);
        QVERIFY2(stored, "the writer stored no overview");
        const RunOverview want = bruteOverview(db, run);
        compareOverviews(*stored, want);
        // The empty track has a row without buckets; wide items touch many buckets.
        bool emptyRow = false, wide = false;
        for (const OverviewRow& r : stored->rows) {
            emptyRow |= r.kind == OverviewRow::Kind::Track && r.items == 0 && r.buckets.empty();
            for (const OverviewBucket& b : r.buckets)
                wide |= b.count == 0 && b.busyNs == stored->bucketNs;
        }
        QVERIFY(emptyRow);
        QVERIFY(wide);
        QVERIFY(std::any_of(stored->rows.begin(), stored->rows.end(), [](const OverviewRow& r) { return r.kind == OverviewRow::Kind::Lane && r.depth == 3; }));
    }

    void syntheticRunEqualsBruteForce()
    {
        const std::string path = test::tempPath("synth.wt");
        Database db(path, OpenMode::ReadWrite);
        synth::Options o;
        o.kernels = 20000;
        o.streams = 4;
        o.memcpyEvery = 300;
        Writer w(db);
        const synth::Result res = synth::generate(w, o);
        std::optional<RunOverview> stored = Reader(db).overview(res.runId);
        QVERIFY(stored);
        QCOMPARE(stored->bucketCount, RunOverview::kBuckets);
        compareOverviews(*stored, bruteOverview(db, res.runId));
        int64_t kernels = 0;
        for (const OverviewRow& r : stored->rows)
            if (r.kind == OverviewRow::Kind::Track)
                for (const OverviewBucket& b : r.buckets)
                    kernels += b.count;
        QCOMPARE(kernels, res.kernels + res.memcpys);
    }

    void coarserLevelsMergeExactly()
    {
        const std::string path = test::tempPath("coarse.wt");
        Database db(path, OpenMode::ReadWrite);
        const int64_t run = writeRandomRun(db, 42);
        RunOverview ov = *Reader(db).overview(run);
        for (OverviewRow& r : ov.rows) {
            std::vector<OverviewBucket> level = r.buckets;
            int64_t width = ov.bucketNs;
            for (int k = 0; k < 3; ++k) {
                std::vector<OverviewBucket> up = OverviewRow::coarsen(level, width);
                width *= 2;
                // Against level 0 summed straight into the wider buckets.
                std::map<uint32_t, std::pair<int64_t, int64_t>> want;   // count, busy
                for (const OverviewBucket& b : r.buckets) {
                    auto& w = want[uint32_t((int64_t(b.index) * ov.bucketNs) / width)];
                    w.first += b.count;
                    w.second += b.busyNs;
                }
                QCOMPARE(up.size(), want.size());
                size_t i = 0;
                for (auto& [index, cb] : want) {
                    QCOMPARE(up[i].index, index);
                    QCOMPARE(up[i].count, cb.first);
                    QCOMPARE(up[i].busyNs, cb.second);
                    QVERIFY(up[i].coverStartNs < up[i].coverEndNs || up[i].busyNs == 0);
                    QVERIFY(up[i].coverEndNs <= width);
                    ++i;
                }
                level = up;
            }
        }
    }

    void blobRoundTripsAndRefusesDamage()
    {
        std::vector<OverviewBucket> b = {{0, 3, 90, 5, 100, 7}, {4, 0, 128, 0, 128, -3}, {16383, 1, 1, 127, 128, 2}};
        const std::string blob = encodeOverviewBuckets(b);
        QCOMPARE(decodeOverviewBuckets(blob, RunOverview::kBuckets, 128), b);
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeOverviewBuckets(blob.substr(0, blob.size() - 1), RunOverview::kBuckets, 128));
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeOverviewBuckets(blob + '\0', RunOverview::kBuckets, 128));
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeOverviewBuckets(blob, 100, 128));      // index beyond the grid
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeOverviewBuckets(blob, RunOverview::kBuckets, 64));   // busy beyond a bucket
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeOverviewBuckets(std::string(1, '\x09') + blob.substr(1), RunOverview::kBuckets, 128));
    }

    void version4FileGetsItOnMigration()
    {
        const std::string path = test::tempPath("v4.wt");
        int64_t run = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            run = writeRandomRun(db, 7);
            writeRandomRun(db, 8);
        }
        const int64_t rows = activityRows(path);
        {
            // Back to version 4: its tables only.
            sqlite3* h = nullptr;
            QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
            QCOMPARE(sqlite3_exec(h, "DROP TABLE overviews; DROP TABLE overview_rows; PRAGMA user_version=4;", nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(h);
        }
        {
            Database ro(path, OpenMode::ReadOnly);   // migrates through a read-write open
            QCOMPARE(ro.schemaVersion(), Database::kSchemaVersion);
            QVERIFY(!Reader(ro).overview(run));        // the open only created the tables
        }
        {
            Database ro(path, OpenMode::ReadWrite);
            QCOMPARE(storeMissingRunOverviews(ro), 2);   // the pass outside the open
            std::optional<RunOverview> ov = Reader(ro).overview(run);
            QVERIFY(ov);
            Database& db = ro;
            compareOverviews(*ov, bruteOverview(db, run));
            QCOMPARE(int(Reader(ro).runs().size()), 2);
            QVERIFY(Reader(ro).overview(Reader(ro).runs().back().id));
        }
        QCOMPARE(activityRows(path), rows);
    }

    void failedSummaryLosesNothing()
    {
        const std::string path = test::tempPath("fail.wt");
        int64_t run = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            setBeforeOverviewCommit([] { throw StorageError("injected failure"); });
            run = writeRandomRun(db, 11);
            setBeforeOverviewCommit({});
            QVERIFY(!Reader(db).overview(run));   // rolled back
            QVERIFY(Reader(db).run(run).status == RunStatus::Complete);
        }
        {
            Database ro(path, OpenMode::ReadOnly);
            QVERIFY(!Reader(ro).overview(run));   // a read-only open computes nothing
        }
        Database db(path, OpenMode::ReadWrite);
        QVERIFY(!Reader(db).overview(run));          // the open computes nothing
        QCOMPARE(storeMissingRunOverviews(db), 1);   // the pass does
        QVERIFY(Reader(db).run(run).status == RunStatus::Complete);
        std::optional<RunOverview> ov = Reader(db).overview(run);
        QVERIFY(ov);
        compareOverviews(*ov, bruteOverview(db, run));
    }

    void killDuringSummaryLosesNothing()
    {
        const std::string path = test::tempPath("kill.wt");
        const std::string reference = test::tempPath("kill-reference.wt");
        {
            Database db(reference, OpenMode::ReadWrite);
            writeRandomRun(db, 13);
        }
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            Database db(path, OpenMode::ReadWrite);
            setBeforeOverviewCommit([] { ::raise(SIGKILL); });
            writeRandomRun(db, 13);
            _exit(0);   // not reached
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        {
            Database ro(path, OpenMode::ReadOnly);
            Reader r(ro);
            QCOMPARE(int(r.runs().size()), 1);
            QVERIFY(r.runs().front().status == RunStatus::Complete);
            QVERIFY(!r.overview(r.runs().front().id));
        }
        QCOMPARE(activityRows(path), activityRows(reference));
        Database db(path, OpenMode::ReadWrite);
        QCOMPARE(storeMissingRunOverviews(db), 1);
        const int64_t run = Reader(db).runs().front().id;
        std::optional<RunOverview> ov = Reader(db).overview(run);
        QVERIFY(ov);
        compareOverviews(*ov, bruteOverview(db, run));
    }
};

QTEST_GUILESS_MAIN(TestRunOverview)
#include "tst_runoverview.moc"
