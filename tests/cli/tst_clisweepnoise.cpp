// A sweep with repeats end to end over tiny CPU captures: `capture --sweep hidden=8,16 --repeat 3`
// then `wheretime sweep`: each point pools its 3 runs (n = 3 x the steps), and its interval is the
// t interval computed here by hand (t table, df 5) from what `compare ... --vs ...` (compare's own
// pooling of the same repeats) says of the layer: mean, n and standard deviation. Text shows the
// ± and the pooling; --json carries the columns.
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <map>

namespace {

// CSV without quoted fields (the tiny workload's names have no commas): rows keyed by the header.
std::vector<std::map<QString, QString>> csvRows(const QString& text)
{
    const QStringList lines = text.trimmed().split(QLatin1Char('\n'));
    const QStringList head = lines.value(0).split(QLatin1Char(','));
    std::vector<std::map<QString, QString>> rows;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList f = lines[i].split(QLatin1Char(','));
        std::map<QString, QString> row;
        for (qsizetype c = 0; c < head.size(); ++c)
            row[head[c]] = f.value(c);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

class TestCliSweepNoise : public QObject {
    Q_OBJECT
private slots:
    void repeatsPooledAndIntervalByHand();
};

void TestCliSweepNoise::repeatsPooledAndIntervalByHand()
{
    const QString file = QString::fromStdString(wt::test::tempPath("sweepnoise-cli.wt"));
    auto cap = wt::test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                                 QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                                 QStringLiteral("2"), QStringLiteral("--sweep"), QStringLiteral("hidden=8,16"), QStringLiteral("--repeat"),
                                 QStringLiteral("3"), QStringLiteral("-o"), file});
    QVERIFY2(cap.exitCode == 0, qPrintable(cap.err));
    // Runs 1..6 go round the configurations: 8, 16, 8, 16, 8, 16.
    auto sweep = wt::test::runCli({QStringLiteral("sweep"), file, QStringLiteral("--layer"), QStringLiteral("softmax"), QStringLiteral("--csv")});
    QVERIFY2(sweep.exitCode == 0, qPrintable(sweep.err));
    const auto rows = csvRows(sweep.out);
    QCOMPARE(rows.size(), size_t(2));
    const QStringList sides[2] = {{QStringLiteral(":1"), QStringLiteral(":3"), QStringLiteral(":5")},
                                  {QStringLiteral(":2"), QStringLiteral(":4"), QStringLiteral(":6")}};
    // Compare pools the same repeats its own way: hidden 8 as BASE, hidden 16 as OTHER.
    QStringList args{QStringLiteral("compare")};
    for (const QString& s : sides[0])
        args << file + s;
    args << QStringLiteral("--vs");
    for (const QString& s : sides[1])
        args << file + s;
    args << QStringLiteral("--csv");
    auto cmp = wt::test::runCli(args);
    QVERIFY2(cmp.exitCode == 0, qPrintable(cmp.err));
    std::map<QString, QString> softmax;
    for (const auto& r : csvRows(cmp.out))
        if (r.at(QStringLiteral("path")) == QStringLiteral("softmax"))
            softmax = r;
    QVERIFY(!softmax.empty());
    const double t5 = 2.570582;   // t(0.975, 5), from a t table
    for (int side = 0; side < 2; ++side) {
        const auto& row = rows[size_t(side)];
        QCOMPARE(row.at(QStringLiteral("hidden")), side == 0 ? QStringLiteral("8") : QStringLiteral("16"));
        QCOMPARE(row.at(QStringLiteral("repeats")), QStringLiteral("3"));
        QCOMPARE(row.at(QStringLiteral("n")), QStringLiteral("6"));
        const QString k = QString::number(side + 1);
        QCOMPARE(softmax.at(QStringLiteral("n_") + k), QStringLiteral("6"));
        const double mean = softmax.at(QStringLiteral("ns_") + k).toDouble(), sd = softmax.at(QStringLiteral("stddev_") + k).toDouble();
        const double layerNs = row.at(QStringLiteral("layer_ns")).toDouble();
        QVERIFY2(std::abs(layerNs - mean) <= 1e-9 * mean, qPrintable(row.at(QStringLiteral("layer_ns")) + QStringLiteral(" vs ") +
                                                                       softmax.at(QStringLiteral("ns_") + k)));
        QVERIFY(std::abs(row.at(QStringLiteral("stddev_ns")).toDouble() - sd) <= 1e-9 * sd + 1e-9);
        const double half = t5 * sd / std::sqrt(6.0);
        QVERIFY(std::abs(row.at(QStringLiteral("pm_ns")).toDouble() - half) <= 1e-6 * half + 1e-9);
        QVERIFY(std::abs(row.at(QStringLiteral("ci_low_ns")).toDouble() - (mean - half)) <= 1e-6 * mean);
        QVERIFY(std::abs(row.at(QStringLiteral("ci_high_ns")).toDouble() - (mean + half)) <= 1e-6 * mean);
    }
    // Text: the ± column and how the points were pooled.
    auto text = wt::test::runCli({QStringLiteral("sweep"), file});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY(text.out.contains(QStringLiteral("\u00b1")));
    QVERIFY2(text.out.contains(QStringLiteral("repeats pooled: 3 runs a point")), qPrintable(text.out));
    // JSON: the same columns as the CSV.
    auto json = wt::test::runCli({QStringLiteral("sweep"), file, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    const QJsonArray jr = QJsonDocument::fromJson(json.out.toUtf8()).object().value(QStringLiteral("rows")).toArray();
    QVERIFY(!jr.isEmpty());
    for (const QJsonValue& v : jr) {
        const QJsonObject o = v.toObject();
        QCOMPARE(o.value(QStringLiteral("repeats")).toInt(), 3);
        if (o.value(QStringLiteral("layer_ns")).isNull())
            continue;
        QCOMPARE(o.value(QStringLiteral("n")).toInt(), 6);
        QVERIFY(o.value(QStringLiteral("ci_low_ns")).toDouble() <= o.value(QStringLiteral("layer_ns")).toDouble());
        QVERIFY(o.value(QStringLiteral("ci_high_ns")).toDouble() >= o.value(QStringLiteral("layer_ns")).toDouble());
        QVERIFY(o.value(QStringLiteral("predicted_inside")).isNull());   // no predicted twin
    }
}

QTEST_GUILESS_MAIN(TestCliSweepNoise)
#include "tst_clisweepnoise.moc"
