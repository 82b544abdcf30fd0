// `wheretime sql`: CSV, JSON and table output, statements from standard input, read-only, and
// one-line errors with a non-zero exit for a missing file, a file that is not ours and bad SQL.
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace wt;
using test::runCli;

class TestCliSql : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void csvAndJson();
    void tableOutput();
    void statementsFromStdin();
    void readOnly();
    void badInput();

private:
    QString m_file;
    synth::Result m_run;
};

namespace {

QByteArray digest(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

}  // namespace

void TestCliSql::initTestCase()
{
    m_file = QString::fromStdString(test::tempPath("clisql.wt"));
    Database db(m_file.toStdString(), OpenMode::ReadWrite);
    Writer w(db);
    synth::Options o;
    o.kernels = 4000;
    o.streams = 3;
    m_run = synth::generate(w, o);
}

void TestCliSql::csvAndJson()
{
    const QString query = QStringLiteral(
        "SELECT stream, count(*) AS n, sum(duration_ns) AS ns, 'a,\"b' AS odd, NULL AS missing, 0.5 AS half "
        "FROM kernels GROUP BY stream ORDER BY stream");
    auto csv = runCli({QStringLiteral("sql"), m_file, query, QStringLiteral("--csv")});
    QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
    QStringList lines = csv.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines[0], QStringLiteral("stream,n,ns,odd,missing,half"));
    int64_t count = 0, ns = 0;
    for (int i = 1; i < lines.size(); ++i) {
        QVERIFY2(lines[i].endsWith(QStringLiteral(",\"a,\"\"b\",,0.5")), qPrintable(lines[i]));
        const QStringList f = lines[i].split(QLatin1Char(','));
        count += f[1].toLongLong();
        ns += f[2].toLongLong();
    }
    QCOMPARE(count, m_run.kernels);
    QCOMPARE(ns, m_run.kernelTimeNs);

    auto json = runCli({QStringLiteral("sql"), m_file, query, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    QJsonParseError error{};
    const QJsonArray rows = QJsonDocument::fromJson(json.out.toUtf8(), &error).array();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(rows.size(), 3);
    count = 0;
    for (const QJsonValue& v : rows) {
        const QJsonObject row = v.toObject();
        count += row[QStringLiteral("n")].toInteger();
        QCOMPARE(row[QStringLiteral("odd")].toString(), QStringLiteral("a,\"b"));
        QVERIFY(row[QStringLiteral("missing")].isNull());
        QCOMPARE(row[QStringLiteral("half")].toDouble(), 0.5);
    }
    QCOMPARE(count, m_run.kernels);
    // A statement without rows prints an empty array, not nothing.
    auto none = runCli({QStringLiteral("sql"), m_file, QStringLiteral("SELECT * FROM kernels WHERE start_ns < -1"),
                        QStringLiteral("--json")});
    QCOMPARE(none.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(none.out.toUtf8()).array().size(), 0);
    QVERIFY(none.out.startsWith(QLatin1Char('[')));
}

void TestCliSql::tableOutput()
{
    auto r = runCli({QStringLiteral("sql"), m_file, QStringLiteral("SELECT count(*) AS kernels FROM kernels; SELECT 1 AS a, 'xyz' AS b")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out, QStringLiteral("kernels\n%1\na  b\n1  xyz\n").arg(m_run.kernels));
}

void TestCliSql::statementsFromStdin()
{
    const QString cli = qEnvironmentVariable("WHERETIME_CLI");
    auto r = test::runProgram(QStringLiteral("/bin/sh"),
                              {QStringLiteral("-c"),
                               QStringLiteral("printf 'SELECT count(*)\\n FROM kernels;\\nSELECT 2;\\nSELECT nope FROM kernels;\\nSELECT 3' | \"$0\" sql \"$1\" --csv"),
                               cli, m_file});
    QCOMPARE(r.exitCode, 1);   // one statement failed; the others ran
    QCOMPARE(r.out, QStringLiteral("count(*)\n%1\n2\n2\n3\n3\n").arg(m_run.kernels));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(r.err.contains(QStringLiteral("no such column: nope")), qPrintable(r.err));
}

void TestCliSql::readOnly()
{
    const QByteArray before = digest(m_file);
    for (const char* sql : {"DELETE FROM runs", "CREATE TABLE t(x)", "UPDATE strings SET value = 'x'"}) {
        auto r = runCli({QStringLiteral("sql"), m_file, QString::fromLatin1(sql)});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.startsWith(QStringLiteral("wheretime: error: sql: ")), qPrintable(r.err));
    }
    QCOMPARE(digest(m_file), before);
    QVERIFY(!QFile::exists(m_file + QStringLiteral("-wal")));

    // VACUUM INTO is refused before it runs: it leaves no file anywhere, not even beside the
    // input (a -wal or -journal) nor in another directory.
    const QString elsewhere = QString::fromStdString(test::tempPath("vacuum-elsewhere"));
    QVERIFY(QDir().mkpath(elsewhere));
    const QStringList targets{elsewhere + QStringLiteral("/x.wt"), m_file + QStringLiteral("-wal"),
                              m_file + QStringLiteral("-journal"), elsewhere + QStringLiteral("/y.wt")};
    for (const QString& target : targets) {
        const QString sql = target.endsWith(QStringLiteral("y.wt"))
                                ? QStringLiteral("SELECT 1;\n  VACUUM\n INTO '%1';").arg(target)   // a later statement, over several lines
                                : QStringLiteral("VACUUM INTO '%1'").arg(target);
        auto r = runCli({QStringLiteral("sql"), m_file, sql});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.startsWith(QStringLiteral("wheretime: error: sql: refusing a statement that writes (VACUUM INTO '")),
                 qPrintable(r.err));
        QVERIFY2(!QFile::exists(target), qPrintable(target));
    }
    QVERIFY(QDir(elsewhere).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
    for (const char* sql : {"VACUUM", "PRAGMA journal_mode=WAL", "REINDEX", "ANALYZE"}) {
        auto r = runCli({QStringLiteral("sql"), m_file, QString::fromLatin1(sql)});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    }
    QCOMPARE(digest(m_file), before);
    QVERIFY(!QFile::exists(m_file + QStringLiteral("-wal")));
    QVERIFY(!QFile::exists(m_file + QStringLiteral("-journal")));
}

void TestCliSql::badInput()
{
    auto missing = runCli({QStringLiteral("sql"), QStringLiteral("/nonexistent/x.wt"), QStringLiteral("SELECT 1")});
    QCOMPARE(missing.exitCode, 1);
    QCOMPARE(missing.err, QStringLiteral("wheretime: error: /nonexistent/x.wt: no such file\n"));

    const QString text = QString::fromStdString(test::tempPath("notes.txt"));
    {
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are not runs\n");
    }
    auto notOurs = runCli({QStringLiteral("sql"), text, QStringLiteral("SELECT * FROM kernels")});
    QCOMPARE(notOurs.exitCode, 1);
    QCOMPARE(notOurs.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(notOurs.err.contains(QStringLiteral("not a wheretime file")), qPrintable(notOurs.err));

    auto badSql = runCli({QStringLiteral("sql"), m_file, QStringLiteral("SELEC * FROM kernels")});
    QCOMPARE(badSql.exitCode, 1);
    QCOMPARE(badSql.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(badSql.err.contains(QStringLiteral("syntax error")), qPrintable(badSql.err));
    QVERIFY(badSql.out.isEmpty());

    auto usage = runCli({QStringLiteral("sql")});
    QCOMPARE(usage.exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("sql"), m_file, QStringLiteral("SELECT 1"), QStringLiteral("--csv"), QStringLiteral("--json")}).exitCode, 2);
    auto help = runCli({QStringLiteral("sql"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(QStringLiteral("scope_instances")));
}

QTEST_GUILESS_MAIN(TestCliSql)
#include "tst_clisql.moc"
