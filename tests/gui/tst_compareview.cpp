// The compare view against `wheretime compare` on two real CPU captures of different softmax
// variants: the table's cells equal the CLI's JSON (by layer, by op inside a layer, the
// kernel diff), clicks drill from layer to ops to the kernel diff, exports carry both runs,
// the synchronized timelines zoom and pan together, the run browser compares runs of two files,
// and the headless compare report lists only files it wrote (bad input: one line, exit 1).
#include "app/gui/compare/compareactions.h"
#include "app/gui/export/comparereport.h"
#include "app/gui/compare/comparetimelines.h"
#include "app/gui/compare/compareview.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "app/gui/widgets/timelinewidget.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include <cmath>

using namespace wt;
using namespace wt::gui;
using test::runCli;

namespace {

QJsonObject cliJson(const QStringList& args)
{
    auto r = runCli(QStringList{QStringLiteral("compare")} + args + QStringList{QStringLiteral("--json")});
    if (r.exitCode != 0)
        qWarning("compare failed: %s", qPrintable(r.err));
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b));
}

int64_t runId(const QString& file, const char* name)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    return reader.resolveRun(name);
}

}  // namespace

class TestCompareView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void tableEqualsCli();
    void drillDownByClicks();
    void exportsNameBothRuns();
    void synchronizedTimelines();
    void runBrowserComparesAcrossFiles();
    void report();
    void reportBadInput();

private:
    // The model's rows (in analysis order) equal the CLI's JSON groups and total.
    void checkAgainstCli(const CompareModel& model, const QJsonObject& o);
    QString m_file;    // runs "adaptive" and "full" (gcn tiny, CPU, 2 steps each)
    QString m_fileB;   // a copy holding "full" only, to compare across files
    std::vector<CompareSelector> m_runs;
};

void TestCompareView::initTestCase()
{
    m_file = QString::fromStdString(test::tempPath("variants.wt"));
    m_fileB = QString::fromStdString(test::tempPath("variants-b.wt"));
    for (auto [file, variant] : {std::pair{m_file, "adaptive"}, std::pair{m_file, "full"}, std::pair{m_fileB, "full"}}) {
        auto c = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                         QStringLiteral("tiny"), QStringLiteral("--variant"), QLatin1String(variant), QStringLiteral("--backend"),
                         QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--name"),
                         QLatin1String(variant), QStringLiteral("-o"), file},
                        300000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    }
    m_runs = {{m_file, runId(m_file, "adaptive")}, {m_file, runId(m_file, "full")}};
}

void TestCompareView::checkAgainstCli(const CompareModel& model, const QJsonObject& o)
{
    const Comparison& c = model.comparison();
    QCOMPARE(o.value(QStringLiteral("per")).toString(), QString::fromUtf8(toString(c.per).data()));
    const QJsonArray groups = o.value(QStringLiteral("groups")).toArray();
    QCOMPARE(model.rowCount(), groups.size() + 1);   // + the total row
    QVERIFY(groups.size() > 0);
    // Every cell of every row, the total last, is the CLI's value under the column's id.
    auto checkRow = [&](int r, const QJsonObject& g) {
        QCOMPARE(g.size(), qsizetype(model.columnCount()));
        for (int col = 0; col < model.columnCount(); ++col) {
            const QString id = model.headerData(col, Qt::Horizontal, TableModel::ColumnIdRole).toString();
            const QJsonValue want = g.value(id);
            const QVariant v = model.data(model.index(r, col), TableModel::RawRole);
            QVERIFY2(v.isValid() == !want.isNull(), qPrintable(QStringLiteral("row %1 %2").arg(r).arg(id)));
            if (want.isString())
                QCOMPARE(v.toString(), want.toString());
            else if (!want.isNull())
                QVERIFY2(near(v.toDouble(), want.toDouble()),
                         qPrintable(QStringLiteral("row %1 %2: %3 vs %4").arg(r).arg(id).arg(v.toDouble()).arg(want.toDouble())));
        }
    };
    for (int r = 0; r < int(groups.size()); ++r) {
        QCOMPARE(model.data(model.index(r, 0), CompareModel::PathRole).toString(), groups[r].toObject().value(QStringLiteral("path")).toString());
        checkRow(r, groups[r].toObject());
    }
    QVERIFY(model.isTotalRow(int(groups.size())));
    checkRow(int(groups.size()), o.value(QStringLiteral("total")).toObject());
}

void TestCompareView::tableEqualsCli()
{
    CompareView view;
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy ready(&view, &CompareView::ready);
    view.load(m_runs);
    QVERIFY(ready.wait(60000));
    QCOMPARE(view.level(), CompareView::Level::Groups);
    QVERIFY(view.comparison().groupBy == GroupBy::Layer);
    QVERIFY(view.comparison().per == ComparePer::Step);
    const QString a = m_file + QStringLiteral(":adaptive"), b = m_file + QStringLiteral(":full");
    checkAgainstCli(*view.model(), cliJson({a, b}));
    // The charts say how the runs were compared, and show the groups in the table's order.
    QCOMPARE(view.barsPlot()->chart().per, QStringLiteral("per step (mean of 2 steps)"));
    QCOMPARE(view.deltaPlot()->chart().rows.front().label.section(QLatin1Char(' '), 0, 0),
             QString::fromStdString(view.comparison().groups.front().name));
    // The softmax layer is where the variants differ: present in both, changed.
    auto it = std::find_if(view.comparison().groups.begin(), view.comparison().groups.end(),
                           [](const CompareGroup& g) { return g.path == "softmax"; });
    QVERIFY(it != view.comparison().groups.end());
    QVERIFY(it->inAll());
    QVERIFY(it->deltaNs[1] != 0);

    // The delta % shown is the table's: analysis's deltaPct, in the writer's text.
    const int softmaxRow = int(it - view.comparison().groups.begin());
    QCOMPARE(view.model()->data(view.model()->index(softmaxRow, view.model()->column("delta_pct", 1))).toString(),
             QString::fromStdString(render::cellText(Column{{}, {}, Unit::Percent, true}, *it->deltaPct[1])));

    // Three runs (two files): one time and count column per run, delta, delta % and ratio per OTHER.
    CompareView three;
    QAbstractItemModelTester tester3(three.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy ready3(&three, &CompareView::ready);
    three.load({m_runs[0], m_runs[1], {m_fileB, runId(m_fileB, "full")}});
    QVERIFY(ready3.wait(60000));
    // name, path; ns; delta, ±, %, ratio, verdict; count; n, stddev, median, min, max; ci low, high, p; note, per
    QCOMPARE(three.model()->columnCount(), 2 + 3 + 2 * 5 + 3 + 3 * 5 + 2 * 3 + 2);
    QCOMPARE(three.model()->headerData(three.model()->column("ratio", 2), Qt::Horizontal).toString(), QStringLiteral("#3/BASE"));
    QCOMPARE(three.model()->headerData(three.model()->column("delta_pct", 1), Qt::Horizontal).toString(), QStringLiteral("delta % #2"));
    checkAgainstCli(*three.model(), cliJson({a, b, m_fileB + QStringLiteral(":full")}));
    QCOMPARE(int(three.barsPlot()->chart().runLabels.size()), 3);
}

void TestCompareView::drillDownByClicks()
{
    CompareView view;
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy ready(&view, &CompareView::ready);
    view.load(m_runs);
    QVERIFY(ready.wait(60000));
    // Click the softmax bar in the grouped bars: its ops.
    ComparePlot* bars = view.barsPlot();
    bars->replot();
    int row = -1;
    for (size_t i = 0; i < bars->chart().rows.size(); ++i)
        if (bars->chart().rows[i].label == QLatin1String("softmax"))
            row = int(i);
    QVERIFY(row >= 0);
    const QPoint at(int(bars->xAxis->coordToPixel(bars->xAxis->range().lower + 0.01 * bars->xAxis->range().size())),
                    int(bars->yAxis->coordToPixel(double(row + 1))));
    QCOMPARE(bars->rowAt(at), row);
    QTest::mouseClick(bars, Qt::LeftButton, {}, at);
    QCOMPARE(view.level(), CompareView::Level::Ops);
    QCOMPARE(view.layer(), std::string("softmax"));
    QVERIFY(view.breadcrumbText().contains(QStringLiteral("softmax")));
    const QString a = m_file + QStringLiteral(":adaptive"), b = m_file + QStringLiteral(":full");
    checkAgainstCli(*view.model(), cliJson({a, b, QStringLiteral("--group-by"), QStringLiteral("op"), QStringLiteral("--within"),
                                            QStringLiteral("layer=softmax")}));
    // Kernel diff of the layer: rows and counts as `compare --kernels softmax`.
    QAbstractItemModelTester tester(view.diffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(view.showKernelDiff());
    QCOMPARE(view.level(), CompareView::Level::Kernels);
    const QJsonObject k = cliJson({a, b, QStringLiteral("--kernels"), QStringLiteral("softmax")});
    const QJsonArray rows = k.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(view.diffModel()->rowCount(), rows.size());
    QVERIFY(rows.size() > 0);
    const KernelDiffModel* dm = view.diffModel();
    for (int r = 0; r < int(rows.size()); ++r) {
        const QJsonObject o = rows[r].toObject();
        QCOMPARE(dm->data(dm->index(r, dm->columnOf("change")), TableModel::RawRole).toString(), o.value(QStringLiteral("change")).toString());
        QVERIFY(near(dm->data(dm->index(r, dm->columnOf("delta_ns")), TableModel::RawRole).toDouble(), o.value(QStringLiteral("delta_ns")).toDouble()));
        QCOMPARE(dm->data(dm->index(r, dm->columnOf("delta_pct")), TableModel::RawRole).isValid(), !o.value(QStringLiteral("delta_pct")).isNull());
    }
    // Only the text table's columns are shown; the names apart are CSV-only.
    QVERIFY(view.table()->isColumnHidden(dm->columnOf("base_name")));
    QVERIFY(!view.table()->isColumnHidden(dm->columnOf("kernel")));
    const QJsonObject summary = k.value(QStringLiteral("summary")).toObject();
    QCOMPARE(view.kernelDiff().added, summary.value(QStringLiteral("added")).toInt());
    QCOMPARE(view.kernelDiff().removed, summary.value(QStringLiteral("removed")).toInt());
    QCOMPARE(view.kernelDiff().swapped, summary.value(QStringLiteral("swapped")).toInt());
    // The two softmax variants run different kernels: the diff is not all "changed".
    QVERIFY(view.kernelDiff().added + view.kernelDiff().removed + view.kernelDiff().swapped + view.kernelDiff().moved > 0);
    QVERIFY(view.summaryText().contains(QStringLiteral("kernels:")));
    // Up twice: back at the layers.
    view.up();
    QCOMPARE(view.level(), CompareView::Level::Ops);
    view.up();
    QCOMPARE(view.level(), CompareView::Level::Groups);
    // Double-clicking (activating) an op row in the table opens that op's kernel diff.
    QVERIFY(view.drillIntoLayer("softmax"));
    const QModelIndex first = view.table()->model()->index(0, 0);
    const std::string opName = view.comparison().groups[size_t(static_cast<QSortFilterProxyModel*>(view.table()->model())->mapToSource(first).row())].name;
    emit view.table()->activated(first);
    QCOMPARE(view.level(), CompareView::Level::Kernels);
    QCOMPARE(view.op(), opName);
}

void TestCompareView::exportsNameBothRuns()
{
    CompareView view;
    QSignalSpy ready(&view, &CompareView::ready);
    view.load(m_runs);
    QVERIFY(ready.wait(60000));
    const QString caption = view.caption();
    QVERIFY(caption.contains(QStringLiteral("BASE: ")) && caption.contains(QStringLiteral("OTHER: ")));
    QVERIFY(caption.contains(QStringLiteral("'adaptive'")) && caption.contains(QStringLiteral("'full'")));
    QVERIFY(caption.contains(QStringLiteral("per step (mean of 2 steps)")));
    QDir dir(QString::fromStdString(test::tempPath("exports")));
    QVERIFY(dir.mkpath(QStringLiteral(".")));
    for (const char* ext : {"png", "svg", "pdf"}) {
        QString error;
        QVERIFY2(view.exportBars(dir.filePath(QStringLiteral("bars.%1").arg(QLatin1String(ext))), &error), qPrintable(error));
        QVERIFY2(view.exportDelta(dir.filePath(QStringLiteral("delta.%1").arg(QLatin1String(ext))), &error), qPrintable(error));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("bars.%1").arg(QLatin1String(ext)))).size() > 1000);
    }
    QFile svg(dir.filePath(QStringLiteral("delta.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray svgText = svg.readAll();
    QVERIFY(svgText.contains("adaptive") && svgText.contains("full"));   // the caption
    QString error;
    QVERIFY(!view.exportBars(dir.filePath(QStringLiteral("bars.gif")), &error));
    QVERIFY(!error.isEmpty());
    // (The table's CSV against the CLI's and the report's, byte for byte: tst_comparetables.)
}

void TestCompareView::synchronizedTimelines()
{
    CompareTimelines t;
    t.resize(1400, 900);
    t.show();
    QVERIFY(QTest::qWaitForWindowExposed(&t));
    QSignalSpy ready(&t, &CompareTimelines::ready);
    t.load(m_runs[0], m_runs[1]);
    QVERIFY(ready.wait(60000));
    QCoreApplication::processEvents();
    TimelineWidget* base = t.baseTimeline();
    TimelineWidget* other = t.otherTimeline();
    const RunData& br = *t.baseState()->run();
    const RunData& orr = *t.otherState()->run();
    // Aligned at the second step: its start is at the same x in both.
    QCOMPARE(t.alignStep(), 1);
    QCOMPARE(t.shiftNs(), stepStartNs(orr, 1) - stepStartNs(br, 1));
    auto sameX = [&](double baseNs) {
        return std::abs(base->mapping().x(baseNs) - other->mapping().x(baseNs + t.shiftNs())) < 1e-6;
    };
    QVERIFY(sameX(stepStartNs(br, 1)));
    QCOMPARE(base->mapping().nsPerPx(), other->mapping().nsPerPx());
    // Zooming BASE zooms OTHER.
    const double before = other->mapping().nsPerPx();
    base->zoomBy(4);
    QVERIFY(other->mapping().nsPerPx() < before / 3);
    QVERIFY(std::abs(base->mapping().nsPerPx() - other->mapping().nsPerPx()) < 1e-9 * base->mapping().nsPerPx());
    QVERIFY(sameX(base->mapping().startNs() + 100 * base->mapping().nsPerPx()));
    // Panning OTHER pans BASE.
    const double baseStart = base->mapping().startNs();
    other->panByFraction(0.25);
    QVERIFY(base->mapping().startNs() > baseStart);
    QVERIFY(sameX(base->mapping().startNs()));
    // An offset moves OTHER against BASE.
    const double shift = t.shiftNs();
    t.setAlignment(1, 5000);
    QCOMPARE(t.shiftNs(), shift + 5000);
    QVERIFY(sameX(base->mapping().startNs() + 10 * base->mapping().nsPerPx()));
    // A layer picked marks its kernels in both timelines.
    t.highlightLayer(QStringLiteral("softmax"));
    QVERIFY(t.baseState()->groupMarks() && t.otherState()->groupMarks());
    QVERIFY(t.baseState()->groupMarks()->activityCount > 0);
    QVERIFY(t.otherState()->groupMarks()->activityCount > 0);
    QVERIFY(t.baseState()->groupMarks()->activityCount < int64_t(br.kernelCount));
    // Picking a scope of layer conv1 in OTHER's timeline marks conv1 in both.
    uint32_t conv1 = kNone;
    for (uint32_t i = 0; i < orr.instances.size() && conv1 == kNone; ++i) {
        const ScopeNodeData& node = orr.nodes[orr.instances.node[i]];
        if (node.level == QLatin1String("layer") && node.name == QLatin1String("conv1"))
            conv1 = i;
    }
    QVERIFY(conv1 != kNone);
    Selection pick;
    pick.kind = Selection::Scope;
    pick.index = conv1;
    t.otherState()->setSelection(pick);
    QCOMPARE(t.highlightedLayer(), QStringLiteral("conv1"));
    QCOMPARE(t.baseState()->groupSelection().label, QStringLiteral("layer conv1"));
    QVERIFY(t.baseState()->groupMarks() && t.baseState()->groupMarks()->activityCount > 0);
    t.highlightLayer({});
    QVERIFY(!t.baseState()->groupMarks() && !t.otherState()->groupMarks());
}

void TestCompareView::runBrowserComparesAcrossFiles()
{
    MainWindow w(false);
    CompareActions* actions = CompareActions::install(&w);
    QVERIFY(w.openFile(m_file));
    QVERIFY(w.addFile(m_fileB));
    RunListModel* model = w.runBrowser()->model();
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->files().size(), 2);
    // Opening a listed file again refreshes its rows, never duplicates them.
    QVERIFY(w.addFile(m_fileB));
    QCOMPARE(model->rowCount(), 3);
    // Select BASE (adaptive in the first file), then OTHER (full in the second).
    QTableView* view = w.runBrowser()->view();
    QSortFilterProxyModel* proxy = w.runBrowser()->proxy();
    const int rowA = proxy->mapFromSource(model->index(model->rowOfRun(m_runs[0].runId, QFileInfo(m_file).absoluteFilePath()), 0)).row();
    const int rowB = proxy->mapFromSource(model->index(model->rowOfRun(runId(m_fileB, "full"), QFileInfo(m_fileB).absoluteFilePath()), 0)).row();
    QVERIFY(rowA >= 0 && rowB >= 0);
    view->selectionModel()->clearSelection();
    view->selectionModel()->select(proxy->index(rowA, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    view->selectionModel()->select(proxy->index(rowB, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    auto sel = w.runBrowser()->selectedRuns();
    QCOMPARE(int(sel.size()), 2);
    QCOMPARE(sel[0].first, QFileInfo(m_file).absoluteFilePath());
    QCOMPARE(sel[1].first, QFileInfo(m_fileB).absoluteFilePath());
    QVERIFY(actions->compareSelected());
    CompareWindow* cw = actions->window();
    QVERIFY(cw);
    QSignalSpy ready(cw->view(), &CompareView::ready);
    QVERIFY(ready.wait(60000));
    QCOMPARE(cw->view()->comparison().runs.size(), size_t(2));
    QCOMPARE(cw->view()->comparison().runs[0].info.name, std::string("adaptive"));
    QCOMPARE(QFileInfo(QString::fromStdString(cw->view()->comparison().runs[1].file)).absoluteFilePath(), QFileInfo(m_fileB).absoluteFilePath());
    // One run selected: nothing opens.
    view->selectionModel()->clearSelection();
    view->selectionModel()->select(proxy->index(rowA, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QVERIFY(!actions->compareSelected());
}

void TestCompareView::report()
{
    const QString exe = qEnvironmentVariable("WHERETIME_GUI_EXE");
    if (exe.isEmpty())
        QSKIP("WHERETIME_GUI_EXE not set");
    const QString out = QString::fromStdString(test::tempPath("report"));
    auto r = test::runProgram(exe, {QStringLiteral("--report"), out, m_file + QStringLiteral(":adaptive"), QStringLiteral("--compare"),
                                    m_file + QStringLiteral(":full")},
                              300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile md(QDir(out).filePath(QStringLiteral("index.md")));
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(md.readAll());
    QVERIFY(text.contains(QStringLiteral("## Compare")));
    QVERIFY(!text.contains(QStringLiteral("not built yet")));
    QVERIFY(text.contains(QStringLiteral("per step (mean of 2 steps)")));
    // Every file index.md links or names exists.
    QStringList named;
    for (const QRegularExpression& re : {QRegularExpression(QStringLiteral("\\]\\(([^)]+)\\)")), QRegularExpression(QStringLiteral("`([\\w.-]+\\.(?:csv|svg|png))`"))})
        for (auto it = re.globalMatch(text); it.hasNext();)
            named << it.next().captured(1);
    QVERIFY(named.contains(QStringLiteral("compare-layer-bars.png")));
    QVERIFY(named.contains(QStringLiteral("compare-layer-delta.png")));
    QVERIFY(named.contains(QStringLiteral("compare-layer.csv")));
    QVERIFY(named.contains(QStringLiteral("compare-layer-kernels.csv")));
    QVERIFY(named.contains(QStringLiteral("compare-kernel.csv")));
    for (const QString& f : named)
        QVERIFY2(QFileInfo(QDir(out).filePath(f)).size() > 0, qPrintable(f));
    // (Its CSVs against the CLI's, byte for byte: tst_comparetables.)
    QFile html(QDir(out).filePath(QStringLiteral("index.html")));
    QVERIFY(html.open(QIODevice::ReadOnly));
    const QString h = QString::fromUtf8(html.readAll());
    for (auto it = QRegularExpression(QStringLiteral("(?:src|href)=\"([^\"]+)\"")).globalMatch(h); it.hasNext();) {
        const QString f = it.next().captured(1);
        QVERIFY2(QFileInfo(QDir(out).filePath(f)).isFile(), qPrintable(f));
    }
}

void TestCompareView::reportBadInput()
{
    const QString exe = qEnvironmentVariable("WHERETIME_GUI_EXE");
    if (exe.isEmpty())
        QSKIP("WHERETIME_GUI_EXE not set");
    const QString out = QString::fromStdString(test::tempPath("report-bad"));
    for (const QString& other : QStringList{QStringLiteral("/nonexistent/other.wt"), m_file + QStringLiteral(":999"),
                                            m_file + QStringLiteral(":nosuchrun")}) {
        auto r = test::runProgram(exe, {QStringLiteral("--report"), out, m_file + QStringLiteral(":adaptive"), QStringLiteral("--compare"), other},
                                  120000);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(r.err.startsWith(QStringLiteral("wheretime-gui: ")));
        QVERIFY(!QFileInfo::exists(QDir(out).filePath(QStringLiteral("index.md"))));
    }
}

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
