// Find on the timeline (core/timelinesearch.h, widgets/findbar.h) on the shared Kineto and
// Nsight imports: the match count equals a brute-force count of the CSV export's rows whose
// name holds the text (case-insensitive) plus the scope instances shown in lanes, the stored
// API calls and the stored ranges on host threads (the CPU lanes) whose name holds it; Ctrl+F (not F, fit) opens the bar; Enter steps forward in time through every
// match (each selected, centred, the status "k of n", the view widened to its launching call
// where the kernel stays 2 px wide), Shift+Enter back, both wrapping;
// regular expressions and a bad one; Escape closes and removes the marks.
#include "app/gui/core/rundata.h"
#include "app/gui/core/timelinesearch.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/findbar.h"
#include "app/gui/widgets/timelinewidget.h"
#include "interop/csvexporter.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QLineEdit>
#include <QTest>

#include <map>
#include <set>
#include <sstream>

using namespace wt;
using namespace wt::gui;


class TstTimelineFind : public QObject {
    Q_OBJECT
private slots:
    void countsMatchCsv_data();
    void countsMatchCsv();
    void stepsThroughEveryMatch();
    void stepsToHostRanges();
    void regexAndErrors();
};

void TstTimelineFind::countsMatchCsv_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("text");
    QTest::newRow("kineto nccl") << "kineto_a100_nccl_rank-0-of-2.json.gz" << "nccl";
    QTest::newRow("kineto memcpy") << "kineto_a100_nccl_rank-0-of-2.json.gz" << "MEMCPY";
    QTest::newRow("resnet conv") << "kineto-2021_v100_resnet50.pt.trace.json.gz" << "conv";
    QTest::newRow("kineto aten ops") << "kineto_a100_nccl_rank-0-of-2.json.gz" << "aten::";
    QTest::newRow("hta profiler step") << "kineto-hta_2ranks_rank-0.json.gz" << "ProfilerStep";
    QTest::newRow("nsys gemm") << "nsys-2026.2_h100x2_fastvideo-1s.sqlite" << "gemm";
    QTest::newRow("nsys none") << "nsys-2022.2_a100_saxpy-mpi.sqlite" << "no such kernel anywhere";
}

void TstTimelineFind::countsMatchCsv()
{
    QFETCH(QString, file);
    QFETCH(QString, text);
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("find.wt");
    int64_t runId = 0;
    int64_t apiExpected = 0;   // API calls (the CPU rows) by name, from storage
    int64_t hostExpected = 0;  // scope instances recorded on a host thread, by scope name, from storage
    std::ostringstream csv;
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
        Reader r(db);
        interop::CsvExporter::writeActivities(r, runId, csv);
        for (const ApiCall& c : r.apiCalls(runId))
            apiExpected += QString::fromStdString(r.string(c.nameId)).contains(text, Qt::CaseInsensitive);
        std::map<int64_t, QString> scopeName;
        for (const ScopeNode& n : r.scopes(runId))
            scopeName[n.id] = QString::fromStdString(r.string(n.nameId));
        for (const ScopeInstance& si : r.scopeInstances(runId))
            hostExpected += si.threadId != 0 && scopeName[si.scopeId].contains(text, Qt::CaseInsensitive);
    }
    std::shared_ptr<const RunData> run = loadRun(out, runId);
    QVERIFY(run);
    // Brute force: the CSV's rows by name, and the lanes' instances by scope name.
    std::istringstream in(csv.str());
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = test::csvFields(line);
    const size_t nameCol = size_t(std::find(header.begin(), header.end(), "name") - header.begin());
    QVERIFY(nameCol < header.size());
    int64_t rows = 0, expected = 0;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = test::csvFields(line);
        QVERIFY(f.size() > nameCol);
        ++rows;
        expected += QString::fromStdString(f[nameCol]).contains(text, Qt::CaseInsensitive);
    }
    QCOMPARE(rows, run->activityCount);
    int64_t scopes = 0;
    for (const LaneData& lane : run->lanes)
        for (uint32_t inst : lane.items)
            scopes += run->nodes[run->instances.node[inst]].name.contains(text, Qt::CaseInsensitive);
    const SearchResult result = searchRun(*run, text);
    QCOMPARE(result.activityMatches, expected);
    QCOMPARE(result.scopeMatches, scopes);
    QCOMPARE(result.apiMatches, apiExpected);
    QCOMPARE(result.hostMatches, hostExpected);

    // The widget shows the same count.
    ViewState state;
    state.setRun(run);
    TimelineWidget w(&state);
    w.resize(1200, 600);
    w.findText(text);
    QVERIFY(w.findBar() && !w.findBar()->isHidden());
    const int64_t n = expected + scopes + apiExpected + hostExpected;
    QCOMPARE(w.findBar()->status(), n == 0 ? QStringLiteral("no matches")
                                           : n == 1 ? QStringLiteral("1 match") : QStringLiteral("%1 matches").arg(n));
    qInfo("%s: %lld activities, %lld scopes, %lld API calls and %lld host ranges match", qPrintable(text), qlonglong(expected),
          qlonglong(scopes), qlonglong(apiExpected), qlonglong(hostExpected));
}

void TstTimelineFind::stepsThroughEveryMatch()
{
    const char* file = "kineto_a100_nccl_rank-0-of-2.json.gz";
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("findsteps.wt");
    int64_t runId = 0;
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
    }
    std::shared_ptr<const RunData> run = loadRun(out, runId);
    QVERIFY(run);
    ViewState state;
    state.setRun(run);
    TimelineWidget w(&state);
    w.resize(1200, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setFocus();
    // F fits; Ctrl+F opens the find bar instead.
    w.setViewRange(1000, 2000);
    QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
    QVERIFY(w.findBar() && !w.findBar()->isHidden());
    QCOMPARE(w.mapping().startNs(), 1000.0);
    QTest::keyClicks(w.findBar()->lineEdit(), QStringLiteral("ncclKernel"));
    QVERIFY(w.search());
    const int64_t n = w.search()->count();
    QVERIFY(n > 3);
    QVERIFY(w.groupMarks() == w.search()->marks.get());   // the draw list marks the matches
    w.setViewRange(double(run->spanStartNs) - 1, double(run->spanStartNs));
    int64_t lastStart = INT64_MIN;
    // A found kernel's launching call is in view too, unless showing both would leave the kernel
    // under 2 px; counts the calls that lay off the match-centred view and were brought in.
    int widened = 0;
    auto launchShown = [&](const Selection& sel, int64_t t0, int64_t t1) {
        const TrackData& track = run->tracks[sel.track];
        if (sel.index >= track.launch.size() || track.launch[sel.index] == kNone)
            return false;
        const auto [row, call] = run->apiCallAt(track.launch[sel.index]);
        const double c0 = double(run->apiRows[row].startNs[call]), c1 = double(run->apiRows[row].endNs(call));
        int64_t f0 = 0, f1 = 0;
        if (!w.flowPartnerSpan(f0, f1) || double(f0) != c0 || double(f1) != c1)
            return false;
        const double d = std::max(double(t1 - t0), 200.0), mid = (double(t0) + double(t1)) / 2;
        const bool outside = c0 < mid - 5 * d || c1 > mid + 5 * d;
        const double both = std::max(mid + 5 * d, c1) - std::min(mid - 5 * d, c0);
        if (double(t1 - t0) / (both * 1.1) * w.mapping().widthPx() < 2)
            return true;
        widened += outside ? 1 : 0;
        return w.mapping().startNs() <= c0 && c1 <= w.mapping().endNs();
    };
    for (int64_t k = 1; k <= n; ++k) {
        QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Return);
        const Selection sel = state.selection();
        int64_t t0 = 0, t1 = 0;
        QVERIFY(selectionSpan(*run, sel, t0, t1));
        QVERIFY2(t0 >= lastStart, "matches step forward in time");
        lastStart = t0;
        QVERIFY(sel.kind == Selection::Activity);
        QVERIFY(run->name(run->tracks[sel.track].nameId[sel.index]).contains(QStringLiteral("ncclkernel"), Qt::CaseInsensitive));
        QCOMPARE(w.findBar()->status(), QStringLiteral("%1 of %2").arg(k).arg(n));
        // In view (centred unless the run's edge is near).
        QVERIFY(w.mapping().startNs() <= double(t0) && double(t1) <= w.mapping().endNs());
        QVERIFY(launchShown(sel, t0, t1));
    }

    // Past the last: the first again; Shift+Enter back to the last.
    QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Return);
    QCOMPARE(w.findBar()->status(), QStringLiteral("1 of %1").arg(n));
    QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(w.findBar()->status(), QStringLiteral("%1 of %1").arg(n));
    QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(w.findBar()->status(), QStringLiteral("%1 of %2").arg(n - 1).arg(n));
    // cuDNN's reduction kernels (~5 us) start ~190 us after their calls, 40x their length: the
    // view widens to show the call.
    w.findBar()->lineEdit()->clear();
    QTest::keyClicks(w.findBar()->lineEdit(), QStringLiteral("cudnn_train::reduct"));
    QVERIFY(w.search() && w.search()->count() > 3);
    for (int64_t k = 1; k <= w.search()->count(); ++k) {
        QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Return);
        const Selection sel = state.selection();
        int64_t t0 = 0, t1 = 0;
        QVERIFY(sel.kind == Selection::Activity && selectionSpan(*run, sel, t0, t1));
        QVERIFY(w.mapping().startNs() <= double(t0) && double(t1) <= w.mapping().endNs());
        QVERIFY(launchShown(sel, t0, t1));
    }
    QVERIFY2(widened > 0, "some kernel's call lay off its match-centred view and was brought in");
    // Escape closes: no marks.
    QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Escape);
    QVERIFY(!w.findBar()->isVisible());
    QVERIFY(!w.search());
    QVERIFY(w.groupMarks() == nullptr);
}

// The CPU lanes take part: their matching ranges are marked, and stepping visits each of them
// (selected on its host lane, in view on host time) as well as the GPU lane instances, API
// calls and kernels of the same name.
void TstTimelineFind::stepsToHostRanges()
{
    const char* file = "kineto_a100_nccl_rank-0-of-2.json.gz";
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("findhost.wt");
    int64_t runId = 0;
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
    }
    std::shared_ptr<const RunData> run = loadRun(out, runId);
    QVERIFY(run);
    QVERIFY(!run->hostLanes.empty());
    ViewState state;
    state.setRun(run);
    TimelineWidget w(&state);
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.findText(QStringLiteral("nccl:all_reduce"));
    QVERIFY(w.search());
    const SearchResult& res = *w.search();
    QVERIFY2(res.hostMatches > 0, "the CPU op nccl:all_reduce is on a host lane");
    const int64_t n = res.count();
    QVERIFY(n > res.hostMatches);   // its kernels' names or GPU lanes match too
    // Fitted, the host lanes holding matches are marked.
    w.fit();
    int64_t markedHostRows = 0;
    const auto& rows = w.layout().rows();
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].kind == Row::HostLane && !w.drawList().marks[r].empty())
            ++markedHostRows;
    QVERIFY(markedHostRows > 0);
    w.setViewRange(double(run->spanStartNs) - 1e9, double(run->spanStartNs) - 1e9 + 1);
    int64_t hostSteps = 0;
    std::set<uint32_t> hostSeen;
    for (int64_t k = 1; k <= n; ++k) {
        QTest::keyClick(w.findBar()->lineEdit(), Qt::Key_Return);
        const Selection sel = state.selection();
        QCOMPARE(w.findBar()->status(), QStringLiteral("%1 of %2").arg(k).arg(n));
        int64_t t0 = 0, t1 = 0;
        QVERIFY(selectionSpan(*run, sel, t0, t1));
        QVERIFY(w.mapping().startNs() <= double(t0) && double(t1) <= w.mapping().endNs());
        if (sel.kind == Selection::Scope && sel.host) {
            ++hostSteps;
            hostSeen.insert(sel.index);
            const uint32_t lane = run->hostLaneOf[sel.index];
            QVERIFY(lane != kNone);
            QCOMPARE(t0, run->hostLanes[lane].startNs[run->hostPosOf[sel.index]]);
            QVERIFY(run->nodes[run->instances.node[sel.index]].name.contains(QStringLiteral("nccl:all_reduce")));
            // Drawn selected on its host lane.
            const int r = [&] {
                for (size_t i = 0; i < rows.size(); ++i)
                    if (rows[i].kind == Row::HostLane && rows[i].index == int(lane))
                        return int(i);
                return -1;
            }();
            QVERIFY(r >= 0);
            bool selected = false;
            for (const DrawItem& d : w.drawList().rows[size_t(r)])
                selected |= (d.flags & DrawItem::Selected) != 0;
            QVERIFY(selected);
            // Painted and hovered with the marks (labels inside wide host items read their row's bits).
            QVERIFY(!w.grab().isNull());
        }
    }
    QCOMPARE(hostSteps, res.hostMatches);
    QCOMPARE(int64_t(hostSeen.size()), res.hostMatches);
}

void TstTimelineFind::regexAndErrors()
{
    const char* file = "kineto_a100_nccl_rank-0-of-2.json.gz";
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("findregex.wt");
    int64_t runId = 0;
    {
        Database db(out, OpenMode::ReadWrite);
        runId = interop::importTrace(db, path.toStdString()).written.runId;
    }
    std::shared_ptr<const RunData> run = loadRun(out, runId);
    QVERIFY(run);
    const SearchResult re = searchRun(*run, QStringLiteral("^memcpy (htod|dtoh)"), true);
    const SearchResult h = searchRun(*run, QStringLiteral("memcpy htod"));
    const SearchResult d = searchRun(*run, QStringLiteral("memcpy dtoh"));
    QVERIFY(re.error.isEmpty());
    QCOMPARE(re.activityMatches, h.activityMatches + d.activityMatches);
    const SearchResult bad = searchRun(*run, QStringLiteral("(unclosed"), true);
    QVERIFY(!bad.error.isEmpty());
    QCOMPARE(bad.count(), int64_t(0));
    QCOMPARE(stepMatch(*run, bad, {}, 0, true).kind, Selection::None);
}

QTEST_MAIN(TstTimelineFind)
#include "tst_timelinefind.moc"
