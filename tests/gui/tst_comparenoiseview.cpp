// The noise in the compare view, on two hand-written runs whose per-step times are chosen
// (layer "a" 50 ns slower in every step, layer "b" unchanged with noise): the verdict column
// says slower and within noise, the deltas are red for the real change and grey for the noise,
// the tooltips give the 95% interval and the samples, the delta chart carries each interval and
// draws the noise muted, and the summary gives the total's verdict.
#include "app/gui/compare/comparemodel.h"
#include "app/gui/compare/compareplot.h"
#include "app/gui/compare/compareview.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QTest>

#include <functional>

using namespace wt;
using namespace wt::gui;

namespace {

int64_t writeRun(Writer& w, const std::string& name, int steps, const std::function<int64_t(int, size_t)>& ns)
{
    RunInfo info;
    info.name = name;
    info.workload = "gcn";
    info.variant = "adaptive";
    info.backend = "cpu";
    info.device = "CPU: test";
    const int64_t run = w.beginRun(info);
    const int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    const int64_t step = w.addScope(0, "step", "step");
    int64_t at = 0;
    const char* layers[] = {"a", "b"};
    for (int s = 0; s < steps; ++s) {
        const int64_t si = w.beginScopeInstance(step, 0, at);
        for (size_t l = 0; l < 2; ++l) {
            const int64_t phase = w.addScope(step, "forward", "phase");
            const int64_t layer = w.addScope(phase, layers[l], "layer");
            const int64_t op = w.addScope(layer, "op", "op");
            const int64_t d = ns(s, l);
            const int64_t pi = w.addScopeInstance(phase, si, at, at + d);
            const int64_t li = w.addScopeInstance(layer, pi, at, at + d);
            Activity a;
            a.trackId = track;
            a.startNs = at;
            a.endNs = at + d;
            a.nameId = w.intern(std::string(layers[l]) + "_kernel");
            a.scopeInstanceId = w.addScopeInstance(op, li, at, at + d);
            w.addActivity(a);
            at += d + 10;
        }
        w.endScopeInstance(si, at);
    }
    w.finishRun(RunStatus::Complete, at);
    return run;
}

}  // namespace

class TestCompareNoiseView : public QObject {
    Q_OBJECT
private slots:
    void verdictsShown();   // the kernel diff's too
};

void TestCompareNoiseView::verdictsShown()
{
    const QString file = QString::fromStdString(test::tempPath("noise-view.wt"));
    int64_t base = 0, other = 0;
    {
        Database db(file.toStdString(), OpenMode::ReadWrite);
        Writer w(db);
        // a: 1000, 1100, 1200, 1300 in BASE, 500 more in OTHER; b: 500 in BASE, 500 +- 20 in OTHER.
        base = writeRun(w, "base", 4, [](int s, size_t l) { return l == 0 ? 1000 + 100 * s : 500; });
        other = writeRun(w, "other", 4, [](int s, size_t l) {
            const int64_t b[] = {500, 520, 480, 500};
            return l == 0 ? 1500 + 100 * s : b[s];
        });
    }
    CompareView view;
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy ready(&view, &CompareView::ready);
    view.load({{file, base}, {file, other}});
    QVERIFY(ready.wait(60000));

    const CompareModel& m = *view.model();
    int rowA = -1, rowB = -1;
    for (int r = 0; r < m.rowCount(); ++r) {
        const QString path = m.data(m.index(r, 0), CompareModel::PathRole).toString();
        (path == QStringLiteral("a") ? rowA : path == QStringLiteral("b") ? rowB : r) = r;
    }
    QVERIFY(rowA >= 0 && rowB >= 0);
    const int verdict = m.column("verdict", 1), delta = m.column("delta_ns", 1), pm = m.column("pm_ns", 1);
    QVERIFY(verdict >= 0 && delta >= 0 && pm >= 0);
    QVERIFY(!view.table()->isColumnHidden(verdict));
    QVERIFY(!view.table()->isColumnHidden(pm));
    QCOMPARE(m.data(m.index(rowA, verdict)).toString(), QStringLiteral("slower"));
    QCOMPARE(m.data(m.index(rowB, verdict)).toString(), QStringLiteral("within_noise"));
    // Red for the real change, grey for the noise.
    const QColor red = m.data(m.index(rowA, delta), Qt::ForegroundRole).value<QBrush>().color();
    const QColor grey = m.data(m.index(rowB, delta), Qt::ForegroundRole).value<QBrush>().color();
    QVERIFY(red.red() > 150 && red.green() < 100);
    QVERIFY(grey.red() == grey.green() && grey.green() == grey.blue());
    QVERIFY(m.data(m.index(rowA, verdict), Qt::ForegroundRole).value<QBrush>().color().red() > 150);
    const QString tip = m.data(m.index(rowA, delta), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("95% interval")) && tip.contains(QStringLiteral("over 4 and 4 steps")), qPrintable(tip));
    QVERIFY(m.headerData(m.column("ns", 1), Qt::Horizontal, Qt::ToolTipRole).toString().contains(QStringLiteral("4 samples")));

    // The delta chart: each row's interval (around its delta) and verdict; the noise muted.
    const CompareChartData& chart = view.deltaPlot()->chart();
    bool sawA = false, sawB = false;
    for (const CompareChartRow& r : chart.rows) {
        QVERIFY(r.interval.size() == 2 && r.interval[1]);
        QVERIFY(r.interval[1]->first <= r.deltaNs[1] && r.deltaNs[1] <= r.interval[1]->second);
        if (r.label == QStringLiteral("a")) {
            sawA = true;
            QVERIFY(r.verdict[1] == Verdict::Slower);
            QVERIFY(r.interval[1]->first > 0);
        } else if (r.label == QStringLiteral("b")) {
            sawB = true;
            QVERIFY(r.verdict[1] == Verdict::WithinNoise);
        }
    }
    QVERIFY(sawA && sawB);
    QVERIFY2(view.summaryText().contains(QStringLiteral("Total: slower: OTHER - BASE = 500 ns")), qPrintable(view.summaryText()));

    // The kernel diff of layer a: its one kernel slower, red in the table with the interval as
    // tooltip, and its chart row carries the interval and verdict (not "n < 3"); b's grey.
    for (const char* layer : {"a", "b"}) {
        QVERIFY(view.drillIntoLayer(layer));
        QVERIFY(view.showKernelDiff());
        const KernelDiffModel& k = *view.diffModel();
        QCOMPARE(k.rowCount(), 1);
        const int kv = k.columnOf("verdict"), kd = k.columnOf("delta_ns");
        QVERIFY(kv >= 0 && kd >= 0 && k.columnOf("pm_ns") >= 0);
        const bool slower = std::string(layer) == "a";
        QCOMPARE(k.data(k.index(0, kv)).toString(), slower ? QStringLiteral("slower") : QStringLiteral("within_noise"));
        const QColor c = k.data(k.index(0, kd), Qt::ForegroundRole).value<QBrush>().color();
        if (slower)
            QVERIFY(c.red() > 150 && c.green() < 100);
        else
            QVERIFY(c.red() == c.green() && c.green() == c.blue());
        QVERIFY(k.data(k.index(0, kd), Qt::ToolTipRole).toString().contains(QStringLiteral("over 4 and 4 steps")));
        const CompareChartData& kc = view.deltaPlot()->chart();
        QCOMPARE(kc.rows.size(), size_t(1));
        QVERIFY(kc.rows[0].verdict.size() == 2 && kc.rows[0].interval.size() == 2 && kc.rows[0].interval[1]);
        QVERIFY(kc.rows[0].verdict[1] == (slower ? Verdict::Slower : Verdict::WithinNoise));
    }
    if (!qEnvironmentVariableIsEmpty("WT_NOISE_SHOT"))
    {
        QTest::qWait(300);   // the charts replot queued
        view.grab().save(qEnvironmentVariable("WT_NOISE_SHOT"));
    }
}

QTEST_MAIN(TestCompareNoiseView)
#include "tst_comparenoiseview.moc"
