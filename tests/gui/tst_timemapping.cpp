// Time-to-pixel mapping, zoom and pan arithmetic, ruler ticks and duration formatting.
#include "app/gui/core/timeformat.h"
#include "app/gui/core/timemapping.h"

#include <QRegularExpression>
#include <QTest>

using wt::gui::TimeMapping;

class TstTimeMapping : public QObject {
    Q_OBJECT
private slots:
    void mapping_data()
    {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("end");
        QTest::addColumn<int>("width");
        QTest::addColumn<double>("time");
        QTest::addColumn<double>("x");
        QTest::newRow("origin") << 0.0 << 1000.0 << 100 << 0.0 << 0.0;
        QTest::newRow("middle") << 0.0 << 1000.0 << 100 << 500.0 << 50.0;
        QTest::newRow("right edge") << 0.0 << 1000.0 << 100 << 1000.0 << 100.0;
        QTest::newRow("left of view") << 1000.0 << 2000.0 << 100 << 500.0 << -50.0;
        QTest::newRow("offset ms") << 5e6 << 6e6 << 1000 << 5.25e6 << 250.0;
        QTest::newRow("large absolute") << 1.0e12 << 1.0e12 + 1000 << 1000 << 1.0e12 + 1 << 1.0;
        QTest::newRow("hidpi width") << 0.0 << 3840.0 << 3840 << 1920.0 << 1920.0;
    }
    void mapping()
    {
        QFETCH(double, start);
        QFETCH(double, end);
        QFETCH(int, width);
        QFETCH(double, time);
        QFETCH(double, x);
        TimeMapping m(start, end, width);
        QCOMPARE(m.startNs(), start);
        QCOMPARE(m.endNs(), end);
        QVERIFY(qAbs(m.x(time) - x) < 1e-6);
        QVERIFY(qAbs(m.timeAt(x) - time) < 1e-3);
    }

    void zoomAt_data()
    {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::addColumn<double>("expectStart");
        QTest::addColumn<double>("expectEnd");
        // View [0, 1000) on 100 px, limits wide open.
        QTest::newRow("in at center") << 50.0 << 2.0 << 250.0 << 750.0;
        QTest::newRow("in at left") << 0.0 << 2.0 << 0.0 << 500.0;
        QTest::newRow("in at right") << 100.0 << 4.0 << 750.0 << 1000.0;
        QTest::newRow("out at center") << 50.0 << 0.5 << -500.0 << 1500.0;
        QTest::newRow("deepest zoom is 10 ns") << 50.0 << 1e9 << 495.0 << 505.0;
    }
    void zoomAt()
    {
        QFETCH(double, x);
        QFETCH(double, factor);
        QFETCH(double, expectStart);
        QFETCH(double, expectEnd);
        TimeMapping m(0, 1000, 100);
        double anchor = m.timeAt(x);
        m.zoomAt(x, factor);
        QVERIFY2(qAbs(m.startNs() - expectStart) < 1e-6, qPrintable(QString::number(m.startNs())));
        QVERIFY2(qAbs(m.endNs() - expectEnd) < 1e-6, qPrintable(QString::number(m.endNs())));
        QVERIFY(qAbs(m.timeAt(x) - anchor) < 1e-6);   // the time under the cursor stays there
    }

    void limits_data()
    {
        QTest::addColumn<double>("panPx");
        QTest::addColumn<double>("zoomOut");
        QTest::addColumn<double>("expectStart");
        QTest::addColumn<double>("expectEnd");
        // Limits [0, 1000], view [200, 400) on 100 px.
        QTest::newRow("pan right") << 50.0 << 1.0 << 300.0 << 500.0;
        QTest::newRow("pan left") << -50.0 << 1.0 << 100.0 << 300.0;
        QTest::newRow("pan past the start stops") << -500.0 << 1.0 << 0.0 << 200.0;
        QTest::newRow("pan past the end stops") << 1000.0 << 1.0 << 800.0 << 1000.0;
        QTest::newRow("zoom out stops at the limits") << 0.0 << 100.0 << 0.0 << 1000.0;
    }
    void limits()
    {
        QFETCH(double, panPx);
        QFETCH(double, zoomOut);
        QFETCH(double, expectStart);
        QFETCH(double, expectEnd);
        TimeMapping m(200, 400, 100);
        m.setLimits(0, 1000);
        m.panPx(panPx);
        m.zoomAt(50, 1 / zoomOut);
        QVERIFY2(qAbs(m.startNs() - expectStart) < 1e-6, qPrintable(QString::number(m.startNs())));
        QVERIFY2(qAbs(m.endNs() - expectEnd) < 1e-6, qPrintable(QString::number(m.endNs())));
    }

    void widthKeepsRange()
    {
        TimeMapping m(100, 300, 200);
        m.setWidth(400);
        QCOMPARE(m.startNs(), 100.0);
        QCOMPARE(m.endNs(), 300.0);
        QCOMPARE(m.nsPerPx(), 0.5);
    }

    void reversedRange()
    {
        TimeMapping m(300, 100, 100);
        QCOMPARE(m.startNs(), 100.0);
        QCOMPARE(m.endNs(), 300.0);
    }

    void formatDuration_data()
    {
        QTest::addColumn<double>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("ns") << 950.0 << QStringLiteral("950 ns");
        QTest::newRow("us") << 12500.0 << QStringLiteral("12.50 us");
        QTest::newRow("ms") << 3.2e6 << QStringLiteral("3.200 ms");
        QTest::newRow("hundreds of ms") << 906.8e6 << QStringLiteral("906.8 ms");
        QTest::newRow("s") << 1.234e9 << QStringLiteral("1.234 s");
    }
    void formatDuration()
    {
        QFETCH(double, ns);
        QFETCH(QString, text);
        QCOMPARE(wt::gui::formatDuration(ns), text);
    }

    void ticks_data()
    {
        QTest::addColumn<double>("span");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<double>("step");
        QTest::newRow("1 us window") << 1000.0 << QStringLiteral("ns") << 50.0;
        QTest::newRow("1 ms window") << 1e6 << QStringLiteral("us") << 50000.0;
        QTest::newRow("1 s window") << 1e9 << QStringLiteral("ms") << 5e7;
        QTest::newRow("100 s window") << 1e11 << QStringLiteral("s") << 5e9;
    }
    void ticks()
    {
        QFETCH(double, span);
        QFETCH(QString, unit);
        QFETCH(double, step);
        TimeMapping m(0, span, 1800);
        QCOMPARE(wt::gui::tickStepNs(m.nsPerPx(), 90), step);
        auto ticks = wt::gui::rulerTicks(m, 0, 90);
        int majors = 0;
        double lastX = -1e9;
        for (const auto& t : ticks) {
            QVERIFY(t.x > lastX);
            lastX = t.x;
            if (t.major) {
                ++majors;
                QVERIFY2(t.label.endsWith(QLatin1Char(' ') + unit), qPrintable(t.label));
            }
        }
        QVERIFY(majors >= 10 && majors <= 21);
        QCOMPARE(ticks.front().label, QStringLiteral("0 ") + unit);
    }
    void deepZoomRuler_data()
    {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("span");
        QTest::addColumn<bool>("hasOffset");
        QTest::addColumn<QString>("offset");
        QTest::addColumn<QString>("firstMajor");
        // From time 0 at run scale: plain labels, as before.
        QTest::newRow("whole 1 s run") << 0.0 << 1e9 << false << QString() << QStringLiteral("0 ms");
        QTest::newRow("2 ms at 5 ms") << 5e6 << 2e6 << false << QString() << QStringLiteral("5000 us");
        // Deeper, labels from 0 would read "540950 us" or "1200000 us": an offset and "+" ticks
        // in the window's unit instead.
        QTest::newRow("10 us at 540.95 ms") << 540.95e6 << 1e4 << true << QStringLiteral("540.9500 ms") << QStringLiteral("+0.0 us");
        QTest::newRow("1 ms at 1.2 s") << 1.2e9 << 1e6 << true << QStringLiteral("1.20000 s") << QStringLiteral("+0.00 ms");
    }
    void deepZoomRuler()
    {
        QFETCH(double, start);
        QFETCH(double, span);
        QFETCH(bool, hasOffset);
        QFETCH(QString, offset);
        QFETCH(QString, firstMajor);
        TimeMapping m(start, start + span, 1800);
        const wt::gui::Ruler r = wt::gui::timeRuler(m, 90);
        QCOMPARE(r.hasOffset, hasOffset);
        QCOMPARE(r.offsetLabel, offset);
        QVERIFY(r.offsetNs <= start);
        QVERIFY(!r.ticks.empty());
        QString first;
        int majors = 0;
        for (const auto& t : r.ticks) {
            QVERIFY(t.timeNs >= start - span && t.timeNs <= start + span * 1.01);   // times stay from 0
            if (!t.major)
                continue;
            if (first.isEmpty())
                first = t.label;
            ++majors;
            QCOMPARE(t.label.startsWith(QLatin1Char('+')), hasOffset);
            // No label needs more than 4 digits with an offset.
            QVERIFY2(!hasOffset || t.label.count(QRegularExpression(QStringLiteral("[0-9]"))) <= 4, qPrintable(t.label));
        }
        QVERIFY(majors >= 10);
        QCOMPARE(first, firstMajor);
        QCOMPARE(wt::gui::formatTimeAt(540950000, 2000), QStringLiteral("540.950 ms"));
    }
};

QTEST_GUILESS_MAIN(TstTimeMapping)
#include "tst_timemapping.moc"
