// Sizes out of range as a user meets them (docs/robustness.md, "Sizes and settings"): capture,
// predict and `workloads --ops` refuse them before anything is created: exit 1, exactly one
// line on stderr naming the setting and its limit, an existing -o file left byte for byte, a
// new -o path not created. Before, batch=2^61 crashed (exit 139, no message), hidden=2^62
// stored a complete run of 29 kernels and hidden=INT64_MAX failed allocating 2^64 bytes.
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

using wt::test::runCli;

namespace {

QByteArray contents(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestCliSizes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void refused_data();
    void refused();

private:
    QString m_file;   // one tiny run
};

void TestCliSizes::initTestCase()
{
    m_file = QString::fromStdString(wt::test::tempPath("sizes.wt"));
    auto r = runCli({"capture", "--workload", "gcn", "--preset", "tiny", "--backend", "cpu", "--steps", "1", "-o", m_file});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

void TestCliSizes::refused_data()
{
    QTest::addColumn<QStringList>("args");   // without -o
    QTest::addColumn<QString>("message");    // the one line after "wheretime: error: "
    const QStringList tinyCapture{"capture", "--preset", "tiny", "--backend", "cpu", "--steps", "1", "--workload"};
    const QStringList tinyPredict{"predict", "--preset", "tiny", "--device", "h200", "--workload"};
    const QString batchMessage = "batch=2305843009213693952 is out of range: batch must be between 1 and 2147483647";
    for (const char* w : {"gcn", "transformer", "bert", "groupbert"})
        QTest::addRow("capture %s batch=2^61", w) << tinyCapture + QStringList{w, "--set", "batch=2305843009213693952"}
                                                 << batchMessage;
    QTest::newRow("capture hidden=2^62") << tinyCapture + QStringList{"gcn", "--set", "hidden=4611686018427387904"}
                                         << "hidden=4611686018427387904 is out of range: hidden must be between 1 and 1048576";
    QTest::newRow("capture hidden=int64 max") << tinyCapture + QStringList{"gcn", "--set", "hidden=9223372036854775807"}
                                              << "hidden=9223372036854775807 is out of range: hidden must be between 1 and 1048576";
    QTest::newRow("capture seq=2^62") << tinyCapture + QStringList{"gcn", "--set", "seq=4611686018427387904"}
                                      << "seq=4611686018427387904 is out of range: seq must be between 1 and 2147483647";
    QTest::newRow("capture hidden=0") << tinyCapture + QStringList{"gcn", "--set", "hidden=0"}
                                      << "hidden=0 is out of range: hidden must be between 1 and 1048576";
    QTest::newRow("capture block-sparse bert block")
        << tinyCapture + QStringList{"bert", "--set", "density=0.5", "--set", "block=2305843009213693952"}
        << "block=2305843009213693952 is out of range: block must be between 1 and 1048576";
    QTest::newRow("capture product wraps int64")
        << tinyCapture + QStringList{"gcn", "--set", "batch=2147483647", "--set", "seq=2147483647", "--set", "hidden=1048576"}
        << "batch=2147483647 is out of range: batch*seq*hidden must stay below 2^31 (2147483647 x 2147483647 x 1048576)";
    QTest::newRow("capture full softmax logits")
        << tinyCapture + QStringList{"gcn", "--variant", "full", "--set", "batch=1048576", "--set", "vocab=4096"}
        << "batch=1048576 is out of range: batch*seq*vocab must stay below 2^31 (1048576 x 8 x 4096)";
    QTest::newRow("capture adaptive cluster")
        << tinyCapture + QStringList{"transformer", "--set", "batch=100000", "--set", "vocab=100000", "--set", "cutoffs=10"}
        << "batch=100000 is out of range: batch*seq*(vocab-cutoffs[0]) must stay below 2^31 (100000 x 8 x 99990)";
    // A sweep checks every value first: no run of it is captured.
    QTest::newRow("capture --sweep") << tinyCapture + QStringList{"gcn", "--sweep", "hidden=16,2305843009213693952"}
                                     << "--sweep: hidden=2305843009213693952 is out of range: hidden must be between 1 and 1048576";
    QTest::newRow("predict batch=2^61") << tinyPredict + QStringList{"gcn", "--set", "batch=2305843009213693952"}
                                        << batchMessage;
    QTest::newRow("predict attention scores")
        << tinyPredict + QStringList{"transformer", "--set", "heads=16", "--set", "seq=100000"}
        << "heads=16 is out of range: batch*heads*seq*seq must stay below 2^31 (2 x 16 x 100000 x 100000)";
    QTest::newRow("workloads --ops batch=2^61") << QStringList{"workloads", "gcn", "--set", "batch=2305843009213693952", "--ops"}
                                                << batchMessage;
    QTest::newRow("workloads --ops bert masked logits")
        << QStringList{"workloads", "bert", "--preset", "tiny", "--variant", "full", "--set", "batch=1000", "--set",
                       "vocab=2000000", "--ops"}
        << "batch=1000 is out of range: batch*masked_per_seq*vocab must stay below 2^31 (1000 x 2 x 2000000)";
}

void TestCliSizes::refused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QString line = "wheretime: error: " + message + "\n";
    if (args.first() == "workloads") {
        auto r = runCli(args);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err, line);
        QCOMPARE(r.out, QString());
        return;
    }
    // Into an existing file with a run: the file and its folder are as they were.
    const QByteArray before = contents(m_file);
    QVERIFY(!before.isEmpty());
    const QStringList folder = QFileInfo(m_file).dir().entryList(QDir::Files);
    auto r = runCli(args + QStringList{"-o", m_file});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err, line);
    QVERIFY(contents(m_file) == before);
    QCOMPARE(QFileInfo(m_file).dir().entryList(QDir::Files), folder);
    // Into a new path: nothing is created.
    const QString fresh = QString::fromStdString(wt::test::tempPath("fresh.wt"));
    r = runCli(args + QStringList{"-o", fresh});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err, line);
    QVERIFY(!QFileInfo::exists(fresh));
    QCOMPARE(QFileInfo(m_file).dir().entryList(QDir::Files), folder);
}

QTEST_GUILESS_MAIN(TestCliSizes)
#include "tst_clisizes.moc"
