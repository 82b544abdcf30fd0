// Models of the GUI under QAbstractItemModelTester: the run list and the browser's proxy
// (sort by raw values, filter across columns).
#include "app/gui/core/runlistmodel.h"
#include "app/gui/widgets/runbrowser.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace wt::gui;

namespace {

std::vector<wt::RunInfo> sampleRuns()
{
    std::vector<wt::RunInfo> runs;
    const char* names[] = {"gcn-full", "transformer-adaptive", "imported-nsys"};
    const wt::RunStatus status[] = {wt::RunStatus::Complete, wt::RunStatus::Interrupted, wt::RunStatus::Failed};
    for (int i = 0; i < 3; ++i) {
        wt::RunInfo r;
        r.id = i + 1;
        r.name = names[i];
        r.workload = i == 2 ? "nsys" : "lm";
        r.variant = i == 1 ? "adaptive" : "full";
        r.backend = i == 2 ? "import" : "cupti";
        r.device = "NVIDIA H100";
        r.startedAt = "2026-01-0" + std::to_string(i + 1) + "T10:00:00Z";
        r.durationNs = int64_t(3 - i) * 1000000000;
        r.kernels = (i + 1) * 900;   // sorted as numbers: 900 < 1800 < 2700 (not as text)
        r.status = status[i];
        r.droppedRecords = i == 1 ? 12 : 0;
        runs.push_back(r);
    }
    return runs;
}

}  // namespace

class TstGuiModels : public QObject {
    Q_OBJECT
private slots:
    void liveRunRow()
    {
        // A run being captured reads "writing (live)"; updateRun changes its row in place (the
        // live follower's new summary, then its final status) and leaves others alone.
        RunListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<wt::RunInfo> runs = sampleRuns();
        runs[1].status = wt::RunStatus::Writing;
        model.setRuns(runs);
        const QModelIndex status = model.index(1, RunListModel::Status);
        QCOMPARE(model.data(status).toString(), QStringLiteral("writing (live)"));
        QCOMPARE(model.data(status, RunListModel::SortRole).toString(), QStringLiteral("writing"));
        QVERIFY(model.data(status, RunListModel::LiveRole).toBool());
        QVERIFY(!model.data(model.index(0, RunListModel::Status), RunListModel::LiveRole).toBool());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        wt::RunInfo grown = runs[1];
        grown.kernels = 5000;
        QVERIFY(model.updateRun(grown));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
        QCOMPARE(model.data(model.index(1, RunListModel::Kernels), RunListModel::SortRole).toLongLong(), 5000);
        grown.status = wt::RunStatus::Complete;
        QVERIFY(model.updateRun(grown));
        QCOMPARE(model.data(status).toString(), QStringLiteral("complete"));
        QVERIFY(!model.data(status, RunListModel::LiveRole).toBool());
        wt::RunInfo absent;
        absent.id = 99;
        QVERIFY(!model.updateRun(absent));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.data(model.index(0, RunListModel::Kernels), RunListModel::SortRole).toLongLong(), 900);
    }

    void runListModel()
    {
        RunListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(sampleRuns());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(RunListModel::NUM_COLUMNS));
        QCOMPARE(model.data(model.index(1, RunListModel::Status)).toString(), QStringLiteral("interrupted"));
        QCOMPARE(model.data(model.index(2, RunListModel::Status)).toString(), QStringLiteral("failed"));
        QVERIFY(model.data(model.index(2, RunListModel::Status), Qt::ForegroundRole).isValid());   // stands out
        QVERIFY(!model.data(model.index(0, RunListModel::Status), Qt::ForegroundRole).isValid());
        QCOMPARE(model.data(model.index(0, RunListModel::Duration)).toString(), QStringLiteral("3.000 s"));
        QCOMPARE(model.data(model.index(2, 0), RunListModel::RunIdRole).toLongLong(), 3);
        QCOMPARE(model.rowOfRun(2), 1);
        QCOMPARE(model.rowOfRun(99), -1);
        model.setRuns({});
        QCOMPARE(model.rowCount(), 0);
    }

    void browserSortAndFilter()
    {
        RunBrowser browser;
        QAbstractItemModelTester tester(browser.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        browser.model()->setRuns(sampleRuns());
        QSortFilterProxyModel* proxy = browser.proxy();
        proxy->sort(RunListModel::Kernels, Qt::AscendingOrder);
        QCOMPARE(proxy->data(proxy->index(0, RunListModel::Name)).toString(), QStringLiteral("gcn-full"));
        QCOMPARE(proxy->data(proxy->index(2, RunListModel::Name)).toString(), QStringLiteral("imported-nsys"));
        proxy->sort(RunListModel::Duration, Qt::AscendingOrder);
        QCOMPARE(proxy->data(proxy->index(0, RunListModel::Name)).toString(), QStringLiteral("imported-nsys"));
        browser.filter()->setText(QStringLiteral("ADAPTIVE"));
        QCOMPARE(proxy->rowCount(), 1);
        QCOMPARE(proxy->data(proxy->index(0, RunListModel::Name)).toString(), QStringLiteral("transformer-adaptive"));
        browser.filter()->setText(QStringLiteral("interrupted"));
        QCOMPARE(proxy->rowCount(), 1);
        browser.filter()->clear();
        QCOMPARE(proxy->rowCount(), 3);
    }
};

QTEST_MAIN(TstGuiModels)
#include "tst_guimodels.moc"
