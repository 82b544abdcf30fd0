// Folding property: for random rows (serial and overlapping) and random windows, every item
// overlapping the window is drawn exactly once, alone or inside one fold, and nothing outside
// the window is drawn. Also: occlusion spans cover exactly the drawn columns, hit testing.
#include "app/gui/core/drawlist.h"
#include "app/gui/core/timelinelayout.h"

#include <QTest>

#include <random>
#include <vector>

using namespace wt::gui;

namespace {

struct VecSeq {
    std::vector<int64_t> starts, ends;
    int64_t maxDur = 0;
    size_t size() const { return starts.size(); }
    int64_t start(size_t i) const { return starts[i]; }
    int64_t end(size_t i) const { return ends[i]; }
    int64_t maxDuration() const { return maxDur; }
    QRgb color(size_t i) const { return qRgb(int(i / 7 % 3) * 60, 0, 0); }   // runs of equal color
};

VecSeq randomRow(std::mt19937_64& rng, size_t n, bool overlapping)
{
    VecSeq s;
    std::exponential_distribution<double> gap(1.0 / 200), dur(1.0 / 150);
    std::uniform_int_distribution<int> longOne(0, 200);
    double t = 0;
    for (size_t i = 0; i < n; ++i) {
        t += overlapping ? gap(rng) * 0.3 : gap(rng);
        int64_t start = int64_t(t);
        int64_t d = int64_t(dur(rng));
        if (longOne(rng) == 0)
            d *= 200;   // an occasional long item
        if (longOne(rng) == 1)
            d = 0;      // and zero-length ones
        if (!overlapping && !s.ends.empty())
            start = std::max(start, s.ends.back());
        s.starts.push_back(start);
        s.ends.push_back(start + d);
        s.maxDur = std::max(s.maxDur, d);
        if (!overlapping)
            t = double(start + d);
    }
    return s;
}

bool visible(const VecSeq& s, size_t i, double t0, double t1)
{
    return double(s.starts[i]) < t1 && double(std::max(s.ends[i], s.starts[i] + 1)) > t0;
}

}  // namespace

class TstFolding : public QObject {
    Q_OBJECT
private slots:
    void everyItemOnce_data()
    {
        QTest::addColumn<bool>("overlapping");
        QTest::addColumn<double>("minPx");
        QTest::newRow("serial stream, 3 px") << false << 3.0;
        QTest::newRow("overlapping lane, 3 px") << true << 3.0;
        QTest::newRow("serial stream, 1 px") << false << 1.0;
        QTest::newRow("overlapping lane, 8 px") << true << 8.0;
    }
    void everyItemOnce()
    {
        QFETCH(bool, overlapping);
        QFETCH(double, minPx);
        std::mt19937_64 rng(overlapping ? 7 : 3);
        int folds = 0, singles = 0;
        for (int round = 0; round < 60; ++round) {
            size_t n = size_t(std::uniform_int_distribution<int>(0, 4000)(rng));
            VecSeq s = randomRow(rng, n, overlapping);
            double total = s.ends.empty() ? 1000 : double(s.ends.back() + s.maxDur);
            for (int w = 0; w < 20; ++w) {
                // Windows from everything down to a few ns, anywhere (also past the ends).
                double span = total * std::pow(10.0, -std::uniform_real_distribution<double>(0, 6)(rng));
                double t0 = std::uniform_real_distribution<double>(-0.1 * total, total)(rng);
                int width = std::uniform_int_distribution<int>(50, 2000)(rng);
                TimeMapping m(t0, t0 + span, width);
                std::vector<DrawItem> items;
                foldRow(s, m, FoldOptions{minPx}, items);
                std::vector<int> drawn(n, 0);
                size_t sum = 0;
                for (const DrawItem& d : items) {
                    QVERIFY(d.count >= 1);
                    QCOMPARE(d.isFold(), d.count > 1);
                    QVERIFY(d.x1 > d.x0);
                    QVERIFY(d.x0 >= -2.0f && d.x1 <= float(width) + 2.0f);
                    for (uint32_t i = d.first; i < d.first + d.count; ++i) {
                        QVERIFY(i < n);
                        ++drawn[i];
                    }
                    sum += d.count;
                    (d.count > 1 ? folds : singles)++;
                }
                size_t inWindow = 0;
                for (size_t i = 0; i < n; ++i) {
                    bool vis = visible(s, i, m.startNs(), m.endNs());
                    inWindow += vis;
                    if (drawn[i] != (vis ? 1 : 0))
                        QFAIL(qPrintable(QStringLiteral("item %1 [%2, %3) drawn %4 times, window [%5, %6)")
                                             .arg(i).arg(s.starts[i]).arg(s.ends[i]).arg(drawn[i])
                                             .arg(m.startNs(), 0, 'f', 1).arg(m.endNs(), 0, 'f', 1)));
                }
                QCOMPARE(sum, inWindow);   // sum of fold counts plus singles = items in the window
                // A frame never holds more than a few items per pixel on a serial stream.
                if (!overlapping)
                    QVERIFY(items.size() <= size_t(width) + 4);
            }
        }
        QVERIFY(folds > 0);
        QVERIFY(singles > 0);
    }

    void wideItemsStayAlone()
    {
        // 1000 tiny items then one wide one: the wide one must not hide in the fold.
        VecSeq s;
        for (int i = 0; i < 1000; ++i) {
            s.starts.push_back(i * 10);
            s.ends.push_back(i * 10 + 5);
        }
        s.starts.push_back(10000);
        s.ends.push_back(20000);
        s.maxDur = 10000;
        TimeMapping m(0, 20000, 200);
        std::vector<DrawItem> items;
        foldRow(s, m, {}, items);
        QVERIFY(items.size() >= 2);
        QCOMPARE(items.back().first, 1000u);
        QCOMPARE(items.back().count, 1u);
        QVERIFY(qAbs(items.back().x1 - 200.0f) < 0.01f);
    }

    void flattenCoversDrawnColumns()
    {
        std::mt19937_64 rng(11);
        for (int round = 0; round < 50; ++round) {
            VecSeq s = randomRow(rng, 3000, true);
            int width = 700;
            TimeMapping m(double(s.starts[500]), double(s.starts[2500]), width);
            std::vector<DrawItem> items;
            foldRow(s, m, {}, items);
            std::vector<PaintSpan> spans;
            flattenRow(items, width, spans);
            std::vector<int> owner(size_t(width), -1);
            for (size_t k = 0; k < items.size(); ++k)
                for (int c = std::max(0, int(std::floor(items[k].x0))); c < std::min(width, int(std::ceil(items[k].x1))); ++c)
                    owner[size_t(c)] = int(k);   // later items on top
            int prevEnd = 0;
            for (const PaintSpan& p : spans) {
                QVERIFY(p.x0 >= prevEnd && p.x1 > p.x0 && p.x1 <= width);
                prevEnd = p.x1;
                for (int c = p.x0; c < p.x1; ++c)
                    QCOMPARE(owner[size_t(c)], int(p.item));
                QCOMPARE(hitTest(spans, p.x0 + 0.5), int(p.item));
            }
            QVERIFY(spans.size() <= size_t(width));
        }
    }
};

QTEST_GUILESS_MAIN(TstFolding)
#include "tst_folding.moc"
