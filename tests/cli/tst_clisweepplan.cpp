// `capture --sweep` and `predict --sweep` read one sweep plan (kernels/sweepplan.h): each
// malformed sweep is refused by both with the same one-line message and exit 2, before any file is
// written; predict sweeps the preset like capture. A damaged calibration or predictor in a file is
// a one-line error (exit 1) that names it and says what is wrong (analysis/jsonvalue.h).
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

using namespace wt;
using test::runCli;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString firstLine(const QString& text) { return text.section(QLatin1Char('\n'), 0, 0); }

}  // namespace

class TestCliSweepPlan : public QObject {
    Q_OBJECT
private slots:
    void sameRefusals_data();
    void sameRefusals();
    void predictSweepsThePreset();
    void damagedBodies();
};

void TestCliSweepPlan::sameRefusals_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("message");
    QTest::newRow("no '='") << QStringList{"--sweep", "hidden"}
                            << "--sweep needs KEY=v1,v2,... (e.g. hidden=256,512), got 'hidden'";
    QTest::newRow("no values") << QStringList{"--sweep", "hidden="} << "--sweep hidden has no values";
    QTest::newRow("empty value") << QStringList{"--sweep", "hidden=8,,16"} << "--sweep hidden: an empty value in '8,,16'";
    QTest::newRow("trailing comma") << QStringList{"--sweep", "hidden=8,"} << "--sweep hidden: an empty value in '8,'";
    QTest::newRow("value twice") << QStringList{"--sweep", "hidden=8,16,8"} << "--sweep hidden: value '8' is given twice";
    QTest::newRow("three keys") << QStringList{"--sweep", "hidden=8", "--sweep", "variant=full", "--sweep", "batch=2"}
                                << "at most two --sweep options (a grid)";
    QTest::newRow("key twice") << QStringList{"--sweep", "hidden=8,16", "--sweep", "hidden=4"}
                               << "--sweep hidden is given twice";
    QTest::newRow("and --variant") << QStringList{"--variant", "full", "--sweep", "variant=full,fused"}
                                   << "--sweep variant=... and --variant cannot be combined";
    QTest::newRow("and --preset") << QStringList{"--sweep", "preset=tiny,small"}
                                  << "--sweep preset=... and --preset cannot be combined";
    QTest::newRow("and --set") << QStringList{"--set", "hidden=16", "--sweep", "hidden=8,32"}
                               << "--sweep hidden=... and --set hidden=... cannot be combined";
}

void TestCliSweepPlan::sameRefusals()
{
    QFETCH(QStringList, options);
    QFETCH(QString, message);
    const QString file = q(test::tempPath("refused.wt"));
    // --preset tiny on both: the preset conflict row needs it, the others ignore it.
    const QStringList capture = QStringList{"capture", "--workload", "gcn", "--preset", "tiny", "--backend", "cpu", "--steps", "1"}
                                << options << "-o" << file;
    const QStringList predict = QStringList{"predict", "--workload", "gcn", "--preset", "tiny", "--device", "h100"} << options
                                                                                                                  << "-o" << file;
    const auto c = runCli(capture), p = runCli(predict);
    QCOMPARE(c.exitCode, 2);
    QCOMPARE(p.exitCode, 2);
    QCOMPARE(firstLine(c.err), "wheretime capture: " + message);
    QCOMPARE(firstLine(p.err), "wheretime predict: " + message);
    QVERIFY(!QFile::exists(file));   // refused before anything is written
}

void TestCliSweepPlan::predictSweepsThePreset()
{
    const QString file = q(test::tempPath("presets.wt"));
    auto r = runCli({"predict", "--workload", "gcn", "--device", "a100", "--sweep", "preset=tiny,small", "-o", file});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    const auto runs = reader.runs();
    QCOMPARE(runs.size(), size_t(2));
    QCOMPARE(runs[0].preset, std::string("tiny"));
    QCOMPARE(runs[1].preset, std::string("small"));
    QCOMPARE(runs[1].name, std::string("gcn-adaptive-small-predicted-a100-preset=small"));
    QVERIFY(runs[0].kernelTimeNs < runs[1].kernelTimeNs);   // the small preset is larger
}

void TestCliSweepPlan::damagedBodies()
{
    const QString file = q(test::tempPath("damaged.wt"));
    {
        Database db(file.toStdString(), OpenMode::ReadWrite);
        CostModelStore store(db);
        // A class key holding '}' and '"', then the body cut: the old reader read the class up to
        // the brace; now the cut is named.
        store.put(StoredCostModel{"cut", "predictor", "", "{\"name\":\"cut\",\"classes\":[{\"key\":\"a}\\\"b\",\"overhead_ns\":1"});
        store.put(StoredCostModel{"typed", "device", "", "{\"name\":\"typed\",\"fp32_flops\":\"fast\",\"memory_bytes_per_s\":1}"});
    }
    auto p = runCli({"predict", "--workload", "gcn", "--preset", "tiny", "--device", "h100", "--model", "cut", "-o", file});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.err, "wheretime: error: predictor 'cut' in " + file + " is damaged: truncated JSON\n");
    auto d = runCli({"predict", "--workload", "gcn", "--preset", "tiny", "--device", "typed", "-o", file});
    QCOMPARE(d.exitCode, 1);
    QCOMPARE(d.err, "wheretime: error: calibration 'typed' in " + file + " is damaged: fp32_flops: a string, not a number\n");
    Database db(file.toStdString(), OpenMode::ReadOnly);
    QCOMPARE(Reader(db).runs().size(), size_t(0));   // nothing written
}

QTEST_GUILESS_MAIN(TestCliSweepPlan)
#include "tst_clisweepplan.moc"
