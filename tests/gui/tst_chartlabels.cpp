// Charts say what they show (issue 27 item 5), on real tiny CPU captures: the variants view's
// label above a layer's bars is the sum of the bars drawn (forward, backward and the update
// phase); the step chart is titled and drawn as kernel time per step, with the step's wall
// time (analysis's step_wall_ns: the mean span of the step scopes) as its own markers; the
// kernel diff's labels name the op of each kernel; a hovered sweep point shows its value on
// the chart (the table's cell).
#include "analysis/compare.h"
#include "app/gui/compare/compareloader.h"
#include "app/gui/compare/compareplot.h"
#include "app/gui/core/timeformat.h"
#include "app/gui/variants/scalingplot.h"
#include "app/gui/variants/scalingview.h"
#include "app/gui/variants/variantsview.h"
#include "storage/database.h"
#include "render/tablewriter.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace wt;
using namespace wt::gui;

namespace {

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b));
}

QStringList captureArgs(const QString& file)
{
    return {QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"), QStringLiteral("tiny"),
            QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"), file};
}

}  // namespace

class TestChartLabels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void layerLabelIsTheSumOfItsBars();
    void stepChartIsKernelTimeWithWallMarkers();
    void kernelDiffLabelsNameTheOp();
    void hoveredSweepPointShowsItsValue();

private:
    bool loadVariants(VariantsView& view);
    QString m_variants;   // adaptive, full, fused
    QString m_sweep;      // hidden 8, 16, 32
};

void TestChartLabels::initTestCase()
{
    m_variants = QFileInfo(QString::fromStdString(test::tempPath("labels-variants.wt"))).absoluteFilePath();
    auto c = test::runCli(captureArgs(m_variants) + QStringList{QStringLiteral("--sweep"), QStringLiteral("variant=adaptive,full,fused")}, 300000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    m_sweep = QFileInfo(QString::fromStdString(test::tempPath("labels-sweep.wt"))).absoluteFilePath();
    c = test::runCli(captureArgs(m_sweep) + QStringList{QStringLiteral("--sweep"), QStringLiteral("hidden=8,16,32")}, 300000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
}

bool TestChartLabels::loadVariants(VariantsView& view)
{
    std::vector<CompareSelector> runs;
    for (int64_t id : {1, 2, 3})
        runs.push_back({m_variants, id});
    QSignalSpy ready(&view, &VariantsView::ready);
    QSignalSpy failed(&view, &VariantsView::failed);
    view.load(std::move(runs));
    for (int i = 0; i < 600 && ready.isEmpty() && failed.isEmpty(); ++i)
        QTest::qWait(100);
    return !ready.isEmpty();
}

void TestChartLabels::layerLabelIsTheSumOfItsBars()
{
    VariantsView view;
    QVERIFY(loadVariants(view));
    VariantsPlot* layer = view.plot(VariantsPlot::Kind::LayerTime);
    const VariantsChartData& d = layer->chart();
    QCOMPARE(d.variants.size(), size_t(3));
    // The softmax layer has update-phase time (the loss read-back, its gradient norm): a bar.
    QVERIFY(layer->hasUpdate());
    QVERIFY(layer->title().contains(QStringLiteral("forward, backward and update")));
    for (int i = 0; i < 3; ++i) {
        const VariantBar& v = d.variants[size_t(i)];
        QVERIFY(v.updateNs > 0);
        const double drawn = layer->drawnValue(0, i) + layer->drawnValue(1, i) + layer->drawnValue(2, i);
        QVERIFY2(near(drawn, v.totalNs), qPrintable(QStringLiteral("%1 drawn, %2 total").arg(drawn).arg(v.totalNs)));
        QVERIFY(near(layer->drawnValue(2, i), v.updateNs));
        QVERIFY2(layer->labelAt(i).endsWith(QLatin1Char('\n') + formatDuration(v.totalNs)), qPrintable(layer->labelAt(i)));
    }
}

void TestChartLabels::stepChartIsKernelTimeWithWallMarkers()
{
    VariantsView view;
    QVERIFY(loadVariants(view));
    VariantsPlot* step = view.plot(VariantsPlot::Kind::StepTime);
    QVERIFY(step->title().startsWith(QStringLiteral("Kernel time per step")));
    // The numbers from analysis: the step scopes' mean span is the wall time.
    CompareRuns runs = loadCompareRuns({{m_variants, 1}, {m_variants, 2}, {m_variants, 3}});
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : runs)
        ptrs.push_back(r.get());
    const VariantsTable t = computeVariants(ptrs, {});
    for (int i = 0; i < 3; ++i) {
        const VariantRow& r = t.rows[size_t(i)];
        QVERIFY(near(step->drawnValue(0, i), r.stepNs));
        QVERIFY(near(step->drawnWall(i), r.stepWallNs));
        QVERIFY(r.stepWallNs > 0 && r.stepWallNs == runs[size_t(i)]->stepWallNs);
        // Wall time holds the kernels and the gaps between them (one CPU thread: no overlap).
        QVERIFY2(r.stepWallNs >= r.stepNs, qPrintable(QStringLiteral("%1 wall, %2 kernels").arg(r.stepWallNs).arg(r.stepNs)));
        QVERIFY(step->labelAt(i).startsWith(formatDuration(r.stepNs)));
    }
}

void TestChartLabels::kernelDiffLabelsNameTheOp()
{
    Database db(m_variants.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    const CompareRun adaptive = loadCompareRun(reader, 1, m_variants.toStdString());
    const CompareRun full = loadCompareRun(reader, 2, m_variants.toStdString());
    KernelDiffOptions o;
    o.filters = {{GroupBy::Layer, "softmax"}};
    const KernelDiff k = diffKernels(adaptive, full, o);
    QVERIFY(k.removed + k.added + k.swapped > 0);
    const CompareChartData d = chartData(k, QStringLiteral("diff"), 1000);
    QCOMPARE(d.rows.size(), k.rows.size());
    QSet<QString> labels;
    for (size_t i = 0; i < k.rows.size(); ++i) {
        QVERIFY(!k.rows[i].op.empty());
        const QString op = QString::fromStdString(k.rows[i].op);
        if (k.rows[i].change == KernelChange::Moved)
            QCOMPARE(d.rows[i].label, QStringLiteral("%1 \u2192 %2: %3").arg(op, QString::fromStdString(k.rows[i].otherOp),
                                                                             QString::fromStdString(k.rows[i].baseName)));
        else
            QVERIFY2(d.rows[i].label.startsWith(op + QStringLiteral(": ")), qPrintable(d.rows[i].label));
        labels.insert(d.rows[i].label);
    }
    // One kernel name in several ops reads as several rows, each with its op.
    QCOMPARE(labels.size(), int(d.rows.size()));
}

void TestChartLabels::hoveredSweepPointShowsItsValue()
{
    ScalingView view;
    QSignalSpy ready(&view, &ScalingView::ready);
    view.load(m_sweep, {});
    QVERIFY(ready.wait(60000));
    view.resize(1400, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (ScalingPlot* plot : {view.timePlot(), view.sharePlot()}) {
        plot->replot();
        QVERIFY(plot->valueLabel().isEmpty());
        const ScalingLine& line = plot->chart().lines[0];
        const ScalingPoint& p = line.points[1];
        QTest::mouseMove(plot, plot->pixelOf(0, 1).toPoint());
        QTRY_VERIFY(!plot->valueLabel().isEmpty());
        const Table& t = plot->chart().table;
        const size_t c = t.column(plot->kind() == ScalingPlot::Kind::Time ? "layer_ns" : "share");
        QVERIFY(c != Table::npos);
        const QString cell = QString::fromStdString(render::cellText(t.columns[c], t.rows[size_t(p.row)][c]));
        QCOMPARE(plot->valueLabel(), QStringLiteral("%1 \u00b7 hidden %2: %3").arg(line.name, p.value, cell));
        // Away from every point: gone.
        QTest::mouseMove(plot, QPoint(5, 5));
        QTRY_VERIFY(plot->valueLabel().isEmpty());
    }
}

QTEST_MAIN(TestChartLabels)
#include "tst_chartlabels.moc"
