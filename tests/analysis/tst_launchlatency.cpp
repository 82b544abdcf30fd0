// Launch latency (analysis/launchlatency.h): a hand-made run whose latencies are known (median,
// nearest-rank p95, max, mean, short kernels, outliers, a kernel without its call), the
// summary on its own, and the shared Kineto trace where every kernel finds its call.
#include "analysis/launchlatency.h"
#include "interop/importer.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <sqlite3.h>

#include <map>

using namespace wt;

class TstLaunchLatency : public QObject {
    Q_OBJECT
private slots:
    void handMadeRun()
    {
        const std::string path = test::tempPath("latency.wt");
        int64_t run = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            Writer w(db);
            RunInfo info;
            info.name = "latency";
            info.backend = "import";
            run = w.beginRun(info);
            w.addDevice(DeviceInfo{0, "GPU 0", "{}"});
            w.addDevice(DeviceInfo{1, "GPU 1", "{}"});
            const int64_t t0 = w.addTrack(0, 7, TrackKind::Kernel, "Stream 7");
            const int64_t t1 = w.addTrack(1, 9, TrackKind::Kernel, "Stream 9");
            const uint32_t k = w.intern("k"), launch = w.intern("cudaLaunchKernel");
            // Device 0: latencies 10, 20, 30, 40, 1000 ns; calls 5 ns long; kernel 3 runs 2 ns (short).
            const int64_t lat[] = {10, 20, 30, 40, 1000};
            for (int i = 0; i < 5; ++i) {
                const int64_t callStart = 100 * i;
                w.addApiCall(ApiCall{callStart, callStart + 5, 11, launch, 1 + i});
                Activity a;
                a.trackId = t0;
                a.nameId = k;
                a.startNs = callStart + lat[i];
                a.endNs = a.startNs + (i == 2 ? 2 : 50);
                a.correlationId = 1 + i;
                w.addActivity(a);
            }
            // Device 1: one kernel with a call (latency 7), one whose call is missing.
            w.addApiCall(ApiCall{1000, 1003, 12, launch, 100});
            Activity a;
            a.trackId = t1;
            a.nameId = k;
            a.startNs = 1007;
            a.endNs = 1100;
            a.correlationId = 100;
            w.addActivity(a);
            a.startNs = 1200;
            a.endNs = 1300;
            a.correlationId = 555;
            w.addActivity(a);
            w.finishRun(RunStatus::Complete, 2000);
        }
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        const std::vector<LaunchLatency> l = computeLaunchLatency(r, run);
        QCOMPARE(l.size(), size_t(3));
        QCOMPARE(l[0].deviceId, -1);
        QCOMPARE(l[0].kernels, int64_t(7));
        QCOMPARE(l[0].launched, int64_t(6));
        QCOMPARE(l[0].medianNs, int64_t(20));   // 7 10 20 30 40 1000: lower median
        QCOMPARE(l[0].p95Ns, int64_t(1000));
        QCOMPARE(l[0].maxNs, int64_t(1000));
        QCOMPARE(l[0].shortKernels, int64_t(1));
        QCOMPARE(l[0].outliers, int64_t(1));    // 1000 > 10 x 20
        QCOMPARE(l[1].device, std::string("GPU 0"));
        QCOMPARE(l[1].medianNs, int64_t(30));
        QCOMPARE(l[1].meanNs, 220.0);
        QCOMPARE(l[2].kernels, int64_t(2));
        QCOMPARE(l[2].launched, int64_t(1));
        QCOMPARE(l[2].medianNs, int64_t(7));
        const Table t = launchLatencyTable(l);
        QCOMPARE(t.rows.size(), size_t(3));
        const std::string json = render::jsonRows(t);
        QVERIFY2(json.find("\"median_ns\":20") != std::string::npos, json.c_str());
        QVERIFY2(json.find("\"device_id\":null") != std::string::npos, json.c_str());
    }
    void percentiles()
    {
        std::vector<int64_t> v(100);
        for (int i = 0; i < 100; ++i)
            v[size_t(i)] = 100 - i;   // 1..100, unsorted
        LaunchLatency l;
        summarizeLatencies(v, l);
        QCOMPARE(l.medianNs, int64_t(50));
        QCOMPARE(l.p95Ns, int64_t(95));
        QCOMPARE(l.maxNs, int64_t(100));
        std::vector<int64_t> none;
        LaunchLatency e;
        summarizeLatencies(none, e);
        QCOMPARE(e.launched, int64_t(0));
        QCOMPARE(e.p95Ns, int64_t(0));
    }
    void kinetoEveryKernelLaunched()
    {
        WT_REQUIRE_TRACE(trace, "kineto_a100_nccl_rank-0-of-2.json.gz");
        const std::string path = test::tempPath("latency-kineto.wt");
        Database db(path, OpenMode::ReadWrite);
        const int64_t run = interop::importTrace(db, trace.toStdString()).written.runId;
        Reader r(db);
        const std::vector<LaunchLatency> l = computeLaunchLatency(r, run);
        QVERIFY(l.size() >= 2);
        QVERIFY(l[0].kernels > 1000);
        QCOMPARE(l[0].launched, l[0].kernels);   // Kineto's correlation (ac2g) joins each kernel to its call
        QVERIFY(l[0].medianNs > 0 && l[0].medianNs <= l[0].p95Ns && l[0].p95Ns <= l[0].maxNs);
    }
    void nsightJoinStaysInItsProcess()
    {
        // Two processes number their correlation ids each from 1: a kernel of one must not join a
        // call of the other. The count of same-process pairs is read from the export itself.
        WT_REQUIRE_TRACE(trace, "nsys-2026.2_h100x2_fastvideo-1s.sqlite");
        int64_t expected = 0, crossProcess = 0;
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open_v2(trace.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
            auto count = [&](const char* sql) {
                sqlite3_stmt* st = nullptr;
                int64_t n = -1;
                if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
                    n = sqlite3_column_int64(st, 0);
                sqlite3_finalize(st);
                return n;
            };
            expected = count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                             "ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)");
            crossProcess = count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                                 "ON r.correlationId = k.correlationId AND (r.globalTid >> 24) != (k.globalPid >> 24)");
            sqlite3_close(db);
        }
        QVERIFY(expected > 1000);
        QVERIFY(crossProcess > 0);   // what a join by id alone would add
        const std::string path = test::tempPath("latency-nsys2.wt");
        Database db(path, OpenMode::ReadWrite);
        const int64_t run = interop::importTrace(db, trace.toStdString()).written.runId;
        Reader r(db);
        const std::vector<LaunchLatency> l = computeLaunchLatency(r, run);
        QCOMPARE(l[0].launched, expected);
        QCOMPARE(l[1].launched + l[2].launched, expected);
        // Within a process no kernel starts before the call that launched it.
        std::map<int64_t, int64_t> callStart;
        for (const ApiCall& c : r.apiCalls(run))
            if (c.correlationId)
                QVERIFY(callStart.emplace(c.correlationId, c.startNs).second);   // ids unique in the run
        int64_t joined = 0;
        r.forEachActivity(run, [&](const Activity& a) {
            auto it = callStart.find(a.correlationId);
            if (a.kind == ActivityKind::Kernel && it != callStart.end()) {
                ++joined;
                if (a.startNs < it->second)
                    return false;
            }
            return true;
        });
        QCOMPARE(joined, expected);
    }
};

QTEST_GUILESS_MAIN(TstLaunchLatency)
#include "tst_launchlatency.moc"
