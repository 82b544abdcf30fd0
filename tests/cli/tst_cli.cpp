// The `wheretime` CLI as a user runs it: help, version, usage errors, runs and stats output
// (JSON, CSV, table) on generated runs, and bad files.
#include "bench/synth/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace wt;
using test::runCli;

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void helpAndVersion();
    void usageErrors();
    void runsJson();
    void statsJsonAndCsv();
    void statsRunSelector();
    void badFiles();

private:
    QString m_file;
    synth::Result m_first, m_second;
};

void TestCli::initTestCase()
{
    m_file = QString::fromStdString(test::tempPath("cli.wt"));
    Database db(m_file.toStdString(), OpenMode::ReadWrite);
    Writer w(db);
    synth::Options o;
    o.kernels = 3000;
    o.name = "first";
    m_first = synth::generate(w, o);
    o.kernels = 1234;
    o.seed = 9;
    o.name = "second";
    m_second = synth::generate(w, o);
}

void TestCli::helpAndVersion()
{
    auto help = runCli({QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(QStringLiteral("stats")));
    QVERIFY(help.out.contains(QStringLiteral("runs")));
    auto version = runCli({QStringLiteral("--version")});
    QCOMPARE(version.exitCode, 0);
    QVERIFY(version.out.startsWith(QStringLiteral("wheretime ")));
    auto sub = runCli({QStringLiteral("stats"), QStringLiteral("--help")});
    QCOMPARE(sub.exitCode, 0);
    QVERIFY(sub.out.contains(QStringLiteral("--group-by")));
}

void TestCli::usageErrors()
{
    QCOMPARE(runCli({}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("frobnicate")}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("runs")}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("runs"), m_file, QStringLiteral("--bogus")}).exitCode, 2);
    auto r = runCli({QStringLiteral("stats"), m_file, QStringLiteral("--group-by"), QStringLiteral("colour")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QStringLiteral("colour")));
    QCOMPARE(runCli({QStringLiteral("stats"), m_file, QStringLiteral("--depth"), QStringLiteral("x")}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("stats"), m_file, QStringLiteral("--json"), QStringLiteral("--csv")}).exitCode, 2);
}

void TestCli::runsJson()
{
    auto r = runCli({QStringLiteral("runs"), m_file, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonParseError err;
    QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QJsonArray runs = doc.array();
    QCOMPARE(runs.size(), 2);
    QJsonObject first = runs[0].toObject();
    QCOMPARE(first[QStringLiteral("id")].toInteger(), m_first.runId);
    QCOMPARE(first[QStringLiteral("name")].toString(), QStringLiteral("first"));
    QCOMPARE(first[QStringLiteral("kernels")].toInteger(), m_first.kernels);
    QCOMPARE(first[QStringLiteral("status")].toString(), QStringLiteral("complete"));
    for (const char* key : {"workload", "variant", "backend", "device"})
        QVERIFY2(first.contains(QLatin1String(key)), key);
    auto table = runCli({QStringLiteral("runs"), m_file});
    QCOMPARE(table.exitCode, 0);
    QVERIFY(table.out.contains(QStringLiteral("second")));
}

void TestCli::statsJsonAndCsv()
{
    auto r = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":first"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o[QStringLiteral("run")].toInteger(), m_first.runId);
    QCOMPARE(o[QStringLiteral("kernels")].toInteger(), m_first.kernels);
    QCOMPARE(o[QStringLiteral("kernel_time_ns")].toInteger(), m_first.kernelTimeNs);
    QVERIFY(o[QStringLiteral("busy_ns")].toInteger() > 0);
    QVERIFY(o[QStringLiteral("busy_ns")].toInteger() <= m_first.kernelTimeNs);
    QVERIFY(o[QStringLiteral("span_ns")].toInteger() >= o[QStringLiteral("busy_ns")].toInteger());
    QJsonArray groups = o[QStringLiteral("groups")].toArray();
    QVERIFY(groups.size() >= 3);   // embedding, decoder.*, softmax
    double shares = 0;
    qint64 total = 0;
    for (const auto& g : groups) {
        shares += g.toObject()[QStringLiteral("share")].toDouble();
        total += g.toObject()[QStringLiteral("time_ns")].toInteger();
        QVERIFY(g.toObject().contains(QStringLiteral("count")));
        QVERIFY(g.toObject().contains(QStringLiteral("path")));
    }
    QVERIFY(std::abs(shares - 1.0) < 1e-9);
    QCOMPARE(total, m_first.kernelTimeNs);

    auto csv = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":first"), QStringLiteral("--csv"),
                       QStringLiteral("--group-by"), QStringLiteral("kernel")});
    QCOMPARE(csv.exitCode, 0);
    QStringList lines = csv.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines[0], QStringLiteral("name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns"));
    qint64 csvTotal = 0;
    for (int i = 1; i < lines.size(); ++i) {   // names may hold quoted commas: count from the end
        QStringList fields = lines[i].split(QLatin1Char(','));
        csvTotal += fields.at(fields.size() - 7).toLongLong();
        const qint64 count = fields.at(fields.size() - 5).toLongLong(), minNs = fields.at(fields.size() - 2).toLongLong(),
                     maxNs = fields.at(fields.size() - 1).toLongLong(), time = fields.at(fields.size() - 7).toLongLong();
        QVERIFY(minNs * count <= time && time <= maxNs * count);
    }
    QCOMPARE(csvTotal, m_first.kernelTimeNs);

    auto within = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":first"), QStringLiteral("--json"),
                          QStringLiteral("--group-by"), QStringLiteral("op"), QStringLiteral("--within"), QStringLiteral("layer=softmax")});
    QCOMPARE(within.exitCode, 0);
    QJsonObject w = QJsonDocument::fromJson(within.out.toUtf8()).object();
    qint64 softmax = 0;
    for (const auto& g : groups)
        if (g.toObject()[QStringLiteral("path")].toString() == QStringLiteral("softmax"))
            softmax = g.toObject()[QStringLiteral("time_ns")].toInteger();
    QVERIFY(softmax > 0);
    QCOMPARE(w[QStringLiteral("total_ns")].toInteger(), softmax);

    auto text = runCli({QStringLiteral("stats"), m_file});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains(QStringLiteral("second")));   // default run is the newest
}

void TestCli::statsRunSelector()
{
    auto byId = runCli({QStringLiteral("stats"), m_file + QLatin1Char(':') + QString::number(m_second.runId), QStringLiteral("--json")});
    QCOMPARE(byId.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(byId.out.toUtf8()).object()[QStringLiteral("kernels")].toInteger(), m_second.kernels);
    auto missing = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":999")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains(QStringLiteral("no run with id 999")));
}

void TestCli::badFiles()
{
    auto missing = runCli({QStringLiteral("runs"), QStringLiteral("/nonexistent/x.wt")});
    QCOMPARE(missing.exitCode, 1);
    QCOMPARE(missing.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY(missing.err.contains(QStringLiteral("no such file")));
    QString junk = QString::fromStdString(test::tempPath("junk.wt"));
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("definitely not sqlite");
    f.close();
    auto notDb = runCli({QStringLiteral("stats"), junk});
    QCOMPARE(notDb.exitCode, 1);
    QVERIFY(notDb.err.contains(QStringLiteral("not an SQLite database")));
    QCOMPARE(notDb.err.trimmed().count(QLatin1Char('\n')), 0);
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
