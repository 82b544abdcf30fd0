// The CPU side of the timeline (core/hostrows.h) on the shared Kineto and Nsight imports,
// offscreen: one row group per process and per host thread above the GPU rows, the thread's
// ranges on host time as lanes by nesting depth (every range on its thread in exactly one
// lane, depths 1..n without gaps, labels saying level and depth), its API rows below them;
// a click on a thread's or a process's header folds it and a second click unfolds it;
// selecting a kernel highlights its launching call and the CPU op around that call.
// A CPU-backend capture: one thread (the capturing one, its OS tid, "main") holding every scope
// instance on host time in step > phase > layer lanes above the CPU device, whose own lanes
// start folded to the step lane.
#include "app/gui/core/hostrows.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/timelinewidget.h"
#include "capture/capture.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <set>

using namespace wt;
using namespace wt::gui;

namespace {

int rowIndex(const TimelineWidget& w, Row::Kind kind, int index)
{
    const auto& rows = w.layout().rows();
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].kind == kind && rows[r].index == index)
            return int(r);
    return -1;
}

// A click on a row's label in the gutter.
void clickLabel(TimelineWidget& w, int row)
{
    const Row& r = w.layout().rows()[size_t(row)];
    QTest::mouseClick(&w, Qt::LeftButton, {}, QPoint(40, TimelineWidget::kRulerHeight + r.y - w.scrollY() + r.height / 2));
}

}  // namespace

class TstHostThreadsGui : public QObject {
    Q_OBJECT
private slots:
    void threadRows_data();
    void threadRows();
    void cpuCaptureThreadRow();
};

void TstHostThreadsGui::threadRows_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("kineto hta") << "kineto-hta_2ranks_rank-0.json.gz";
    QTest::newRow("kineto nccl") << "kineto_a100_nccl_rank-0-of-2.json.gz";
    QTest::newRow("nsys fastvideo") << "nsys-2026.2_h100x2_fastvideo-1s.sqlite";
}

void TstHostThreadsGui::threadRows()
{
    QFETCH(QString, file);
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("hostthreads-gui.wt");
    QFile::remove(QString::fromStdString(out));
    int64_t runId = 0;
    std::vector<HostThread> stored;
    std::map<int64_t, int64_t> rangesOnThread;   // HostThread::id -> instances
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
        Reader r(db);
        stored = r.hostThreads(runId);
        for (const ScopeInstance& si : r.scopeInstances(runId))
            if (si.threadId != 0)
                ++rangesOnThread[si.threadId];
    }
    QVERIFY(!stored.empty());
    std::shared_ptr<const RunData> run = loadRun(out, runId);
    QVERIFY(run);

    // Threads and processes as stored; every range in one lane of its thread.
    QCOMPARE(run->hostThreads.size(), stored.size());
    std::set<int64_t> pids;
    for (const HostThread& t : stored)
        pids.insert(t.pid);
    QCOMPARE(run->hostProcesses.size(), pids.size());
    for (const HostThreadData& t : run->hostThreads) {
        int64_t inLanes = 0;
        int depth = 0;
        std::set<QString> labels;
        for (uint32_t l : t.lanes) {
            const HostLaneData& lane = run->hostLanes[l];
            QCOMPARE(lane.depth, ++depth);   // 1, 2, ... without gaps
            QVERIFY(std::is_sorted(lane.startNs.begin(), lane.startNs.end()));
            inLanes += int64_t(lane.size());
            for (size_t i = 0; i < lane.size(); ++i) {
                QCOMPARE(run->hostLaneOf[lane.items[i]], l);
                QCOMPARE(run->hostPosOf[lane.items[i]], uint32_t(i));
            }
            const QString label = hostLaneLabel(lane);
            QVERIFY2(label.startsWith(QStringLiteral("depth %1 \u00b7 ").arg(lane.depth)), qPrintable(label));
            QVERIFY(labels.insert(label).second);
        }
        QCOMPARE(inLanes, rangesOnThread[t.id]);
        for (uint32_t a : t.apiRows)
            QCOMPARE(run->apiRows[a].threadId, t.tid);
    }
    for (const HostThread& s : stored) {
        const auto it = std::find_if(run->hostThreads.begin(), run->hostThreads.end(), [&](const HostThreadData& t) { return t.id == s.id; });
        QVERIFY(it != run->hostThreads.end());
        if (!s.name.empty())
            QVERIFY(hostThreadLabel(*it).contains(QString::fromStdString(s.name)));
    }

    // Rows: the CPU header, then per process and thread their headers, lanes and API rows,
    // all above the first device.
    ViewState state;
    state.setRun(run);
    TimelineWidget w(&state);
    w.resize(1400, 900);
    w.show();
    const auto& rows = w.layout().rows();
    QCOMPARE(rows[0].kind, Row::HostHeader);
    QCOMPARE(rows[1].kind, Row::ProcessHeader);
    QCOMPARE(rows[2].kind, Row::ThreadHeader);
    size_t firstDevice = rows.size();
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].kind == Row::DeviceHeader) {
            firstDevice = r;
            break;
        }
    QVERIFY(firstDevice < rows.size());
    size_t threadRows = 0, laneRows = 0;
    for (size_t r = 0; r < firstDevice; ++r) {
        QCOMPARE(rows[r].deviceIndex, -1);
        threadRows += rows[r].kind == Row::ThreadHeader;
        laneRows += rows[r].kind == Row::HostLane;
    }
    QCOMPARE(threadRows, run->hostThreads.size());
    QCOMPARE(laneRows, run->hostLanes.size());

    // A thread's header folds its lanes and API rows (a click), a second click unfolds them.
    uint32_t busiest = 0;
    for (uint32_t t = 0; t < run->hostThreads.size(); ++t)
        if (run->hostThreads[t].lanes.size() > run->hostThreads[busiest].lanes.size())
            busiest = t;
    const HostThreadData& bt = run->hostThreads[busiest];
    QVERIFY(!bt.lanes.empty());
    const size_t before = rows.size();
    int header = rowIndex(w, Row::ThreadHeader, int(busiest));
    QVERIFY(header >= 0);
    clickLabel(w, header);
    QVERIFY(w.hostFolded(Row::ThreadHeader, int(busiest)));
    QCOMPARE(w.layout().rows().size(), before - bt.lanes.size() - bt.apiRows.size());
    QVERIFY(rowIndex(w, Row::ThreadHeader, int(busiest)) >= 0);
    QCOMPARE(rowIndex(w, Row::HostLane, int(bt.lanes.front())), -1);
    clickLabel(w, rowIndex(w, Row::ThreadHeader, int(busiest)));
    QVERIFY(!w.hostFolded(Row::ThreadHeader, int(busiest)));
    QCOMPARE(w.layout().rows().size(), before);
    // A process's header folds all its threads.
    const HostProcessData& process = run->hostProcesses[bt.process];
    size_t processRows = 0;
    for (uint32_t t : process.threads)
        processRows += 1 + run->hostThreads[t].lanes.size() + run->hostThreads[t].apiRows.size();
    clickLabel(w, rowIndex(w, Row::ProcessHeader, int(bt.process)));
    QVERIFY(w.hostFolded(Row::ProcessHeader, int(bt.process)));
    QCOMPARE(w.layout().rows().size(), before - processRows);
    QCOMPARE(rowIndex(w, Row::ThreadHeader, int(busiest)), -1);
    w.setHostFolded(Row::ProcessHeader, int(bt.process), false);
    QCOMPARE(w.layout().rows().size(), before);

    // A kernel launched inside a CPU range: selecting it highlights the call and the range.
    Selection kernel;
    uint32_t op = kNone;
    for (size_t t = 0; t < run->tracks.size() && op == kNone; ++t) {
        const TrackData& track = run->tracks[t];
        for (size_t i = 0; i < track.size() && op == kNone; ++i) {
            if (track.launch.empty() || track.launch[i] == kNone)
                continue;
            const auto [ar, ak] = run->apiCallAt(track.launch[i]);
            op = hostRangeAt(*run, ar, run->apiRows[ar].startNs[ak]);
            kernel = Selection{Selection::Activity, uint32_t(t), uint32_t(i)};
        }
    }
    QVERIFY2(op != kNone, "no kernel of the trace was launched inside a CPU range");
    state.setSelection(kernel);
    const TrackData& kt = run->tracks[kernel.track];
    const auto [ar, ak] = run->apiCallAt(kt.launch[kernel.index]);
    QCOMPARE(w.flowOp().row, run->hostLaneOf[op]);
    QCOMPARE(w.flowOp().index, run->hostPosOf[op]);
    const HostLaneData& lane = run->hostLanes[run->hostLaneOf[op]];
    const int64_t callStart = run->apiRows[ar].startNs[ak];
    QVERIFY(lane.startNs[run->hostPosOf[op]] <= callStart && callStart <= lane.endNs(run->hostPosOf[op]));
    QVERIFY(std::find(run->hostThreads[lane.thread].apiRows.begin(), run->hostThreads[lane.thread].apiRows.end(), ar) !=
            run->hostThreads[lane.thread].apiRows.end());
    // In view: the op's row has its item highlighted.
    w.setViewRange(double(lane.startNs[run->hostPosOf[op]]) - 1000, double(std::max(lane.endNs(run->hostPosOf[op]), kt.endNs(kernel.index))) + 1000);
    const int opRow = rowIndex(w, Row::HostLane, int(run->hostLaneOf[op]));
    QVERIFY(opRow >= 0);
    bool highlighted = false;
    for (const DrawItem& d : w.drawList().rows[size_t(opRow)])
        highlighted |= (d.flags & DrawItem::Highlighted) && d.first <= run->hostPosOf[op] && run->hostPosOf[op] < d.first + d.count;
    QVERIFY(highlighted);
    // And joined to the call by an arrow at the call's start: from the op's row down to the call's.
    {
        QPointF from, to;
        QVERIFY(w.flowOpSegment(from, to));
        const int callRow = rowIndex(w, Row::Api, int(ar));
        QVERIFY(callRow >= 0 && callRow > opRow);
        const Row& o = w.layout().rows()[size_t(opRow)];
        const Row& c = w.layout().rows()[size_t(callRow)];
        const double y0 = TimelineWidget::kRulerHeight - w.scrollY();
        QCOMPARE(from.x(), w.mapping().x(double(callStart)));
        QCOMPARE(to.x(), from.x());
        QVERIFY(from.y() > y0 + o.y && from.y() <= y0 + o.y + o.height);
        QVERIFY(to.y() >= y0 + c.y && to.y() < y0 + c.y + c.height);
        // Folded thread: no arrow (its rows are gone).
        w.setHostFolded(Row::ThreadHeader, int(lane.thread), true);
        QVERIFY(!w.flowOpSegment(from, to));
        w.setHostFolded(Row::ThreadHeader, int(lane.thread), false);
    }
    // Its tooltip names the range, its thread and process, on host time.
    w.resize(1400, w.layout().contentHeight() + TimelineWidget::kRulerHeight + 40);
    const Row& opRowData = w.layout().rows()[size_t(opRow)];
    const double opX = w.mapping().x(double(lane.startNs[run->hostPosOf[op]]) + double(lane.durationNs[run->hostPosOf[op]]) / 2);
    const QString tip = w.toolTipAt(QPoint(TimelineWidget::kGutterWidth + int(opX),
                                           TimelineWidget::kRulerHeight + opRowData.y - w.scrollY() + opRowData.height / 2));
    QVERIFY2(tip.contains(hostThreadLabel(run->hostThreads[lane.thread]).toHtmlEscaped()), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("(host)")), qPrintable(tip));
    // Selecting the op (a scope) selects it in its host lane.
    state.setSelection(Selection{Selection::Scope, 0, op});
    bool selected = false;
    for (const DrawItem& d : w.drawList().rows[size_t(opRow)])
        selected |= (d.flags & DrawItem::Selected) && d.count == 1 && lane.items[d.first] == op;
    QVERIFY(selected);
}

void TstHostThreadsGui::cpuCaptureThreadRow()
{
    const std::string out = test::tempPath("hostthreads-capture.wt");
    QFile::remove(QString::fromStdString(out));
    capture::CaptureOptions o;
    o.workload = "transformer";
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = 2;
    o.output = out;
    const capture::CaptureResult res = capture::runCapture(o);
    std::vector<HostThread> stored;
    std::vector<ScopeInstance> instances;
    {
        Database db(out, OpenMode::ReadOnly);
        Reader r(db);
        stored = r.hostThreads(res.runId);
        instances = r.scopeInstances(res.runId);
    }
    // The capturing thread (this one), as the OS knows it.
    QCOMPARE(stored.size(), size_t(1));
    QCOMPARE(stored[0].tid, int64_t(::syscall(SYS_gettid)));
    QCOMPARE(stored[0].pid, int64_t(::getpid()));
    QCOMPARE(stored[0].name, std::string("main"));
    QVERIFY(!instances.empty());
    for (const ScopeInstance& si : instances)
        QCOMPARE(si.threadId, stored[0].id);

    std::shared_ptr<const RunData> run = loadRun(out, res.runId);
    QVERIFY(run);
    QCOMPARE(run->hostThreads.size(), size_t(1));
    const HostThreadData& t = run->hostThreads[0];
    QVERIFY(t.apiRows.empty());   // the CPU tracer records no API calls
    // Lanes step > phase > layer (then ops, when the model has op scopes), on host time: every
    // stored instance in one, at its recorded times.
    QVERIFY(t.lanes.size() >= 3);
    const char* expected[] = {"step", "phase", "layer"};
    for (int d = 0; d < 3; ++d)
        QCOMPARE(run->hostLanes[t.lanes[size_t(d)]].level, QString::fromLatin1(expected[d]));
    size_t inLanes = 0;
    for (uint32_t l : t.lanes)
        inLanes += run->hostLanes[l].size();
    QCOMPARE(inLanes, instances.size());
    std::map<std::pair<int64_t, int64_t>, int> spans, shown;   // (start, end) -> instances
    for (const ScopeInstance& si : instances)
        ++spans[{si.startNs, si.endNs}];
    for (uint32_t l : t.lanes)
        for (size_t i = 0; i < run->hostLanes[l].size(); ++i)
            ++shown[{run->hostLanes[l].startNs[i], run->hostLanes[l].endNs(i)}];
    QCOMPARE(shown, spans);

    // Rows: CPU, process, thread "main", its lanes, then the CPU device with only its step
    // lane (the rest of the tree is the thread's) and its op track.
    ViewState state;
    state.setRun(run);
    TimelineWidget w(&state);
    w.resize(1400, 900);
    w.show();
    const auto& rows = w.layout().rows();
    QCOMPARE(rows[0].kind, Row::HostHeader);
    QCOMPARE(rows[1].kind, Row::ProcessHeader);
    QCOMPARE(rows[2].kind, Row::ThreadHeader);
    QVERIFY2(rows[2].label.startsWith(QStringLiteral("main")), qPrintable(rows[2].label));
    size_t r = 3;
    for (uint32_t l : t.lanes) {
        QCOMPARE(rows[r].kind, Row::HostLane);
        QCOMPARE(rows[r].index, int(l));
        ++r;
    }
    QCOMPARE(rows[r].kind, Row::DeviceHeader);
    int deviceLanes = 0, depthOne = -1;
    for (size_t k = r; k < rows.size(); ++k)
        if (rows[k].kind == Row::Lane) {
            ++deviceLanes;
            QCOMPARE(run->lanes[size_t(rows[k].index)].depth, 1);
            depthOne = int(k);
        }
    QCOMPARE(deviceLanes, 1);
    // A click on the step lane's label unfolds the device's whole tree.
    clickLabel(w, depthOne);
    int unfolded = 0;
    for (const Row& row : w.layout().rows())
        unfolded += row.kind == Row::Lane;
    QVERIFY(unfolded >= 3);
}

QTEST_MAIN(TstHostThreadsGui)
#include "tst_hostthreadsgui.moc"
