// The compare view's histogram overlay (compare/comparehistogram.h) offscreen: two tiny CPU
// captures of different step counts (2 and 4); a click on a layer's row overlays BASE's and
// OTHER's histograms of that layer on common bins, each side's counts those of analysis's
// histogram of that run (computed here from the file), divided by the run's own steps.
#include "analysis/histogram.h"
#include "app/gui/compare/comparehistogram.h"
#include "app/gui/compare/compareview.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace wt;
using namespace wt::gui;

class TestCompareHistogram : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void rowClickOverlaysBothRuns();

private:
    std::vector<CompareSelector> m_runs;
};

void TestCompareHistogram::initTestCase()
{
    for (int steps : {2, 4}) {
        const QString file = QString::fromStdString(test::tempPath("tst_comparehistogram-" + std::to_string(steps) + ".wt"));
        const auto r = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                                     QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                                     QString::number(steps), QStringLiteral("-o"), file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Database db(file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        m_runs.push_back({file, reader.runs().at(0).id});
    }
}

void TestCompareHistogram::rowClickOverlaysBothRuns()
{
    CompareView view;
    view.resize(1000, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy ready(&view, &CompareView::ready);
    view.load(m_runs);
    QVERIFY(ready.wait(60000));
    const Comparison& c = view.comparison();
    int row = -1;
    for (size_t i = 0; i < c.groups.size(); ++i)
        if (c.groups[i].path == "softmax")
            row = int(i);
    QVERIFY(row >= 0);
    // Click the softmax row of the table.
    QTableView* table = view.table();
    QAbstractItemModel* proxy = table->model();
    int viewRow = -1, viewColumn = -1;   // the shown cell that names the layer
    for (int r = 0; r < proxy->rowCount(); ++r)
        for (int col = 0; col < proxy->columnCount(); ++col)
            if (!table->isColumnHidden(col) && proxy->index(r, col).data().toString() == QStringLiteral("softmax"))
                viewRow = r, viewColumn = col;
    QVERIFY(viewRow >= 0);
    QSignalSpy overlay(view.histogram(), &CompareHistogram::overlayReady);
    const QModelIndex at = proxy->index(viewRow, viewColumn);
    table->scrollTo(at);
    QCoreApplication::processEvents();
    const QPoint centre = table->visualRect(at).center();
    QCOMPARE(table->indexAt(centre).row(), viewRow);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, centre);
    QVERIFY(overlay.wait(60000));
    const Table& t = view.histogram()->overlay();
    QVERIFY(!t.rows.empty());
    QCOMPARE(view.histogram()->base().steps, int64_t(2));
    QCOMPARE(view.histogram()->other().steps, int64_t(4));

    // Each side against analysis's histogram of its run.
    HistogramGroup g;
    g.key = "softmax";
    std::vector<Histogram> expected;
    for (const CompareSelector& s : m_runs) {
        Database db(s.file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        expected.push_back(histogramOfRun(reader, s.runId, g));
    }
    QCOMPARE(view.histogram()->label(), QStringLiteral("layer softmax"));
    int64_t sums[2] = {0, 0};
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const double lo = numberOf(t.at(r, "lo_ns"));
        for (int side = 0; side < 2; ++side) {
            const int64_t count = int64_t(numberOf(t.at(r, side == 0 ? "base_count" : "other_count")));
            sums[side] += count;
            const int b = expected[size_t(side)].binOf(int64_t(lo));
            QCOMPARE(count, b < 0 ? int64_t(0) : expected[size_t(side)].bins[size_t(b)].count);
            QCOMPARE(numberOf(t.at(r, side == 0 ? "base_per_step" : "other_per_step")), double(count) / (side == 0 ? 2.0 : 4.0));
        }
    }
    QCOMPARE(sums[0], expected[0].count);
    QCOMPARE(sums[1], expected[1].count);
    QVERIFY(expected[1].count > expected[0].count);
}

QTEST_MAIN(TestCompareHistogram)
#include "tst_comparehistogram.moc"
