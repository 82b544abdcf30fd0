// Steps, categories and time on the GPU of real imports (../shared/traces, reference numbers
// from its README): the HTA ranks' ProfilerStep#551/#552 (each rank its own run), no step at
// the layer level, every kernel with a category and communication = the NCCL kernels,
// busy + idle = span per device, a rules file and --layer-depth stored with the run; and the
// step recognition itself on a synthetic trace (default pattern, the autograd thread's ranges
// under their step, a bad pattern).
#include "analysis/breakdown.h"
#include "analysis/gputime.h"
#include "analysis/runprofile.h"
#include "interop/importer.h"
#include "interop/importerror.h"
#include "interop/steprecognition.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <cmath>
#include <regex>

using namespace wt;

namespace {

struct Imported {
    std::shared_ptr<const RunProfile> profile;
    ActivityColumns columns;
    int64_t memActivities = 0;   // memcpy + memset
};

Imported importOne(const QString& path, const interop::ImportOptions& options = {})
{
    const std::string out = test::tempPath("steps.wt");
    Database db(out, OpenMode::ReadWrite);
    const int64_t run = interop::importTrace(db, path.toStdString(), options).written.runId;
    Reader r(db);
    Imported im;
    im.profile = RunProfile::load(r, run);
    im.columns = ActivityColumns::load(r, run, im.profile->tree);
    for (const TotalRow& t : im.profile->totals)
        if (t.kind != ActivityKind::Kernel)
            im.memActivities += t.count;
    return im;
}

const Group* groupOf(const Breakdown& b, const std::string& path)
{
    for (const Group& g : b.groups)
        if (g.path == path)
            return &g;
    return nullptr;
}

bool nearUs(int64_t ns, double us)
{
    return std::abs(double(ns) - us * 1000.0) <= 1000.0;   // the README rounds to 1 us
}

}  // namespace

class TestStepRecognition : public QObject {
    Q_OBJECT
private slots:
    void defaultPattern_data();
    void defaultPattern();
    void markAndAdopt();
    void badPattern();
    void htaRanks_data();
    void htaRanks();
    void ncclRankSteps();
    void busyIdleSpanPerDevice_data();
    void busyIdleSpanPerDevice();
    void rulesFileOverrides();
    void layerDepthStored();
    void stepOptionOnNvtx();
};

void TestStepRecognition::defaultPattern_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("step");
    for (const char* yes : {"ProfilerStep#551", "step", "Step 12", "step_3", "train_step", "Training Step 4", "iteration 7",
                            "iter_2", "eval_step", "STEP#9"})
        QTest::newRow(yes) << QString::fromUtf8(yes) << true;
    for (const char* no : {"Optimizer.step#SGD.step", "aten::addmm", "## forward ##", "stepper", "ProfilerStep#", "my step 1",
                           "autograd::engine::evaluate_function: AddmmBackward0"})
        QTest::newRow(no) << QString::fromUtf8(no) << false;
}

void TestStepRecognition::defaultPattern()
{
    QFETCH(QString, name);
    QFETCH(bool, step);
    const std::regex re(interop::kDefaultStepPattern, std::regex::ECMAScript | std::regex::icase);
    QCOMPARE(std::regex_match(name.toStdString(), re), step);
}

void TestStepRecognition::markAndAdopt()
{
    using R = interop::ImportedTrace::Range;
    interop::ImportedTrace t;
    t.format = "kineto";
    const uint32_t op = t.strings.intern("op");
    const int64_t main = (int64_t(7) << 32) ^ 1, autograd = (int64_t(7) << 32) ^ 2, otherProcess = (int64_t(8) << 32) ^ 2;
    auto add = [&](const char* name, int64_t s, int64_t e, int64_t thread) {
        R r;
        r.startNs = s;
        r.endNs = e;
        r.thread = thread;
        r.name = t.strings.intern(name);
        r.level = op;
        t.ranges.push_back(r);
    };
    add("ProfilerStep#1", 0, 100, main);     // 0
    add("forward", 10, 40, main);            // 1: nested by the writer, not here
    add("backward", 50, 90, autograd);       // 2: top level on the autograd thread, inside step 1
    add("AddmmBackward", 55, 60, autograd);  // 3: nested in 2 on its own thread
    add("ProfilerStep#2", 100, 200, main);   // 4
    add("late", 210, 220, autograd);         // 5: after every step
    add("rank 8 op", 60, 70, otherProcess);  // 6: another process: never adopted
    const interop::StepMarks m = interop::markSteps(t, "", "mem");
    QCOMPARE(m.steps, int64_t(2));
    QCOMPARE(m.adopted, int64_t(1));
    QCOMPARE(t.strings.at(t.ranges[0].level), std::string("step"));
    QCOMPARE(t.strings.at(t.ranges[4].level), std::string("step"));
    QCOMPARE(t.strings.at(t.ranges[1].level), std::string("op"));
    QCOMPARE(t.ranges[2].parent, int64_t(0));
    QVERIFY(t.ranges[2].parentGiven);
    QVERIFY(!t.ranges[3].parentGiven);
    QVERIFY(!t.ranges[5].parentGiven);
    QVERIFY(!t.ranges[6].parentGiven);
}

void TestStepRecognition::badPattern()
{
    interop::ImportedTrace t;
    try {
        interop::markSteps(t, "step(", "trace.json");
        QFAIL("expected ImportError");
    } catch (const interop::ImportError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("not a valid regular expression")), e.what());
    }
}

void TestStepRecognition::htaRanks_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qlonglong>("kernels");
    QTest::addColumn<double>("ncclUs");
    QTest::addColumn<double>("busyUs");
    QTest::addColumn<double>("spanUs");
    QTest::newRow("rank 0") << "kineto-hta_2ranks_rank-0.json.gz" << 1154LL << 396199.0 << 547303.0 << 1222818.0;
    QTest::newRow("rank 1") << "kineto-hta_2ranks_rank-1.json.gz" << 1104LL << 379053.0 << 575496.0 << 1231182.0;
}

void TestStepRecognition::htaRanks()
{
    QFETCH(QString, file);
    QFETCH(qlonglong, kernels);
    QFETCH(double, ncclUs);
    QFETCH(double, busyUs);
    QFETCH(double, spanUs);
    WT_REQUIRE_TRACE(path, file);
    const Imported im = importOne(path);
    const RunProfile& p = *im.profile;
    QCOMPARE(p.run.kernels, int64_t(kernels));

    // Steps: ProfilerStep#551 and #552, in order, holding every kernel (the autograd thread's
    // backward ranges are placed under their step).
    const std::vector<StepTime> steps = computeStepTimes(p, im.columns.view());
    QCOMPARE(steps.size(), size_t(2));
    QCOMPARE(steps[0].name, std::string("ProfilerStep#551"));
    QCOMPARE(steps[1].name, std::string("ProfilerStep#552"));
    QVERIFY(steps[0].time.endNs <= steps[1].time.startNs);
    QCOMPARE(steps[0].time.kernels + steps[1].time.kernels, int64_t(kernels));
    for (const StepTime& s : steps) {
        QVERIFY(s.time.kernels > 0);
        QCOMPARE(s.time.busyNs + s.time.idleNs, s.time.spanNs);
        QVERIFY(s.time.busyNs <= s.time.kernelTimeNs);
    }

    // No step at the layer level, and the layers are what runs below the steps.
    const Breakdown layers = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Layer, {}});
    for (const Group& g : layers.groups)
        QVERIFY2(g.path.rfind("ProfilerStep", 0) != 0, g.path.c_str());
    QVERIFY(groupOf(layers, "## forward ##"));
    QCOMPARE(layers.totalNs, p.run.kernelTimeNs);

    // Every activity has a category; communication is exactly the NCCL kernels.
    const Breakdown cats = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {}});
    int64_t counted = 0;
    for (const Group& g : cats.groups)
        counted += g.count;
    QCOMPARE(counted, int64_t(kernels) + im.memActivities);
    QVERIFY(!groupOf(cats, ""));
    const Group* comm = groupOf(cats, "communication");
    QVERIFY(comm);
    QCOMPARE(comm->count, int64_t(10));
    QVERIFY2(nearUs(comm->timeNs, ncclUs), std::to_string(comm->timeNs).c_str());
    const Breakdown byName = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Kernel, {}});
    int64_t ncclCount = 0;
    for (const Group& g : byName.groups)
        if (g.path.find("nccl") != std::string::npos)
            ncclCount += g.count;
    QCOMPARE(ncclCount, comm->count);
    const Breakdown commNames =
        computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Kernel, {{GroupBy::Category, "communication"}}});
    for (const Group& g : commNames.groups)
        QVERIFY2(g.path.find("nccl") != std::string::npos, g.path.c_str());
    QVERIFY(groupOf(cats, "gemm") && groupOf(cats, "gemm")->timeNs > 0);

    // One device: the README's busy and span; comm time is the NCCL kernels' union.
    const std::vector<DeviceTime> devices = computeDeviceTimes(p, im.columns.view());
    QCOMPARE(devices.size(), size_t(1));
    const GpuTime& d = devices[0].time;
    QVERIFY2(nearUs(d.busyNs, busyUs), std::to_string(d.busyNs).c_str());
    QVERIFY2(nearUs(d.spanNs, spanUs), std::to_string(d.spanNs).c_str());
    QCOMPARE(d.busyNs + d.idleNs, d.spanNs);
    QVERIFY(d.commNs > 0 && d.commNs <= comm->timeNs);
    QVERIFY(d.commOverlapNs > 0 && d.commOverlapNs < d.commNs);   // some of it hidden, not all
    // The steps' figures add up within the device's.
    QVERIFY(steps[0].time.busyNs + steps[1].time.busyNs == d.busyNs);
    QVERIFY(steps[0].time.commNs + steps[1].time.commNs == d.commNs);
}

void TestStepRecognition::ncclRankSteps()
{
    WT_REQUIRE_TRACE(path, "kineto_a100_nccl_rank-0-of-2.json.gz");
    const Imported im = importOne(path);
    const RunProfile& p = *im.profile;
    const std::vector<StepTime> steps = computeStepTimes(p, im.columns.view());
    QCOMPARE(steps.size(), size_t(3));
    QCOMPARE(steps[0].name, std::string("ProfilerStep#4"));
    QCOMPARE(steps[2].name, std::string("ProfilerStep#6"));
    const Breakdown cats = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {}});
    const Group* comm = groupOf(cats, "communication");
    QVERIFY(comm);
    QCOMPARE(comm->count, int64_t(21));
    QVERIFY2(std::abs(double(comm->timeNs) - 46876493.0) <= 1.0, std::to_string(comm->timeNs).c_str());
    const std::vector<DeviceTime> devices = computeDeviceTimes(p, im.columns.view());
    QCOMPARE(devices.size(), size_t(1));
    QVERIFY(std::abs(double(devices[0].time.busyNs) - 155215315.0) <= 1.0);
    QVERIFY(std::abs(double(devices[0].time.spanNs) - 660551005.0) <= 1.0);
}

void TestStepRecognition::busyIdleSpanPerDevice_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("devices");
    QTest::addColumn<int>("steps");   // ProfilerStep#N ranges; every kernel of these runs in one
    QTest::addColumn<QString>("firstStep");
    QTest::newRow("nsys fastvideo, two H100") << "nsys-2026.2_h100x2_fastvideo-1s.sqlite" << 2 << 0 << "";
    QTest::newRow("nsys saxpy") << "nsys-2022.2_a100_saxpy-mpi.sqlite" << 1 << 0 << "";
    QTest::newRow("kineto resnet50") << "kineto-2021_v100_resnet50.pt.trace.json.gz" << 1 << 6 << "ProfilerStep#16";
    QTest::newRow("kineto ns") << "kineto_v100_ns-resolution.pt.trace.json.gz" << 1 << 5 << "ProfilerStep#101";
}

void TestStepRecognition::busyIdleSpanPerDevice()
{
    QFETCH(QString, file);
    QFETCH(int, devices);
    QFETCH(int, steps);
    QFETCH(QString, firstStep);
    WT_REQUIRE_TRACE(path, file);
    const Imported im = importOne(path);
    const RunProfile& p = *im.profile;
    const std::vector<DeviceTime> d = computeDeviceTimes(p, im.columns.view());
    QCOMPARE(int(d.size()), devices);
    int64_t kernels = 0, kernelTime = 0, first = INT64_MAX, last = INT64_MIN, busyMax = 0;
    for (const DeviceTime& dev : d) {
        QCOMPARE(dev.time.busyNs + dev.time.idleNs, dev.time.spanNs);
        QVERIFY(dev.time.busyNs <= dev.time.kernelTimeNs);
        QVERIFY(!dev.name.empty());
        kernels += dev.time.kernels;
        kernelTime += dev.time.kernelTimeNs;
        first = std::min(first, dev.time.startNs);
        last = std::max(last, dev.time.endNs);
        busyMax = std::max(busyMax, dev.time.busyNs);
    }
    // The devices together are the run's summary (the writer's own figures).
    QCOMPARE(kernels, p.run.kernels);
    QCOMPARE(kernelTime, p.run.kernelTimeNs);
    QCOMPARE(last - first, p.run.spanEndNs - p.run.spanStartNs);
    QVERIFY(busyMax <= p.run.busyNs);
    if (devices == 1)
        QCOMPARE(d[0].time.busyNs, p.run.busyNs);
    // Steps: the profiler's, none invented where there are none.
    const std::vector<StepTime> st = computeStepTimes(p, im.columns.view());
    QCOMPARE(int(st.size()), steps);
    if (steps > 0) {
        QCOMPARE(QString::fromStdString(st.front().name), firstStep);
        int64_t inSteps = 0;
        for (const StepTime& s : st)
            inSteps += s.time.kernels;
        QCOMPARE(inSteps, p.run.kernels);
    }
    // Categories cover every activity.
    const Breakdown cats = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {}});
    int64_t counted = 0;
    for (const Group& g : cats.groups)
        counted += g.count;
    QCOMPARE(counted, p.run.kernels + im.memActivities);
}

void TestStepRecognition::rulesFileOverrides()
{
    WT_REQUIRE_TRACE(path, "kineto-hta_2ranks_rank-0.json.gz");
    interop::ImportOptions o;
    o.metadata.emplace_back(kCategoriesKey, "# point-to-point apart\nnccl.*SendRecv -> point-to-point\n");
    const Imported im = importOne(path, o);
    const RunProfile& p = *im.profile;
    QVERIFY(p.tree.categories().hasUserRules());
    const Breakdown cats = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {}});
    const Group* a2a = groupOf(cats, "point-to-point");
    const Group* comm = groupOf(cats, "communication");
    QVERIFY(a2a);
    QVERIFY(a2a->count > 0);
    const int64_t rest = comm ? comm->count : 0;
    QCOMPARE(a2a->count + rest, int64_t(10));   // the NCCL kernels, split by the rule
    QVERIFY(nearUs(a2a->timeNs + (comm ? comm->timeNs : 0), 396199.0));
    // A profile loaded with other rules (stats --categories) replaces the stored ones.
    auto builtin = std::make_shared<const KernelCategories>();
    RunProfile copy = p;
    copy.tree.setCategories(builtin);
    const Breakdown again = computeBreakdown(copy.totals, copy.tree, copy.strings, GroupLevel{GroupBy::Category, {}});
    QVERIFY(!groupOf(again, "point-to-point"));
    QCOMPARE(groupOf(again, "communication")->count, int64_t(10));
}

void TestStepRecognition::layerDepthStored()
{
    WT_REQUIRE_TRACE(path, "kineto-hta_2ranks_rank-0.json.gz");
    const Imported one = importOne(path);
    interop::ImportOptions o;
    o.metadata.emplace_back(kLayerDepthKey, "2");
    const Imported two = importOne(path, o);
    QCOMPARE(one.profile->tree.layerDepth(), 1);
    QCOMPARE(two.profile->tree.layerDepth(), 2);
    const Breakdown l1 = computeBreakdown(one.profile->totals, one.profile->tree, one.profile->strings, GroupLevel{GroupBy::Layer, {}});
    const Breakdown l2 = computeBreakdown(two.profile->totals, two.profile->tree, two.profile->strings, GroupLevel{GroupBy::Layer, {}});
    QVERIFY(groupOf(l1, "## forward ##"));
    QVERIFY(!groupOf(l2, "## forward ##"));   // its children are the layers now
    QVERIFY(l2.groups.size() > l1.groups.size());
    QCOMPARE(l1.totalNs, l2.totalNs);
    for (const Group& g : l2.groups)
        QVERIFY2(g.path.rfind("ProfilerStep", 0) != 0, g.path.c_str());
}

void TestStepRecognition::stepOptionOnNvtx()
{
    // Nsight's saxpy trace has no step-like names; --step picks its `saxpy` NVTX ranges.
    WT_REQUIRE_TRACE(path, "nsys-2022.2_a100_saxpy-mpi.sqlite");
    interop::ImportOptions o;
    o.stepPattern = "saxpy";
    const Imported im = importOne(path, o);
    QVERIFY(im.profile->tree.hasSteps());
    const std::vector<StepTime> steps = computeStepTimes(*im.profile, im.columns.view());
    QVERIFY(!steps.empty());
    int64_t kernels = 0;
    for (const StepTime& s : steps) {
        QCOMPARE(s.name, std::string("saxpy"));
        kernels += s.time.kernels;
    }
    QCOMPARE(kernels, int64_t(5));
    const Breakdown layers = computeBreakdown(im.profile->totals, im.profile->tree, im.profile->strings, GroupLevel{GroupBy::Layer, {}});
    QVERIFY(!groupOf(layers, "saxpy"));
}

QTEST_GUILESS_MAIN(TestStepRecognition)
#include "tst_steprecognition.moc"
