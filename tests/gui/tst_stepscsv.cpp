// The steps and devices CSVs: `wheretime stats --group-by step --csv` and the report's steps.csv
// are the same bytes, and the report's devices.csv is render::csv of analysis's devicesTable
// with the values of `stats --json`'s "devices", for a CPU capture of a bundled workload and the
// Kineto trace of HTA's two ranks. All are the writer's rendering of analysis/gputimetable.h's
// tables, so this holds by construction; the test keeps it so. And `stats --group-by device`
// (text and --json) is the writer's rendering of ranksTable, for the two ranks as one run.
#include "app/gui/export/report.h"
#include "app/gui/core/rundata.h"
#include "analysis/gputimetable.h"
#include "analysis/scopetree.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace wt;
using namespace wt::gui;

namespace {

const QByteArray kStepsHeader = "name,start_ns,end_ns,kernels,kernel_time_ns,busy_ns,idle_ns,span_ns,comm_ns,comm_overlap_ns,"
                                "idle_share,compute_ns,non_compute_ns,comm_exposed_ns,memory_ops,memory_ns,memory_overlap_ns,"
                                "memory_exposed_ns,index\n";
const QByteArray kDevicesHeader = "id,name,start_ns,end_ns,kernels,memory_ops,kernel_time_ns,busy_ns,idle_ns,idle_share,span_ns,"
                                  "compute_ns,non_compute_ns,comm_ns,comm_overlap_ns,comm_exposed_ns,memory_ns,memory_overlap_ns,"
                                  "memory_exposed_ns\n";

using test::cliBytes;
using test::firstDifference;
using test::fileBytes;

#define COMPARE_BYTES(actual, expected, what)                                                                         \
    QVERIFY2((actual) == (expected), qPrintable(QStringLiteral("%1 differs at %2").arg(QString(what), firstDifference((actual), (expected)))))

}  // namespace

class TstStepsCsv : public QObject {
    Q_OBJECT
private slots:
    void sameBytesEverywhere_data();
    void sameBytesEverywhere();
    void ranks();
};

void TstStepsCsv::sameBytesEverywhere_data()
{
    QTest::addColumn<QString>("input");   // empty: a CPU capture of the tiny GCN
    QTest::newRow("cpu capture") << QString();
    QTest::newRow("kineto import") << QStringLiteral("kineto-hta_2ranks_rank-0.json.gz");
}

void TstStepsCsv::sameBytesEverywhere()
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

    ReportOptions o;
    o.outDir = QString::fromStdString(test::tempPath("report-steps-" + std::string(input.isEmpty() ? "cpu" : "kineto")));
    o.file = file;
    o.chartSize = QSize(400, 300);
    o.timelineSize = QSize(600, 300);
    const ReportResult report = writeReport(o);
    QVERIFY2(report.ok, qPrintable(report.error));
    QVERIFY(report.files.contains(QStringLiteral("steps.csv")) && report.files.contains(QStringLiteral("devices.csv")));

    // steps.csv: the bytes of `stats --group-by step --csv`.
    QString err;
    const QByteArray cli = cliBytes({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("step"), QStringLiteral("--csv")}, &err);
    QVERIFY2(!cli.isEmpty(), qPrintable(err));
    QVERIFY2(cli.startsWith(kStepsHeader), cli.left(300).constData());
    QCOMPARE(cli.count('\n'), 3);   // two steps
    const QByteArray steps = fileBytes(QDir(o.outDir).filePath(QStringLiteral("steps.csv")));
    COMPARE_BYTES(steps, cli, QStringLiteral("the report's steps.csv"));

    // devices.csv: render::csv of devicesTable over the run as the GUI loads it ...
    const QByteArray devices = fileBytes(QDir(o.outDir).filePath(QStringLiteral("devices.csv")));
    QVERIFY2(devices.startsWith(kDevicesHeader), devices.left(300).constData());
    std::shared_ptr<const RunData> run = loadRun(file.toStdString(), runId);
    QVERIFY(run);
    const Table table = devicesTable(computeDeviceTimes(*run->profile, run->activities()));
    QVERIFY(!table.rows.empty());
    COMPARE_BYTES(devices, QByteArray::fromStdString(render::csv(table)), QStringLiteral("the report's devices.csv"));
    // ... with the values of `stats --json`'s "devices", field by field.
    const QByteArray json = cliBytes({QStringLiteral("stats"), file, QStringLiteral("--json")}, &err);
    QVERIFY2(!json.isEmpty(), qPrintable(err));
    const QJsonArray rows = QJsonDocument::fromJson(json).object().value(QStringLiteral("devices")).toArray();
    const QList<QByteArray> lines = devices.trimmed().split('\n');
    QCOMPARE(rows.size(), lines.size() - 1);
    const QList<QByteArray> ids = lines[0].split(',');
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const QJsonObject r = rows[i].toObject();
        const QList<QByteArray> fields = lines[i + 1].split(',');   // device names here have no commas
        QCOMPARE(fields.size(), ids.size());
        QCOMPARE(r.size(), ids.size());
        for (qsizetype k = 0; k < ids.size(); ++k) {
            const QJsonValue v = r.value(QString::fromLatin1(ids[k]));
            if (v.isString())
                QCOMPARE(QString::fromUtf8(fields[k]), v.toString());
            else if (v.isNull())
                QVERIFY(fields[k].isEmpty());
            else if (ids[k] == "idle_share")
                QCOMPARE(fields[k].toDouble(), v.toDouble());
            else
                QCOMPARE(fields[k].toLongLong(), v.toInteger());
        }
    }
    // And "steps" of the JSON are the CSV's steps.
    QCOMPARE(QJsonDocument::fromJson(json).object().value(QStringLiteral("steps")).toArray().size(), cli.count('\n') - 1);
}

void TstStepsCsv::ranks()
{
    // The HTA pair imported as one run: `stats --group-by device` is ranksTable through the writer.
    const QString a = test::sharedTrace("kineto-hta_2ranks_rank-0.json.gz");
    const QString b = test::sharedTrace("kineto-hta_2ranks_rank-1.json.gz");
    if (a.isEmpty() || b.isEmpty())
        WT_MISSING_TRACE(a.isEmpty() ? "kineto-hta_2ranks_rank-0.json.gz" : "kineto-hta_2ranks_rank-1.json.gz");
    const QString file = QString::fromStdString(test::tempPath("ranks.wt"));
    const auto made = test::runCli({QStringLiteral("import"), QStringLiteral("--one-run"), a, b, QStringLiteral("-o"), file});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    Table table;
    {
        Database db(file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        const int64_t runId = reader.runs().front().id;
        table = ranksTable(computeRankStats(reader, runId, ScopeTree::load(reader, runId)));
    }
    QCOMPARE(table.rows.size(), size_t(2));
    QString err;
    const QByteArray json = cliBytes({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("device"),
                                      QStringLiteral("--json")}, &err);
    QVERIFY2(!json.isEmpty(), qPrintable(err));
    QVERIFY2(json.contains(QByteArray::fromStdString(",\"groups\":" + render::jsonRows(table) + "}\n")), json.constData());
    const QJsonArray groups = QJsonDocument::fromJson(json).object().value(QStringLiteral("groups")).toArray();
    QCOMPARE(groups.size(), 2);
    QCOMPARE(groups[0].toObject().value(QStringLiteral("straggler")).toInteger() + groups[1].toObject().value(QStringLiteral("straggler")).toInteger(),
             qint64(1));   // exactly one slowest rank
    // The text: the header line, then the table with the straggler as its note.
    const QByteArray text = cliBytes({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("device")}, &err);
    QVERIFY2(!text.isEmpty(), qPrintable(err));
    QVERIFY(text.startsWith("run "));
    QVERIFY2(text.endsWith(QByteArray::fromStdString("\n\n" + render::text(table))), text.constData());
    QVERIFY(text.contains("slowest rank (largest mean step): rank "));
}

QTEST_MAIN(TstStepsCsv)
#include "tst_stepscsv.moc"
