// The stored scope lanes of a run (storage/scopelanes.h, schema 6): each lane's instances and
// GPU spans equal a brute-force computation from what the Reader hands out (random runs with
// nested scopes four deep, wide items, instances without kernels, memory copies, empty tracks,
// two devices; a synthetic capture-like run), a time window reads exactly the items that meet
// it, the blob refuses damage, a version-5 file gets them from the pass after its migration
// (storage/summarybackfill.h; the open itself computes nothing), a newer file is
// refused in one line, and a kill while they are written loses nothing committed.
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/runoverview.h"
#include "storage/scopelanes.h"
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

struct BruteLane {
    ScopeLane figures;
    std::vector<ScopeLaneItem> items;
};

// Lanes the plain way: every kernel widens the span of its instance and each ancestor (walking
// parent ids), per device; an instance is in lane (device, depth) for each device it ran a
// kernel on, with its span over all devices; items sorted by (start, id).
std::vector<BruteLane> bruteLanes(Database& db, int64_t runId)
{
    Reader reader(db);
    std::map<int64_t, ScopeInstance> inst;
    for (const ScopeInstance& i : reader.scopeInstances(runId))
        inst[i.id] = i;
    std::map<int64_t, ScopeNode> scopes;
    for (const ScopeNode& n : reader.scopes(runId))
        scopes[n.id] = n;
    std::map<int64_t, std::pair<int64_t, int64_t>> span;
    std::map<int64_t, std::set<int32_t>> devices;
    for (const Track& t : reader.tracks(runId))
        for (const Activity& a : reader.activities(t.id, -kMaxTimeNs, kMaxTimeNs)) {
            if (a.kind != ActivityKind::Kernel)
                continue;
            for (int64_t id = a.scopeInstanceId; id != 0 && inst.count(id); id = inst[id].parentId) {
                auto [it, fresh] = span.try_emplace(id, a.startNs, std::max(a.endNs, a.startNs));
                if (!fresh)
                    it->second = {std::min(it->second.first, a.startNs), std::max(it->second.second, a.endNs)};
                devices[id].insert(t.deviceId);
            }
        }
    std::map<std::pair<int32_t, int32_t>, std::vector<ScopeLaneItem>> lanes;
    for (auto& [id, se] : span)
        for (int32_t dev : devices[id])
            lanes[{dev, scopes[inst[id].scopeId].depth}].push_back(ScopeLaneItem{id, se.first, se.second});
    std::vector<BruteLane> out;
    for (auto& [key, items] : lanes) {
        std::sort(items.begin(), items.end(), [](const ScopeLaneItem& a, const ScopeLaneItem& b) {
            return a.startNs != b.startNs ? a.startNs < b.startNs : a.instanceId < b.instanceId;
        });
        BruteLane l;
        l.figures.deviceId = key.first;
        l.figures.depth = key.second;
        l.figures.items = int64_t(items.size());
        l.figures.firstStartNs = items.front().startNs;
        l.figures.lastStartNs = items.back().startNs;
        std::map<std::string, int> levels;
        for (size_t k = 0; k < items.size(); ++k) {
            l.figures.maxDurationNs = std::max(l.figures.maxDurationNs, items[k].endNs - items[k].startNs);
            if (k < 256)
                ++levels[reader.string(scopes[inst[items[k].instanceId].scopeId].levelId)];
        }
        int best = -1;
        for (auto& [lvl, n] : levels)
            if (n > best) {
                best = n;
                l.figures.level = lvl;
            }
        l.items = std::move(items);
        out.push_back(std::move(l));
    }
    return out;
}

std::vector<std::vector<ScopeLaneItem>> storedItems(const Database& db, int64_t runId, size_t lanes)
{
    std::vector<std::vector<ScopeLaneItem>> out(lanes);
    forEachScopeLaneChunk(db, runId, [&](uint32_t lane, const ScopeLaneItem* items, size_t n) {
        if (lane >= out.size())
            throw StorageError("lane index out of range");
        out[lane].insert(out[lane].end(), items, items + n);
        return true;
    });
    return out;
}

QString compareLanes(const Database& db, int64_t runId, const std::vector<BruteLane>& want)
{
    std::optional<std::vector<ScopeLane>> got = readScopeLanes(db, runId);
    if (!got)
        return QStringLiteral("no stored lanes");
    if (got->size() != want.size())
        return QStringLiteral("%1 lanes, want %2").arg(got->size()).arg(want.size());
    const auto items = storedItems(db, runId, got->size());
    for (size_t l = 0; l < want.size(); ++l) {
        const ScopeLane &a = (*got)[l], &b = want[l].figures;
        if (!(a == b))
            return QStringLiteral("lane %1 (device %2 depth %3): items %4/%5 first %6/%7 last %8/%9 longest %10/%11 level %12/%13")
                .arg(l).arg(b.deviceId).arg(b.depth).arg(a.items).arg(b.items).arg(a.firstStartNs).arg(b.firstStartNs)
                .arg(a.lastStartNs).arg(b.lastStartNs).arg(a.maxDurationNs).arg(b.maxDurationNs)
                .arg(QString::fromStdString(a.level), QString::fromStdString(b.level));
        if (items[l] != want[l].items)
            return QStringLiteral("lane %1: items differ").arg(l);
    }
    return {};
}

// A random run: two devices, three kernel tracks, a memory track and an empty track; scopes
// step > phase > layer > op (four deep) with instances at every depth, some without kernels;
// kernels at every depth and outside scopes, wide ones (a tenth of the run) and zero-length ones.
int64_t writeRandomRun(Database& db, uint32_t seed)
{
    std::mt19937_64 rng(seed);
    auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
    Writer w(db);
    RunInfo info;
    info.name = "lanes-" + std::to_string(seed);
    info.backend = "import";
    const int64_t run = w.beginRun(info);
    w.addDevice(DeviceInfo{0, "gpu0", "{}"});
    w.addDevice(DeviceInfo{1, "gpu1", "{}"});
    const int64_t tracks[3] = {w.addTrack(0, 7, TrackKind::Kernel), w.addTrack(0, 8, TrackKind::Kernel), w.addTrack(1, 7, TrackKind::Kernel)};
    const int64_t memory = w.addTrack(0, 0, TrackKind::Memory);
    w.addTrack(1, 9, TrackKind::Kernel);   // stays empty
    const int64_t step = w.addScope(0, "step", "step");
    const int64_t phase = w.addScope(step, "forward", "phase");
    std::vector<int64_t> layers, ops;
    for (int l = 0; l < 3; ++l) {
        layers.push_back(w.addScope(phase, "layer" + std::to_string(l), "layer"));
        ops.push_back(w.addScope(layers.back(), "gemm" + std::to_string(l), "op"));
        ops.push_back(w.addScope(layers.back(), "relu" + std::to_string(l), "op"));
    }
    const uint32_t names[3] = {w.intern("k0"), w.intern("k1"), w.intern("copy")};
    const int64_t span = uni(20000, 2000000);
    int64_t t = uni(-500, 500);
    auto kernel = [&](int64_t instance, int64_t at) {
        Activity a;
        a.trackId = tracks[uni(0, 2)];
        a.startNs = at;
        const int64_t shape = uni(0, 15);
        a.endNs = at + (shape == 0 ? 0 : shape == 1 ? uni(span / 10, span) : uni(1, span / 300 + 1));
        a.nameId = names[uni(0, 1)];
        a.scopeInstanceId = instance;
        w.addActivity(a);
        if (uni(0, 6) == 0) {
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
    for (int s = 0, steps = int(uni(2, 4)); s < steps; ++s) {
        const int64_t stepStart = t;
        const int64_t stepInst = w.addScopeInstance(step, 0, t, t + span);
        if (uni(0, 2) == 0)
            kernel(stepInst, t + uni(0, span));
        const int64_t phaseInst = w.addScopeInstance(phase, stepInst, t, t + span);
        for (int l = 0; l < 3; ++l) {
            const int64_t layerInst = w.addScopeInstance(layers[size_t(l)], phaseInst, t, t + span / 3);
            for (int o = 0, n = int(uni(1, 6)); o < n; ++o) {
                const int64_t op = w.addScopeInstance(ops[size_t(2 * l + uni(0, 1))], layerInst, t, t + span / 20);
                const int k = int(uni(0, 8));   // 0: an instance without kernels
                for (int j = 0; j < k; ++j)
                    kernel(uni(0, 5) == 0 ? layerInst : op, t + uni(0, span / 20));
                t += span / 20;
            }
            if (uni(0, 4) == 0)
                kernel(0, t);
        }
        t = stepStart + span + uni(0, span / 3);
    }
    w.finishRun(RunStatus::Complete, t);
    return run;
}

int64_t activityRows(const std::string& path)
{
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    int64_t n = 0;
    for (const RunInfo& run : r.runs())
        r.forEachActivity(run.id, [&](const Activity&) {
            ++n;
            return true;
        });
    return n;
}

}  // namespace

class TestStoredSpans : public QObject {
    Q_OBJECT
private slots:
    void lanesEqualBruteForce_data()
    {
        QTest::addColumn<uint>("seed");
        for (uint s = 1; s <= 8; ++s)
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(s))) << s;
    }
    void lanesEqualBruteForce()
    {
        QFETCH(uint, seed);
        const std::string path = test::tempPath("stored-lanes-" + std::to_string(seed) + ".wt");
        Database db(path, OpenMode::ReadWrite);
        const int64_t run = writeRandomRun(db, seed);
        const std::vector<BruteLane> want = bruteLanes(db, run);
        const QString diff = compareLanes(db, run, want);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // Four depths on device 0, a wide item somewhere, both devices.
        std::set<int> depths;
        std::set<int32_t> devices;
        bool wide = false;
        for (const BruteLane& l : want) {
            devices.insert(l.figures.deviceId);
            if (l.figures.deviceId == 0)
                depths.insert(l.figures.depth);
            for (const ScopeLaneItem& it : l.items)
                wide |= it.endNs == it.startNs || it.endNs - it.startNs >= 1000;
        }
        QCOMPARE(int(depths.size()), 4);
        QCOMPARE(int(devices.size()), 2);
        QVERIFY(wide);
    }

    void syntheticRunEqualsBruteForce()
    {
        const std::string path = test::tempPath("stored-lanes-synth.wt");
        Database db(path, OpenMode::ReadWrite);
        synth::Options o;
        o.kernels = 30000;   // several chunks in the op lane
        o.streams = 3;
        o.memcpyEvery = 200;
        Writer w(db);
        const synth::Result res = synth::generate(w, o);
        const std::vector<BruteLane> want = bruteLanes(db, res.runId);
        const QString diff = compareLanes(db, res.runId, want);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(std::any_of(want.begin(), want.end(), [](const BruteLane& l) { return l.items.size() > ScopeLaneSet::kChunkItems; }));
    }

    void windowReadsTheItemsThatMeetIt()
    {
        const std::string path = test::tempPath("stored-lanes-window.wt");
        Database db(path, OpenMode::ReadWrite);
        synth::Options o;
        o.kernels = 40000;
        o.streams = 2;
        Writer w(db);
        const int64_t run = synth::generate(w, o).runId;
        const std::vector<BruteLane> want = bruteLanes(db, run);
        const int64_t lo = want.front().figures.firstStartNs, hi = want.front().items.back().endNs;
        std::mt19937_64 rng(5);
        for (int k = 0; k < 40; ++k) {
            const int64_t t0 = std::uniform_int_distribution<int64_t>(lo - 1000, hi)(rng);
            const int64_t t1 = t0 + std::uniform_int_distribution<int64_t>(1, (hi - lo) / (k % 2 ? 50 : 3000) + 1)(rng);
            for (size_t l = 0; l < want.size(); ++l) {
                std::vector<ScopeLaneItem> got, expect;
                readScopeLaneItems(db, run, uint32_t(l), t0, t1, got);
                for (const ScopeLaneItem& it : want[l].items)
                    if (it.startNs < t1 && std::max(it.endNs, it.startNs + 1) > t0)
                        expect.push_back(it);
                QVERIFY2(got == expect, qPrintable(QStringLiteral("lane %1 window [%2, %3): %4 items, want %5")
                                                       .arg(l).arg(t0).arg(t1).arg(got.size()).arg(expect.size())));
            }
        }
    }

    void blobRoundTripsAndRefusesDamage()
    {
        const std::vector<ScopeLaneItem> items = {{5, 100, 100}, {3, 100, 9000}, {70000, 250, 260}, {71, 1LL << 40, (1LL << 40) + 7}};
        const std::string blob = encodeScopeLaneItems(items.data(), items.size(), 100);
        std::vector<ScopeLaneItem> back;
        decodeScopeLaneItems(blob, 100, int64_t(items.size()), back);
        QVERIFY(back == items);
        back.clear();
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeScopeLaneItems(blob.substr(0, blob.size() - 1), 100, 4, back));
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeScopeLaneItems(blob + '\0', 100, 4, back));
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeScopeLaneItems(blob, 100, 5, back));
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeScopeLaneItems(blob, 100, -1, back));
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeScopeLaneItems(std::string(1, '\x07') + blob.substr(1), 100, 4, back));
        // An id that steps to zero or below.
        const std::vector<ScopeLaneItem> bad = {{1, 0, 0}};
        std::string b = encodeScopeLaneItems(bad.data(), 1, 0);
        b[1] = char(varintZigzagMinusOne());
        QVERIFY_THROWS_EXCEPTION(StorageError, decodeScopeLaneItems(b, 0, 1, back));
    }

    void version5FileGetsThemOnMigration()
    {
        const std::string path = test::tempPath("stored-lanes-v5.wt");
        int64_t first = 0, second = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            first = writeRandomRun(db, 21);
            second = writeRandomRun(db, 22);
        }
        const int64_t rows = activityRows(path);
        {
            // Back to version 5: its tables only.
            sqlite3* h = nullptr;
            QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
            QCOMPARE(sqlite3_exec(h, "DROP TABLE scope_lane_chunks; DROP TABLE scope_lanes; DROP TABLE scope_lane_sets; PRAGMA user_version=5;",
                                  nullptr, nullptr, nullptr),
                     SQLITE_OK);
            sqlite3_close(h);
        }
        {
            Database ro(path, OpenMode::ReadOnly);   // migrates through a read-write open
            QCOMPARE(ro.schemaVersion(), 6);
            QVERIFY(!readScopeLanes(ro, first));     // the open only created the tables
        }
        {
            Database ro(path, OpenMode::ReadWrite);
            QCOMPARE(storeMissingRunOverviews(ro), 2);   // the pass outside the open
            Database& db = ro;
            for (int64_t run : {first, second}) {
                const QString diff = compareLanes(ro, run, bruteLanes(db, run));
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
                QVERIFY(Reader(ro).overview(run));
            }
        }
        QCOMPARE(activityRows(path), rows);
    }

    void newerOrWrongVersionIsRefused()
    {
        const std::string path = test::tempPath("stored-lanes-newer.wt");
        {
            Database db(path, OpenMode::ReadWrite);
            writeRandomRun(db, 3);
        }
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        QCOMPARE(sqlite3_exec(h, "PRAGMA user_version=7;", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
        for (OpenMode mode : {OpenMode::ReadOnly, OpenMode::ReadWrite}) {
            try {
                Database db(path, mode);
                QFAIL("a newer schema opened");
            } catch (const StorageError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("newer wheretime (schema version 7") != std::string::npos, e.what());
                QVERIFY(what.find('\n') == std::string::npos);
            }
        }
    }

    void runWithoutLanesReadsAsNone()
    {
        // A run whose lanes were lost (removed here) reads as having none; the pass computes
        // them again.
        const std::string path = test::tempPath("stored-lanes-missing.wt");
        int64_t run = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            run = writeRandomRun(db, 9);
            db.exec("DELETE FROM scope_lane_sets");
        }
        {
            Database ro(path, OpenMode::ReadOnly);
            QVERIFY(!readScopeLanes(ro, run));
        }
        Database db(path, OpenMode::ReadWrite);
        QCOMPARE(storeMissingRunOverviews(db), 1);
        const QString diff = compareLanes(db, run, bruteLanes(db, run));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void killWhileWritingLosesNothing()
    {
        const std::string path = test::tempPath("stored-lanes-kill.wt");
        const std::string reference = test::tempPath("stored-lanes-kill-reference.wt");
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
            QVERIFY(!readScopeLanes(ro, r.runs().front().id));   // the lanes' transaction was lost, nothing else
        }
        QCOMPARE(activityRows(path), activityRows(reference));
        Database db(path, OpenMode::ReadWrite);
        QCOMPARE(storeMissingRunOverviews(db), 1);
        const int64_t run = Reader(db).runs().front().id;
        const QString diff = compareLanes(db, run, bruteLanes(db, run));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

private:
    static uint8_t varintZigzagMinusOne() { return 1; }   // zigzag(-1): the first id would be -1
};

QTEST_GUILESS_MAIN(TestStoredSpans)
#include "tst_storedspans.moc"
