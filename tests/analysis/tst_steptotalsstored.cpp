// The per-step totals the Writer stores when it finishes a run (schema version 3, table
// step_totals) are, row for row, what readStepTotals computes from the run's instances and
// activities: on real tiny CPU captures, on hand-written runs with the odd cases (nested steps,
// activities outside every step, a step without activities, an instance never ended, profiler
// steps shared by name, both kinds of step in one run), and on imported traces. A file without
// the tables (schema version 2) migrates, takes the slow path, and compares with the same output.
#include "analysis/compare.h"
#include "analysis/comparetable.h"
#include "capture/capture.h"
#include "interop/importer.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/steptotalsblob.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

#include <filesystem>

using namespace wt;

namespace {

int64_t captureTiny(const std::string& file, const std::string& workload, const std::string& variant, int steps)
{
    capture::CaptureOptions o;
    o.workload = workload;
    o.variant = variant;
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = steps;
    o.warmup = 0;
    o.output = file;
    return capture::runCapture(o).runId;
}

ScopeTree treeOf(const Reader& r, int64_t run)
{
    std::vector<ScopeNode> nodes = r.scopes(run);
    std::unordered_map<uint32_t, std::string> names;
    for (const ScopeNode& n : nodes)
        for (uint32_t id : {n.nameId, n.levelId})
            names.emplace(id, r.string(id));
    return ScopeTree(nodes, names);
}

// Compares the stored step totals of every run of `file` with the computed ones; returns how
// many runs had steps.
int checkFile(const std::string& file)
{
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    int withSteps = 0;
    for (const RunInfo& run : r.runs()) {
        const ScopeTree tree = treeOf(r, run.id);
        const auto stored = r.stepTotals(run.id);
        if (!stored) {
            QTest::qFail(qPrintable(QStringLiteral("run %1 has no stored step totals").arg(run.id)), __FILE__, __LINE__);
            return -1;
        }
        const std::vector<std::vector<TotalRow>> computed = readStepTotals(r, run.id, tree);
        const int64_t steps = countSteps(r, run.id, tree);
        if (countSteps(r, run.id, tree, stored->stepCount) != steps ||
            (steps > 0 && stored->steps.size() != computed.size())) {
            QTest::qFail(qPrintable(QStringLiteral("run %1: %2 steps stored, %3 computed (count %4)")
                                        .arg(run.id).arg(stored->steps.size()).arg(computed.size()).arg(steps)),
                         __FILE__, __LINE__);
            return -1;
        }
        withSteps += computed.empty() ? 0 : 1;
        for (size_t s = 0; s < computed.size(); ++s) {
            const auto& a = stored->steps[s];
            const auto& b = computed[s];
            bool same = a.size() == b.size();
            for (size_t i = 0; same && i < a.size(); ++i)
                same = a[i].scopeId == b[i].scopeId && a[i].nameId == b[i].nameId && a[i].kind == b[i].kind &&
                       a[i].count == b[i].count && a[i].timeNs == b[i].timeNs;
            if (!same) {
                QTest::qFail(qPrintable(QStringLiteral("run %1 step %2: stored rows differ from computed").arg(run.id).arg(s)),
                             __FILE__, __LINE__);
                return -1;
            }
        }
    }
    return withSteps;
}

Activity kernelAt(int64_t track, uint32_t name, int64_t instance, int64_t start, int64_t ns)
{
    Activity a;
    a.trackId = track;
    a.startNs = start;
    a.endNs = start + ns;
    a.nameId = name;
    a.scopeInstanceId = instance;
    return a;
}

// The texts of every comparison the CLI makes of the file's runs against its first: per step
// and per run, by layer and by kernel, text and JSON (the noise columns included).
std::string compareOutput(const std::string& file)
{
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    std::vector<CompareRun> runs;
    for (const RunInfo& info : r.runs())
        runs.push_back(loadCompareRun(r, info.id, file));
    std::string out;
    for (size_t i = 1; i < runs.size(); ++i)
        for (std::optional<GroupBy> g : {std::optional<GroupBy>(), std::optional<GroupBy>(GroupBy::Kernel)})
            for (ComparePer per : {ComparePer::Step, ComparePer::Run}) {
                if (per == ComparePer::Step && (runs[0].steps == 0 || runs[i].steps == 0))
                    continue;
                CompareOptions o;
                o.groupBy = g;
                o.per = per;
                const Table t = compareTable(compareRuns({&runs[0], &runs[i]}, o));
                out += render::text(t) + render::json(t);
            }
    return out;
}

}  // namespace

class TestStepTotalsStored : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void capturesMatchComputed();
    void handWrittenCasesMatchComputed();
    void importsMatchComputed();
    void oldFileComparesTheSame();
    void blobRoundTripsAndRefusesDamage();

private:
    std::string m_captures;
};

void TestStepTotalsStored::initTestCase()
{
    m_captures = test::tempPath("steptotals-captures.wt");
    captureTiny(m_captures, "gcn", "adaptive", 3);
    captureTiny(m_captures, "gcn", "full", 3);
    captureTiny(m_captures, "transformer", "full", 2);
}

void TestStepTotalsStored::capturesMatchComputed()
{
    QCOMPARE(checkFile(m_captures), 3);
    // The stored rows are the samples compare reads.
    Database db(m_captures, OpenMode::ReadOnly);
    Reader r(db);
    const CompareRun run = loadCompareRun(r, r.runs().front().id);
    QCOMPARE(run.steps, int64_t(3));
    QCOMPARE(run.stepTotals.size(), size_t(3));
    QVERIFY(!run.stepTotals[0].empty());
}

void TestStepTotalsStored::handWrittenCasesMatchComputed()
{
    const std::string file = test::tempPath("steptotals-cases.wt");
    {
        Database db(file, OpenMode::ReadWrite);
        Writer w(db);
        RunInfo info;
        info.backend = "cpu";
        // Captures' shape, with steps nested in a step (the inner one is no step of its own), a
        // kernel before the first step, an empty step, a step never ended, steps out of time order.
        info.name = "levels";
        w.beginRun(info);
        int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
        int64_t step = w.addScope(0, "step", "step");
        int64_t inner = w.addScope(step, "micro", "step");
        int64_t layer = w.addScope(inner, "conv", "layer");
        int64_t loose = w.addScope(0, "setup", "phase");
        const uint32_t k1 = w.intern("k1"), k2 = w.intern("k2");
        const int64_t li = w.addScopeInstance(loose, 0, 0, 10);
        w.addActivity(kernelAt(track, k1, li, 0, 5));
        const int64_t s1 = w.addScopeInstance(step, 0, 300, 400);       // later start, lower id
        const int64_t m1 = w.addScopeInstance(inner, s1, 300, 350);
        const int64_t c1 = w.addScopeInstance(layer, m1, 300, 340);
        w.addActivity(kernelAt(track, k1, c1, 300, 7));
        w.addActivity(kernelAt(track, k1, c1, 310, 9));
        w.addActivity(kernelAt(track, k2, m1, 320, 3));
        w.addScopeInstance(step, 0, 100, 200);                          // empty
        const int64_t s3 = w.addScopeInstance(step, 0, 20, 90);
        w.addActivity(kernelAt(track, k2, s3, 25, 11));
        const int64_t open = w.beginScopeInstance(step, 0, 500);        // never ended
        w.addActivity(kernelAt(track, k1, w.addScopeInstance(layer, w.addScopeInstance(inner, open, 500, 510), 500, 505),
                               500, 4));
        w.addActivity(kernelAt(track, k2, 0, 600, 2));                  // no scope
        w.finishRun(RunStatus::Complete, 700);

        // Imports' shape: ProfilerStep#N ranges on two "ranks" sharing their names, one step
        // inside another step's range, and a "step"-less tree.
        info.name = "profiler";
        info.backend = "import";
        w.beginRun(info);
        track = w.addTrack(0, 1, TrackKind::Kernel);
        const int64_t rank0 = w.addScope(0, "rank 0", "rank");
        const int64_t rank1 = w.addScope(0, "rank 1", "rank");
        for (int rank = 0; rank < 2; ++rank) {
            const int64_t parent = rank ? rank1 : rank0;
            const int64_t ri = w.addScopeInstance(parent, 0, 0, 1000);
            for (int n = 0; n < 3; ++n) {
                const int64_t ps = w.addScope(parent, "ProfilerStep#" + std::to_string(7 + n), "op");
                // Rank 0 later steps first; rank 1 the other way: #7 starts first (on rank 1).
                const int64_t start = rank == 0 ? 100 * (2 - n) : 100 * n + 7;
                const int64_t pi = w.addScopeInstance(ps, ri, start, start + 50);
                w.addActivity(kernelAt(track, k1, pi, start, 10 + n + rank));
                const int64_t nested = w.addScope(ps, "ProfilerStep#99", "op");
                w.addActivity(kernelAt(track, k2, w.addScopeInstance(nested, pi, start + 5, start + 20), start + 5, 3));
            }
            w.addActivity(kernelAt(track, k2, ri, 900, 1));            // outside every step
        }
        w.finishRun(RunStatus::Complete, 1000);

        // Both: a profiler-step name under a tree with a "step" level: by level wins.
        info.name = "both";
        w.beginRun(info);
        track = w.addTrack(0, 1, TrackKind::Kernel);
        const int64_t ps = w.addScope(0, "ProfilerStep#1", "op");
        const int64_t lvl = w.addScope(ps, "iteration", "step");
        const int64_t pi = w.addScopeInstance(ps, 0, 0, 100);
        w.addActivity(kernelAt(track, k1, pi, 0, 5));
        for (int i = 0; i < 2; ++i)
            w.addActivity(kernelAt(track, k2, w.addScopeInstance(lvl, pi, 10 + 40 * i, 40 + 40 * i), 10 + 40 * i, 6 + i));
        w.finishRun(RunStatus::Complete, 100);

        // No steps at all.
        info.name = "flat";
        w.beginRun(info);
        track = w.addTrack(0, 1, TrackKind::Kernel);
        w.addActivity(kernelAt(track, k1, w.addScopeInstance(w.addScope(0, "model", "layer"), 0, 0, 10), 0, 5));
        w.finishRun(RunStatus::Complete, 10);

        // A job imported as one run: each step one "step"-level scope, its instances on two ranks
        // overlapping in time (one step, as computeStepTimes counts it); the last step's two
        // instances only touch (end = start): two steps.
        info.name = "ranks";
        w.beginRun(info);
        const int64_t dev0 = w.addTrack(0, 1, TrackKind::Kernel), dev1 = w.addTrack(1, 1, TrackKind::Kernel);
        for (int n = 0; n < 2; ++n) {
            const int64_t ps = w.addScope(0, "ProfilerStep#" + std::to_string(n), "step");
            for (int rank = 0; rank < 2; ++rank) {
                const int64_t start = 100 * n + 3 * rank;
                w.addActivity(kernelAt(rank ? dev1 : dev0, k1, w.addScopeInstance(ps, 0, start, start + 90), start + 1, 10 + rank));
            }
        }
        const int64_t touching = w.addScope(0, "ProfilerStep#2", "step");
        w.addActivity(kernelAt(dev0, k2, w.addScopeInstance(touching, 0, 200, 250), 200, 5));
        w.addActivity(kernelAt(dev1, k2, w.addScopeInstance(touching, 0, 250, 300), 250, 6));
        w.finishRun(RunStatus::Complete, 300);
    }
    QCOMPARE(checkFile(file), 4);
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    const auto runs = r.runs();
    const auto levels = r.stepTotals(runs[0].id);
    QVERIFY(levels);
    QCOMPARE(levels->steps.size(), size_t(4));   // s3, the empty one, s1, the open one
    QCOMPARE(levels->stepInstances, int64_t(4));
    QVERIFY(levels->steps[1].empty());
    const auto profiler = r.stepTotals(runs[1].id);
    QCOMPARE(profiler->steps.size(), size_t(3));   // #9, #7, #8 in time order, ranks together
    QCOMPARE(r.stepTotals(runs[2].id)->steps.size(), size_t(2));
    QVERIFY(r.stepTotals(runs[3].id)->steps.empty());
    const auto ranks = r.stepTotals(runs[4].id);
    QCOMPARE(ranks->stepInstances, int64_t(6));
    QCOMPARE(ranks->stepCount, int64_t(4));   // #0 and #1 once each (both ranks), #2 twice
    QCOMPARE(ranks->steps.size(), size_t(4));
    QCOMPARE(ranks->steps[0].size(), size_t(1));
    QCOMPARE(ranks->steps[0][0].count, int64_t(2));    // both ranks' kernels in the one step
    QCOMPARE(ranks->steps[0][0].timeNs, int64_t(21));
    QCOMPARE(ranks->steps[3][0].timeNs, int64_t(6));
    const ScopeTree tree = treeOf(r, runs[4].id);
    QCOMPARE(countSteps(r, runs[4].id, tree), int64_t(4));
    // Without stored totals (a version 2 file): counted from the instances by the same rule.
    const std::string old = test::tempPath("steptotals-cases-old.wt");
    std::filesystem::remove(old);
    std::filesystem::copy_file(file, old);
    {
        Database rw(old, OpenMode::ReadWrite);
        rw.exec("DROP TABLE step_totals; DROP TABLE host_threads; PRAGMA user_version=2;");
        rw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    Database odb(old, OpenMode::ReadOnly);
    Reader orr(odb);
    QVERIFY(!orr.stepTotals(runs[4].id));
    QCOMPARE(countSteps(orr, runs[4].id, treeOf(orr, runs[4].id)), int64_t(4));
    QCOMPARE(readStepTotals(orr, runs[4].id, treeOf(orr, runs[4].id)).size(), size_t(4));
    QCOMPARE(countSteps(orr, runs[0].id, treeOf(orr, runs[0].id)), int64_t(4));
}

void TestStepTotalsStored::importsMatchComputed()
{
    const std::string file = test::tempPath("steptotals-imports.wt");
    for (const char* name : {"kineto-hta_2ranks_rank-0.json.gz", "kineto-2021_v100_resnet50.pt.trace.json.gz"}) {
        WT_REQUIRE_TRACE(trace, name);
        Database db(file, OpenMode::ReadWrite);
        interop::importTrace(db, trace.toStdString());
    }
    QCOMPARE(checkFile(file), 2);
}

void TestStepTotalsStored::oldFileComparesTheSame()
{
    WT_REQUIRE_TRACE(trace, "kineto-hta_2ranks_rank-1.json.gz");
    const std::string file = test::tempPath("steptotals-new.wt");
    const std::string old = test::tempPath("steptotals-old.wt");
    std::filesystem::remove(file);
    std::filesystem::copy_file(m_captures, file);
    {
        Database db(file, OpenMode::ReadWrite);
        interop::importTrace(db, trace.toStdString());
        WT_REQUIRE_TRACE(trace0, "kineto-hta_2ranks_rank-0.json.gz");
        interop::importTrace(db, trace0.toStdString());
    }
    std::filesystem::remove(old);
    std::filesystem::copy_file(file, old);
    {
        // What a version 2 file is: no step tables.
        Database db(old, OpenMode::ReadWrite);
        db.exec("DROP TABLE step_totals; DROP TABLE host_threads; PRAGMA user_version=2;");
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    {
        Database db(old, OpenMode::ReadOnly);   // migrates it
        QCOMPARE(db.schemaVersion(), Database::kSchemaVersion);
        Reader r(db);
        for (const RunInfo& run : r.runs())
            QVERIFY(!r.stepTotals(run.id));     // the slow path, then
    }
    const std::string fast = compareOutput(file);
    QVERIFY(!fast.empty());
    QCOMPARE(compareOutput(old), fast);
    // The per-step samples themselves, run by run.
    Database a(file, OpenMode::ReadOnly), b(old, OpenMode::ReadOnly);
    Reader ra(a), rb(b);
    int sampled = 0;
    for (const RunInfo& run : ra.runs()) {
        const CompareRun x = loadCompareRun(ra, run.id), y = loadCompareRun(rb, run.id);
        QCOMPARE(x.steps, y.steps);
        QCOMPARE(x.stepTotals.size(), y.stepTotals.size());
        for (size_t s = 0; s < x.stepTotals.size(); ++s) {
            QCOMPARE(x.stepTotals[s].size(), y.stepTotals[s].size());
            for (size_t i = 0; i < x.stepTotals[s].size(); ++i) {
                QCOMPARE(x.stepTotals[s][i].timeNs, y.stepTotals[s][i].timeNs);
                QCOMPARE(x.stepTotals[s][i].count, y.stepTotals[s][i].count);
                QCOMPARE(x.stepTotals[s][i].scopeId, y.stepTotals[s][i].scopeId);
            }
        }
        sampled += x.stepTotals.empty() ? 0 : 1;
    }
    QCOMPARE(sampled, 5);
}

void TestStepTotalsStored::blobRoundTripsAndRefusesDamage()
{
    std::vector<std::vector<TotalRow>> steps(4);
    steps[0] = {TotalRow{0, 7, ActivityKind::Memcpy, 1, 5}, TotalRow{4, 2, ActivityKind::Kernel, 3, INT64_MAX},
                TotalRow{4, 9, ActivityKind::Kernel, 1, -2}, TotalRow{INT64_MAX / 2, UINT32_MAX, ActivityKind::Memset, 2, 0}};
    steps[2] = {TotalRow{1, 1, ActivityKind::Kernel, 1, 1}};   // steps[1]: a step without activities
    steps[3] = {TotalRow{1, 1, ActivityKind::Kernel, 2, 9}};   // the keys of the step before
    const std::string blob = StepTotalsBlob::encode(steps);
    const auto back = StepTotalsBlob::decode(blob, 4);
    QCOMPARE(back.size(), size_t(4));
    QCOMPARE(back[1].size(), size_t(0));
    for (size_t s = 0; s < 4; ++s) {
        QCOMPARE(back[s].size(), steps[s].size());
        for (size_t i = 0; i < steps[s].size(); ++i) {
            QCOMPARE(back[s][i].scopeId, steps[s][i].scopeId);
            QCOMPARE(back[s][i].nameId, steps[s][i].nameId);
            QCOMPARE(int(back[s][i].kind), int(steps[s][i].kind));
            QCOMPARE(back[s][i].count, steps[s][i].count);
            QCOMPARE(back[s][i].timeNs, steps[s][i].timeNs);
        }
    }
    QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(blob, 5));                       // a step missing
    QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(blob, 3));                       // bytes left over
    QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(blob.substr(0, blob.size() - 1), 4));
    QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(std::string("\x03\x02\x12", 3), 1));   // "same" first
    QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(std::string("\xff\xff\xff\x7f", 4), 1));
    // A negative scope id (delta -1 from 0), and a scope delta that would overflow a signed add
    // (scope 1, then a delta of INT64_MAX; the fuzzer found -49 then INT64_MIN).
    QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(std::string("\x02\x01\x00\x00\x02\x02", 6), 1));
    {
        std::string wrap("\x04", 1);
        wrap += std::string("\x02\x00\x00\x02\x02", 5);                      // scope 1
        wrap += std::string("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);   // zigzag(INT64_MAX)
        wrap += std::string("\x00\x00\x02\x02", 4);
        QVERIFY_THROWS_EXCEPTION(StorageError, StepTotalsBlob::decode(wrap, 1));
    }
}

QTEST_GUILESS_MAIN(TestStepTotalsStored)
#include "tst_steptotalsstored.moc"
