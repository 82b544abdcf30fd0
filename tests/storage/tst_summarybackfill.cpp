// Filling in what an older file lacks outside the open (storage/summarybackfill.h): a schema-5
// file opens (read-only and read-write) without a lane row written; the pass stores each run's
// summary and scope lanes equal to a fresh computation; a kill during the pass loses nothing
// committed and the next pass finishes the job; a writer holding the file is waited for; a
// stop request stores nothing; a read-only schema-5 file opens as it is and its lanes compute
// in memory.
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

#include <chrono>
#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace wt;

namespace {

int64_t count(const std::string& path, const char* sql)
{
    sqlite3* h = nullptr;
    int64_t n = -1;
    if (sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return n;
}

void execSql(const std::string& path, const char* sql)
{
    sqlite3* h = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
    QCOMPARE(sqlite3_exec(h, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
}

// A file of `runs` synthetic runs, taken back to schema 5 (its lane tables dropped).
std::vector<int64_t> writeVersion5(const std::string& path, int runs, int64_t kernels = 20000)
{
    std::vector<int64_t> ids;
    {
        Database db(path, OpenMode::ReadWrite);
        for (int i = 0; i < runs; ++i) {
            Writer w(db);
            synth::Options o;
            o.kernels = kernels + 1000 * i;
            o.streams = 3;
            o.seed = uint64_t(7 + i);
            o.name = "older-" + std::to_string(i);
            ids.push_back(synth::generate(w, o).runId);
        }
    }
    execSql(path, "DROP TABLE scope_lane_chunks; DROP TABLE scope_lanes; DROP TABLE scope_lane_sets; PRAGMA user_version=5;");
    return ids;
}

// The stored summary and lanes of a run against a fresh computation; empty when equal.
QString compareWithFresh(Database& db, int64_t runId)
{
    ScopeLaneSet fresh;
    const RunOverview ov = computeRunOverview(db, runId, &fresh);
    const std::optional<RunOverview> stored = readRunOverview(db, runId);
    if (!stored)
        return QStringLiteral("run %1: no stored summary").arg(runId);
    bool same = stored->originNs == ov.originNs && stored->bucketNs == ov.bucketNs && stored->bucketCount == ov.bucketCount &&
                stored->activities == ov.activities && stored->rows.size() == ov.rows.size();
    for (size_t i = 0; same && i < ov.rows.size(); ++i) {
        const OverviewRow &a = stored->rows[i], &b = ov.rows[i];
        same = a.kind == b.kind && a.trackId == b.trackId && a.deviceId == b.deviceId && a.depth == b.depth && a.items == b.items &&
               a.buckets == b.buckets;
    }
    if (!same)
        return QStringLiteral("run %1: the stored summary differs").arg(runId);
    const std::optional<std::vector<ScopeLane>> lanes = readScopeLanes(db, runId);
    if (!lanes)
        return QStringLiteral("run %1: no stored lanes").arg(runId);
    if (*lanes != fresh.lanes)
        return QStringLiteral("run %1: %2 stored lanes, %3 fresh, or their figures differ").arg(runId).arg(lanes->size()).arg(fresh.lanes.size());
    std::vector<std::vector<ScopeLaneItem>> want(fresh.lanes.size()), got(fresh.lanes.size());
    for (const ScopeLaneChunk& c : fresh.chunks)
        decodeScopeLaneItems(c.data, c.startNs, c.count, want[c.lane]);
    forEachScopeLaneChunk(db, runId, [&](uint32_t lane, const ScopeLaneItem* items, size_t n) {
        if (lane < got.size())
            got[lane].insert(got[lane].end(), items, items + n);
        return true;
    });
    if (got != want)
        return QStringLiteral("run %1: the stored lane items differ").arg(runId);
    return {};
}

int64_t laneRows(const std::string& path) { return count(path, "SELECT (SELECT count(*) FROM scope_lane_sets) + (SELECT count(*) FROM scope_lane_chunks)"); }

}  // namespace

class TestSummaryBackfill : public QObject {
    Q_OBJECT

private slots:
    void openComputesNothingThenThePassStoresThem()
    {
        const std::string path = test::tempPath("backfill-v5.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 2);
        const int64_t activities = count(path, "SELECT sum(count) FROM activity_chunks");
        {
            Database ro(path, OpenMode::ReadOnly);   // migrates through a short read-write open
            QCOMPARE(ro.schemaVersion(), Database::kSchemaVersion);
            QVERIFY(Reader(ro).overview(runs[0]));      // the schema-5 summary: the first frame
            QVERIFY(!readScopeLanes(ro, runs[0]));
        }
        QCOMPARE(laneRows(path), 0);
        {
            Database rw(path, OpenMode::ReadWrite);
            QCOMPARE(laneRows(path), 0);               // a read-write open computes nothing either
            const std::vector<MissingSummary> missing = findMissingSummaries(rw);
            QCOMPARE(int(missing.size()), 2);
            for (size_t i = 0; i < 2; ++i) {
                QCOMPARE(missing[i].runId, runs[i]);
                QVERIFY(missing[i].lanes);
                QVERIFY(!missing[i].overview);
                QVERIFY(missing[i].activities > 20000);
            }
            std::vector<int64_t> order;
            BackfillCallbacks cb;
            cb.firstRunId = runs[1];                   // the run on screen first
            cb.before = [&](size_t, size_t n, const MissingSummary& m) {
                QCOMPARE(n, size_t(2));
                order.push_back(m.runId);
            };
            QCOMPARE(storeMissingRunOverviews(rw, cb), 2);
            QCOMPARE(order, (std::vector<int64_t>{runs[1], runs[0]}));
            for (int64_t run : runs) {
                const QString diff = compareWithFresh(rw, run);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
            }
            QVERIFY(findMissingSummaries(rw).empty());
            QVERIFY(!backfillSummary(rw, runs[0]));    // nothing left to do: stores nothing again
        }
        QCOMPARE(count(path, "SELECT sum(count) FROM activity_chunks"), activities);
    }

    void version4RunsGetTheirSummaryToo()
    {
        const std::string path = test::tempPath("backfill-v4.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 1);
        execSql(path, "DROP TABLE overviews; DROP TABLE overview_rows; PRAGMA user_version=4;");
        Database rw(path, OpenMode::ReadWrite);
        QVERIFY(!Reader(rw).overview(runs[0]));
        const std::vector<MissingSummary> missing = findMissingSummaries(rw);
        QCOMPARE(int(missing.size()), 1);
        QVERIFY(missing[0].overview && missing[0].lanes);
        QCOMPARE(storeMissingRunOverviews(rw), 1);
        const QString diff = compareWithFresh(rw, runs[0]);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void killDuringThePassLosesNothing()
    {
        const std::string path = test::tempPath("backfill-kill.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 3);
        { Database rw(path, OpenMode::ReadWrite); }   // migrated, nothing computed
        const int64_t activities = count(path, "SELECT sum(count) FROM activity_chunks");
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            Database db(path, OpenMode::ReadWrite);
            int commits = 0;
            // Killed inside the second run's transaction, after the first committed.
            setBeforeOverviewCommit([&commits] {
                if (++commits == 2)
                    ::raise(SIGKILL);
            });
            storeMissingRunOverviews(db);
            _exit(0);   // not reached
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        {
            Database ro(path, OpenMode::ReadOnly);
            QVERIFY(readScopeLanes(ro, runs[0]));      // committed before the kill
            QVERIFY(!readScopeLanes(ro, runs[1]));     // its transaction was lost, nothing else
            QVERIFY(!readScopeLanes(ro, runs[2]));
            QCOMPARE(int(findMissingSummaries(ro).size()), 2);
            QCOMPARE(int(Reader(ro).runs().size()), 3);
        }
        QCOMPARE(count(path, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
        QCOMPARE(count(path, "SELECT sum(count) FROM activity_chunks"), activities);
        Database rw(path, OpenMode::ReadWrite);
        QCOMPARE(storeMissingRunOverviews(rw), 2);      // the next pass does the rest
        for (int64_t run : runs) {
            const QString diff = compareWithFresh(rw, run);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    void aWriterHoldingTheFileIsWaitedFor()
    {
        const std::string path = test::tempPath("backfill-busy.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 1);
        Database other(path, OpenMode::ReadWrite);   // the user's import or note, in the same file
        Database rw(path, OpenMode::ReadWrite);
        other.begin();
        other.exec("INSERT INTO metadata(run_id, key, value) VALUES (1, 'note', 'held')");
        const auto t0 = std::chrono::steady_clock::now();
        bool stored = false;
        std::thread pass([&] { stored = backfillSummary(rw, runs[0]); });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        other.commit();   // the pass's own transaction can begin now
        pass.join();
        QVERIFY(stored);
        QVERIFY(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(300));
        const QString diff = compareWithFresh(rw, runs[0]);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(count(path, "SELECT count(*) FROM metadata WHERE key='note'"), 1);
    }

    void aStopRequestStoresNothing()
    {
        const std::string path = test::tempPath("backfill-stop.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 2);
        Database rw(path, OpenMode::ReadWrite);
        BackfillCallbacks cb;
        int seen = 0;
        cb.before = [&](size_t, size_t, const MissingSummary&) { ++seen; };
        cb.stop = [&] { return seen > 0; };   // stops once the first run's pass began
        QCOMPARE(storeMissingRunOverviews(rw, cb), 0);
        QCOMPARE(seen, 1);
        QCOMPARE(laneRows(path), 0);
    }

    void readOnlyVersion5FileOpensAsItIs()
    {
        char tmpl[] = "/tmp/wt-backfill-ro-XXXXXX";
        QVERIFY(mkdtemp(tmpl));
        const std::string dir = tmpl;
        const std::string path = dir + "/older.wt";
        const std::vector<int64_t> runs = writeVersion5(path, 1, 5000);
        ::chmod(path.c_str(), 0444);
        ::chmod(dir.c_str(), 0555);
        // Root ignores permissions: the child reads as `nobody` (and checks it cannot write).
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            if (geteuid() == 0) {
                struct passwd* nobody = getpwnam("nobody");
                if (!nobody || setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0)
                    _exit(10);
            }
            if (::access(path.c_str(), W_OK) == 0)
                _exit(11);
            try {
                Database ro(path, OpenMode::ReadOnly);
                if (ro.schemaVersion() != 5)
                    _exit(12);
                Reader r(ro);
                if (r.runs().size() != 1 || !r.overview(runs[0]) || readScopeLanes(ro, runs[0]))
                    _exit(13);
                const std::vector<MissingSummary> missing = findMissingSummaries(ro);
                if (missing.size() != 1 || !missing[0].lanes)
                    _exit(14);
                ScopeLaneSet lanes;   // in memory, as the GUI's fallback computes them
                computeRunOverview(ro, runs[0], &lanes);
                if (lanes.lanes.empty())
                    _exit(15);
                if (storeMissingRunOverviews(ro) != 0)
                    _exit(16);
            } catch (const std::exception&) {
                _exit(17);
            }
            try {
                Database rw(path, OpenMode::ReadWrite);
                _exit(18);
            } catch (const StorageError& e) {
                if (std::string(e.what()).find("read-only") == std::string::npos)
                    _exit(19);
            }
            _exit(0);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        ::chmod(dir.c_str(), 0755);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        QCOMPARE(count(path, "PRAGMA user_version"), 5);   // untouched
        ::chmod(path.c_str(), 0644);
        ::unlink(path.c_str());
        ::rmdir(dir.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSummaryBackfill)
#include "tst_summarybackfill.moc"
