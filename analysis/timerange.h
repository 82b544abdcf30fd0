// A time range [startNs, endNs) on a run's clock (ns relative to the run's origin), and the
// clip rule every range figure uses: an activity contributes its overlap with the range; an
// activity of zero length counts (with 0 ns) when it starts inside the range.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace wt {

struct TimeRange {
    int64_t startNs = 0;
    int64_t endNs = 0;

    // The same range with start <= end (a drag from right to left gives them swapped).
    TimeRange normalized() const { return startNs <= endNs ? *this : TimeRange{endNs, startNs}; }
    int64_t durationNs() const { return endNs - startNs; }
    bool isEmpty() const { return endNs <= startNs; }
    bool contains(int64_t timeNs) const { return timeNs >= startNs && timeNs < endNs; }

    // The part of [start, start + duration) inside the range, or nullopt when the activity is
    // not counted at all (no overlap). Expects a normalized range.
    std::optional<int64_t> clip(int64_t activityStartNs, int64_t activityDurationNs) const
    {
        if (activityDurationNs <= 0)
            return activityStartNs >= startNs && activityStartNs < endNs ? std::optional<int64_t>(0) : std::nullopt;
        const int64_t a = std::max(activityStartNs, startNs);
        const int64_t b = std::min(activityStartNs + activityDurationNs, endNs);
        return b > a ? std::optional<int64_t>(b - a) : std::nullopt;
    }

    // From a view's fractional bounds (the GUI's mouse ranges): the outward whole-ns range.
    static TimeRange fromDouble(double t0, double t1);

    bool operator==(const TimeRange&) const = default;
};

}  // namespace wt
