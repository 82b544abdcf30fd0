// What a time range holds: kernel count and time, kernel time by layer (the layer rule of
// grouping.h) and the top kernels by time, each kernel's time clipped to the range. Backs the
// details panel of a range selection; the same figures as the layer and kernel breakdowns of
// the range.
#pragma once

#include "analysis/activityview.h"
#include "analysis/breakdown.h"
#include "analysis/runprofile.h"
#include "analysis/timerange.h"

namespace wt {

struct RangeSummary {
    TimeRange range;                 // normalized
    int64_t kernels = 0;             // kernels the range counts
    int64_t kernelTimeNs = 0;        // their time inside the range
    Breakdown layers;                // by layer, largest first
    Breakdown kernelsByName;         // by kernel name, largest first, at most maxKernels groups
};

RangeSummary summarizeRange(const RunProfile& profile, const ActivityView& activities, const TimeRange& range,
                            size_t maxKernels = 10);

}  // namespace wt
