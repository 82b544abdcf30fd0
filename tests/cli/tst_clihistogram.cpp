// wheretime stats F --histogram GROUP over a tiny CPU capture: the text (summary, a line per
// bin with a bar, the slowest instances), --json (bins that add up to n, the n of `stats
// --json`'s group, slowest longest first), --csv (the JSON's bins), --group-by step, and the
// refusals: an unknown group (one line naming near keys, exit 1) and options that do not go
// together (exit 2).
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace wt;

class TestCliHistogram : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void text();
    void jsonMatchesStats();
    void csvMatchesJson();
    void steps();
    void unknownGroup();
    void refusals();

private:
    QJsonObject json(const QStringList& args);
    QString m_file;
};

void TestCliHistogram::initTestCase()
{
    const test::OneRunFile one = test::captureOrImport(QString(), "tst_clihistogram");
    QVERIFY2(!one.path.isEmpty(), qPrintable(one.err));
    m_file = one.path;
}

QJsonObject TestCliHistogram::json(const QStringList& args)
{
    const auto r = test::runCli(QStringList{QStringLiteral("stats"), m_file} + args + QStringList{QStringLiteral("--json")});
    if (r.exitCode != 0)
        qWarning("%s", qPrintable(r.err));
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(r.out.toUtf8(), &e);
    if (e.error != QJsonParseError::NoError)
        qWarning("bad JSON: %s", qPrintable(e.errorString()));
    return d.object();
}

void TestCliHistogram::text()
{
    const auto r = test::runCli({QStringLiteral("stats"), m_file, QStringLiteral("--group-by"), QStringLiteral("kernel"),
                                 QStringLiteral("--histogram"), QStringLiteral("sgemm_nt"), QStringLiteral("--slowest"), QStringLiteral("3")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("histogram of kernel 'sgemm_nt' (kernels; 10 bins per decade; 2 steps)")), qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("median")) && r.out.contains(QStringLiteral("p95")));
    // Bin lines: "A .. B  count  share  per step  ###", in readable durations (ns, us or ms: the
    // tiny model's GEMMs take 0.5-3 us idle and longer on a loaded machine, so no unit is sure).
    const QStringList lines = r.out.split(QLatin1Char('\n'));
    const QRegularExpression bin(QStringLiteral("^[0-9.]+ (ns|us|ms|s) \\.\\. [0-9.]+ (ns|us|ms|s) .*#$"));
    int bars = 0;
    for (const QString& l : lines)
        if (bin.match(l).hasMatch())
            ++bars;
    QVERIFY2(bars >= 2, qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("slowest 3")));
}

void TestCliHistogram::jsonMatchesStats()
{
    const QJsonObject h = json({QStringLiteral("--histogram"), QStringLiteral("softmax")});
    QCOMPARE(h.value(QStringLiteral("group")).toString(), QStringLiteral("softmax"));
    QCOMPARE(h.value(QStringLiteral("group_by")).toString(), QStringLiteral("layer"));
    QCOMPARE(h.value(QStringLiteral("instances")).toString(), QStringLiteral("kernels"));
    QCOMPARE(h.value(QStringLiteral("steps")).toInt(), 2);
    const QJsonObject summary = h.value(QStringLiteral("summary")).toObject();
    const qint64 n = summary.value(QStringLiteral("count")).toInteger();
    QVERIFY(n > 0);
    qint64 sum = 0;
    qint64 prevHi = -1;
    for (const QJsonValue& v : h.value(QStringLiteral("bins")).toArray()) {
        const QJsonObject b = v.toObject();
        sum += b.value(QStringLiteral("count")).toInteger();
        if (prevHi >= 0)
            QCOMPARE(b.value(QStringLiteral("lo_ns")).toInteger(), prevHi);
        prevHi = b.value(QStringLiteral("hi_ns")).toInteger();
        QCOMPARE(b.value(QStringLiteral("per_step")).toDouble(), double(b.value(QStringLiteral("count")).toInteger()) / 2.0);
    }
    QCOMPARE(sum, n);
    // The n, median, min and max of stats' row for the group.
    const QJsonObject stats = json({});
    bool found = false;
    for (const QJsonValue& v : stats.value(QStringLiteral("groups")).toArray()) {
        const QJsonObject g = v.toObject();
        if (g.value(QStringLiteral("name")).toString() != QStringLiteral("softmax"))
            continue;
        found = true;
        QCOMPARE(g.value(QStringLiteral("count")).toInteger(), n);
        QCOMPARE(g.value(QStringLiteral("median_ns")).toInteger(), summary.value(QStringLiteral("median_ns")).toInteger());
        QCOMPARE(g.value(QStringLiteral("min_ns")).toInteger(), summary.value(QStringLiteral("min_ns")).toInteger());
        QCOMPARE(g.value(QStringLiteral("max_ns")).toInteger(), summary.value(QStringLiteral("max_ns")).toInteger());
        QCOMPARE(g.value(QStringLiteral("time_ns")).toInteger(), summary.value(QStringLiteral("total_ns")).toInteger());
    }
    QVERIFY(found);
    // Slowest: longest first, ten of them.
    const QJsonArray slow = h.value(QStringLiteral("slowest")).toArray();
    QCOMPARE(slow.size(), qsizetype(10));
    for (qsizetype i = 1; i < slow.size(); ++i)
        QVERIFY(slow[i - 1].toObject().value(QStringLiteral("duration_ns")).toInteger() >=
                slow[i].toObject().value(QStringLiteral("duration_ns")).toInteger());
    QCOMPARE(slow[0].toObject().value(QStringLiteral("duration_ns")).toInteger(), summary.value(QStringLiteral("max_ns")).toInteger());
}

void TestCliHistogram::csvMatchesJson()
{
    const QStringList args{QStringLiteral("stats"), m_file, QStringLiteral("--group-by"), QStringLiteral("kernel"),
                           QStringLiteral("--histogram"), QStringLiteral("sgd_update"), QStringLiteral("--bins-per-decade"), QStringLiteral("5")};
    const auto r = test::runCli(args + QStringList{QStringLiteral("--csv")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.takeFirst(), QStringLiteral("lo_ns,hi_ns,count,share,per_step"));
    const QJsonObject h = json({QStringLiteral("--group-by"), QStringLiteral("kernel"), QStringLiteral("--histogram"), QStringLiteral("sgd_update"),
                                QStringLiteral("--bins-per-decade"), QStringLiteral("5")});
    QCOMPARE(h.value(QStringLiteral("bins_per_decade")).toInt(), 5);
    const QJsonArray bins = h.value(QStringLiteral("bins")).toArray();
    QCOMPARE(qsizetype(lines.size()), bins.size());
    for (qsizetype i = 0; i < bins.size(); ++i) {
        const QStringList f = lines[i].split(QLatin1Char(','));
        const QJsonObject b = bins[i].toObject();
        QCOMPARE(f[0].toLongLong(), b.value(QStringLiteral("lo_ns")).toInteger());
        QCOMPARE(f[1].toLongLong(), b.value(QStringLiteral("hi_ns")).toInteger());
        QCOMPARE(f[2].toLongLong(), b.value(QStringLiteral("count")).toInteger());
    }
}

void TestCliHistogram::steps()
{
    const QJsonObject h = json({QStringLiteral("--group-by"), QStringLiteral("step"), QStringLiteral("--histogram"), QStringLiteral("all")});
    QCOMPARE(h.value(QStringLiteral("instances")).toString(), QStringLiteral("scopes"));
    QVERIFY(h.value(QStringLiteral("group")).isNull());
    QCOMPARE(h.value(QStringLiteral("summary")).toObject().value(QStringLiteral("count")).toInt(), 2);
    // The steps' GPU spans against stats --group-by step's span_ns.
    const QJsonObject s = json({QStringLiteral("--group-by"), QStringLiteral("step")});
    qint64 longest = 0;
    for (const QJsonValue& v : s.value(QStringLiteral("steps")).toArray())
        longest = std::max(longest, v.toObject().value(QStringLiteral("span_ns")).toInteger());
    QCOMPARE(h.value(QStringLiteral("summary")).toObject().value(QStringLiteral("max_ns")).toInteger(), longest);
}

void TestCliHistogram::unknownGroup()
{
    const auto r = test::runCli({QStringLiteral("stats"), m_file, QStringLiteral("--histogram"), QStringLiteral("sofmax")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    const QString err = r.err.trimmed();
    QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("no layer 'sofmax'")) && err.contains(QStringLiteral("near: 'softmax'")), qPrintable(err));
    const auto k = test::runCli({QStringLiteral("stats"), m_file, QStringLiteral("--group-by"), QStringLiteral("kernel"),
                                 QStringLiteral("--histogram"), QStringLiteral("sgemm")});
    QCOMPARE(k.exitCode, 1);
    QVERIFY2(k.err.contains(QStringLiteral("'sgemm_")), qPrintable(k.err));   // substring matches come first
}

void TestCliHistogram::refusals()
{
    const QList<QStringList> bad{
        {QStringLiteral("--histogram"), QStringLiteral("sgemm_nt"), QStringLiteral("--group-by"), QStringLiteral("kernel"),
         QStringLiteral("--instances"), QStringLiteral("scopes")},
        {QStringLiteral("--histogram"), QStringLiteral("softmax"), QStringLiteral("--instances"), QStringLiteral("threads")},
        {QStringLiteral("--histogram"), QStringLiteral("softmax"), QStringLiteral("--bins-per-decade"), QStringLiteral("0")},
        {QStringLiteral("--histogram"), QStringLiteral("softmax"), QStringLiteral("--range"), QStringLiteral("0:1ms")},
        {QStringLiteral("--histogram"), QStringLiteral("softmax"), QStringLiteral("--group-by"), QStringLiteral("device")},
        {QStringLiteral("--slowest"), QStringLiteral("3")},
    };
    for (const QStringList& args : bad) {
        const auto r = test::runCli(QStringList{QStringLiteral("stats"), m_file} + args);
        QVERIFY2(r.exitCode == 2, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
    }
}

QTEST_GUILESS_MAIN(TestCliHistogram)
#include "tst_clihistogram.moc"
