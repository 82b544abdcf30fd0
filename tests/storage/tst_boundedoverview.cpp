// The bounded pass of computeRunOverview (a run larger than its memory budget): with a tiny
// budget, so that instances come in many blocks of ids, spans cross blocks (pending parents)
// and lane items go through many sorted runs in the temporary file, the summary and the scope
// lanes equal those of the in-memory pass, byte for byte once stored (random runs with
// interleaved trees on three devices, kernels at every depth and outside scopes, instances
// without kernels; a synthetic capture-like run). A spilled ScopeLaneSet stores what an
// in-memory one does. A run whose per-step totals pass the writer's limit stores none, and
// reads the same per-step totals (computed) as one that stored them. A chunk names the
// instance-id range the pass skips chunks by.
#include "analysis/compare.h"
#include "storage/activitychunk.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/runoverview.h"
#include "storage/scopelanes.h"
#include "storage/statement.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <random>

using namespace wt;

namespace {

// Restores the default budget when a test ends, passed or not.
struct BudgetGuard {
    ~BudgetGuard() { setOverviewMemoryBudget(0); }
};

// A random run: three devices, five kernel tracks, a memory track; scopes up to five deep; two
// "threads" whose instance trees interleave in id order (so a block's parents are anywhere
// below it), instances without kernels, kernels on ancestors and outside any scope, wide and
// zero-length kernels.
int64_t writeRandomRun(Database& db, uint32_t seed)
{
    std::mt19937_64 rng(seed);
    auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
    Writer w(db);
    RunInfo info;
    info.name = "bounded-" + std::to_string(seed);
    info.backend = "import";
    const int64_t run = w.beginRun(info);
    for (int d = 0; d < 3; ++d)
        w.addDevice(DeviceInfo{d, "gpu" + std::to_string(d), "{}"});
    std::vector<int64_t> tracks;
    for (int t = 0; t < 5; ++t)
        tracks.push_back(w.addTrack(int32_t(t % 3), 7 + t, TrackKind::Kernel));
    const int64_t memory = w.addTrack(0, 0, TrackKind::Memory);
    const char* levels[5] = {"step", "phase", "layer", "op", "nvtx"};
    std::vector<std::vector<int64_t>> scopesAt(5);
    scopesAt[0].push_back(w.addScope(0, "step", "step"));
    for (int d = 1; d < 5; ++d)
        for (int k = 0; k < 3; ++k)
            scopesAt[size_t(d)].push_back(w.addScope(scopesAt[size_t(d - 1)][size_t(k % scopesAt[size_t(d - 1)].size())],
                                                     std::string(levels[d]) + std::to_string(k), levels[d]));
    const uint32_t names[3] = {w.intern("k0"), w.intern("k1"), w.intern("copy")};
    auto kernel = [&](int64_t instance, int64_t at) {
        Activity a;
        a.trackId = tracks[size_t(uni(0, 4))];
        a.startNs = at;
        const int64_t shape = uni(0, 20);
        a.endNs = at + (shape == 0 ? 0 : shape == 1 ? uni(100000, 900000) : uni(1, 3000));
        a.nameId = names[uni(0, 1)];
        a.scopeInstanceId = instance;
        w.addActivity(a);
        if (uni(0, 9) == 0) {
            Activity m;
            m.trackId = memory;
            m.kind = ActivityKind::Memcpy;
            m.startNs = at + uni(0, 50);
            m.endNs = m.startNs + uni(0, 500);
            m.nameId = names[2];
            m.bytes = 64;
            m.scopeInstanceId = instance;
            w.addActivity(m);
        }
    };
    // Two open stacks (threads) taking turns: each step opens, closes or adds a kernel.
    struct Open {
        int64_t id, depth;
    };
    std::vector<Open> stacks[2];
    int64_t t = 0;
    for (int i = 0, n = int(uni(1500, 2500)); i < n; ++i) {
        auto& st = stacks[uni(0, 1)];
        const int64_t action = uni(0, 9);
        t += uni(0, 400);
        if (action < 4 && (st.empty() || st.back().depth < 4)) {
            const int64_t depth = st.empty() ? 0 : st.back().depth + 1;
            const auto& choices = scopesAt[size_t(depth)];
            const int64_t scope = choices[size_t(uni(0, int64_t(choices.size()) - 1))];
            st.push_back({w.beginScopeInstance(scope, st.empty() ? 0 : st.back().id, t), depth});
        } else if (action < 6 && !st.empty()) {
            w.endScopeInstance(st.back().id, t);
            st.pop_back();
        } else {
            // A kernel of the innermost instance, sometimes of an ancestor or of none.
            const int64_t pick = uni(0, 9);
            const int64_t inst = st.empty() || pick == 0 ? 0 : pick == 1 ? st.front().id : st.back().id;
            kernel(inst, t + uni(0, 5000));
        }
    }
    for (auto& st : stacks)
        for (; !st.empty(); st.pop_back())
            w.endScopeInstance(st.back().id, t + 10);
    w.finishRun(RunStatus::Complete, t + 10);
    return run;
}

QString compareSteps(const std::vector<std::vector<TotalRow>>& a, const std::vector<std::vector<TotalRow>>& b)
{
    if (a.size() != b.size())
        return QStringLiteral("steps: %1 vs %2").arg(a.size()).arg(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].size() != b[i].size())
            return QStringLiteral("step %1: %2 vs %3 rows").arg(i).arg(a[i].size()).arg(b[i].size());
        for (size_t k = 0; k < a[i].size(); ++k) {
            const TotalRow &x = a[i][k], &y = b[i][k];
            if (x.scopeId != y.scopeId || x.nameId != y.nameId || x.kind != y.kind || x.count != y.count || x.timeNs != y.timeNs)
                return QStringLiteral("step %1 row %2 differs").arg(i).arg(k);
        }
    }
    return {};
}

struct Computed {
    RunOverview overview;
    ScopeLaneSet lanes;
};

Computed compute(Database& db, int64_t run, int64_t budget)
{
    setOverviewMemoryBudget(budget);
    Computed c;
    c.overview = computeRunOverview(db, run, &c.lanes);
    setOverviewMemoryBudget(0);
    return c;
}

// Empty when two overviews agree: grid, rows, buckets.
QString compareOverviews(const RunOverview& a, const RunOverview& b)
{
    if (a.originNs != b.originNs || a.bucketNs != b.bucketNs || a.bucketCount != b.bucketCount || a.activities != b.activities)
        return QStringLiteral("overview grid differs");
    if (a.rows.size() != b.rows.size())
        return QStringLiteral("overview rows: %1 vs %2").arg(a.rows.size()).arg(b.rows.size());
    for (size_t i = 0; i < a.rows.size(); ++i) {
        const OverviewRow &x = a.rows[i], &y = b.rows[i];
        if (x.kind != y.kind || x.trackId != y.trackId || x.deviceId != y.deviceId || x.depth != y.depth || x.items != y.items)
            return QStringLiteral("overview row %1: header differs (items %2 vs %3)").arg(i).arg(x.items).arg(y.items);
        if (x.buckets != y.buckets)
            return QStringLiteral("overview row %1: buckets differ").arg(i);
    }
    return {};
}

// Empty when the two computations agree: overview, lanes, each chunk's figures and bytes.
QString compare(const Computed& a, const Computed& b)
{
    if (const QString d = compareOverviews(a.overview, b.overview); !d.isEmpty())
        return d;
    if (a.lanes.lanes != b.lanes.lanes)
        return QStringLiteral("lanes differ (%1 vs %2)").arg(a.lanes.lanes.size()).arg(b.lanes.lanes.size());
    if (a.lanes.chunks.size() != b.lanes.chunks.size())
        return QStringLiteral("lane chunks: %1 vs %2").arg(a.lanes.chunks.size()).arg(b.lanes.chunks.size());
    for (size_t i = 0; i < a.lanes.chunks.size(); ++i) {
        const ScopeLaneChunk &x = a.lanes.chunks[i], &y = b.lanes.chunks[i];
        if (x.lane != y.lane || x.startNs != y.startNs || x.endNs != y.endNs || x.count != y.count)
            return QStringLiteral("lane chunk %1: figures differ").arg(i);
        if (a.lanes.chunkData(i) != b.lanes.chunkData(i))
            return QStringLiteral("lane chunk %1: items differ").arg(i);
    }
    return {};
}

int64_t laneItems(const ScopeLaneSet& s)
{
    int64_t n = 0;
    for (const ScopeLane& l : s.lanes)
        n += l.items;
    return n;
}

// What a stored run's lane chunks hold, as (lane, start, end, count, data) text.
std::vector<std::string> storedChunks(Database& db, int64_t run)
{
    std::vector<std::string> out;
    Statement s(db.handle(), "SELECT lane, start_ns, end_ns, count, hex(data) FROM scope_lane_chunks WHERE run_id=? ORDER BY lane, start_ns, id");
    s.bind(1, run);
    while (s.step())
        out.push_back(std::to_string(s.int64(0)) + " " + std::to_string(s.int64(1)) + " " + std::to_string(s.int64(2)) + " " +
                      std::to_string(s.int64(3)) + " " + s.text(4));
    return out;
}

}  // namespace

class TestBoundedOverview : public QObject {
    Q_OBJECT
private slots:
    void boundedEqualsInMemory_data()
    {
        QTest::addColumn<uint>("seed");
        QTest::addColumn<qint64>("budget");
        for (uint s = 1; s <= 6; ++s) {
            QTest::newRow(qPrintable(QStringLiteral("seed %1, 1 KB").arg(s))) << s << qint64(1000);   // blocks of 64 ids
            QTest::newRow(qPrintable(QStringLiteral("seed %1, 10 KB").arg(s))) << s << qint64(10000);   // 121 ids
        }
    }
    void boundedEqualsInMemory()
    {
        QFETCH(uint, seed);
        QFETCH(qint64, budget);
        BudgetGuard guard;
        const std::string path = test::tempPath("bounded-overview-" + std::to_string(seed) + ".wt");
        Database db(path, OpenMode::ReadWrite);
        const int64_t run = writeRandomRun(db, seed);
        const Computed inMemory = compute(db, run, 0);
        const Computed bounded = compute(db, run, budget);
        // The bounded pass ran: more instances than its blocks hold, more items than a run's buffer.
        const int64_t instances = int64_t(Reader(db).scopeInstances(run).size());
        QVERIFY2(instances > 3 * std::max<int64_t>(64, budget / 2 / 41), qPrintable(QString::number(instances)));
        QVERIFY(laneItems(inMemory.lanes) > 3 * std::max<int64_t>(64, budget / 2 / 40));
        QVERIFY(inMemory.lanes.lanes.size() >= 6);
        QVERIFY(std::all_of(bounded.lanes.chunks.begin(), bounded.lanes.chunks.end(),
                            [](const ScopeLaneChunk& c) { return c.data.empty() && c.spillOffset >= 0; }));   // spilled
        const QString diff = compare(inMemory, bounded);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // Stored from the spill file, the rows are those of the in-memory set.
        storeRunOverview(db, run, inMemory.overview, &inMemory.lanes);
        const std::vector<std::string> want = storedChunks(db, run);
        storeRunOverview(db, run, bounded.overview, &bounded.lanes);
        QCOMPARE(storedChunks(db, run), want);
        const QString stored = compareOverviews(*readRunOverview(db, run), inMemory.overview);
        QVERIFY2(stored.isEmpty(), qPrintable(stored));
    }

    void syntheticRunBoundedEqualsInMemory()
    {
        BudgetGuard guard;
        const std::string path = test::tempPath("bounded-overview-synth.wt");
        Database db(path, OpenMode::ReadWrite);
        synth::Options o;
        o.kernels = 30000;   // several chunks in the op lane
        o.streams = 3;
        o.memcpyEvery = 200;
        Writer w(db);
        const int64_t run = synth::generate(w, o).runId;
        const Computed inMemory = compute(db, run, 0);
        const Computed bounded = compute(db, run, 200000);   // ~2,400 ids a block, ~2,500 items a run
        QVERIFY(std::any_of(inMemory.lanes.lanes.begin(), inMemory.lanes.lanes.end(),
                            [](const ScopeLane& l) { return l.items > int64_t(ScopeLaneSet::kChunkItems); }));
        const QString diff = compare(inMemory, bounded);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // A Writer finishing a run over its budget stores the bounded pass's result: the same rows
    // as a run written under the default budget.
    void writerOverBudgetStoresTheSame()
    {
        BudgetGuard guard;
        const std::string a = test::tempPath("bounded-overview-writer-a.wt"), b = test::tempPath("bounded-overview-writer-b.wt");
        int64_t runA = 0, runB = 0;
        {
            Database db(a, OpenMode::ReadWrite);
            runA = writeRandomRun(db, 11);
        }
        setOverviewMemoryBudget(1000);
        {
            Database db(b, OpenMode::ReadWrite);
            runB = writeRandomRun(db, 11);
        }
        setOverviewMemoryBudget(0);
        Database da(a, OpenMode::ReadOnly), dbb(b, OpenMode::ReadOnly);
        QCOMPARE(storedChunks(dbb, runB), storedChunks(da, runA));
        QVERIFY(!storedChunks(da, runA).empty());
        const QString d = compareOverviews(*readRunOverview(dbb, runB), *readRunOverview(da, runA));
        QVERIFY2(d.isEmpty(), qPrintable(d));
        QVERIFY(readScopeLanes(dbb, runB) == readScopeLanes(da, runA));
    }

    // The chunk's instance-id range the bounded pass skips chunks by: the non-zero extremes.
    void chunkInstanceRange()
    {
        std::mt19937_64 rng(5);
        for (int round = 0; round < 20; ++round) {
            std::vector<StoredActivity> rows;
            int64_t lo = 0, hi = 0;
            for (int i = 0, n = 1 + int(rng() % 3000); i < n; ++i) {
                const int64_t id = rng() % 4 == 0 ? 0 : int64_t(1 + rng() % (uint64_t(1) << (1 + round * 2)));
                rows.push_back(StoredActivity{int64_t(rng() % 100000), int64_t(rng() % 5000), id, int64_t(i), 0, int64_t(i), 0,
                                              uint32_t(rng() % 300), 0});
                if (id != 0) {
                    lo = lo == 0 ? id : std::min(lo, id);
                    hi = std::max(hi, id);
                }
            }
            ChunkHeader h;
            const std::string blob = ActivityChunk::encode(rows, h);
            int64_t a = -1, b = -1;
            ActivityChunk::instanceRange(blob, a, b);
            QCOMPARE(a, lo);
            QCOMPARE(b, hi);
            QVERIFY_THROWS_EXCEPTION(StorageError, ActivityChunk::instanceRange(blob.substr(0, blob.size() / 3), a, b));
        }
    }

    void stepTotalsOverTheLimitAreNotStored()
    {
        struct LimitGuard {
            ~LimitGuard() { Writer::setStepTotalsLimit(0); }
        } guard;
        const std::string a = test::tempPath("bounded-steps-a.wt"), b = test::tempPath("bounded-steps-b.wt");
        synth::Options o;
        o.kernels = 20000;
        o.streams = 2;
        int64_t runA = 0, runB = 0;
        {
            Database db(a, OpenMode::ReadWrite);
            Writer w(db);
            runA = synth::generate(w, o).runId;
        }
        Writer::setStepTotalsLimit(4000);   // a few steps' worth
        {
            Database db(b, OpenMode::ReadWrite);
            Writer w(db);
            runB = synth::generate(w, o).runId;
        }
        Writer::setStepTotalsLimit(0);
        Database da(a, OpenMode::ReadOnly), dbb(b, OpenMode::ReadOnly);
        const Reader ra(da), rb(dbb);
        const auto stored = ra.stepTotals(runA);
        QVERIFY(stored && stored->steps.size() > 10);
        QVERIFY(!rb.stepTotals(runB));
        QCOMPARE(rb.totals(runB).size(), ra.totals(runA).size());
        // Read as for an older file: computed from the instances and activities, the same.
        const CompareRun ca = loadCompareRun(ra, runA), cb = loadCompareRun(rb, runB);
        QCOMPARE(cb.steps, ca.steps);
        const QString d = compareSteps(cb.stepTotals, stored->steps);
        QVERIFY2(d.isEmpty(), qPrintable(d));
        QVERIFY(compareSteps(ca.stepTotals, stored->steps).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBoundedOverview)
#include "tst_boundedoverview.moc"
