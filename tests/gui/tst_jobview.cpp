// The job view (issue 29 item 5), offscreen, over a directory of seven synthetic rank files
// (rank 5 planted 1.3x slower) and one damaged file: its ranks and layers tables are analysis's
// (the bytes `wheretime job DIR --csv [--layers]` prints), the chart has one bar per rank at the
// table's step median with the straggler alone marked and the rule's median and threshold
// drawn; choosing a layer shows that layer's time per step; a click on a bar selects its row, a
// double click (bar or row) opens that rank's file, and through JobActions the main window loads
// it; the damaged file is named in one line; a missing or empty directory, or one of damaged files
// only, fails in one line.
#include "analysis/jobsummary.h"
#include "analysis/jobtable.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/job/jobactions.h"
#include "app/gui/job/jobview.h"
#include "app/gui/widgets/mainwindow.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace wt;
using namespace wt::gui;

class TestJobView : public QObject {
    Q_OBJECT
    QString m_dir;
    static constexpr int kRanks = 7;
    static constexpr int kSlow = 5;

    bool loadInto(JobView& view, const QString& input)
    {
        QSignalSpy ready(&view, &JobView::ready);
        view.load(input);
        return ready.wait(60000);
    }

    JobSummary expectedJob() const { return openJob(jobFiles(m_dir.toStdString()), 1); }

private slots:
    void initTestCase()
    {
        m_dir = QString::fromStdString(test::tempPath("jobview-ranks"));
        QVERIFY(QDir().mkpath(m_dir));
        for (int r = 0; r < kRanks; ++r) {
            Database db(QString(m_dir + QStringLiteral("/rank-%1.wt").arg(r)).toStdString(), OpenMode::ReadWrite);
            Writer w(db);
            synth::Options o;
            o.kernels = 272 * 6;   // six steps
            o.streams = 2;
            o.seed = uint64_t(r) + 1;
            o.durationScale = r == kSlow ? 1.3 : 1.0 + 0.002 * r;
            o.name = "rank " + std::to_string(r);
            synth::generate(w, o);
        }
        QFile bad(m_dir + QStringLiteral("/rank-9.wt"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("this is not a wheretime file");
    }

    void tablesAreAnalysissAndTheClis()
    {
        JobView view;
        QVERIFY(loadInto(view, m_dir));
        const JobSummary job = expectedJob();
        QCOMPARE(view.result()->job.ranks.size(), size_t(kRanks));
        const std::string ranks = render::csv(view.ranksModel()->table());
        QCOMPARE(ranks, render::csv(jobRanksTable(job)));
        QCOMPARE(render::csv(view.layersModel()->table()), render::csv(jobLayersTable(job)));
        QString err;
        const QByteArray cli = test::cliBytes({QStringLiteral("job"), m_dir, QStringLiteral("--csv")}, &err);
        QVERIFY2(!cli.isEmpty(), qPrintable(err));
        QCOMPARE(QByteArray::fromStdString(ranks), cli);
        const QByteArray cliLayers = test::cliBytes({QStringLiteral("job"), m_dir, QStringLiteral("--csv"), QStringLiteral("--layers")}, &err);
        QCOMPARE(QByteArray::fromStdString(render::csv(view.layersModel()->table())), cliLayers);
        // The damaged file: one line naming it; the other seven opened.
        QVERIFY2(view.message().startsWith(QStringLiteral("left out: ")), qPrintable(view.message()));
        QVERIFY(view.message().contains(QStringLiteral("rank-9.wt")));
        QVERIFY(!view.message().contains(QLatin1Char('\n')));
        // Exports: the ranks CSV is the CLI's bytes; the chart is an image.
        const QString csv = QString::fromStdString(test::tempPath("jobview.csv"));
        QString why;
        QVERIFY2(view.exportChart(csv, &why), qPrintable(why));
        QCOMPARE(test::fileBytes(csv), cli);
        const QString png = QString::fromStdString(test::tempPath("jobview.png"));
        QVERIFY2(view.exportChart(png, &why, QSize(900, 500)), qPrintable(why));
        QVERIFY(QFileInfo(png).size() > 1000);
    }

    void chartMarksTheStraggler()
    {
        JobView view;
        view.resize(1200, 900);
        view.show();
        QVERIFY(loadInto(view, m_dir));
        const JobSummary job = expectedJob();
        const Table& t = view.ranksModel()->table();
        const JobChartData& d = view.plot()->data();
        QCOMPARE(int(d.bars.size()), kRanks);
        for (int r = 0; r < kRanks; ++r) {
            QCOMPARE(d.bars[size_t(r)].label, QString::number(r));
            QCOMPARE(d.bars[size_t(r)].valueNs, numberOf(t.at(size_t(r), "step_median_ns")));
            QCOMPARE(d.bars[size_t(r)].valueNs, job.ranks[size_t(r)].step.median);
            QCOMPARE(d.bars[size_t(r)].straggler, r == kSlow);   // the planted one, no other
        }
        QVERIFY(d.medianNs && d.thresholdNs);
        QCOMPARE(*d.medianNs, job.rule.medianNs);
        QCOMPARE(*d.thresholdNs, job.rule.thresholdNs);
        QVERIFY(d.bars[kSlow].valueNs > *d.thresholdNs);
        QVERIFY(d.bars[0].valueNs < *d.thresholdNs);
        QVERIFY(d.subtitle.contains(QStringLiteral("7 ranks, 1 straggler")));
    }

    void layerChooserShowsTheLayer()
    {
        JobView view;
        QVERIFY(loadInto(view, m_dir));
        const JobSummary job = expectedJob();
        QVERIFY(view.layerBox()->count() > 1);
        QCOMPARE(view.layerBox()->itemData(0).toString(), QString());
        const QString layer = view.layerBox()->itemData(1).toString();   // the largest layer
        view.layerBox()->setCurrentIndex(1);
        QCOMPARE(view.layer(), layer);
        const Table expected = jobRanksTable(job, layer.toStdString());
        QCOMPARE(render::csv(view.ranksModel()->table()), render::csv(expected));
        const JobChartData& d = view.plot()->data();
        QVERIFY(d.valueName.startsWith(layer));
        QVERIFY(!d.thresholdNs);   // the straggler rule is the step's
        for (int r = 0; r < kRanks; ++r)
            QCOMPARE(d.bars[size_t(r)].valueNs, numberOf(expected.at(size_t(r), "layer_per_step_ns")));
        QVERIFY(d.bars[kSlow].valueNs > 1.2 * d.bars[0].valueNs);   // every kernel of rank 5 is 1.3x
        view.layerBox()->setCurrentIndex(0);
        QCOMPARE(render::csv(view.ranksModel()->table()), render::csv(jobRanksTable(job)));
    }

    void clicksSelectAndOpen()
    {
        JobView view;
        view.resize(1200, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(loadInto(view, m_dir));
        view.plot()->replot();
        QSignalSpy open(&view, &JobView::openRank);
        const QPointF bar = view.plot()->pixelOfRow(3);
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, bar.toPoint());
        QCOMPARE(view.selectedRow(), 3);
        QCOMPARE(view.plot()->highlighted(), 3);
        QCOMPARE(open.count(), 0);
        QTest::mouseDClick(view.plot(), Qt::LeftButton, {}, view.plot()->pixelOfRow(kSlow).toPoint());
        QCOMPARE(open.count(), 1);
        QVERIFY(open.at(0).at(0).toString().endsWith(QStringLiteral("/rank-5.wt")));
        QCOMPARE(view.selectedRow(), kSlow);
        // A double click on a table row opens its rank too.
        QTableView* table = view.ranksView();
        const QRect cell = table->visualRect(view.ranksModel()->index(1, 1));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());   // the view's pressed index
        QCOMPARE(view.selectedRow(), 1);
        QCOMPARE(view.plot()->highlighted(), 1);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(open.count(), 2);
        QVERIFY(open.at(1).at(0).toString().endsWith(QStringLiteral("/rank-1.wt")));
    }

    void mainWindowOpensTheRank()
    {
        MainWindow window;
        JobActions* actions = JobActions::install(&window);
        QVERIFY(window.fileMenu()->actions().contains(actions->action()));
        actions->showJob(m_dir);
        QSignalSpy ready(actions->view(), &JobView::ready);
        QVERIFY(ready.wait(60000));
        emit actions->view()->openRank(actions->view()->fileOfRow(2));
        QTRY_VERIFY_WITH_TIMEOUT(window.currentFile().endsWith(QStringLiteral("/rank-2.wt")), 30000);
        actions->view()->close();
    }

    void badInputInOneLine()
    {
        JobView view;
        QSignalSpy failed(&view, &JobView::failed);
        view.load(m_dir + QStringLiteral("/missing"));
        QVERIFY(failed.wait(30000));
        QString why = failed.at(0).at(0).toString();
        QVERIFY2(why.endsWith(QStringLiteral("/missing: no such directory")), qPrintable(why));
        QVERIFY(!why.contains(QLatin1Char('\n')));
        QVERIFY(!view.result());

        const QString empty = QString::fromStdString(test::tempPath("jobview-empty"));
        QVERIFY(QDir().mkpath(empty));
        view.load(empty);
        QVERIFY(failed.wait(30000));
        why = failed.at(1).at(0).toString();
        QVERIFY2(why.contains(QStringLiteral("no .wt files")), qPrintable(why));

        // Only damaged files: none readable, said with the first one's reason.
        const QString broken = QString::fromStdString(test::tempPath("jobview-broken"));
        QVERIFY(QDir().mkpath(broken));
        QVERIFY(QFile::copy(m_dir + QStringLiteral("/rank-9.wt"), broken + QStringLiteral("/rank-0.wt")));
        view.load(broken);
        QVERIFY(failed.wait(30000));
        why = failed.at(2).at(0).toString();
        QVERIFY2(why.contains(QStringLiteral("none of the 1 file(s)")) && why.contains(QStringLiteral("rank-0.wt")), qPrintable(why));
    }
};

QTEST_MAIN(TestJobView)
#include "tst_jobview.moc"
