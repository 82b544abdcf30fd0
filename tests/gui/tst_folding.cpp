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

// The same row with the FoldIndex the timeline builds at load (exact searches, bucket skips
// before the window, whole-bucket folds when zoomed out).
struct IndexedSeq : VecSeq {
    FoldIndex index;
    const FoldIndex& foldIndex() const { return index; }
};

IndexedSeq indexed(VecSeq s, size_t itemsPerBucket = 16)
{
    IndexedSeq x;
    static_cast<VecSeq&>(x) = std::move(s);
    x.index.build(x, itemsPerBucket);
    return x;
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

    void everyItemOnceIndexed_data() { everyItemOnce_data(); }
    void everyItemOnceIndexed()
    {
        QFETCH(bool, overlapping);
        QFETCH(double, minPx);
        std::mt19937_64 rng(overlapping ? 17 : 13);
        int folds = 0, singles = 0, lodFrames = 0;
        for (int round = 0; round < 60; ++round) {
            size_t n = size_t(std::uniform_int_distribution<int>(0, 6000)(rng));
            IndexedSeq s = indexed(randomRow(rng, n, overlapping), size_t(std::uniform_int_distribution<int>(1, 40)(rng)));
            double total = s.ends.empty() ? 1000 : double(s.ends.back() + s.maxDur);
            for (int w = 0; w < 20; ++w) {
                double span = total * std::pow(10.0, -std::uniform_real_distribution<double>(0, 6)(rng));
                if (w < 3)
                    span = total * (0.3 + 0.8 * w);   // zoomed out: whole-bucket folds
                double t0 = std::uniform_real_distribution<double>(-0.1 * total, total)(rng);
                int width = std::uniform_int_distribution<int>(50, 2000)(rng);
                TimeMapping m(t0, t0 + span, width);
                lodFrames += s.index.levelFor(minPx * m.nsPerPx()) != nullptr;
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
                    // A single item is drawn where it is; a fold spans at least its first item's start.
                    if (d.count == 1)
                        QVERIFY(qAbs(d.x0 - std::clamp(float(m.x(double(s.starts[d.first]))), -2.0f, float(width) + 2.0f)) < 0.01f);
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
                QCOMPARE(sum, inWindow);
                if (!overlapping)
                    QVERIFY(items.size() <= size_t(width) + 4);
            }
        }
        QVERIFY(folds > 0);
        QVERIFY(singles > 0);
        QVERIFY(lodFrames > 0);   // the whole-bucket path ran
    }

    void indexedLowerBoundIsExact()
    {
        std::mt19937_64 rng(5);
        for (int round = 0; round < 40; ++round) {
            IndexedSeq s = indexed(randomRow(rng, size_t(std::uniform_int_distribution<int>(1, 3000)(rng)), round % 2),
                                   size_t(1 + round % 20));
            const FoldIndex::Level& l0 = s.index.levels.front();
            std::vector<double> probes;
            for (int k = 0; k < 200; ++k)
                probes.push_back(std::uniform_real_distribution<double>(-1000, double(s.starts.back()) + 1000)(rng));
            for (size_t b = 0; b <= l0.buckets(); ++b) {   // bucket edges and their neighbours
                double edge = double(s.index.originNs) + double(b) * double(l0.bucketNs);
                probes.insert(probes.end(), {edge - 0.5, edge, edge + 0.5, std::nextafter(edge, -1e300)});
            }
            for (int64_t st : s.starts)
                probes.insert(probes.end(), {double(st), double(st) + 0.25, double(st) - 0.25});
            for (double t : probes)
                QCOMPARE(s.index.lowerBound(s, t), lowerBoundStart(s, 0, s.size(), t));
            // Level structure: every level covers all items; coarser levels double the width.
            for (size_t L = 0; L < s.index.levels.size(); ++L) {
                const FoldIndex::Level& l = s.index.levels[L];
                QCOMPARE(size_t(l.first.back()), s.size());
                QVERIFY(std::is_sorted(l.first.begin(), l.first.end()));
                if (L > 0)
                    QCOMPARE(l.bucketNs, s.index.levels[L - 1].bucketNs * 2);
                for (size_t b = 0; b < l.buckets(); ++b) {
                    if (l.first[b] == l.first[b + 1])
                        continue;
                    QCOMPARE(l.firstStart[b], s.starts[l.first[b]]);
                    QCOMPARE(l.color[b], s.color(l.first[b]));
                    int64_t me = INT64_MIN;
                    for (uint32_t i = l.first[b]; i < l.first[b + 1]; ++i)
                        me = std::max(me, std::max(s.ends[i], s.starts[i] + 1));
                    QCOMPARE(l.maxEnd[b], me);
                }
            }
            QCOMPARE(s.index.levels.back().buckets(), size_t(1));
        }
    }

    void indexedLongItemBeforeWindow()
    {
        // One long item, then 100k short ones: a window far later shows the long one exactly
        // once, and the skip over buckets that end before the window keeps the short ones out.
        VecSeq v;
        v.starts.push_back(0);
        v.ends.push_back(50'000'000);
        for (int i = 0; i < 100000; ++i) {
            v.starts.push_back(1000 + int64_t(i) * 500);
            v.ends.push_back(1000 + int64_t(i) * 500 + 200);
        }
        v.maxDur = 50'000'000;
        IndexedSeq s = indexed(v);
        TimeMapping m(40'000'000.25, 40'010'000.25, 1000);
        std::vector<DrawItem> items;
        foldRow(s, m, {}, items);
        QVERIFY(!items.empty());
        QCOMPARE(items.front().first, 0u);
        QCOMPARE(items.front().count, 1u);
        size_t sum = 0;
        for (const DrawItem& d : items)
            sum += d.count;
        size_t inWindow = 0;
        for (size_t i = 0; i < s.size(); ++i)
            inWindow += visible(s, i, m.startNs(), m.endNs());
        QCOMPARE(inWindow, size_t(1 + 21));   // the long item and the short ones inside
        QCOMPARE(sum, inWindow);
        // Same with the whole-bucket folds of a zoomed-out view: every item once.
        TimeMapping wide(0, 60'000'000, 800);
        items.clear();
        foldRow(s, wide, {}, items);
        sum = 0;
        for (const DrawItem& d : items)
            sum += d.count;
        QCOMPARE(sum, s.size());
        QCOMPARE(items.front().count, 1u);   // the long item stands alone
        QVERIFY(items.size() <= 800 / 3 + 4);
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
