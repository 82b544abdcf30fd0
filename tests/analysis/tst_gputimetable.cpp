// The steps, devices and ranks tables (analysis/gputimetable.h) over a hand-made GpuTime and
// RankStats: the column ids in their order (the steps CSV's first ten where `stats --group-by
// step --csv` has always had them), every cell against the GpuTime it comes from (the derived
// figures: idle share, non-compute, exposed communication), none where a figure does not exist
// (the idle share of an empty span, the mean and slowest step of a device without steps), the
// straggler as a note, and the writer's CSV and text.
#include "analysis/gputimetable.h"
#include "render/tablewriter.h"

#include <QTest>

using namespace wt;

namespace {

GpuTime sample()
{
    GpuTime t;
    t.kernels = 7;
    t.memoryOps = 2;
    t.kernelTimeNs = 900;
    t.startNs = 100;
    t.endNs = 1100;
    t.spanNs = 1000;
    t.busyNs = 750;
    t.idleNs = 250;
    t.computeNs = 500;
    t.commNs = 300;
    t.commOverlapNs = 120;
    t.memoryNs = 80;
    t.memoryOverlapNs = 30;
    t.memoryExposedNs = 20;
    return t;
}

std::vector<std::string> ids(const Table& t)
{
    std::vector<std::string> out;
    for (const Column& c : t.columns)
        out.push_back(c.id);
    return out;
}

}  // namespace

class TstGpuTimeTable : public QObject {
    Q_OBJECT
private slots:
    void steps();
    void devices();
    void ranks();
};

void TstGpuTimeTable::steps()
{
    StepTime a{"ProfilerStep#1", 0, sample()};
    StepTime b{"step, \"two\"", 1, GpuTime{}};   // no activities: an empty span
    const Table t = stepsTable({a, b});
    QCOMPARE(t.id, std::string("steps"));
    const std::vector<std::string> expected = {"name", "start_ns", "end_ns", "kernels", "kernel_time_ns", "busy_ns", "idle_ns",
                                               "span_ns", "comm_ns", "comm_overlap_ns", "idle_share", "compute_ns",
                                               "non_compute_ns", "comm_exposed_ns", "memory_ops", "memory_ns",
                                               "memory_overlap_ns", "memory_exposed_ns", "index"};
    QCOMPARE(ids(t), expected);
    QCOMPARE(t.rows.size(), size_t(2));
    QCOMPARE(textOf(t.at(0, "name")), std::string("ProfilerStep#1"));
    QCOMPARE(numberOf(t.at(0, "idle_share")), 0.25);
    QCOMPARE(numberOf(t.at(0, "non_compute_ns")), 250.0);   // busy - compute
    QCOMPARE(numberOf(t.at(0, "comm_exposed_ns")), 180.0);  // comm - overlapped
    QCOMPARE(numberOf(t.at(1, "index")), 1.0);
    QVERIFY(isNone(t.at(1, "idle_share")));
    QCOMPARE(render::csv(t),
             std::string("name,start_ns,end_ns,kernels,kernel_time_ns,busy_ns,idle_ns,span_ns,comm_ns,comm_overlap_ns,idle_share,"
                         "compute_ns,non_compute_ns,comm_exposed_ns,memory_ops,memory_ns,memory_overlap_ns,memory_exposed_ns,index\n"
                         "ProfilerStep#1,100,1100,7,900,750,250,1000,300,120,0.25,500,250,180,2,80,30,20,0\n"
                         "\"step, \"\"two\"\"\",0,0,0,0,0,0,0,0,0,,0,0,0,0,0,0,0,1\n"));
    // The text: what `stats --group-by step` has always printed per step.
    const std::string text = render::text(t);
    const std::string header = text.substr(0, text.find('\n'));
    for (const char* title : {"step", "start", "kernels", "kernel time", "busy", "idle", "span", "idle%", "compute", "exposed comm",
                              "exposed mem"})
        QVERIFY2(header.find(title) != std::string::npos, title);
    QVERIFY(header.find("memory ops") == std::string::npos);
    QVERIFY(text.find("25.0%") != std::string::npos);
}

void TstGpuTimeTable::devices()
{
    const Table t = devicesTable({DeviceTime{3, "GPU 3", sample()}});
    QCOMPARE(t.id, std::string("devices"));
    const std::vector<std::string> expected = {"id", "name", "start_ns", "end_ns", "kernels", "memory_ops", "kernel_time_ns", "busy_ns",
                                               "idle_ns", "idle_share", "span_ns", "compute_ns", "non_compute_ns", "comm_ns",
                                               "comm_overlap_ns", "comm_exposed_ns", "memory_ns", "memory_overlap_ns",
                                               "memory_exposed_ns"};
    QCOMPARE(ids(t), expected);
    QCOMPARE(render::csv(t), std::string("id,name,start_ns,end_ns,kernels,memory_ops,kernel_time_ns,busy_ns,idle_ns,idle_share,span_ns,"
                                         "compute_ns,non_compute_ns,comm_ns,comm_overlap_ns,comm_exposed_ns,memory_ns,"
                                         "memory_overlap_ns,memory_exposed_ns\n"
                                         "3,GPU 3,100,1100,7,2,900,750,250,0.25,1000,500,250,300,120,180,80,30,20\n"));
    QVERIFY(render::jsonRows(t).rfind("[\n {\"id\":3,\"name\":\"GPU 3\",\"start_ns\":100,", 0) == 0);
    const size_t busy = t.column("busy_ns");
    QCOMPARE(render::cellText(t.columns[busy], t.rows[0][busy]), render::cellText(Column{"x", "x", Unit::Ns}, Cell(int64_t(750))));
}

void TstGpuTimeTable::ranks()
{
    RankStats r0;
    r0.deviceId = 0;
    r0.device = "rank 0: GPU 0";
    r0.steps = 2;
    r0.meanStepNs = 600;
    r0.slowestStep = "ProfilerStep#2";
    r0.slowestStepNs = 650;
    r0.kernels = 10;
    r0.kernelTimeNs = 300;
    RankStats r1 = r0;
    r1.deviceId = 1;
    r1.device = "rank 1: GPU 1";
    r1.meanStepNs = 700;
    r1.kernelTimeNs = 100;
    r1.straggler = true;
    RankStats r2;   // a device without steps
    r2.deviceId = 2;
    r2.device = "CPU";
    const Table t = ranksTable({r0, r1, r2});
    QCOMPARE(t.columns.size(), size_t(RankColumn::NumColumns));
    const std::vector<std::string> expected = {"name", "device_id", "count", "time_ns", "share", "steps", "mean_step_ns",
                                               "slowest_step", "slowest_step_ns", "straggler"};
    QCOMPARE(ids(t), expected);
    QCOMPARE(numberOf(t.at(0, "share")), 0.75);
    QCOMPARE(numberOf(t.at(1, "straggler")), 1.0);
    QCOMPARE(numberOf(t.at(0, "straggler")), 0.0);
    QVERIFY(isNone(t.at(2, "mean_step_ns")) && isNone(t.at(2, "slowest_step")) && isNone(t.at(2, "slowest_step_ns")));
    QCOMPARE(t.notes, std::vector<std::string>{"slowest rank (largest mean step): rank 1: GPU 1"});
    QCOMPARE(render::csv(t), std::string("name,device_id,count,time_ns,share,steps,mean_step_ns,slowest_step,slowest_step_ns,straggler\n"
                                         "rank 0: GPU 0,0,10,300,0.75,2,600,ProfilerStep#2,650,0\n"
                                         "rank 1: GPU 1,1,10,100,0.25,2,700,ProfilerStep#2,650,1\n"
                                         "CPU,2,0,0,0,0,,,,0\n"));
    const std::string text = render::text(t);
    QVERIFY(text.rfind("slowest rank (largest mean step): rank 1: GPU 1\n", 0) == 0);
}

QTEST_MAIN(TstGpuTimeTable)
#include "tst_gputimetable.moc"
