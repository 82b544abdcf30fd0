// The sweep plan of capture --sweep and predict --sweep (kernels/sweepplan.h): values split at
// ',' or ';', the grid's combinations first key outermost, run-name tags, applied keys, and every
// refusal with its one-line message (data-driven).
#include "kernels/sweepplan.h"

#include <QTest>

using namespace wt::kernels;


class TestSweepPlan : public QObject {
    Q_OBJECT
private slots:
    void axisValues_data();
    void axisValues();
    void grid();
    void noSweep();
    void apply();
    void refused_data();
    void refused();
};

void TestSweepPlan::axisValues_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QStringList>("values");
    QTest::newRow("commas") << "hidden=256,512" << "hidden" << QStringList{"256", "512"};
    QTest::newRow("one value") << "variant=full" << "variant" << QStringList{"full"};
    QTest::newRow("semicolons keep commas") << "cutoffs=2000,10000;4000,20000" << "cutoffs"
                                            << QStringList{"2000,10000", "4000,20000"};
    QTest::newRow("value with '='") << "corpus=a=b" << "corpus" << QStringList{"a=b"};
}

void TestSweepPlan::axisValues()
{
    QFETCH(QString, text);
    QFETCH(QString, key);
    QFETCH(QStringList, values);
    const SweepAxis a = parseSweepAxis(text.toStdString());
    QCOMPARE(QString::fromStdString(a.key), key);
    QStringList got;
    for (const std::string& v : a.values)
        got << QString::fromStdString(v);
    QCOMPARE(got, values);
}

void TestSweepPlan::grid()
{
    const SweepPlan p = parseSweepPlan({"hidden=8,16", "variant=full,adaptive,fused"});
    QCOMPARE(p.axes.size(), size_t(2));
    QCOMPARE(p.combos.size(), size_t(6));
    QCOMPARE(p.combos[0], (std::vector<std::string>{"8", "full"}));
    QCOMPARE(p.combos[2], (std::vector<std::string>{"8", "fused"}));
    QCOMPARE(p.combos[3], (std::vector<std::string>{"16", "full"}));
    QCOMPARE(p.nameTag(4), std::string("-hidden=16-variant=adaptive"));
    const SweepPlan one = parseSweepPlan({"batch=2,4,8"});
    QCOMPARE(one.combos.size(), size_t(3));
    QCOMPARE(one.nameTag(2), std::string("-batch=8"));
}

void TestSweepPlan::noSweep()
{
    const SweepPlan p = parseSweepPlan({}, SweepFixed{true, true, {"hidden"}});
    QVERIFY(p.empty());
    QVERIFY(p.combos.empty());
    QCOMPARE(p.nameTag(0), std::string());
}

void TestSweepPlan::apply()
{
    std::string variant = "adaptive", preset = "tiny";
    std::vector<std::pair<std::string, std::string>> overrides{{"batch", "2"}};
    applySweepValue("variant", "full", variant, preset, overrides);
    applySweepValue("preset", "small", variant, preset, overrides);
    applySweepValue("hidden", "64", variant, preset, overrides);
    QCOMPARE(variant, std::string("full"));
    QCOMPARE(preset, std::string("small"));
    QCOMPARE(overrides, (std::vector<std::pair<std::string, std::string>>{{"batch", "2"}, {"hidden", "64"}}));
}

void TestSweepPlan::refused_data()
{
    QTest::addColumn<QStringList>("sweeps");
    QTest::addColumn<bool>("variantGiven");
    QTest::addColumn<QString>("setKey");
    QTest::addColumn<QString>("message");
    QTest::newRow("no '='") << QStringList{"hidden"} << false << ""
                            << "--sweep needs KEY=v1,v2,... (e.g. hidden=256,512), got 'hidden'";
    QTest::newRow("no key") << QStringList{"=1,2"} << false << "" << "--sweep needs KEY=v1,v2,... (e.g. hidden=256,512), got '=1,2'";
    QTest::newRow("no values") << QStringList{"hidden="} << false << "" << "--sweep hidden has no values";
    QTest::newRow("empty value") << QStringList{"hidden=8,,16"} << false << "" << "--sweep hidden: an empty value in '8,,16'";
    QTest::newRow("trailing comma") << QStringList{"hidden=8,16,"} << false << "" << "--sweep hidden: an empty value in '8,16,'";
    QTest::newRow("value twice") << QStringList{"hidden=8,16,8"} << false << "" << "--sweep hidden: value '8' is given twice";
    QTest::newRow("three keys") << QStringList{"a=1", "b=1", "c=1"} << false << "" << "at most two --sweep options (a grid)";
    QTest::newRow("key twice") << QStringList{"hidden=8", "hidden=16"} << false << "" << "--sweep hidden is given twice";
    QTest::newRow("and --variant") << QStringList{"variant=full"} << true << ""
                                   << "--sweep variant=... and --variant cannot be combined";
    QTest::newRow("and --set") << QStringList{"hidden=8"} << false << "hidden"
                               << "--sweep hidden=... and --set hidden=... cannot be combined";
}

void TestSweepPlan::refused()
{
    QFETCH(QStringList, sweeps);
    QFETCH(bool, variantGiven);
    QFETCH(QString, setKey);
    QFETCH(QString, message);
    std::vector<std::string> texts;
    for (const QString& s : sweeps)
        texts.push_back(s.toStdString());
    SweepFixed fixed;
    fixed.variant = variantGiven;
    if (!setKey.isEmpty())
        fixed.setKeys.push_back(setKey.toStdString());
    try {
        parseSweepPlan(texts, fixed);
        QFAIL("accepted");
    } catch (const SweepPlanError& e) {
        QCOMPARE(QString::fromStdString(e.what()), message);
    }
}

QTEST_GUILESS_MAIN(TestSweepPlan)
#include "tst_sweepplan.moc"
