// What a new user sees in the first window (issue 27 items 1, 3, 9), on a real sweep of tiny
// CPU captures, offscreen: at 1400x800 and 1920x1080, panels below and beside the timeline,
// the details show their values beside the fields, the breakdown table shows its header, its
// filter box and at least 8 rows, and no toolbar control is cut; a larger window re-lays out
// the panels. The run browser opens the run a click selects (Ctrl-clicks to compare open
// nothing), the title names file and run, and the runs of a sweep stay distinguishable in
// the browser (names elided in the middle). The breakdown's name filter filters the pie and
// bars as it filters the table (the rest as one "filtered out" slice), and drilling into a
// layer does not select an op that has the layer's name.
#include "app/gui/breakdown/breakdownactions.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/flowlayout.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "app/gui/widgets/timelinewidget.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace wt;
using namespace wt::gui;

namespace {

bool waitLoaded(MainWindow& w, QSignalSpy& loaded)
{
    return !loaded.isEmpty() || loaded.wait(60000);
}

// The part of a tree's column that the viewport shows, in px.
int visibleColumnWidth(const QTreeView* tree, int column)
{
    const int x = tree->header()->sectionViewportPosition(column);
    return std::max(0, std::min(tree->columnWidth(column), tree->viewport()->width() - x));
}

}  // namespace

class TestFirstLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void firstWindow_data();
    void firstWindow();
    void largerWindowRelaysOut();
    void clickOpensRunAndTitleNamesIt();
    void sweepNamesStayDistinct();
    void nameFilterFiltersCharts();
    void drillDoesNotSelectNamesake();

private:
    QString m_file;   // gcn tiny, hidden 16, 24, 32 (a sweep)
};

void TestFirstLayout::initTestCase()
{
    m_file = QFileInfo(QString::fromStdString(test::tempPath("firstlayout.wt"))).absoluteFilePath();
    auto c = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                           QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                           QStringLiteral("2"), QStringLiteral("--sweep"), QStringLiteral("hidden=16,24,32"), QStringLiteral("-o"), m_file},
                          300000);
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
}

void TestFirstLayout::firstWindow_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("beside");
    QTest::newRow("1400x800 below") << QSize(1400, 800) << false;
    QTest::newRow("1400x800 beside") << QSize(1400, 800) << true;
    QTest::newRow("1920x1080 below") << QSize(1920, 1080) << false;
    QTest::newRow("1920x1080 beside") << QSize(1920, 1080) << true;
}

void TestFirstLayout::firstWindow()
{
    QFETCH(QSize, size);
    QFETCH(bool, beside);
    MainWindow w(false);
    BreakdownActions* actions = BreakdownActions::install(&w);
    w.setPanelPlacement(beside ? MainWindow::PanelPlacement::Beside : MainWindow::PanelPlacement::Below);
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(waitLoaded(w, loaded));
    QTest::qWait(100);   // layouts settle

    // The timeline stays the main view.
    QVERIFY2(double(w.timeline()->width()) / w.width() >= 0.55, qPrintable(QString::number(w.timeline()->width())));

    // Details: a values column beside the fields (not only "Field"): at least 160 px and 45% of
    // the panel, so short values show whole and long ones elide.
    QTreeWidget* tree = w.details()->tree();
    QTreeWidgetItem* runItem = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(0) == QStringLiteral("Run"))
            runItem = tree->topLevelItem(i);
    QVERIFY(runItem);
    QVERIFY(runItem->text(1).startsWith(QStringLiteral("gcn-adaptive-tiny")));
    const int values = visibleColumnWidth(tree, 1);
    QVERIFY2(values >= 160 && values >= tree->viewport()->width() * 45 / 100,
             qPrintable(QStringLiteral("values %1 px, fields %2 px, panel %3 px").arg(values).arg(tree->columnWidth(0)).arg(tree->width())));
    for (int i = 0; i < runItem->childCount(); ++i)
        if (runItem->child(i)->text(0) == QStringLiteral("workload"))
            QVERIFY(tree->fontMetrics().horizontalAdvance(runItem->child(i)->text(1)) + 12 <= values);

    // Breakdown table: filter box, header and at least 8 rows of room.
    BreakdownView* view = actions->view();
    QTableView* table = view->table();
    QVERIFY(view->nameFilter()->isVisible() && view->nameFilter()->height() >= view->nameFilter()->sizeHint().height() - 2);
    QVERIFY(table->horizontalHeader()->isVisible() && table->horizontalHeader()->height() > 10);
    const int rows = table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
    QVERIFY2(rows >= 8, qPrintable(QStringLiteral("%1 rows (%2 px)").arg(rows).arg(table->viewport()->height())));
    QVERIFY(view->currentPlot()->height() >= 200);   // and the chart beside or above it
    QVERIFY(table->columnWidth(BreakdownModel::NameColumn) >= 120);   // the names, not only their colours

    // Toolbar: every control at its full width, inside the view.
    int controls = 0;
    for (int i = 0; i < view->controlsLayout()->count(); ++i) {
        QWidget* c = view->controlsLayout()->itemAt(i)->widget();
        if (!c || c->isHidden())
            continue;
        ++controls;
        const QRect r(c->mapTo(view, QPoint(0, 0)), c->size());
        QVERIFY2(c->width() >= c->sizeHint().width() && view->rect().contains(r),
                 qPrintable(QStringLiteral("%1: %2 px of %3, at %4..%5 in %6 px")
                                .arg(QString::fromLatin1(c->metaObject()->className()))
                                .arg(c->width())
                                .arg(c->sizeHint().width())
                                .arg(r.left())
                                .arg(r.right())
                                .arg(view->width())));
    }
    QCOMPARE(controls, 6);   // grouping, threshold, pie, bars, range, export (layer depth: imports)
    if (beside)
        QVERIFY(view->controlsLayout()->rowsAt(view->width()) >= 2);   // wrapped, not cut
    // Below the timeline: chart and table side by side; beside it: the table under the chart.
    QCOMPARE(view->chartTableSplitter()->orientation(), beside ? Qt::Vertical : Qt::Horizontal);
}

void TestFirstLayout::largerWindowRelaysOut()
{
    MainWindow w(false);
    BreakdownActions::install(&w);
    w.resize(1400, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50);
    auto* runsDock = w.findChild<QDockWidget*>(QStringLiteral("runsDock"));
    QVERIFY(runsDock);
    const int before = runsDock->width();
    w.resize(1920, 1080);
    QTest::qWait(100);
    QTRY_VERIFY2(runsDock->width() >= before + 80, qPrintable(QStringLiteral("%1 -> %2 px").arg(before).arg(runsDock->width())));
    QVERIFY(double(w.timeline()->width()) / w.width() >= 0.55);
}

void TestFirstLayout::clickOpensRunAndTitleNamesIt()
{
    MainWindow w(false);
    BreakdownActions::install(&w);
    w.resize(1400, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(waitLoaded(w, loaded));
    const int64_t first = w.viewState()->run()->run.id;
    QVERIFY2(w.windowTitle().startsWith(QStringLiteral("%1: run %2 gcn-adaptive-tiny-hidden=").arg(QFileInfo(m_file).fileName()).arg(first)), qPrintable(w.windowTitle()));

    // One click on another run's row opens it.
    QTableView* v = w.runBrowser()->view();
    int other = -1;
    for (int r = 0; r < v->model()->rowCount() && other < 0; ++r)
        if (v->model()->index(r, 0).data(RunListModel::RunIdRole).toLongLong() != first)
            other = r;
    QVERIFY(other >= 0);
    const QModelIndex idx = v->model()->index(other, RunListModel::Name);
    const int64_t want = idx.data(RunListModel::RunIdRole).toLongLong();
    loaded.clear();
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, v->visualRect(idx).center());
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w.viewState()->run()->run.id, want);
    QCOMPARE(w.windowTitle(), QStringLiteral("%1: run %2 %3 - wheretime").arg(QFileInfo(m_file).fileName()).arg(want).arg(idx.data().toString()));

    // Ctrl-click a second row (to compare): both selected, nothing else opens.
    const QModelIndex third = v->model()->index(other == 0 ? 1 : 0, RunListModel::Name);
    loaded.clear();
    QTest::mouseClick(v->viewport(), Qt::LeftButton, Qt::ControlModifier, v->visualRect(third).center());
    QTest::qWait(300);
    QVERIFY(loaded.isEmpty());
    QVERIFY(!w.loader()->isRunning());
    QCOMPARE(w.viewState()->run()->run.id, want);
    QCOMPARE(w.runBrowser()->selectedRuns().size(), size_t(2));
}

void TestFirstLayout::sweepNamesStayDistinct()
{
    MainWindow w(false);
    w.resize(1400, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(waitLoaded(w, loaded));
    QTableView* v = w.runBrowser()->view();
    QCOMPARE(v->textElideMode(), Qt::ElideMiddle);
    // What each row's name cell shows (the cell elides in the middle to its width).
    const int width = v->columnWidth(RunListModel::Name) - 2 * (v->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, v) + 1);
    QSet<QString> shown;
    for (int r = 0; r < v->model()->rowCount(); ++r) {
        const QString name = v->model()->index(r, RunListModel::Name).data().toString();
        QCOMPARE(v->model()->index(r, RunListModel::Name).data(Qt::ToolTipRole).toString().section(QLatin1Char('\n'), 0, 0), name);
        shown.insert(v->fontMetrics().elidedText(name, Qt::ElideMiddle, width));
    }
    QCOMPARE(shown.size(), 3);
    for (const QString& s : shown)
        QVERIFY2(s.endsWith(QStringLiteral("=16")) || s.endsWith(QStringLiteral("=24")) || s.endsWith(QStringLiteral("=32")), qPrintable(s));
}

void TestFirstLayout::nameFilterFiltersCharts()
{
    MainWindow w(false);
    BreakdownActions* actions = BreakdownActions::install(&w);
    w.resize(1400, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(waitLoaded(w, loaded));
    BreakdownView* view = actions->view();
    QTRY_VERIFY(!view->result().rows.empty());
    const BreakdownResult& r = view->result();
    std::vector<size_t> matching, rest;
    for (size_t i = 0; i < r.rows.size(); ++i)
        (QString::fromStdString(r.rows[i].name).contains(QStringLiteral("CONV"), Qt::CaseInsensitive) ? matching : rest).push_back(i);
    QVERIFY(matching.size() >= 2 && !rest.empty());   // gcn tiny: conv1, conv2; embedding, softmax

    QTest::keyClicks(view->nameFilter(), QStringLiteral("CONV"));
    QCOMPARE(view->proxy()->rowCount(), int(matching.size()));
    for (BreakdownPlot* plot : {view->piePlot(), view->barPlot()}) {
        const auto& slices = plot->slices();
        QVERIFY(!slices.empty());
        // Every shown group matches; the others are the last slice, "filtered out".
        std::vector<size_t> members;
        int64_t sum = 0;
        for (size_t s = 0; s + 1 < slices.size(); ++s) {
            QVERIFY(!slices[s].filteredOut);
            for (size_t m : slices[s].members) {
                QVERIFY(std::find(matching.begin(), matching.end(), m) != matching.end());
                members.push_back(m);
            }
            sum += slices[s].timeNs;
        }
        const PieSlice& last = slices.back();
        QVERIFY(last.filteredOut && last.other);
        QCOMPARE(last.members, rest);
        QCOMPARE(last.color, kFilteredOutColor);
        QCOMPARE(last.label, QStringLiteral("filtered out (%1)").arg(rest.size()));
        std::sort(members.begin(), members.end());
        QCOMPARE(members, matching);
        // Shares of the whole: the slices still add up to the run's kernel time.
        QCOMPARE(sum + last.timeNs, r.totalNs);
    }
    QVERIFY(view->title().contains(QStringLiteral("CONV")));
    // Clearing the filter gives the whole pie back.
    view->nameFilter()->clear();
    for (const PieSlice& s : view->piePlot()->slices())
        QVERIFY(!s.filteredOut);
}

void TestFirstLayout::drillDoesNotSelectNamesake()
{
    MainWindow w(false);
    BreakdownActions* actions = BreakdownActions::install(&w);
    w.resize(1400, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::runLoaded);
    QVERIFY(w.openFile(m_file));
    QVERIFY(waitLoaded(w, loaded));
    BreakdownView* view = actions->view();
    QTRY_VERIFY(!view->result().rows.empty());
    // The plot's slices follow the result (the breakdown is computed on a worker): wait for them.
    int softmax = -1;
    auto findSoftmax = [&] {
        const auto& slices = view->currentPlot()->slices();
        for (size_t i = 0; i < slices.size(); ++i)
            if (!slices[i].other && slices[i].path == "softmax")
                softmax = int(i);
        return softmax >= 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(findSoftmax(), 20000);
    // What a click on the slice does: select the layer (a scope instance of it), then drill.
    view->selectSlice(view->currentPlot(), softmax);
    QVERIFY(view->drillInto(softmax));
    // The layer's ops include one named "softmax" (the layer's own kernels): not selected.
    bool namesake = false;
    for (const BreakdownRow& row : view->result().rows)
        namesake = namesake || row.path == "softmax";
    QVERIFY(namesake);
    QVERIFY(view->table()->selectionModel()->selectedRows().isEmpty());
    QCOMPARE(view->currentPlot()->highlighted(), -1);
}

QTEST_MAIN(TestFirstLayout)
#include "tst_firstlayout.moc"
