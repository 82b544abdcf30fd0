// The scaling view of a real 3-value sweep of tiny CPU captures (`wheretime capture --sweep
// hidden=8,16,32`): one line per layer with 3 points each, drawn at analysis's numbers
// (loadSweep); log axes; clicking a point opens that run in the main window and selects it in
// the run browser; the run browser opens the sweep of a tagged run; an unknown sweep id is one
// line; the headless report writes the scaling section.
#include "app/gui/export/report.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/core/rundata.h"
#include "app/gui/variants/scalingview.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/export/variantsreport.h"
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

// The layer's kernel time per step of a run, straight from the file: docs/schema.md's "time per
// layer" query over the stored totals (no analysis code), divided by the run's steps.
double layerNsPerStep(const QString& file, qint64 run, const char* layer, int steps)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    const char* sql =
        "WITH RECURSIVE up(scope, anc) AS (SELECT id, id FROM scopes UNION ALL "
        "  SELECT up.scope, s.parent_id FROM up JOIN scopes s ON s.id = up.anc WHERE s.parent_id != 0) "
        "SELECT sum(t.time_ns) FROM totals t JOIN up ON up.scope = t.scope_id JOIN scopes s ON s.id = up.anc "
        "  JOIN strings l ON l.id = s.level_id AND l.value = 'layer' JOIN strings n ON n.id = s.name_id "
        "WHERE t.run_id = ?1 AND t.kind = 0 AND n.value = ?2";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db.handle(), sql, -1, &st, nullptr) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, layer, -1, SQLITE_STATIC);
    double ns = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : -1;
    sqlite3_finalize(st);
    return ns / steps;
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every measured row with a predicted twin: its error_pct against (predicted - measured) /
// measured of the layer's time per step computed from the file; returns the rows checked.
int checkErrors(const QString& file, const QByteArray& csv, int measuredSteps, int predictedSteps)
{
    const QList<QByteArray> lines = csv.trimmed().split('\n');
    const QList<QByteArray> head = lines.value(0).split(',');
    const int layer = int(head.indexOf("layer")), run = int(head.indexOf("run")), source = int(head.indexOf("source")),
              predictedRun = int(head.indexOf("predicted_run")), error = int(head.indexOf("error_pct"));
    if (layer < 0 || run < 0 || source < 0 || predictedRun < 0 || error < 0)
        return -1;
    int checked = 0;
    for (int i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> f = lines[i].split(',');
        if (f.size() != head.size())
            return -1;
        if (f[source] != "measured" || f[predictedRun].isEmpty())
            continue;
        const double m = layerNsPerStep(file, f[run].toLongLong(), f[layer].constData(), measuredSteps);
        const double p = layerNsPerStep(file, f[predictedRun].toLongLong(), f[layer].constData(), predictedSteps);
        const double want = 100.0 * (p - m) / m;
        if (!(m > 0) || !(std::abs(f[error].toDouble() - want) <= 1e-9 * std::max(1.0, std::abs(want)))) {
            qWarning("row %d: error_pct %s, computed %.17g (measured %.17g, predicted %.17g)", i, f[error].constData(), want, m, p);
            return -1;
        }
        ++checked;
    }
    return checked;
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
    void predictedTwinDashed();   // adds a predicted sweep to the file
    void csvByteForByte();        // the CLI's --csv, the view's export and the report's scaling.csv
    void gridCsvByteForByte();    // the same on a hidden x variant grid with its predicted twin

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
    int measuredRows = 0;
    for (const auto& pt : o.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject po = pt.toObject();
        if (po.value(QStringLiteral("source")).toString() != QLatin1String("measured"))
            continue;
        ++measuredRows;
        const SweepPoint* want = findSweepPoint(predicted, "softmax", po.value(QStringLiteral("hidden")).toString().toStdString());
        QVERIFY(want);
        QVERIFY(near(po.value(QStringLiteral("predicted_ns")).toDouble(), want->ns));
        QCOMPARE(po.value(QStringLiteral("predicted_run")).toInteger(), want->runId);
    }
    QCOMPARE(measuredRows, 3);
    // Hovering a predicted point names its measured twin and the prediction's error.
    for (size_t l = measured; l < d.lines.size(); ++l)
        for (int p = 0; p < int(d.lines[l].points.size()); ++p) {
            const QString tip = scalingPointText(d, int(l), p);
            QVERIFY2(tip.contains(QStringLiteral("predicted (run")) && tip.contains(QStringLiteral("measured ")) &&
                         tip.contains(QStringLiteral("prediction error")),
                     qPrintable(tip));
        }
    auto text = runCli({QStringLiteral("sweep"), m_file});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains(QStringLiteral("predicted twin: sweep")));
    QVERIFY(text.out.contains(QStringLiteral("error")));
}

void TestScalingView::csvByteForByte()
{
    // m_file holds the measured sweep (hidden 8, 16, 32; 2 steps) and its predicted twin (3 steps).
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file, {}));
    QVERIFY(view.hasTable());
    const QString dir = QFileInfo(QString::fromStdString(test::tempPath("bytes/x"))).absolutePath();
    QDir().mkpath(dir);
    for (const QString& layer : {QString(), QStringLiteral("softmax")}) {
        view.setLayer(layer);
        QStringList args{QStringLiteral("sweep"), m_file, QStringLiteral("--csv")};
        if (!layer.isEmpty())
            args << QStringLiteral("--layer") << layer;
        auto cli = runCli(args);
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        const QByteArray want = cli.out.toUtf8();
        QVERIFY(want.startsWith("series,layer,hidden,run,repeats,source,layer_ns,pm_ns,n,stddev_ns,ci_low_ns,ci_high_ns,share,step_ns,predicted_ns,predicted_run,error_pct,predicted_inside\n"));
        QCOMPARE(view.chartCsv().toUtf8(), want);
        const QString path = dir + QStringLiteral("/scaling-%1.csv").arg(layer.isEmpty() ? QStringLiteral("all") : layer);
        QString error;
        QVERIFY2(view.exportChart(ScalingPlot::Kind::Share, path, &error), qPrintable(error));
        QCOMPARE(readFile(path), want);
        // The table under the charts is the same table: its rows, the writer's text in each cell.
        QCOMPARE(view.tableModel()->toCsv().toUtf8(), want);
        QCOMPARE(view.tableModel()->rowCount(), int(want.count('\n')) - 1);
        // Three measured points per series carry the twin's time and error, checked from the file.
        const int series = layer.isEmpty() ? int(m_table.series.size()) : 1;
        QCOMPARE(checkErrors(m_file, want, 2, 3), 3 * series);
    }
    // The report's scaling.csv (a one-key sweep: every layer).
    ReportOptions o;
    o.outDir = QFileInfo(QString::fromStdString(test::tempPath("bytes-report/x"))).absolutePath();
    o.file = m_file;
    o.sweep = true;
    o.sweepId = QString::fromStdString(m_table.sweep.id);
    ReportResult r = writeReport(o);
    QVERIFY2(r.ok, qPrintable(r.error));
    auto cli = runCli({QStringLiteral("sweep"), m_file, QStringLiteral("--csv")});
    QCOMPARE(readFile(o.outDir + QStringLiteral("/scaling.csv")), cli.out.toUtf8());
    // The report's table names the prediction's error at each measured point.
    QVERIFY(QString::fromUtf8(readFile(o.outDir + QStringLiteral("/index.md"))).contains(QStringLiteral(", predicted ")));
}

void TestScalingView::gridCsvByteForByte()
{
    const QString file = QFileInfo(QString::fromStdString(test::tempPath("grid.wt"))).absoluteFilePath();
    const QString variants = QStringLiteral("variant=full,adaptive,fused,bucketed");
    auto c = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                     QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"),
                     QStringLiteral("--sweep"), QStringLiteral("hidden=16,32"), QStringLiteral("--sweep"), variants, QStringLiteral("-o"), file},
                    600000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    // The predicted twin: the same grid and one hidden size beyond (docs/prediction.md).
    auto p = runCli({QStringLiteral("predict"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                     QStringLiteral("tiny"), QStringLiteral("--sweep"), QStringLiteral("hidden=16,32,64"), QStringLiteral("--sweep"), variants,
                     QStringLiteral("--device"), QStringLiteral("h100"), QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("-o"), file});
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    ScalingView view;
    QVERIFY(loadAndWait(view, file, {}));
    QCOMPARE(view.layer(), QStringLiteral("softmax"));   // a grid starts at the softmax layer
    auto cli = runCli({QStringLiteral("sweep"), file, QStringLiteral("--layer"), QStringLiteral("softmax"), QStringLiteral("--csv")});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
    const QByteArray want = cli.out.toUtf8();
    QVERIFY2(want.startsWith("series,layer,variant,hidden,run,repeats,source,layer_ns,pm_ns,n,stddev_ns,ci_low_ns,ci_high_ns,share,step_ns,predicted_ns,predicted_run,error_pct,predicted_inside\n"),
             want.left(200).constData());
    // 4 variants x 2 measured sizes, then 4 x 3 predicted points.
    QCOMPARE(int(want.count('\n')), 1 + 8 + 12);
    QCOMPARE(view.chartCsv().toUtf8(), want);
    QCOMPARE(checkErrors(file, want, 2, 3), 8);
    ReportOptions o;
    o.outDir = QFileInfo(QString::fromStdString(test::tempPath("grid-report/x"))).absolutePath();
    o.file = file;
    o.sweep = true;
    o.sweepId = QString::fromStdString(view.table().sweep.id);
    ReportResult r = writeReport(o);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(readFile(o.outDir + QStringLiteral("/scaling.csv")), want);
    // The lines: one per variant, measured and predicted; the predicted ones reach hidden 64.
    const ScalingChartData& d = view.timePlot()->chart();
    QCOMPARE(d.lines.size(), size_t(8));
    QCOMPARE(d.xValues, (QStringList{QStringLiteral("16"), QStringLiteral("32"), QStringLiteral("64")}));
    for (const ScalingLine& l : d.lines)
        QCOMPARE(l.points.size(), size_t(l.predicted ? 3 : 2));
}

QTEST_MAIN(TestScalingView)
#include "tst_scalingview.moc"
