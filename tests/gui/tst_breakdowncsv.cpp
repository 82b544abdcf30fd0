// One breakdown CSV: `wheretime stats --csv`, the GUI's table (BreakdownModel::toCsv, what
// "Export table as CSV..." writes), the view's copy/selection CSV and the report's
// breakdown-*.csv are the same bytes, for a CPU capture of a bundled workload (op features:
// FLOPs, bytes and rates filled in), an Nsight Systems import and a Kineto import, at every
// grouping the report writes (layer, phase, op, kernel, category). All four are render::csv of
// analysis's breakdownTable, so this holds by construction; the test keeps it so.
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/export/report.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/viewstate.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTableView>
#include <QTest>

#include <map>

using namespace wt;
using namespace wt::gui;

namespace {

const QByteArray kHeader = "name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns,flops,bytes,flop_per_s,bytes_per_s\n";

using test::cliBytes;
using test::firstDifference;
using test::fileBytes;

// `what` is a QString: which copy, at which grouping.
#define COMPARE_BYTES(actual, expected, what)                                                                         \
    QVERIFY2((actual) == (expected), qPrintable(QStringLiteral("%1 differs from stats --csv at %2")                    \
                                                    .arg(QString(what), firstDifference((actual), (expected)))))

}  // namespace

class TstBreakdownCsv : public QObject {
    Q_OBJECT
private slots:
    void sameBytesEverywhere_data();
    void sameBytesEverywhere();

private:
    std::map<QString, QString> m_files;
};

void TstBreakdownCsv::sameBytesEverywhere_data()
{
    QTest::addColumn<QString>("input");   // empty: a CPU capture of the tiny GCN
    QTest::newRow("cpu capture") << QString();
    QTest::newRow("nsys import") << QStringLiteral("nsys-2022.2_a100_saxpy-mpi.sqlite");
    QTest::newRow("kineto import") << QStringLiteral("kineto-hta_2ranks_rank-0.json.gz");
}

void TstBreakdownCsv::sameBytesEverywhere()
{
    QFETCH(QString, input);
    QString trace;
    if (!input.isEmpty()) {
        trace = test::sharedTrace(input);
        if (trace.isEmpty())
            WT_MISSING_TRACE(input);
    }
    const test::OneRunFile one = test::captureOrImport(trace, input.isEmpty() ? std::string("cpu") : input.toStdString());
    QVERIFY2(!one.path.isEmpty(), qPrintable(one.err));
    const QString file = one.path;
    const int64_t runId = one.runId;
    std::shared_ptr<const RunData> run = loadRun(file.toStdString(), runId);
    QVERIFY(run);
    auto source = BreakdownSource::load(run);

    // The report, once: its breakdown-*.csv files.
    ReportOptions o;
    o.outDir = QString::fromStdString(test::tempPath("report-" + std::to_string(m_files.size())));
    o.file = file;
    o.chartSize = QSize(400, 300);
    o.timelineSize = QSize(600, 300);
    const ReportResult report = writeReport(o);
    QVERIFY2(report.ok, qPrintable(report.error));
    m_files[input] = file;

    ViewState state;
    BreakdownView view(&state);
    view.setSource(source);
    for (GroupBy g : {GroupBy::Layer, GroupBy::Phase, GroupBy::Op, GroupBy::Kernel, GroupBy::Category}) {
        const QString by = QString::fromLatin1(toString(g).data(), qsizetype(toString(g).size()));
        QString err;
        const QByteArray cli = cliBytes({QStringLiteral("stats"), file, QStringLiteral("--group-by"), by, QStringLiteral("--csv")}, &err);
        QVERIFY2(!cli.isEmpty(), qPrintable(err));
        QVERIFY2(cli.startsWith(kHeader), cli.left(200).constData());
        QVERIFY2(cli.count('\n') > 1, qPrintable(by));   // some group
        // The table model (the export writes exactly this).
        BreakdownModel model;
        model.setResult(source->compute({g, {}}));
        COMPARE_BYTES(model.toCsv().toUtf8(), cli, QStringLiteral("BreakdownModel::toCsv ") + by);
        // The view: nothing selected copies every row, in the breakdown's order.
        view.setGroupBy(g);
        view.waitForResult();
        COMPARE_BYTES(view.selectedCsv().toUtf8(), cli, QStringLiteral("BreakdownView::selectedCsv ") + by);
        COMPARE_BYTES(view.model()->toCsv().toUtf8(), cli, QStringLiteral("the view's export ") + by);
        // The view shows the name (not the path), no sum of bytes, FLOPs and rates where known.
        QVERIFY(view.table()->isColumnHidden(BreakdownModel::PathColumn));
        QVERIFY(view.table()->isColumnHidden(BreakdownModel::BytesColumn));
        QVERIFY(!view.table()->isColumnHidden(BreakdownModel::NameColumn));
        QVERIFY(!view.table()->isColumnHidden(BreakdownModel::MaxColumn));
        QCOMPARE(view.table()->isColumnHidden(BreakdownModel::FlopRateColumn), !view.model()->hasCost());
        QCOMPARE(view.model()->hasCost(), input.isEmpty());
        // The report.
        COMPARE_BYTES(fileBytes(QDir(o.outDir).filePath(QStringLiteral("breakdown-%1.csv").arg(by))), cli, QStringLiteral("report ") + by);
        // A capture of a bundled workload has op features: FLOPs, bytes and rates are filled in.
        if (input.isEmpty() && g == GroupBy::Layer) {
            const QList<QByteArray> lines = cli.trimmed().split('\n');
            for (qsizetype i = 1; i < lines.size(); ++i)
                QVERIFY2(!lines[i].endsWith(",,,,"), lines[i].constData());
        }
        // Imports have none: the last four fields are empty.
        if (!input.isEmpty()) {
            const QList<QByteArray> lines = cli.trimmed().split('\n');
            for (qsizetype i = 1; i < lines.size(); ++i)
                QVERIFY2(lines[i].endsWith(",,,,"), lines[i].constData());
        }
    }
}

QTEST_MAIN(TstBreakdownCsv)
#include "tst_breakdowncsv.moc"
