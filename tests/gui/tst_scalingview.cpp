// The scaling view of a real 3-value sweep of tiny CPU captures (`wheretime capture --sweep
// hidden=8,16,32`): one line per layer with 3 points each, drawn at analysis's numbers
// (loadSweep); log axes; clicking a point opens that run in the main window and selects it in
// the run browser; the run browser opens the sweep of a tagged run; an unknown sweep id is one
// line; the headless report writes the scaling section.
#include "app/gui/breakdown/report.h"
#include "app/gui/core/rundata.h"
#include "app/gui/variants/scalingview.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/variants/variantsreport.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace wt;
using namespace wt::gui;
using test::runCli;

namespace {

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

bool loadAndWait(ScalingView& view, const QString& file, const QString& id, bool expectReady = true)
{
    QSignalSpy ready(&view, &ScalingView::ready);
    QSignalSpy failed(&view, &ScalingView::failed);
    view.load(file, id);
    for (int i = 0; i < 600 && ready.isEmpty() && failed.isEmpty(); ++i)
        QTest::qWait(100);
    return expectReady ? !ready.isEmpty() : !failed.isEmpty();
}

}  // namespace

class TestScalingView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void threePointsPerLine();
    void logAxes();
    void clickOpensRun();
    void runBrowserOpensSweep();
    void unknownSweep();
    void report();
    void predictedTwinDashed();   // last: adds a predicted sweep to the file

private:
    QString m_file;   // one sweep: gcn tiny, hidden 8, 16, 32 (CPU, 2 steps each)
    SweepTable m_table;
};

void TestScalingView::initTestCase()
{
    m_file = QFileInfo(QString::fromStdString(test::tempPath("sweep.wt"))).absoluteFilePath();
    auto c = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                     QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"),
                     QStringLiteral("--sweep"), QStringLiteral("hidden=8,16,32"), QStringLiteral("-o"), m_file},
                    600000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    m_table = loadSweep(reader, {}, {}, m_file.toStdString());
    QCOMPARE(m_table.xValues.size(), size_t(3));
}

void TestScalingView::threePointsPerLine()
{
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file, {}));
    QVERIFY(view.title().contains(QStringLiteral("hidden")));
    QVERIFY(view.layer().isEmpty());   // a one-key sweep: every layer
    for (ScalingPlot* plot : {view.timePlot(), view.sharePlot()}) {
        const ScalingChartData& d = plot->chart();
        QCOMPARE(d.lines.size(), m_table.series.size());
        QVERIFY(d.lines.size() >= 2);
        QCOMPARE(d.xValues, (QStringList{QStringLiteral("8"), QStringLiteral("16"), QStringLiteral("32")}));
        for (int l = 0; l < int(d.lines.size()); ++l) {
            const SweepSeries& s = m_table.series[size_t(l)];
            QCOMPARE(plot->lineGraph(l)->dataCount(), 3);
            QCOMPARE(d.lines[size_t(l)].points.size(), size_t(3));
            for (int p = 0; p < 3; ++p) {
                const auto it = plot->lineGraph(l)->data()->at(p);
                QCOMPARE(it->key, *s.points[size_t(p)].x);
                // Drawn at analysis's number (time in the axis unit, share in %).
                const ScalingPoint& sp = d.lines[size_t(l)].points[size_t(p)];
                QVERIFY(near(sp.ns, s.points[size_t(p)].ns));
                QVERIFY(near(sp.share, s.points[size_t(p)].share));
                if (plot->kind() == ScalingPlot::Kind::Share)
                    QVERIFY(near(it->value, 100.0 * s.points[size_t(p)].share));
            }
        }
    }
    // One layer: its line only.
    view.setLayer(QStringLiteral("softmax"));
    QCOMPARE(view.timePlot()->chart().lines.size(), size_t(1));
    QCOMPARE(view.timePlot()->chart().lines[0].layer, QStringLiteral("softmax"));
    // CSV: one row per point.
    QCOMPARE(view.chartCsv().trimmed().split(QLatin1Char('\n')).size(), 1 + 3);
}

void TestScalingView::logAxes()
{
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file, {}));
    QCOMPARE(view.timePlot()->xAxis->scaleType(), QCPAxis::stLinear);
    view.setLogAxes(true);
    QVERIFY(view.logBox()->isChecked());
    for (ScalingPlot* p : {view.timePlot(), view.sharePlot()}) {
        QCOMPARE(p->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(p->yAxis->scaleType(), QCPAxis::stLogarithmic);
    }
}

void TestScalingView::clickOpensRun()
{
    MainWindow w(false);
    VariantsActions* actions = VariantsActions::install(&w);
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(loaded.wait(60000));
    actions->showSweep(m_file, {});
    ScalingView* view = actions->scalingView();
    QVERIFY(view);
    QSignalSpy ready(view, &ScalingView::ready);
    QVERIFY(ready.wait(60000));
    view->resize(1400, 700);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view));
    ScalingPlot* plot = view->timePlot();
    plot->replot();
    // Click the middle point (hidden 16) of the first line.
    const ScalingPoint& target = plot->chart().lines[0].points[1];
    QCOMPARE(target.value, QStringLiteral("16"));
    QVERIFY(target.runId != w.viewState()->run()->run.id);   // the file opened at its newest run (hidden 32)
    const QPoint at = plot->pixelOf(0, 1).toPoint();
    QCOMPARE(plot->pointAt(at).point, 1);
    QSignalSpy clicked(view, &ScalingView::runClicked);
    loaded.clear();
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked[0][1].toLongLong(), target.runId);
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w.viewState()->run()->run.id, target.runId);
    QCOMPARE(w.runBrowser()->currentRun().second, target.runId);
    // A click away from every point opens nothing.
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(plot->axisRect()->left() + 3, plot->axisRect()->top() + 3));
    QCOMPARE(clicked.size(), 1);
}

void TestScalingView::runBrowserOpensSweep()
{
    MainWindow w(false);
    VariantsActions* actions = VariantsActions::install(&w);
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(actions->sweepAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    QCOMPARE(VariantsActions::sweepIdOf(m_file, m_table.sweep.runIds.front()), QString::fromStdString(m_table.sweep.id));
    QVERIFY(actions->showSweepOfCurrent());
    QSignalSpy ready(actions->scalingView(), &ScalingView::ready);
    QVERIFY(ready.wait(60000));
    QCOMPARE(actions->scalingView()->table().sweep.id, m_table.sweep.id);
}

void TestScalingView::unknownSweep()
{
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file, QStringLiteral("no-such-sweep"), false));
    QVERIFY(!view.hasTable());
    QVERIFY2(view.message().contains(QStringLiteral("no-such-sweep")), qPrintable(view.message()));
    QVERIFY(!view.message().contains(QLatin1Char('\n')));
}

void TestScalingView::report()
{
    const QString out = QFileInfo(QString::fromStdString(test::tempPath("report/x"))).absolutePath();
    ReportOptions o;
    o.outDir = out;
    o.file = m_file;
    o.sweep = true;
    o.sweepId = QString::fromStdString(m_table.sweep.id);
    o.chartSize = QSize(900, 700);   // the report's chart size and PNG scale reach the scaling charts
    o.pngScale = 2.0;
    ReportResult r = writeReport(o);
    QVERIFY2(r.ok, qPrintable(r.error));
    for (const QString& f : scalingReportFiles()) {
        QVERIFY2(r.files.contains(f), qPrintable(f));
        QVERIFY2(QFileInfo(out + QLatin1Char('/') + f).size() > 50, qPrintable(f));
    }
    QCOMPARE(QImage(out + QStringLiteral("/scaling-time.png")).size(), QSize(1800, 1400));
    QFile md(out + QStringLiteral("/index.md"));
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(md.readAll());
    QVERIFY(text.contains(QStringLiteral("## Scaling with hidden")));
    QVERIFY(text.contains(QStringLiteral("![scaling share](scaling-share.png)")));
    QVERIFY(text.contains(QStringLiteral("| series | hidden 8 | hidden 16 | hidden 32 |")));
    QFile csv(out + QStringLiteral("/scaling.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n')).size(), 1 + 3 * int(m_table.series.size()));
    // An unknown sweep: one line, the report fails.
    o.sweepId = QStringLiteral("no-such-sweep");
    o.outDir = QFileInfo(QString::fromStdString(test::tempPath("report2/x"))).absolutePath();
    r = writeReport(o);
    QVERIFY(!r.ok);
    QVERIFY(r.error.contains(QStringLiteral("no-such-sweep")));
}

void TestScalingView::predictedTwinDashed()
{
    // The predicted twin of the sweep (same key and values, roofline of the H100).
    auto pr = runCli({QStringLiteral("predict"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                      QStringLiteral("tiny"), QStringLiteral("--sweep"), QStringLiteral("hidden=8,16,32"), QStringLiteral("--device"),
                      QStringLiteral("h100"), QStringLiteral("-o"), m_file});
    QVERIFY2(pr.exitCode == 0, qPrintable(pr.err));
    SweepTable predicted;
    {
        Database db(m_file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        const std::vector<SweepInfo> sweeps = listSweeps(reader);
        QCOMPARE(sweeps.size(), size_t(2));
        QVERIFY(sweeps[1].predicted());
        auto twin = predictedTwin(sweeps, sweeps[0]);
        QVERIFY(twin);
        QCOMPARE(twin->id, sweeps[1].id);
        QVERIFY(!predictedTwin(sweeps, sweeps[1]));   // a predicted sweep has no twin of its own
        // The newest sweep is the predicted one; the default stays the measured one.
        QCOMPARE(loadSweep(reader, {}).sweep.id, sweeps[0].id);
        predicted = loadSweep(reader, twin->id);
    }
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file, {}));
    QCOMPARE(view.table().sweep.id, m_table.sweep.id);
    const ScalingChartData& d = view.timePlot()->chart();
    const size_t measured = m_table.series.size();
    QCOMPARE(d.lines.size(), 2 * measured);   // every layer has its predicted line
    for (size_t i = 0; i < measured; ++i) {
        const ScalingLine& m = d.lines[i];
        QVERIFY(!m.predicted);
        const ScalingLine* twin = nullptr;
        for (size_t j = measured; j < d.lines.size(); ++j)
            if (d.lines[j].name == m.name + QStringLiteral(" (predicted)"))
                twin = &d.lines[j];
        QVERIFY2(twin, qPrintable(m.name));
        QVERIFY(twin->predicted);
        QCOMPARE(twin->colorIndex, m.colorIndex);
        QCOMPARE(twin->points.size(), size_t(3));
        for (const ScalingPoint& p : twin->points) {
            const SweepPoint* want = findSweepPoint(predicted, m.name.toStdString(), p.value.toStdString());
            QVERIFY(want);
            QVERIFY(near(p.ns, want->ns));
            QCOMPARE(p.runId, want->runId);
        }
    }
    // Drawn dashed, in the measured line's colour.
    const int last = int(d.lines.size()) - 1;
    QCOMPARE(view.timePlot()->lineGraph(last)->pen().style(), Qt::DashLine);
    QCOMPARE(view.timePlot()->lineGraph(last)->pen().color(),
             view.timePlot()->lineGraph(d.lines[size_t(last)].colorIndex)->pen().color());
    QCOMPARE(view.timePlot()->lineGraph(0)->pen().style(), Qt::SolidLine);
    QVERIFY(view.caption().contains(QStringLiteral("dashed: predicted")));
    view.setLayer(QStringLiteral("softmax"));
    QCOMPARE(view.chartCsv().trimmed().split(QLatin1Char('\n')).size(), 1 + 3 + 3);

    // The CLI prints the same predicted time beside each measured point.
    auto js = runCli({QStringLiteral("sweep"), m_file, QStringLiteral("--layer"), QStringLiteral("softmax"), QStringLiteral("--json")});
    QCOMPARE(js.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(js.out.toUtf8()).object();
    QCOMPARE(o.value(QStringLiteral("predicted_sweep")).toString(), QString::fromStdString(predicted.sweep.id));
    for (const auto& pt : o.value(QStringLiteral("series")).toArray().at(0).toObject().value(QStringLiteral("points")).toArray()) {
        const QJsonObject po = pt.toObject();
        const SweepPoint* want = findSweepPoint(predicted, "softmax", po.value(QStringLiteral("value")).toString().toStdString());
        QVERIFY(want);
        QVERIFY(near(po.value(QStringLiteral("predicted_ns")).toDouble(), want->ns));
    }
    auto text = runCli({QStringLiteral("sweep"), m_file});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains(QStringLiteral("predicted twin: sweep")));
    QVERIFY(text.out.contains(QStringLiteral("error")));
}

QTEST_MAIN(TestScalingView)
#include "tst_scalingview.moc"
