// Figures as text (render/textformat.h): the duration formatter, quantities with SI prefixes,
// shares and signed changes in percent (each against the text printf would write), and the
// parsers of durations and ranges the CLI and the GUI take: data-driven, no run needed.
#include "render/textformat.h"

#include <QTest>

#include <cstdio>
#include <limits>

using namespace wt;

Q_DECLARE_METATYPE(std::optional<int64_t>)

class TestTextFormat : public QObject {
    Q_OBJECT
private slots:
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

    void quantity_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << 950.0 << QStringLiteral("B") << QStringLiteral("950 B");
        QTest::newRow("rounds up a prefix") << 999.6 << QStringLiteral("B") << QStringLiteral("1.00 kB");
        QTest::newRow("giga") << 1.23e10 << QStringLiteral("FLOP/s") << QStringLiteral("12.3 GFLOP/s");
        QTest::newRow("three digits") << 37.5e9 << QStringLiteral("B/s") << QStringLiteral("37.5 GB/s");
        QTest::newRow("hundreds") << 456.7e6 << QStringLiteral("FLOP") << QStringLiteral("457 MFLOP");
        QTest::newRow("negative") << -2.5e3 << QStringLiteral("B") << QStringLiteral("-2.50 kB");
        QTest::newRow("not finite") << std::numeric_limits<double>::infinity() << QStringLiteral("B") << QStringLiteral("-");
    }
    void quantity()
    {
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatQuantity(value, unit.toStdString())), text);
    }

    // fixedText, formatShare and formatPercent write what printf writes ("%.*f", correctly
    // rounded), on values around the rounding edges.
    void percentLikePrintf()
    {
        const double values[] = {0.0, 0.1234, 0.00049, 0.00051, -0.00049, 0.125, 0.0125, 1.0, 12.25, -3.0, 99.95, 1e-9, -0.04};
        for (double v : values) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.1f%%", v * 100.0);
            QCOMPARE(formatShare(v), std::string(buf));
            std::snprintf(buf, sizeof buf, "%s%.1f%%", v > 0 ? "+" : "", v);
            QCOMPARE(formatPercent(v), std::string(buf));
            for (int decimals : {0, 1, 3}) {
                std::snprintf(buf, sizeof buf, "%.*f", decimals, v * 1000.0);
                QCOMPARE(fixedText(v * 1000.0, decimals), std::string(buf));
            }
        }
        QCOMPARE(formatShare(0.25), std::string("25.0%"));
        QCOMPARE(formatPercent(12.5), std::string("+12.5%"));
        QCOMPARE(formatPercent(-10.0), std::string("-10.0%"));
        QCOMPARE(formatPercent(0.0), std::string("0.0%"));
    }
};

QTEST_GUILESS_MAIN(TestTextFormat)
#include "tst_textformat.moc"
