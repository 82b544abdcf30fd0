// The details panel's histogram (widgets/histogramview.h) offscreen, on a tiny CPU capture: a
// selected kernel shows the histogram of its name (n and bins those of analysis, the selected
// instance's bin marked); a click on a bin marks exactly that bin's instances (every activity
// of the name with a duration in the bin, counted here by brute force over the run's arrays),
// a second click clears them; a click on the slowest list selects and centres that instance
// without computing again; a selected layer scope shows its layer's scope instances by GPU
// span, and a bin click marks those instances in the lanes and the kernels under them.
#include "app/gui/core/groupselection.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/histogramplot.h"
#include "app/gui/widgets/histogramview.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace wt;
using namespace wt::gui;

class TestHistogramView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void kernelHistogramAndBinClick();
    void slowestJumps();
    void layerScopeHistogram();
    void nothingSelected();

private:
    // The first activity named `name`.
    Selection firstActivity(const RunData& run, const QString& name) const;
    std::string m_path;
    std::shared_ptr<RunData> m_run;
};

void TestHistogramView::initTestCase()
{
    m_path = test::tempPath("tst_histogramview.wt");
    const auto r = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                                 QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                                 QStringLiteral("3"), QStringLiteral("-o"), QString::fromStdString(m_path)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Database db(m_path, OpenMode::ReadOnly);
    Reader reader(db);
    m_run = loadRun(m_path, reader.runs().at(0).id);
    QVERIFY(m_run);
}

Selection TestHistogramView::firstActivity(const RunData& run, const QString& name) const
{
    for (size_t t = 0; t < run.tracks.size(); ++t)
        for (size_t i = 0; i < run.tracks[t].size(); ++i)
            if (run.name(run.tracks[t].nameId[i]) == name)
                return Selection{Selection::Activity, uint32_t(t), uint32_t(i)};
    return {};
}

void TestHistogramView::kernelHistogramAndBinClick()
{
    ViewState state;
    state.setRun(m_run);
    DetailsPanel panel(&state);
    panel.resize(420, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    HistogramView* view = panel.histogramView();
    QVERIFY(view);
    QVERIFY(!view->histogram());

    const Selection sel = firstActivity(*m_run, QStringLiteral("sgd_update"));
    QVERIFY(sel.kind == Selection::Activity);
    state.setSelection(sel);
    view->waitForHistogram();
    QVERIFY(view->histogram());
    const Histogram& h = *view->histogram();
    // n: every sgd_update kernel of the run.
    int64_t n = 0;
    for (const TrackData& t : m_run->tracks)
        for (size_t i = 0; i < t.size(); ++i)
            n += t.kind == TrackKind::Kernel && m_run->name(t.nameId[i]) == QStringLiteral("sgd_update");
    QCOMPARE(h.count, n);
    QCOMPARE(h.steps, int64_t(3));
    QVERIFY(view->isVisible());
    QVERIFY(view->title()->text().contains(QStringLiteral("kernel sgd_update")));
    QCOMPARE(view->plot()->bins().size(), h.bins.size());
    const int marked = h.binOf(int64_t(m_run->tracks[sel.track].durationNs[sel.index]));
    QVERIFY(marked >= 0);
    QCOMPARE(view->plot()->markedBin(), marked);

    // A click on the fullest bin marks exactly its instances.
    int bin = 0;
    for (int b = 0; b < int(h.bins.size()); ++b)
        if (h.bins[size_t(b)].count > h.bins[size_t(bin)].count)
            bin = b;
    const QRect r = view->plot()->binRect(bin);
    QVERIFY(!r.isEmpty());
    QTest::mouseClick(view->plot(), Qt::LeftButton, {}, QPoint(r.center().x(), r.bottom() - 2));
    QCOMPARE(view->plot()->chosenBin(), bin);
    const auto marks = state.groupMarks();
    QVERIFY(marks);
    const HistogramBin& b = h.bins[size_t(bin)];
    QCOMPARE(marks->activityCount, b.count);
    for (size_t t = 0; t < m_run->tracks.size(); ++t) {
        const TrackData& tr = m_run->tracks[t];
        for (size_t i = 0; i < tr.size(); ++i) {
            const bool member = tr.kind == TrackKind::Kernel && m_run->name(tr.nameId[i]) == QStringLiteral("sgd_update") &&
                                int64_t(tr.durationNs[i]) >= b.loNs && int64_t(tr.durationNs[i]) < b.hiNs;
            QCOMPARE(marks->tracks[t].test(i), member);
        }
    }
    QVERIFY(state.groupSelection().label.contains(QStringLiteral("sgd_update")));
    // The same bin again: marks off.
    QTest::mouseClick(view->plot(), Qt::LeftButton, {}, QPoint(r.center().x(), r.bottom() - 2));
    QVERIFY(!state.groupMarks());
    QCOMPARE(view->plot()->chosenBin(), -1);
}

void TestHistogramView::slowestJumps()
{
    ViewState state;
    state.setRun(m_run);
    HistogramView view(&state);
    view.resize(420, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    state.setSelection(firstActivity(*m_run, QStringLiteral("sgemm_nt")));
    view.waitForHistogram();
    QVERIFY(view.histogram());
    const Histogram* before = view.histogram();
    const int rows = view.slowestModel()->rowCount();
    QCOMPARE(rows, int(std::min<int64_t>(10, before->count)));
    QSignalSpy ready(&view, &HistogramView::histogramReady);
    // Click the first row: the slowest instance is selected and centred.
    const QRect cell = view.slowestView()->visualRect(view.slowestModel()->index(0, 1));
    QVERIFY(!cell.isEmpty());
    QTest::mouseClick(view.slowestView()->viewport(), Qt::LeftButton, {}, cell.center());
    const Selection& s = state.selection();
    QCOMPARE(s.kind, Selection::Activity);
    QCOMPARE(int64_t(m_run->tracks[s.track].durationNs[s.index]), before->maxNs);
    const double start = double(m_run->tracks[s.track].startNs[s.index]);
    QVERIFY(state.viewStartNs() < start && start < state.viewEndNs());
    // Same group: the histogram is not computed again, only the marked bin moves.
    view.waitForHistogram();
    QCOMPARE(ready.count(), 0);
    QCOMPARE(view.histogram(), before);
    QCOMPARE(view.plot()->markedBin(), int(before->bins.size()) - 1);
}

void TestHistogramView::layerScopeHistogram()
{
    ViewState state;
    state.setRun(m_run);
    HistogramView view(&state);
    view.resize(420, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // A conv1 layer instance.
    uint32_t pick = kNone;
    int64_t layerInstances = 0;
    for (uint32_t i = 0; i < m_run->instances.size(); ++i) {
        const ScopeNodeData& nd = m_run->nodes[m_run->instances.node[i]];
        if (nd.level == QStringLiteral("layer") && nd.name == QStringLiteral("conv1") && m_run->instances.hasSpan(i)) {
            ++layerInstances;
            if (pick == kNone)
                pick = i;
        }
    }
    QVERIFY(pick != kNone);
    state.setSelection(Selection{Selection::Scope, 0, pick});
    view.waitForHistogram();
    QVERIFY(view.histogram());
    const Histogram& h = *view.histogram();
    QVERIFY(h.group.of == HistogramOf::Scopes);
    QCOMPARE(h.count, layerInstances);
    QVERIFY(view.title()->text().contains(QStringLiteral("layer conv1")));
    const int64_t span = m_run->instances.gpuEnd(pick) - m_run->instances.gpuStart(pick);
    QCOMPARE(view.plot()->markedBin(), h.binOf(span));

    // The marked bin's click: the lanes mark the conv1 instances of that span, the tracks the
    // kernels under them.
    const int bin = view.plot()->markedBin();
    view.chooseBin(bin);
    const auto marks = state.groupMarks();
    QVERIFY(marks);
    const HistogramBin& b = h.bins[size_t(bin)];
    QCOMPARE(marks->instanceCount, b.count);
    QVERIFY(marks->marksLanes());
    for (uint32_t i = 0; i < m_run->instances.size(); ++i) {
        const ScopeNodeData& nd = m_run->nodes[m_run->instances.node[i]];
        const bool spanned = m_run->instances.hasSpan(i);   // else the span fields are sentinels
        const int64_t sp = spanned ? m_run->instances.gpuEnd(i) - m_run->instances.gpuStart(i) : -1;
        const bool member = nd.level == QStringLiteral("layer") && nd.name == QStringLiteral("conv1") && spanned &&
                            sp >= b.loNs && sp < b.hiNs;
        QCOMPARE(marks->instances.test(i), member);
    }
    int64_t under = 0;
    for (const TrackData& t : m_run->tracks)
        for (size_t i = 0; i < t.size() && t.kind == TrackKind::Kernel; ++i)
            for (uint32_t at = t.instance[i]; at != kNone; at = m_run->instances.parent[at])
                if (marks->instances.test(at)) {
                    ++under;
                    break;
                }
    QVERIFY(under > 0);
    QCOMPARE(marks->activityCount, under);
}

void TestHistogramView::nothingSelected()
{
    ViewState state;
    state.setRun(m_run);
    HistogramView view(&state);
    QVERIFY(!view.histogram());
    QVERIFY(view.title()->text().startsWith(QStringLiteral("Select")));
    state.setSelection(firstActivity(*m_run, QStringLiteral("sgemm_nt")));
    view.waitForHistogram();
    QVERIFY(view.histogram());
    state.setSelection({});
    QVERIFY(!view.histogram());
    QCOMPARE(view.plot()->bins().size(), size_t(0));
}

QTEST_MAIN(TestHistogramView)
#include "tst_histogramview.moc"
