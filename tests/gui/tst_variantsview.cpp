// The variants view on real tiny CPU captures of three softmax variants: the bars, stacks,
// shares and step times drawn equal analysis's computeVariants over the same runs (and the
// speedup labels are ratios of those numbers), the baseline chooser moves the speedups, runs
// that differ in two settings show analysis's refusal naming both (no charts, no crash), the
// run browser's Compare variants picks the variants of the current run, every chart exports
// (PNG, SVG, PDF, CSV), and the headless report writes the variants section and still refuses
// to write over its input.
#include "app/gui/export/report.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/export/variantsreport.h"
#include "app/gui/variants/variantsview.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace wt;
using namespace wt::gui;
using test::runCli;

namespace {

int64_t runId(const QString& file, const char* name)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    return reader.resolveRun(name);
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

}  // namespace

class TestVariantsView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void barsEqualAnalysis();
    void baselineChooser();
    void refusesTwoSettings();
    void runBrowserComparesVariants();
    void exportsEveryChart();
    void report();
    void csvByteForByte();   // the CLI's --csv, the view's export and the report's CSVs, four variants

private:
    // Loads the runs into the view and waits for ready (or failed).
    bool loadAndWait(VariantsView& view, std::vector<CompareSelector> runs, bool expectReady = true);
    QString m_file;                       // adaptive, full, fused (gcn tiny, CPU, 2 steps)
    QString m_wideFile;                   // "wide": full at hidden 24
    std::vector<CompareSelector> m_runs;  // adaptive, full, fused
};

void TestVariantsView::initTestCase()
{
    m_file = QFileInfo(QString::fromStdString(test::tempPath("variants.wt"))).absoluteFilePath();
    const QStringList base{QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                           QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                           QStringLiteral("2"), QStringLiteral("-o"), m_file};
    for (const char* v : {"adaptive", "full", "fused"}) {
        auto c = runCli(base + QStringList{QStringLiteral("--variant"), QLatin1String(v), QStringLiteral("--name"), QLatin1String(v)}, 300000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    }
    // Another variant AND another hidden size (tiny's is 16): differs from "adaptive" in two
    // settings. In a file of its own, so `wheretime variants` of m_file anchors on fused.
    m_wideFile = QFileInfo(QString::fromStdString(test::tempPath("wide.wt"))).absoluteFilePath();
    QStringList wide = base;
    wide.last() = m_wideFile;
    auto c = runCli(wide + QStringList{QStringLiteral("--variant"), QStringLiteral("full"), QStringLiteral("--set"), QStringLiteral("hidden=24"),
                                       QStringLiteral("--name"), QStringLiteral("wide")},
                    300000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    for (const char* v : {"adaptive", "full", "fused"})
        m_runs.push_back({m_file, runId(m_file, v)});
}

bool TestVariantsView::loadAndWait(VariantsView& view, std::vector<CompareSelector> runs, bool expectReady)
{
    QSignalSpy ready(&view, &VariantsView::ready);
    QSignalSpy failed(&view, &VariantsView::failed);
    view.load(std::move(runs));
    for (int i = 0; i < 600 && ready.isEmpty() && failed.isEmpty(); ++i)
        QTest::qWait(100);
    return expectReady ? !ready.isEmpty() : !failed.isEmpty();
}

void TestVariantsView::barsEqualAnalysis()
{
    VariantsView view;
    QVERIFY(loadAndWait(view, m_runs));
    QVERIFY(view.hasTable());
    QVERIFY(view.message().isEmpty());
    // The same numbers straight from analysis.
    const CompareRuns runs = loadCompareRuns(m_runs);
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : runs)
        ptrs.push_back(r.get());
    const VariantsTable t = computeVariants(ptrs, {});
    QCOMPARE(t.setting, std::string("variant"));
    QVERIFY(view.title().contains(QStringLiteral("by variant")));
    QCOMPARE(t.rows.size(), size_t(3));
    QCOMPARE(t.rows[t.baseline].value, std::string("adaptive"));
    QCOMPARE(view.baselineChooser()->currentText(), QStringLiteral("adaptive"));
    QCOMPARE(view.layerChooser()->currentText(), QStringLiteral("softmax"));
    VariantsPlot* layer = view.plot(VariantsPlot::Kind::LayerTime);
    VariantsPlot* ops = view.plot(VariantsPlot::Kind::Ops);
    VariantsPlot* share = view.plot(VariantsPlot::Kind::Share);
    VariantsPlot* step = view.plot(VariantsPlot::Kind::StepTime);
    for (int i = 0; i < 3; ++i) {
        const VariantRow& r = t.rows[size_t(i)];
        QVERIFY(r.layerNs > 0);
        QVERIFY2(near(layer->drawnValue(0, i), r.forwardNs), qPrintable(QStringLiteral("%1 vs %2").arg(layer->drawnValue(0, i)).arg(r.forwardNs)));
        QVERIFY(near(layer->drawnValue(1, i), r.backwardNs));
        QVERIFY(near(share->drawnValue(0, i), r.share));
        QVERIFY(near(step->drawnValue(0, i), r.stepNs));
        // The stack: the ops of at least 2% of the layer in some variant, then "other" (the sum
        // of the rest); together they are every op of analysis's table.
        const VariantsChartData& oc = ops->chart();
        QCOMPARE(int(oc.ops.size() - (oc.otherOps.isEmpty() ? 0 : 1) + oc.otherOps.size()), int(t.opNames.size()));
        double otherNs = 0;
        int segment = 0;
        for (size_t op = 0; op < t.opNames.size(); ++op) {
            if (oc.otherOps.contains(QString::fromStdString(t.opNames[op]))) {
                otherNs += r.ops[op].ns;
                continue;
            }
            QCOMPARE(oc.ops[segment], QString::fromStdString(t.opNames[op]));
            QVERIFY(near(ops->drawnValue(segment++, i), r.ops[op].ns));
        }
        if (!oc.otherOps.isEmpty())
            QVERIFY(near(ops->drawnValue(segment, i), otherNs));
        // The speedup label is the ratio of the stored numbers: baseline's layer time / this one's.
        const double expected = t.rows[t.baseline].layerNs / r.layerNs;
        QVERIFY(r.speedup);
        QVERIFY(near(*r.speedup, expected));
        QVERIFY2(layer->labelAt(i).startsWith(QStringLiteral("%1x").arg(expected, 0, 'f', 2)), qPrintable(layer->labelAt(i)));
        QVERIFY(share->labelAt(i).startsWith(QStringLiteral("%1%").arg(100.0 * r.share, 0, 'f', 1)));
    }
    // The stack holds the variants' own ops (adaptive's head GEMM among them).
    const auto& opNames = t.opNames;
    QVERIFY(std::find(opNames.begin(), opNames.end(), std::string("head_gemm")) != opNames.end());
    // The table equals `wheretime variants --json` over the same file.
    auto cli = runCli({QStringLiteral("variants"), m_file, QStringLiteral("--json")});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
    const QJsonDocument doc = QJsonDocument::fromJson(cli.out.toUtf8());
    QVERIFY2(!doc.isNull(), qPrintable(cli.out.left(300)));
    const QJsonArray rows = doc.object().value(QStringLiteral("runs")).toArray();
    QVERIFY2(rows.size() >= 3, qPrintable(cli.out.left(300)));
    int matched = 0;
    for (const QJsonValue& v : rows) {
        const QJsonObject o = v.toObject();
        for (const VariantRow& r : t.rows)
            if (o.value(QStringLiteral("run")).toInteger() == r.info.id) {
                QVERIFY(near(o.value(QStringLiteral("layer_ns")).toDouble(), r.layerNs));
                ++matched;
            }
    }
    QCOMPARE(matched, 3);
}

void TestVariantsView::baselineChooser()
{
    VariantsView view;
    QVERIFY(loadAndWait(view, m_runs));
    view.setBaseline(QStringLiteral("full"));
    const VariantsTable& t = view.table();
    QCOMPARE(t.rows[t.baseline].value, std::string("full"));
    VariantsPlot* layer = view.plot(VariantsPlot::Kind::LayerTime);
    QCOMPARE(layer->chart().baseline, int(t.baseline));
    QVERIFY(layer->labelAt(int(t.baseline)).startsWith(QStringLiteral("1.00x")));
    for (size_t i = 0; i < t.rows.size(); ++i)
        QVERIFY(near(*t.rows[i].speedup, t.rows[t.baseline].layerNs / t.rows[i].layerNs));
    // Another layer: the charts follow (the ops stack is that layer's).
    QVERIFY(view.layerChooser()->findText(QStringLiteral("embedding")) >= 0);
    view.setLayer(QStringLiteral("embedding"));
    QCOMPARE(view.table().layer, std::string("embedding"));
    QVERIFY(view.plot(VariantsPlot::Kind::LayerTime)->title().startsWith(QStringLiteral("embedding")));
}

void TestVariantsView::refusesTwoSettings()
{
    VariantsView view;
    QVERIFY(loadAndWait(view, {m_runs[0], {m_wideFile, runId(m_wideFile, "wide")}}, false));
    QVERIFY(!view.hasTable());
    const QString m = view.message();
    QVERIFY2(m.contains(QStringLiteral("hidden")) && m.contains(QStringLiteral("variant")), qPrintable(m));
    QVERIFY(!view.findChild<QWidget*>(QStringLiteral("variants-layer"))->isVisibleTo(&view));
    QString error;
    QVERIFY(!view.exportChart(VariantsPlot::Kind::LayerTime, QString::fromStdString(test::tempPath("refused.png")), &error));
    QCOMPARE(error, m);
}

void TestVariantsView::runBrowserComparesVariants()
{
    MainWindow w(false);
    VariantsActions* actions = VariantsActions::install(&w);
    QCOMPARE(actions->variantsAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    QVERIFY(w.fileMenu()->actions().contains(actions->variantsAction()));
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file, QStringLiteral("full")));
    QVERIFY(loaded.wait(60000));
    QVERIFY(w.addFile(m_wideFile));
    QVERIFY(actions->compareVariants());
    // The three variants (not "wide", which differs in hidden too) are selected in the browser.
    auto sel = w.runBrowser()->selectedRuns();
    QCOMPARE(int(sel.size()), 3);
    for (const auto& [file, id] : sel)
        QCOMPARE(file, m_file);
    VariantsView* view = actions->variantsView();
    QVERIFY(view);
    QSignalSpy ready(view, &VariantsView::ready);
    QVERIFY(ready.wait(60000));
    QCOMPARE(view->table().rows.size(), size_t(3));
    QCOMPARE(view->table().setting, std::string("variant"));
    // A run with no other variant (wide): a status message, no view change.
    w.runBrowser()->setCurrentRun(runId(m_wideFile, "wide"), m_wideFile);
    QVERIFY(!actions->compareVariants());
}

void TestVariantsView::exportsEveryChart()
{
    VariantsView view;
    QVERIFY(loadAndWait(view, m_runs));
    const QString dir = QFileInfo(QString::fromStdString(test::tempPath("exports/x"))).absolutePath();
    QDir().mkpath(dir);
    for (VariantsPlot::Kind k : {VariantsPlot::Kind::LayerTime, VariantsPlot::Kind::Ops, VariantsPlot::Kind::Share, VariantsPlot::Kind::StepTime})
        for (const char* ext : {".png", ".svg", ".pdf", ".csv"}) {
            const QString path = dir + QLatin1Char('/') + variantsChartFileName(k) + QLatin1String(ext);
            QString error;
            QVERIFY2(view.exportChart(k, path, &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 100);
        }
    // The SVG carries the caption (every variant's run).
    QFile svg(dir + QStringLiteral("/variants-layer.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray s = svg.readAll();
    for (const char* v : {"variant adaptive", "variant full", "variant fused", "baseline adaptive"})
        QVERIFY2(s.contains(v), v);
    // CSV: the variants table, one row per variant with analysis's raw numbers.
    const QStringList lines = view.chartCsv(VariantsPlot::Kind::LayerTime).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 4);
    QVERIFY2(lines[0].startsWith(QStringLiteral("variant,baseline,run,name,file,steps,forward_ns,backward_ns")), qPrintable(lines[0]));
    const VariantRow& r0 = view.table().rows[0];
    QCOMPARE(lines[1].split(QLatin1Char(','))[6].toDouble(), r0.forwardNs);
    // The table under the charts is the same table, in the writer's text.
    QCOMPARE(view.tableModel()->toCsv(), view.chartCsv(VariantsPlot::Kind::Share));
    QCOMPARE(view.tableModel()->rowCount(), 3);
    // The ops chart's CSV: the op table, one row per op of the stack.
    const QStringList opLines = view.chartCsv(VariantsPlot::Kind::Ops).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(opLines[0], QStringLiteral("op,adaptive_ns,full_ns,fused_ns"));
    QCOMPARE(opLines.size(), 1 + int(view.table().opNames.size()));
    QString error;
    QVERIFY(!view.exportChart(VariantsPlot::Kind::Share, dir + QStringLiteral("/x.txt"), &error));
    QVERIFY(error.contains(QStringLiteral(".csv")));
}

void TestVariantsView::report()
{
    const QString out = QFileInfo(QString::fromStdString(test::tempPath("report/x"))).absolutePath();
    ReportOptions o;
    o.outDir = out;
    o.file = m_file;
    o.run = QStringLiteral("adaptive");
    o.variants = true;
    o.chartSize = QSize(900, 700);   // the width and PNG scale reach the variants charts
    o.pngScale = 2.0;
    ReportResult r = writeReport(o);
    QVERIFY2(r.ok, qPrintable(r.error));
    for (const QString& f : variantsReportFiles()) {
        QVERIFY2(r.files.contains(f), qPrintable(f));
        QVERIFY2(QFileInfo(out + QLatin1Char('/') + f).size() > 50, qPrintable(f));
    }
    QCOMPARE(QImage(out + QLatin1Char('/') + variantsChartFileName(VariantsPlot::Kind::LayerTime) + QStringLiteral(".png")).width(), 1800);
    QFile md(out + QStringLiteral("/index.md"));
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(md.readAll());
    QVERIFY(text.contains(QStringLiteral("## Variants: Softmax layer by variant")));
    QVERIFY(text.contains(QStringLiteral("![variants-layer](variants-layer.png)")));
    QVERIFY2(text.contains(QStringLiteral("| adaptive | yes | ")), qPrintable(text));   // the baseline, as the CLI prints it
    QFile html(out + QStringLiteral("/index.html"));
    QVERIFY(html.open(QIODevice::ReadOnly));
    QVERIFY(html.readAll().contains("<img src=\"variants-ops.png\""));

    // A run without other variants: one line, nothing about variants written.
    ReportOptions lone = o;
    lone.outDir = QFileInfo(QString::fromStdString(test::tempPath("report-lone/x"))).absolutePath();
    lone.file = m_wideFile;
    lone.run = QStringLiteral("wide");
    r = writeReport(lone);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(QStringLiteral("no other variant")), qPrintable(r.error));

    // The report never writes over its input, variants files included.
    const QString trap = QFileInfo(QString::fromStdString(test::tempPath("trap/x"))).absolutePath();
    QDir().mkpath(trap);
    const QString input = trap + QStringLiteral("/variants-ops.csv");
    QVERIFY(QFile::copy(m_file, input));
    const qint64 size = QFileInfo(input).size();
    ReportOptions over = o;
    over.outDir = trap;
    over.file = input;
    r = writeReport(over);
    QVERIFY(!r.ok);
    QVERIFY2(!r.error.isEmpty(), "no error line");
    QCOMPARE(QFileInfo(input).size(), size);
    QVERIFY(!QFileInfo::exists(trap + QStringLiteral("/index.md")));
}

void TestVariantsView::csvByteForByte()
{
    // The four variants of scripts/variants.sh, captured by one sweep.
    const QString file = QFileInfo(QString::fromStdString(test::tempPath("four.wt"))).absoluteFilePath();
    auto c = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                     QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"),
                     QStringLiteral("--sweep"), QStringLiteral("variant=full,adaptive,fused,bucketed"), QStringLiteral("-o"), file},
                    600000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    auto cli = runCli({QStringLiteral("variants"), file, QStringLiteral("--csv")});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
    auto ops = runCli({QStringLiteral("variants"), file, QStringLiteral("--csv"), QStringLiteral("--ops")});
    QVERIFY2(ops.exitCode == 0, qPrintable(ops.err));
    const QByteArray want = cli.out.toUtf8(), wantOps = ops.out.toUtf8();
    QVERIFY2(want.startsWith("variant,baseline,run,name,file,steps,forward_ns,backward_ns,update_ns,layer_ns,share,step_ns,"
                             "step_wall_ns,speedup,forward_speedup,backward_speedup,step_speedup,speedup_low,speedup_high,"
                             "verdict,step_speedup_low,step_speedup_high,step_verdict\n"),
             want.left(200).constData());
    QCOMPARE(int(want.count('\n')), 1 + 4);
    QVERIFY2(wantOps.startsWith("op,full_ns,adaptive_ns,fused_ns,bucketed_ns\n"), wantOps.left(200).constData());

    // The view over the same runs (the file's four, oldest first).
    std::vector<CompareSelector> runs;
    for (const char* v : {"1", "2", "3", "4"})
        runs.push_back({file, runId(file, v)});
    VariantsView view;
    QVERIFY(loadAndWait(view, runs));
    QCOMPARE(view.chartCsv(VariantsPlot::Kind::LayerTime).toUtf8(), want);
    QCOMPARE(view.chartCsv(VariantsPlot::Kind::Ops).toUtf8(), wantOps);
    const QString dir = QFileInfo(QString::fromStdString(test::tempPath("four-exports/x"))).absolutePath();
    QDir().mkpath(dir);
    auto readFile = [](const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    for (VariantsPlot::Kind k : {VariantsPlot::Kind::LayerTime, VariantsPlot::Kind::Ops, VariantsPlot::Kind::Share, VariantsPlot::Kind::StepTime}) {
        const QString path = dir + QLatin1Char('/') + variantsChartFileName(k) + QStringLiteral(".csv");
        QString error;
        QVERIFY2(view.exportChart(k, path, &error), qPrintable(error));
        QCOMPARE(readFile(path), k == VariantsPlot::Kind::Ops ? wantOps : want);
    }

    // The report (anchored at adaptive: the same four runs).
    ReportOptions o;
    o.outDir = QFileInfo(QString::fromStdString(test::tempPath("four-report/x"))).absolutePath();
    o.file = file;
    o.run = QStringLiteral("2");
    o.variants = true;
    ReportResult r = writeReport(o);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(readFile(o.outDir + QStringLiteral("/variants.csv")), want);
    QCOMPARE(readFile(o.outDir + QStringLiteral("/variants-ops.csv")), wantOps);
    // Its Markdown table is the CLI's text table, cell for cell.
    const QString md = QString::fromUtf8(readFile(o.outDir + QStringLiteral("/index.md")));
    auto text = runCli({QStringLiteral("variants"), file});
    QVERIFY(text.exitCode == 0);
    // Text columns are two spaces apart, a cell's text has single spaces: each row's cells.
    const QStringList lines = text.out.split(QLatin1Char('\n'));
    QCOMPARE(lines.value(1).split(QRegularExpression(QStringLiteral("\\s{2,}"))).value(0), QStringLiteral("variant"));
    for (int i = 2; i < 6; ++i) {
        const QString row = QStringLiteral("| ") + lines[i].trimmed().split(QRegularExpression(QStringLiteral("\\s{2,}"))).join(QStringLiteral(" | ")) +
                            QStringLiteral(" |");
        QVERIFY2(md.contains(row), qPrintable(row + QStringLiteral("\n") + md));
    }
}

QTEST_MAIN(TestVariantsView)
#include "tst_variantsview.moc"
