// The run summary and range summary tables (analysis/summarytable.h) over hand-made inputs:
// the steps of a two-rank job count once, the span runs over every device, a range's rows are
// the range, then its layers, then its kernels; isCpuDevice names the CPU tracer's device.
#include "analysis/summarytable.h"
#include "render/tablewriter.h"

#include <QTest>

using namespace wt;

class TestSummaryTable : public QObject {
    Q_OBJECT
private slots:
    void runSummary()
    {
        RunInfo run;
        run.id = 3;
        run.name = "job";
        run.device = "rank 0: GPU 0";
        run.backend = "import";
        run.status = RunStatus::Complete;
        run.kernels = 40;
        run.kernelTimeNs = 900;
        // Two steps (each ran on both ranks: computeStepTimes gives one StepTime per step).
        std::vector<StepTime> steps(2);
        std::vector<DeviceTime> devices(2);
        devices[0].time.kernels = 20;
        devices[0].time.memoryOps = 3;
        devices[0].time.startNs = 100;
        devices[0].time.endNs = 700;
        devices[1].time.kernels = 20;
        devices[1].time.memoryOps = 1;
        devices[1].time.startNs = 50;
        devices[1].time.endNs = 650;
        const Table t = runSummaryTable(run, steps, devices);
        QCOMPARE(t.rows.size(), size_t(1));
        QCOMPARE(numberOf(t.at(0, "steps")), 2.0);
        QCOMPARE(numberOf(t.at(0, "devices")), 2.0);
        QCOMPARE(numberOf(t.at(0, "memory_ops")), 4.0);
        QCOMPARE(numberOf(t.at(0, "span_ns")), 650.0);   // 50 .. 700 over both devices
        QCOMPARE(numberOf(t.at(0, "kernel_time_ns")), 900.0);
        QCOMPARE(textOf(t.at(0, "status")), std::string("complete"));
        QCOMPARE(render::csv(t), std::string("id,name,workload,variant,device,backend,status,steps,devices,kernels,memory_ops,"
                                             "kernel_time_ns,span_ns,dropped_records\n"
                                             "3,job,,,rank 0: GPU 0,import,complete,2,2,40,4,900,650,0\n"));
        // No activities: no span.
        QVERIFY(isNone(runSummaryTable(run, {}, {}).at(0, "span_ns")));
    }

    void rangeSummary()
    {
        RangeSummary s;
        s.range = TimeRange{1000, 5000};
        s.kernels = 5;
        s.kernelTimeNs = 400;
        Group a;
        a.name = "softmax";
        a.timeNs = 300;
        a.share = 0.75;
        a.count = 3;
        Group b = a;
        b.name = "conv1";
        b.timeNs = 100;
        b.share = 0.25;
        b.count = 2;
        s.layers.groups = {a, b};
        Group k = a;
        k.name = "sgemm";
        s.kernelsByName.groups = {k};
        const Table t = rangeSummaryTable(s);
        QCOMPARE(t.rows.size(), size_t(4));
        QCOMPARE(render::csv(t), std::string("section,name,start_ns,end_ns,time_ns,share,count\n"
                                             "range,,1000,5000,400,,5\n"
                                             "layer,softmax,,,300,0.75,3\n"
                                             "layer,conv1,,,100,0.25,2\n"
                                             "kernel,sgemm,,,300,0.75,3\n"));
    }

    void cpuDevice()
    {
        QVERIFY(isCpuDevice("CPU: AMD EPYC 7B13"));
        QVERIFY(isCpuDevice("CPU"));
        QVERIFY(!isCpuDevice("rank 0: GPU 0"));
        QVERIFY(!isCpuDevice("CPUX"));
    }
};

QTEST_GUILESS_MAIN(TestSummaryTable)
#include "tst_summarytable.moc"
