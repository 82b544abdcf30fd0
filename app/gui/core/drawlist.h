// The timeline's draw list: for each row, the rectangles one frame paints, prepared off the
// paint path. Rows are sorted interval sequences (a track's activities or a lane's scope
// instances); the visible window is found by binary search and consecutive items narrower than
// a few pixels fold into one block with a count. Every item overlapping the window is covered
// exactly once (alone or inside one fold) and nothing outside it is, which the tests check.
#pragma once

#include "timemapping.h"

#include <QRgb>

#include <algorithm>
#include <climits>
#include <concepts>
#include <cstdint>
#include <vector>

namespace wt::gui {

struct DrawItem {
    enum Flag : uint8_t { Fold = 1, Selected = 2, Highlighted = 4 };
    float x0 = 0;          // pixels from the plot's left edge
    float x1 = 0;          // > x0 (at least one pixel wide)
    uint32_t first = 0;    // index of the first item in the row's sequence
    uint32_t count = 1;    // 1 = one item; > 1 = a fold of items first .. first + count - 1
    QRgb color = 0;
    uint8_t flags = 0;
    bool isFold() const { return flags & Fold; }
};

struct FoldOptions {
    double minPx = 3.0;    // items narrower than this fold with their neighbours
};

// Sequence concept used by foldRow (see TrackSequence / LaneSequence in timelinelayout.h):
//   size_t size() const; int64_t start(size_t) const; int64_t end(size_t) const;
//   int64_t maxDuration() const; QRgb color(size_t) const;
//   optional: const FoldIndex& foldIndex() const (built over the same sequence).
// Starts are non-decreasing. An item is visible when start < window end and
// max(end, start + 1) > window start.
template <class Seq>
size_t lowerBoundStart(const Seq& s, size_t lo, size_t hi, double t)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (double(s.start(mid)) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// A pyramid over a sorted sequence's starts, built once at load (about 1.8 bytes per item).
// Level 0 cuts time into equal buckets of about 32 items; each next level merges pairs. Per
// bucket: its first item, that item's start and color, and the latest end and longest duration
// of the items starting in it. Three uses, each to keep a frame off scattered memory (a plain
// binary search over millions of starts costs ~20 cache misses, about 1 us per fold step on
// the development VM):
//  - lowerBound: exact searches touch a few neighbouring cache lines (level 0);
//  - items that start before the window: buckets that end before it are skipped whole, so one
//    long item does not make every frame walk all the items after it;
//  - folding when zoomed out: a fold takes whole buckets of the level that is 1 to 2 fold
//    widths wide, and the next fold's start and color come from the same sequential arrays, so
//    a row costs a few thousand sequential reads however many items it holds. Buckets holding
//    an item wide enough to stand alone go through the exact, item-by-item path.
struct FoldIndex {
    struct Level {
        int64_t bucketNs = 1;
        std::vector<uint32_t> first;        // first[b]: first item with start >= origin + b * bucketNs; back() = size
        std::vector<int64_t> firstStart;    // start of item first[b] (empty bucket: the next item's)
        std::vector<int64_t> maxEnd;        // latest max(end, start + 1) of items starting in the bucket
        std::vector<uint32_t> maxDuration;  // longest max(end - start, 1) there, saturated
        std::vector<QRgb> color;            // color of item first[b]
        size_t buckets() const { return maxEnd.size(); }
        size_t bucketOf(int64_t start, int64_t originNs) const { return size_t((start - originNs) / bucketNs); }
        size_t bytes() const
        {
            return first.capacity() * 4 + firstStart.capacity() * 8 + maxEnd.capacity() * 8 +
                   maxDuration.capacity() * 4 + color.capacity() * 4;
        }
    };
    int64_t originNs = 0;                   // start of the first item
    size_t items = 0;                       // size of the sequence it was built over
    std::vector<Level> levels;              // [0] finest

    size_t bytes() const
    {
        size_t b = 0;
        for (const Level& l : levels)
            b += l.bytes();
        return b;
    }

    // The time grid of level 0 (the coarser levels follow from it): what build() derives from
    // the sequence. A part of a sequence indexed on the whole one's grid (buildOnGrid) folds
    // every window inside it exactly as the whole one does (the windowed detail of a run
    // larger than its memory cap, windowedrun.h).
    struct Grid {
        int64_t originNs = 0;
        int64_t bucketNs = 1;
        size_t buckets = 0;
        bool operator==(const Grid&) const = default;
    };
    // build()'s grid for a sequence of n items whose starts run from firstStart to lastStart.
    static Grid gridFor(size_t n, int64_t firstStart, int64_t lastStart, size_t itemsPerBucket = 32)
    {
        Grid g;
        if (n == 0)
            return g;
        g.originNs = firstStart;
        const int64_t span = lastStart - firstStart + 1;
        const int64_t want = int64_t(std::max<size_t>(1, n / std::max<size_t>(itemsPerBucket, 1)));
        g.bucketNs = std::max<int64_t>(1, (span + want - 1) / want);
        g.buckets = size_t((span + g.bucketNs - 1) / g.bucketNs);
        return g;
    }
    Grid grid() const
    {
        return levels.empty() ? Grid{} : Grid{originNs, levels.front().bucketNs, levels.front().buckets()};
    }

    template <class Seq>
    void build(const Seq& s, size_t itemsPerBucket = 32)
    {
        const size_t n = s.size();
        buildOnGrid(s, n == 0 ? Grid{} : gridFor(n, s.start(0), s.start(n - 1), itemsPerBucket));
    }

    // The index on a given grid. Every start must lie in [originNs, originNs + buckets *
    // bucketNs); build() passes the sequence's own grid.
    template <class Seq>
    void buildOnGrid(const Seq& s, const Grid& grid)
    {
        levels.clear();
        items = s.size();
        const size_t n = items;
        if (n == 0 || grid.buckets == 0)
            return;
        originNs = grid.originNs;
        Level l0;
        l0.bucketNs = grid.bucketNs;
        const size_t nb = grid.buckets;
        l0.first.resize(nb + 1);
        l0.firstStart.resize(nb);
        l0.maxEnd.assign(nb, INT64_MIN);
        l0.maxDuration.assign(nb, 0);
        l0.color.assign(nb, 0);
        size_t i = 0;
        for (size_t b = 0; b < nb; ++b) {
            l0.first[b] = uint32_t(i);
            const int64_t limit = originNs + int64_t(b + 1) * l0.bucketNs;
            int64_t me = INT64_MIN, md = 0;
            if (i < n && s.start(i) < limit)
                l0.color[b] = s.color(i);
            for (; i < n && s.start(i) < limit; ++i) {
                const int64_t st = s.start(i), e = std::max(s.end(i), st + 1);
                me = std::max(me, e);
                md = std::max(md, e - st);
            }
            l0.maxEnd[b] = me;
            l0.maxDuration[b] = uint32_t(std::min<int64_t>(md, UINT32_MAX));
        }
        l0.first[nb] = uint32_t(n);
        for (size_t b = 0; b < nb; ++b)
            l0.firstStart[b] = l0.first[b] < n ? s.start(l0.first[b]) : INT64_MAX;
        levels.push_back(std::move(l0));
        while (levels.back().buckets() > 1) {
            const Level& c = levels.back();
            const size_t cb = c.buckets(), pb = (cb + 1) / 2;
            Level p;
            p.bucketNs = c.bucketNs * 2;
            p.first.resize(pb + 1);
            p.firstStart.resize(pb);
            p.maxEnd.resize(pb);
            p.maxDuration.resize(pb);
            p.color.resize(pb);
            for (size_t b = 0; b < pb; ++b) {
                const size_t l = 2 * b, r = std::min(l + 1, cb - 1);
                const bool leftEmpty = c.first[l] == c.first[l + 1];
                p.first[b] = c.first[l];
                p.firstStart[b] = c.firstStart[l];
                p.maxEnd[b] = std::max(c.maxEnd[l], c.maxEnd[r]);
                p.maxDuration[b] = std::max(c.maxDuration[l], c.maxDuration[r]);
                p.color[b] = leftEmpty ? c.color[r] : c.color[l];
            }
            p.first[pb] = uint32_t(n);
            levels.push_back(std::move(p));
        }
    }

    bool builtFor(size_t n) const { return !levels.empty() && items == n; }

    // Same result as lowerBoundStart(s, 0, s.size(), t).
    template <class Seq>
    size_t lowerBound(const Seq& s, double t) const
    {
        const size_t n = s.size();
        if (!builtFor(n))
            return lowerBoundStart(s, 0, n, t);
        const Level& l = levels.front();
        const size_t nb = l.buckets();
        double rel = (t - double(originNs)) / double(l.bucketNs);
        size_t b = rel <= 0 ? 0 : rel >= double(nb) ? nb - 1 : size_t(rel);
        size_t lo = l.first[b], hi = l.first[b + 1];
        size_t g = lowerBoundStart(s, lo, hi, t);
        // Rounding in `rel` can pick a neighbouring bucket: widen the search when the answer
        // lies outside it, so the result is exact whatever t is.
        if (g == lo && lo > 0 && double(s.start(lo - 1)) >= t)
            g = lowerBoundStart(s, 0, lo, t);
        else if (g == hi && hi < n && double(s.start(hi)) < t)
            g = lowerBoundStart(s, hi, n, t);
        return g;
    }

    // The level whose buckets are 1 to 2 times foldNs wide, or nullptr when even level 0 is
    // wider (zoomed in: fold item by item).
    const Level* levelFor(double foldNs) const
    {
        for (const Level& l : levels)
            if (double(l.bucketNs) >= foldNs)
                return double(l.bucketNs) < 2 * foldNs ? &l : nullptr;
        return levels.empty() ? nullptr : &levels.back();
    }
};

template <class Seq>
concept IndexedSequence = requires(const Seq& s) {
    { s.foldIndex() } -> std::convertible_to<const FoldIndex&>;
};

// lowerBoundStart through the sequence's index when it has one.
template <class Seq>
size_t seekStart(const Seq& s, size_t lo, size_t hi, double t)
{
    if constexpr (IndexedSequence<Seq>)
        return std::clamp(s.foldIndex().lowerBound(s, t), lo, hi);
    else
        return lowerBoundStart(s, lo, hi, t);
}

template <class Seq>
void foldRow(const Seq& s, const TimeMapping& m, const FoldOptions& o, std::vector<DrawItem>& out)
{
    const size_t n = s.size();
    if (n == 0 || !m.isValid())
        return;
    const double t0 = m.startNs(), t1 = m.endNs();
    const float xMin = -2.0f, xMax = float(m.widthPx()) + 2.0f;
    auto effEnd = [&](size_t i) { return double(std::max(s.end(i), s.start(i) + 1)); };
    auto push = [&](size_t first, size_t count, double x0, double x1, QRgb color) {
        DrawItem d;
        d.x0 = std::clamp(float(x0), xMin, xMax);
        d.x1 = std::clamp(float(std::max(x1, x0 + 1.0)), xMin, xMax);
        if (d.x1 <= d.x0)
            d.x1 = d.x0 + 1;
        d.first = uint32_t(first);
        d.count = uint32_t(count);
        d.color = color;
        d.flags = count > 1 ? DrawItem::Fold : 0;
        out.push_back(d);
    };
    const FoldIndex* index = nullptr;
    if constexpr (IndexedSequence<Seq>)
        if (s.foldIndex().builtFor(n))
            index = &s.foldIndex();
    // Items starting before t0 - maxDuration end before t0.
    size_t lo = seekStart(s, 0, n, t0 - double(s.maxDuration()) - 1);
    size_t mid = seekStart(s, lo, n, t0);
    size_t hi = seekStart(s, mid, n, t1);
    // Items that start left of the window and reach into it: each on its own (rare: one per
    // serial stream at most; a few in scope lanes, whose spans overlap).
    for (size_t i = lo; i < mid;) {
        size_t e = mid;
        if (index) {
            const FoldIndex::Level& l0 = index->levels.front();
            const size_t b = l0.bucketOf(s.start(i), index->originNs);
            e = std::min<size_t>(mid, l0.first[b + 1]);
            if (double(l0.maxEnd[b]) <= t0) {   // nothing starting in this bucket reaches t0
                i = e;
                continue;
            }
        }
        for (; i < e; ++i)
            if (effEnd(i) > t0)
                push(i, 1, m.x(double(s.start(i))), m.x(effEnd(i)), s.color(i));
    }

    // Zoomed out, whole buckets of `lod` fold at once (see FoldIndex); `lb` is the bucket of
    // the current item at that level. wideNs: the duration that stands alone.
    const double wideNs = o.minPx * m.nsPerPx();
    const FoldIndex::Level* lod = index ? index->levelFor(wideNs) : nullptr;
    size_t lb = SIZE_MAX;
    auto locate = [&](size_t i) {
        if (lb == SIZE_MAX || !(lod->first[lb] <= i && i < lod->first[lb + 1]))
            lb = lod->bucketOf(s.start(i), index->originNs);
        return lb;
    };
    // True when item i opens a bucket of `lod` whose items are all narrow (then the bucket's
    // arrays give its start and color without touching the item).
    auto opensNarrowBucket = [&](size_t i) {
        return lod && lod->first[locate(i)] == i && double(lod->maxDuration[lb]) < wideNs;
    };
    size_t i = mid;
    while (i < hi) {
        double x0, x1 = 0;
        QRgb color;
        bool narrow;
        if (opensNarrowBucket(i)) {
            x0 = x1 = m.x(double(lod->firstStart[lb]));
            color = lod->color[lb];
            narrow = true;
        } else {
            x0 = m.x(double(s.start(i)));
            x1 = m.x(effEnd(i));
            color = s.color(i);
            narrow = x1 - x0 < o.minPx;
        }
        if (!narrow) {
            push(i, 1, x0, x1, color);
            ++i;
            continue;
        }
        // Fold: keep going while the next item is also narrow, adjacent and of the same color,
        // so a layer's run of kernels is one block.
        const size_t first = i;
        double right = x1;
        for (;;) {
            size_t j;
            if (lod && double(lod->maxDuration[locate(i)]) < wideNs) {
                // The rest of the bucket: all narrow.
                const size_t bucketEnd = lod->first[lb + 1];
                j = std::min(bucketEnd, hi);
                right = std::max(right, m.x(j == bucketEnd ? double(lod->maxEnd[lb]) : effEnd(j - 1)));
            } else {
                // Jump minPx ahead by binary search; a wide last item is drawn on its own.
                double limit = m.timeAt(m.x(double(s.start(i))) + o.minPx);
                j = seekStart(s, i + 1, hi, limit);
                if (j - 1 > i && m.x(effEnd(j - 1)) - m.x(double(s.start(j - 1))) >= o.minPx)
                    --j;
                right = std::max(right, m.x(effEnd(j - 1)));
            }
            i = j;
            if (i >= hi)
                break;
            double nx0;
            QRgb nextColor;
            bool nextNarrow;
            if (opensNarrowBucket(i)) {
                nx0 = m.x(double(lod->firstStart[lb]));
                nextColor = lod->color[lb];
                nextNarrow = true;
            } else {
                nx0 = m.x(double(s.start(i)));
                nextColor = s.color(i);
                nextNarrow = m.x(effEnd(i)) - nx0 < o.minPx;
            }
            if (nextColor != color || !nextNarrow || nx0 > right + 1.0)
                break;
        }
        push(first, i - first, x0, right, color);
    }
}

// The draw-list item covering sequence index `index` in a row, or -1.
inline int findItem(const std::vector<DrawItem>& items, uint32_t index)
{
    for (size_t k = 0; k < items.size(); ++k)
        if (index >= items[k].first && index - items[k].first < items[k].count)
            return int(k);
    return -1;
}

}  // namespace wt::gui
