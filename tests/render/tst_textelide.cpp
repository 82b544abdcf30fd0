// The middle elide of names: exact widths, both ends kept, UTF-8 never split.
#include "render/textelide.h"

#include <QTest>

using namespace wt;

class TestTextElide : public QObject {
    Q_OBJECT
private slots:
    void elide_data();
    void elide();
    void utf8();
};

void TestTextElide::elide_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("width");
    QTest::addColumn<QString>("expected");
    QTest::newRow("fits") << "abcdef" << 6 << "abcdef";
    QTest::newRow("no limit") << "abcdef" << 0 << "abcdef";
    QTest::newRow("odd keep") << "abcdefghij" << 5 << QString::fromUtf8("ab\xE2\x80\xA6ij");
    QTest::newRow("even keep") << "abcdefghij" << 6 << QString::fromUtf8("abc\xE2\x80\xA6ij");
    QTest::newRow("narrow") << "abcdefghij" << 2 << "ab";
    QTest::newRow("three") << "abcdefghij" << 3 << QString::fromUtf8("a\xE2\x80\xA6j");
    // Two autograd names that a 48-character cut made equal stay apart.
    QTest::newRow("autograd") << "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad" << 40
                              << QString::fromUtf8("autograd::engine::ev\xE2\x80\xA6rad::AccumulateGrad");
}

void TestTextElide::elide()
{
    QFETCH(QString, text);
    QFETCH(int, width);
    QFETCH(QString, expected);
    const std::string out = elideMiddle(text.toStdString(), size_t(width));
    QCOMPARE(QString::fromStdString(out), expected);
    if (width > 0)
        QVERIFY(displayLength(out) <= size_t(width));
}

void TestTextElide::utf8()
{
    const std::string text = "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9";   // six é (2 bytes each)
    QCOMPARE(displayLength(text), size_t(6));
    const std::string out = elideMiddle(text, 4);
    QCOMPARE(displayLength(out), size_t(4));
    QCOMPARE(out, std::string("\xC3\xA9\xC3\xA9\xE2\x80\xA6\xC3\xA9"));
}

QTEST_GUILESS_MAIN(TestTextElide)
#include "tst_textelide.moc"
