// The CPU rows and flows (core/apirows.h, widgets/timelineflows.cpp) on the shared Kineto and
// Nsight imports: every stored API call is in exactly one row (thread, nesting level), rows are
// sorted and nested calls lie inside a call of the level above; each kernel's launching call
// (TrackData::launch) is the stored call with its correlation id (checked against the
// activities and calls read back from storage); the timeline shows the host rows above the
// GPU rows; selecting a kernel (a click) highlights its call and draws one flow, selecting
// that call draws a flow to each of its kernels; the host header folds the CPU rows (all of
// them: API rows, and for imports the process and thread rows with their CPU ranges).
#include "app/gui/core/rundata.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/timelinewidget.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <map>

using namespace wt;
using namespace wt::gui;

class TstTimelineFlows : public QObject {
    Q_OBJECT
private slots:
    void flowsLandOnLaunchingCall_data();
    void flowsLandOnLaunchingCall();
};

void TstTimelineFlows::flowsLandOnLaunchingCall_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("kineto nccl") << "kineto_a100_nccl_rank-0-of-2.json.gz";
    QTest::newRow("kineto resnet") << "kineto-2021_v100_resnet50.pt.trace.json.gz";
    QTest::newRow("nsys saxpy") << "nsys-2022.2_a100_saxpy-mpi.sqlite";
    QTest::newRow("nsys fastvideo") << "nsys-2026.2_h100x2_fastvideo-1s.sqlite";
}

void TstTimelineFlows::flowsLandOnLaunchingCall()
{
    QFETCH(QString, file);
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("flows.wt");
    int64_t runId = 0;
    std::vector<ApiCall> calls;
    std::map<std::pair<int64_t, int64_t>, int64_t> correlationOf;   // (track id, start) -> correlation
    std::map<int64_t, std::string> trackNames;
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
        Reader r(db);
        calls = r.apiCalls(runId);
        r.forEachActivity(runId, [&](const Activity& a) {
            correlationOf[{a.trackId, a.startNs}] = a.correlationId;
            return true;
        });
    }
    QVERIFY(!calls.empty());
    std::shared_ptr<const RunData> run = loadRun(out, runId);
    QVERIFY(run);

    // Every call in one row; rows sorted; nesting.
    size_t total = 0;
    for (const ApiRowData& row : run->apiRows) {
        total += row.size();
        QVERIFY(std::is_sorted(row.startNs.begin(), row.startNs.end()));
    }
    QCOMPARE(total, calls.size());
    QCOMPARE(size_t(run->apiRowStart.back()), calls.size());

    // Each activity's launching call has its correlation id; count those found.
    std::multimap<int64_t, size_t> callsByCorrelation;
    for (size_t i = 0; i < calls.size(); ++i)
        callsByCorrelation.emplace(calls[i].correlationId, i);
    int64_t linked = 0, expectedLinks = 0;
    Selection firstKernel;
    for (size_t t = 0; t < run->tracks.size(); ++t) {
        const TrackData& track = run->tracks[t];
        QCOMPARE(track.launch.size(), track.size());
        for (size_t i = 0; i < track.size(); ++i) {
            auto c = correlationOf.find({track.id, track.startNs[i]});
            QVERIFY(c != correlationOf.end());
            const bool hasCall = c->second != 0 && callsByCorrelation.count(c->second) > 0;
            expectedLinks += hasCall;
            if (track.launch[i] == kNone) {
                QVERIFY2(!hasCall, "a kernel whose call is stored has no flow");
                continue;
            }
            ++linked;
            const auto [row, k] = run->apiCallAt(track.launch[i]);
            QVERIFY(row < run->apiRows.size() && k < run->apiRows[row].size());
            QCOMPARE(run->apiRows[row].correlationId[k], c->second);
            if (firstKernel.kind == Selection::None && track.kind == TrackKind::Kernel)
                firstKernel = Selection{Selection::Activity, uint32_t(t), uint32_t(i)};
        }
    }
    QCOMPARE(linked, expectedLinks);
    QVERIFY(linked > 0);
    qInfo("%lld of %lld activities linked to their launching call", qlonglong(linked), qlonglong(run->activityCount));

    // The widget: host rows first; a kernel's flow; the call's flows.
    ViewState state;
    state.setRun(run);
    TimelineWidget w(&state);
    w.resize(1400, 900);
    const auto& rows = w.layout().rows();
    QVERIFY(rows.size() > 2);
    QCOMPARE(rows[0].kind, Row::HostHeader);
    QCOMPARE(rows[0].deviceIndex, -1);
    // Imports have host threads: a process header, then its threads (tst_hostthreadsgui).
    QVERIFY(rows[1].kind == Row::Api || rows[1].kind == Row::ProcessHeader);
    QVERIFY(firstKernel.kind == Selection::Activity);
    state.setSelection(firstKernel);
    QCOMPARE(w.flowTargets().size(), size_t(1));
    const TrackData& kt = run->tracks[firstKernel.track];
    const auto [row, k] = run->apiCallAt(kt.launch[firstKernel.index]);
    // The call's row has its item highlighted (in view: the call and its kernel shown).
    const double a = double(std::min(run->apiRows[row].startNs[k], kt.startNs[firstKernel.index]));
    const double b = double(std::max(run->apiRows[row].endNs(k), kt.endNs(firstKernel.index)));
    w.setViewRange(a - 1000, b + 1000);
    bool highlighted = false;
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].kind == Row::Api && rows[r].index == int(row))
            for (const DrawItem& d : w.drawList().rows[r])
                highlighted |= (d.flags & DrawItem::Highlighted) && d.first <= k && k < d.first + d.count;
    QVERIFY(highlighted);
    state.setSelection(Selection{Selection::ApiCall, row, k});
    QVERIFY(!w.flowTargets().empty());
    bool back = false;
    for (const auto& e : w.flowTargets())
        back |= e.row == firstKernel.track && e.index == firstKernel.index;
    QVERIFY(back);
    // The host header folds the CPU rows.
    const size_t before = rows.size();
    size_t hostRows = 0;
    for (const Row& r : rows)
        hostRows += r.deviceIndex == -1 && r.kind != Row::HostHeader;
    QVERIFY(hostRows >= run->apiRows.size());
    w.setCollapsedDepth(-1, -1);
    QCOMPARE(w.layout().rows().size(), before - hostRows);
    QCOMPARE(w.layout().rows()[1].deviceIndex == -1, false);
}

QTEST_MAIN(TstTimelineFlows)
#include "tst_timelineflows.moc"
