// TimeRange (normalized, the clip rule), the duration formatter and the parsers of durations
// and ranges the CLI takes: data-driven, no run needed.
#include "analysis/duration.h"
#include "analysis/timerange.h"

#include <QTest>

using namespace wt;

Q_DECLARE_METATYPE(std::optional<int64_t>)

class TestTimeRange : public QObject {
    Q_OBJECT
private slots:
    void normalized()
    {
        QCOMPARE((TimeRange{50, 10}.normalized()), (TimeRange{10, 50}));
        QCOMPARE((TimeRange{10, 50}.normalized()), (TimeRange{10, 50}));
        QCOMPARE((TimeRange{10, 50}.durationNs()), int64_t(40));
        QVERIFY((TimeRange{5, 5}.isEmpty()));
        QCOMPARE(TimeRange::fromDouble(20.5, 10.2), (TimeRange{10, 21}));
    }

    void clip_data()
    {
        QTest::addColumn<qlonglong>("start");
        QTest::addColumn<qlonglong>("duration");
        QTest::addColumn<bool>("counted");
        QTest::addColumn<qlonglong>("inside");
        // Range [100, 200).
        QTest::newRow("inside") << 120LL << 30LL << true << 30LL;
        QTest::newRow("straddles start") << 90LL << 30LL << true << 20LL;
        QTest::newRow("straddles end") << 190LL << 30LL << true << 10LL;
        QTest::newRow("covers range") << 50LL << 500LL << true << 100LL;
        QTest::newRow("ends at start") << 80LL << 20LL << false << 0LL;
        QTest::newRow("starts at end") << 200LL << 10LL << false << 0LL;
        QTest::newRow("before") << 10LL << 5LL << false << 0LL;
        QTest::newRow("zero length inside") << 150LL << 0LL << true << 0LL;
        QTest::newRow("zero length at start") << 100LL << 0LL << true << 0LL;
        QTest::newRow("zero length at end") << 200LL << 0LL << false << 0LL;
    }
    void clip()
    {
        QFETCH(qlonglong, start);
        QFETCH(qlonglong, duration);
        QFETCH(bool, counted);
        QFETCH(qlonglong, inside);
        auto in = TimeRange{100, 200}.clip(start, duration);
        QCOMPARE(in.has_value(), counted);
        if (counted)
            QCOMPARE(qlonglong(*in), inside);
    }

    void format_data()
    {
        QTest::addColumn<double>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("ns") << 950.0 << QStringLiteral("950 ns");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0 ns");
        QTest::newRow("us") << 12500.0 << QStringLiteral("12.50 us");
        QTest::newRow("ms") << 3.2e6 << QStringLiteral("3.200 ms");
        QTest::newRow("hundreds of ms") << 906.8e6 << QStringLiteral("906.8 ms");
        QTest::newRow("s") << 1.234e9 << QStringLiteral("1.234 s");
        QTest::newRow("negative") << -2500.0 << QStringLiteral("-2.500 us");
    }
    void format()
    {
        QFETCH(double, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatDuration(ns)), text);
    }

    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qlonglong>("ns");   // -1 = rejected
        QTest::newRow("plain ns") << QStringLiteral("1500") << 1500LL;
        QTest::newRow("ns unit") << QStringLiteral("1500ns") << 1500LL;
        QTest::newRow("us fraction") << QStringLiteral("1.5us") << 1500LL;
        QTest::newRow("ms") << QStringLiteral("2ms") << 2000000LL;
        QTest::newRow("s") << QStringLiteral("0.25s") << 250000000LL;
        QTest::newRow("space before unit") << QStringLiteral("3 ms") << 3000000LL;
        QTest::newRow("rounds") << QStringLiteral("1.0004us") << 1000LL;
        QTest::newRow("bad unit") << QStringLiteral("2min") << -1LL;
        QTest::newRow("negative") << QStringLiteral("-5") << -1LL;
        QTest::newRow("empty") << QString() << -1LL;
        QTest::newRow("unit only") << QStringLiteral("ms") << -1LL;
        QTest::newRow("two dots") << QStringLiteral("1.2.3us") << -1LL;
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(qlonglong, ns);
        auto v = parseDuration(text.toStdString());
        QCOMPARE(v.has_value(), ns >= 0);
        if (v)
            QCOMPARE(qlonglong(*v), ns);
    }

    void parseRange()
    {
        QCOMPARE(parseTimeRange("2ms:5ms"), std::optional<TimeRange>(TimeRange{2000000, 5000000}));
        QCOMPARE(parseTimeRange("1000:2000"), std::optional<TimeRange>(TimeRange{1000, 2000}));
        QCOMPARE(parseTimeRange("1.5us:2us"), std::optional<TimeRange>(TimeRange{1500, 2000}));
        QVERIFY(!parseTimeRange("5ms:2ms"));   // backwards
        QVERIFY(!parseTimeRange("5ms"));
        QVERIFY(!parseTimeRange("1:2:3"));
        QVERIFY(!parseTimeRange("a:b"));
    }
};

QTEST_GUILESS_MAIN(TestTimeRange)
#include "tst_timerange.moc"
