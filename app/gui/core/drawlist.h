// The timeline's draw list: for each row, the rectangles one frame paints, prepared off the
// paint path. Rows are sorted interval sequences (a track's activities or a lane's scope
// instances); the visible window is found by binary search and consecutive items narrower than
// a few pixels fold into one block with a count. Every item overlapping the window is covered
// exactly once (alone or inside one fold) and nothing outside it is, which the tests check.
#pragma once

#include "timemapping.h"

#include <QRgb>

#include <algorithm>
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
    // Items starting before t0 - maxDuration end before t0.
    size_t lo = lowerBoundStart(s, 0, n, t0 - double(s.maxDuration()) - 1);
    size_t mid = lowerBoundStart(s, lo, n, t0);
    size_t hi = lowerBoundStart(s, mid, n, t1);
    // Items that start left of the window and reach into it: each on its own (rare: one per
    // serial stream at most).
    for (size_t i = lo; i < mid; ++i)
        if (effEnd(i) > t0)
            push(i, 1, m.x(double(s.start(i))), m.x(effEnd(i)), s.color(i));
    size_t i = mid;
    while (i < hi) {
        double x0 = m.x(double(s.start(i)));
        double x1 = m.x(effEnd(i));
        if (x1 - x0 >= o.minPx) {
            push(i, 1, x0, x1, s.color(i));
            ++i;
            continue;
        }
        // Fold: jump minPx ahead by binary search; keep going while the next item is also
        // narrow, adjacent and of the same color, so a layer's run of kernels is one block.
        const QRgb color = s.color(i);
        const size_t first = i;
        double right = x1;
        for (;;) {
            double limit = m.timeAt(m.x(double(s.start(i))) + o.minPx);
            size_t j = lowerBoundStart(s, i + 1, hi, limit);
            if (j - 1 > i && m.x(effEnd(j - 1)) - m.x(double(s.start(j - 1))) >= o.minPx)
                --j;   // a wide last item is drawn on its own
            right = std::max(right, m.x(effEnd(j - 1)));
            i = j;
            if (i >= hi || s.color(i) != color)
                break;
            double nx0 = m.x(double(s.start(i)));
            if (m.x(effEnd(i)) - nx0 >= o.minPx || nx0 > right + 1.0)
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
