// The CPU side of imports (schema version 4): every host thread of a real trace is stored with
// its process and names, and every CPU-side range (Kineto cpu_op / user_annotation, Nsight
// NVTX push/pop and start/end ranges) lies on its thread, counted independently from the raw
// file (Qt's JSON parser for Kineto, plain SQL for Nsight); the ranks of a job keep their
// threads apart; a version 3 file (no host_threads table, format 1 instance chunks) still opens
// and reads as before.
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/instancechunk.h"
#include "storage/reader.h"
#include "storage/statement.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <sqlite3.h>

#include <map>
#include <set>
#include <string>
#include <tuple>

using namespace wt;

namespace {

using ThreadId = std::pair<int64_t, int64_t>;   // (pid, tid)

// pid / tid of a Kineto event: numbers here (the traces used below have numeric ids).
int64_t idOf(const QJsonValue& v) { return v.isString() ? v.toString().toLongLong() : int64_t(v.toDouble()); }

struct KinetoCounts {
    std::map<ThreadId, int64_t> ranges;          // cpu_op + user_annotation per thread
    std::set<ThreadId> threads;                  // threads with ranges or runtime calls
    std::map<ThreadId, QString> threadNames;     // thread_name metadata
    std::map<int64_t, QString> processNames;     // process_name metadata
};

KinetoCounts countKineto(const QString& path)
{
    KinetoCounts c;
    const std::string text = test::gunzipped(path.toStdString());
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text));
    const QJsonArray events = doc.object().value(QStringLiteral("traceEvents")).toArray();
    for (const QJsonValue& v : events) {
        const QJsonObject e = v.toObject();
        const QString ph = e.value(QStringLiteral("ph")).toString();
        const QString cat = e.value(QStringLiteral("cat")).toString().toLower();
        const ThreadId t{idOf(e.value(QStringLiteral("pid"))), idOf(e.value(QStringLiteral("tid")))};
        if (ph == QLatin1String("M")) {
            const QString name = e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
            if (e.value(QStringLiteral("name")).toString() == QLatin1String("thread_name"))
                c.threadNames[t] = name;
            else if (e.value(QStringLiteral("name")).toString() == QLatin1String("process_name"))
                c.processNames[t.first] = name;
            continue;
        }
        if (ph != QLatin1String("X"))
            continue;
        if (cat == QLatin1String("cpu_op") || cat == QLatin1String("user_annotation") || cat == QLatin1String("operator")) {
            ++c.ranges[t];
            c.threads.insert(t);
        } else if (cat == QLatin1String("cuda_runtime") || cat == QLatin1String("cuda_driver") || cat == QLatin1String("runtime")) {
            c.threads.insert(t);
        }
    }
    return c;
}

// Per stored thread (pid, tid): the scope instances on it.
std::map<ThreadId, int64_t> storedRanges(Reader& r, int64_t runId, const std::vector<HostThread>& threads)
{
    std::map<int64_t, ThreadId> byId;
    for (const HostThread& t : threads)
        byId[t.id] = {t.pid, t.tid};
    std::map<ThreadId, int64_t> out;
    for (const ScopeInstance& si : r.scopeInstances(runId))
        if (si.threadId != 0) {
            auto it = byId.find(si.threadId);
            if (it == byId.end())
                return {};   // an instance on a thread that is not stored: the caller's compare fails
            ++out[it->second];
        }
    return out;
}

}  // namespace

class TstHostThreads : public QObject {
    Q_OBJECT
private slots:
    void kinetoThreadsAndOps_data();
    void kinetoThreadsAndOps();
    void nsightNvtxPerThread_data();
    void nsightNvtxPerThread();
    void ranksKeepTheirThreads();
    void version3FileOpens();
    void instanceChunkThreads();
};

void TstHostThreads::kinetoThreadsAndOps_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("hta rank 0") << QStringLiteral("kineto-hta_2ranks_rank-0.json.gz");
    QTest::newRow("a100 nccl") << QStringLiteral("kineto_a100_nccl_rank-0-of-2.json.gz");
    QTest::newRow("2021 resnet50") << QStringLiteral("kineto-2021_v100_resnet50.pt.trace.json.gz");
}

void TstHostThreads::kinetoThreadsAndOps()
{
    QFETCH(QString, file);
    WT_REQUIRE_TRACE(path, file);
    const KinetoCounts expected = countKineto(path);
    QVERIFY(!expected.ranges.empty());
    const std::string out = test::tempPath("kineto-threads.wt");
    QFile::remove(QString::fromStdString(out));
    Database db(out, OpenMode::ReadWrite);
    const int64_t runId = interop::importTrace(db, path.toStdString()).written.runId;
    Reader r(db);
    const std::vector<HostThread> threads = r.hostThreads(runId);
    QCOMPARE(threads.size(), expected.threads.size());
    for (size_t i = 0; i < threads.size(); ++i) {
        const HostThread& t = threads[i];
        QCOMPARE(t.id, int64_t(i) + 1);
        QVERIFY2(expected.threads.count({t.pid, t.tid}), qPrintable(QStringLiteral("thread %1/%2 is not in the trace").arg(t.pid).arg(t.tid)));
        auto name = expected.threadNames.find({t.pid, t.tid});
        QCOMPARE(QString::fromStdString(t.name), name == expected.threadNames.end() ? QString() : name->second);
        auto process = expected.processNames.find(t.pid);
        QCOMPARE(QString::fromStdString(t.processName), process == expected.processNames.end() ? QString() : process->second);
    }
    QCOMPARE(storedRanges(r, runId, threads), expected.ranges);
    // API calls name a stored thread by its OS tid.
    std::set<int64_t> tids;
    for (const HostThread& t : threads)
        tids.insert(t.tid);
    for (const ApiCall& c : r.apiCalls(runId))
        QVERIFY(tids.count(c.threadId));
    // The attribution to the GPU is unchanged: kernels still point at the ops on the launching thread.
    int64_t attributed = 0;
    r.forEachActivity(runId, [&](const Activity& a) {
        attributed += a.scopeInstanceId != 0;
        return true;
    });
    QVERIFY(attributed > 0);
}

void TstHostThreads::nsightNvtxPerThread_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("2022 saxpy") << QStringLiteral("nsys-2022.2_a100_saxpy-mpi.sqlite");
    QTest::newRow("2026 fastvideo") << QStringLiteral("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
}

void TstHostThreads::nsightNvtxPerThread()
{
    QFETCH(QString, file);
    WT_REQUIRE_TRACE(path, file);
    // The export's own rows: closed push/pop and start/end ranges per globalTid, thread names.
    std::map<ThreadId, int64_t> expected;
    std::set<ThreadId> expectedThreads;
    std::map<ThreadId, QString> names;
    {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open_v2(path.toUtf8().constData(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
        auto rows = [&](const char* sql, auto&& fn) {
            sqlite3_stmt* st = nullptr;
            QCOMPARE(sqlite3_prepare_v2(h, sql, -1, &st, nullptr), SQLITE_OK);
            while (sqlite3_step(st) == SQLITE_ROW)
                fn(st);
            sqlite3_finalize(st);
        };
        // Range event types: from ENUM_NSYS_EVENT_TYPE where the export has it, else 59 and 60
        // (push/pop, start/end: what older exports use).
        bool hasEnum = false;
        rows("SELECT count(*) FROM sqlite_master WHERE name = 'ENUM_NSYS_EVENT_TYPE'",
             [&](sqlite3_stmt* st) { hasEnum = sqlite3_column_int64(st, 0) > 0; });
        const std::string types = hasEnum ? "(SELECT id FROM ENUM_NSYS_EVENT_TYPE WHERE name IN ('NvtxPushPopRange', 'NvtxStartEndRange'))"
                                          : "(59, 60)";
        const std::string nvtx = "SELECT globalTid >> 24 & 16777215, globalTid & 16777215, count(*) FROM NVTX_EVENTS "
                                 "WHERE eventType IN " + types + " AND \"end\" IS NOT NULL GROUP BY 1, 2";
        rows(nvtx.c_str(),
             [&](sqlite3_stmt* st) {
                 expected[{sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)}] = sqlite3_column_int64(st, 2);
                 expectedThreads.insert({sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)});
             });
        rows("SELECT DISTINCT globalTid >> 24 & 16777215, globalTid & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME",
             [&](sqlite3_stmt* st) { expectedThreads.insert({sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)}); });
        rows("SELECT t.globalTid >> 24 & 16777215, t.globalTid & 16777215, s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId",
             [&](sqlite3_stmt* st) {
                 names[{sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)}] =
                     QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 2)));
             });
        sqlite3_close(h);
    }
    QVERIFY(!expected.empty());
    const std::string out = test::tempPath("nsys-threads.wt");
    QFile::remove(QString::fromStdString(out));
    Database db(out, OpenMode::ReadWrite);
    const int64_t runId = interop::importTrace(db, path.toStdString()).written.runId;
    Reader r(db);
    const std::vector<HostThread> threads = r.hostThreads(runId);
    QCOMPARE(threads.size(), expectedThreads.size());
    for (const HostThread& t : threads) {
        QVERIFY(expectedThreads.count({t.pid, t.tid}));
        auto n = names.find({t.pid, t.tid});
        QCOMPARE(QString::fromStdString(t.name), n == names.end() ? QString() : n->second);
        QVERIFY(!t.processName.empty());   // PROCESSES names every process of these exports
    }
    QCOMPARE(storedRanges(r, runId, threads), expected);
}

void TstHostThreads::ranksKeepTheirThreads()
{
    WT_REQUIRE_TRACE(rank0, "kineto-hta_2ranks_rank-0.json.gz");
    WT_REQUIRE_TRACE(rank1, "kineto-hta_2ranks_rank-1.json.gz");
    const KinetoCounts c0 = countKineto(rank0), c1 = countKineto(rank1);
    const std::string out = test::tempPath("ranks-threads.wt");
    QFile::remove(QString::fromStdString(out));
    Database db(out, OpenMode::ReadWrite);
    const int64_t runId = interop::importRanks(db, {rank0.toStdString(), rank1.toStdString()}).written.runId;
    Reader r(db);
    const std::vector<HostThread> threads = r.hostThreads(runId);
    QCOMPARE(threads.size(), c0.threads.size() + c1.threads.size());
    std::map<ThreadId, int64_t> expected = c0.ranges;
    for (const auto& [t, n] : c1.ranges)
        expected[t] += n;
    QCOMPARE(storedRanges(r, runId, threads), expected);
    for (const HostThread& t : threads) {
        const bool first = c0.threads.count({t.pid, t.tid}) > 0;
        QVERIFY(t.processName.rfind(first ? "rank 0: " : "rank 1: ", 0) == 0);
    }
}

void TstHostThreads::version3FileOpens()
{
    // A version 3 file: what a version 3 writer left (no host_threads table, every instance
    // chunk in format 1), made from a real import by re-encoding its chunks without threads.
    WT_REQUIRE_TRACE(path, "kineto-hta_2ranks_rank-0.json.gz");
    const std::string out = test::tempPath("v3.wt");
    QFile::remove(QString::fromStdString(out));
    int64_t runId = 0;
    std::vector<ScopeInstance> before;
    std::vector<ApiCall> callsBefore;
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
        Reader r(db);
        before = r.scopeInstances(runId);
        callsBefore = r.apiCalls(runId);
        QVERIFY(!r.hostThreads(runId).empty());
    }
    {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(out.c_str(), &h), SQLITE_OK);
        std::vector<std::pair<int64_t, std::string>> chunks;
        {
            Statement s(h, "SELECT id, data FROM scope_instance_chunks");
            while (s.step()) {
                std::vector<ScopeInstance> rows;
                InstanceChunk::decode(s.blob(1), rows);
                for (ScopeInstance& si : rows)
                    si.threadId = 0;
                chunks.emplace_back(s.int64(0), InstanceChunk::encode(rows));
            }
        }
        for (const auto& [id, blob] : chunks) {
            QCOMPARE(uint8_t(blob[0]), InstanceChunk::kFormat);
            Statement u(h, "UPDATE scope_instance_chunks SET data=? WHERE id=?");
            u.bindBlobNoCopy(1, blob.data(), blob.size()).bind(2, id).run();
        }
        QCOMPARE(sqlite3_exec(h, "DROP TABLE host_threads; PRAGMA user_version=3;", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
    }
    // Opened read-only (the viewer's way), it is migrated and reads as before, on no thread.
    Database db(out, OpenMode::ReadOnly);
    QCOMPARE(db.schemaVersion(), Database::kSchemaVersion);
    Reader r(db);
    QVERIFY(r.hostThreads(runId).empty());
    const std::vector<ScopeInstance> after = r.scopeInstances(runId);
    QCOMPARE(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) {
        QCOMPARE(after[i].id, before[i].id);
        QCOMPARE(after[i].scopeId, before[i].scopeId);
        QCOMPARE(after[i].parentId, before[i].parentId);
        QCOMPARE(after[i].startNs, before[i].startNs);
        QCOMPARE(after[i].endNs, before[i].endNs);
        QCOMPARE(after[i].threadId, int64_t(0));
    }
    QCOMPARE(r.apiCalls(runId).size(), callsBefore.size());
    // And a migrated file takes new imports with threads.
    Database rw(out, OpenMode::ReadWrite);
    const int64_t second = interop::importTrace(rw, path.toStdString()).written.runId;
    QVERIFY(!Reader(rw).hostThreads(second).empty());
}

void TstHostThreads::instanceChunkThreads()
{
    // Format 1 without threads (what captures write, byte for byte as version 3), format 2 with.
    std::vector<ScopeInstance> rows = {{1, 5, 0, 100, 200, 0}, {2, 6, 1, 110, 150, 0}, {3, 5, 0, 300, 400, 0}};
    std::string plain = InstanceChunk::encode(rows);
    QCOMPARE(uint8_t(plain[0]), InstanceChunk::kFormat);
    rows[1].threadId = 2;
    rows[2].threadId = 1;
    std::string threaded = InstanceChunk::encode(rows);
    QCOMPARE(uint8_t(threaded[0]), InstanceChunk::kFormatThreads);
    std::vector<ScopeInstance> back;
    InstanceChunk::decode(threaded, back);
    QCOMPARE(back.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        QCOMPARE(back[i].threadId, rows[i].threadId);
    QCOMPARE(InstanceChunk::countScopes(threaded, {5}), int64_t(2));
    // Damage: a format-2 chunk cut in its thread column; a negative thread id.
    std::vector<ScopeInstance> sink;
    QVERIFY_THROWS_EXCEPTION(StorageError, InstanceChunk::decode(threaded.substr(0, threaded.size() - 1), sink));
    rows[1].threadId = 0;
    rows[2].threadId = 0;
    rows[0].threadId = 1;
    std::string low = InstanceChunk::encode(rows);
    low.back() = char(0x03);   // the last delta -2: thread ids 1, 0, then 0 - 2 = -2
    sink.clear();
    QVERIFY_THROWS_EXCEPTION(StorageError, InstanceChunk::decode(low, sink));
}

QTEST_MAIN(TstHostThreads)
#include "tst_hostthreads.moc"
