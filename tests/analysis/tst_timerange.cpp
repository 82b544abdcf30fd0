// TimeRange (normalized, the clip rule): data-driven, no run needed. Durations as text and the
// --range parser are render's: tests/render/tst_textformat.cpp.
#include "analysis/timerange.h"

#include <QTest>

using namespace wt;

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
};

QTEST_GUILESS_MAIN(TestTimeRange)
#include "tst_timerange.moc"
