// Figures that need every activity rather than the stored totals: totals of a time range (by
// the clip rule of timerange.h) and per-group distributions of activity durations (count,
// total, mean, median, min, max; with a range, of the clipped durations).
#pragma once

#include "analysis/activityview.h"
#include "analysis/grouping.h"
#include "analysis/timerange.h"

#include <optional>
#include <vector>

namespace wt {

// Calls fn(track, index, durationNs) for every activity of the view, or with a range for
// every activity it counts, durationNs clipped to it. Per track, only activities starting in
// [range.start - longest, range.end) are looked at (binary search on the sorted starts).
template <class Fn>
void forEachClipped(const ActivityView& view, const std::optional<TimeRange>& range, Fn&& fn)
{
    for (const TrackActivities& t : view.tracks) {
        if (!range) {
            for (size_t i = 0; i < t.size; ++i)
                fn(t, i, int64_t(t.durationNs[i]));
            continue;
        }
        const TimeRange r = range->normalized();
        const size_t first = t.startNs.lowerBound(t.size, r.startNs - t.maxDurationNs - 1);
        const size_t last = t.startNs.lowerBound(first, t.size, r.endNs);
        for (size_t i = first; i < last; ++i)
            if (auto in = r.clip(t.startNs[i], int64_t(t.durationNs[i])))
                fn(t, i, *in);
    }
}

// Totals of the activities a range counts, each with its clipped time: the reduced form a
// range's breakdown starts from (same shape as the stored totals of a whole run).
std::vector<TotalRow> rangeTotals(const ActivityView& view, const ScopeTree& tree, const TimeRange& range);

struct Distribution {
    int64_t count = 0;
    int64_t timeNs = 0;
    double meanNs = 0;
    int64_t medianNs = 0;    // lower median
    int64_t minNs = 0;
    int64_t maxNs = 0;
};
// Per group index of the grouper (groups that received nothing have count 0).
std::vector<Distribution> distributions(const ActivityView& view, Grouper& grouper, const std::optional<TimeRange>& range);

// Summed kernel durations under a scope instance (its own kernels and its descendants'), the
// time the details panel's achieved rates of a scope divide by (docs/definitions.md). Needs
// view.instanceParent; 0 without it or for an unknown instance. One pass over the instances
// and one over the activities.
int64_t kernelTimeUnder(const ActivityView& view, uint32_t instance);

}  // namespace wt
