// storage/isotime: the one ISO 8601 helper. UTC to the second, rounded down (also before 1970),
// the extended form with 'Z' and the basic form for ids; "now" is the wall clock.
#include "storage/isotime.h"

#include <QTest>

#include <ctime>

using namespace wt;

class TestIsoTime : public QObject {
    Q_OBJECT

private slots:
    void formats_data()
    {
        QTest::addColumn<qint64>("epochNs");
        QTest::addColumn<QString>("extended");
        QTest::addColumn<QString>("basic");
        QTest::newRow("epoch") << qint64(0) << "1970-01-01T00:00:00Z" << "19700101T000000";
        QTest::newRow("y2k") << qint64(946684800) * 1000000000 << "2000-01-01T00:00:00Z" << "20000101T000000";
        QTest::newRow("leap day, last ns of the second")
            << qint64(1709210096999999999) << "2024-02-29T12:34:56Z" << "20240229T123456";
        QTest::newRow("one ns before 1970") << qint64(-1) << "1969-12-31T23:59:59Z" << "19691231T235959";
        QTest::newRow("one second before 1970") << qint64(-1000000000) << "1969-12-31T23:59:59Z" << "19691231T235959";
        QTest::newRow("2^61 ns (the time bound)") << (qint64(1) << 61) << "2043-01-25T23:56:49Z" << "20430125T235649";
        QTest::newRow("-2^61 ns") << -(qint64(1) << 61) << "1896-12-06T00:03:10Z" << "18961206T000310";
    }
    void formats()
    {
        QFETCH(qint64, epochNs);
        QFETCH(QString, extended);
        QFETCH(QString, basic);
        QCOMPARE(QString::fromStdString(isoUtc(epochNs)), extended);
        QCOMPARE(QString::fromStdString(isoUtcCompact(epochNs)), basic);
    }

    void now()
    {
        const std::time_t before = std::time(nullptr);
        const std::string text = isoUtcNow();
        const std::time_t after = std::time(nullptr);
        QCOMPARE(text.size(), size_t(20));
        std::tm tm{};
        QVERIFY(strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) != nullptr);
        const std::time_t t = timegm(&tm);
        QVERIFY2(t >= before && t <= after, text.c_str());
        QVERIFY(epochNowNs() / 1000000000 >= int64_t(after));
    }
};

QTEST_GUILESS_MAIN(TestIsoTime)
#include "tst_isotime.moc"
