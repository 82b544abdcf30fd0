#include "rangesummary.h"

#include "analysis/activitystats.h"

namespace wt {

RangeSummary summarizeRange(const RunProfile& profile, const ActivityView& activities, const TimeRange& range,
                            size_t maxKernels)
{
    RangeSummary s;
    s.range = range.normalized();
    const std::vector<TotalRow> totals = rangeTotals(activities, profile.tree, s.range);
    s.layers = computeBreakdown(totals, profile.tree, profile.strings, GroupLevel{GroupBy::Layer, {}});
    s.kernelsByName = computeBreakdown(totals, profile.tree, profile.strings, GroupLevel{GroupBy::Kernel, {}});
    s.layers.range = s.kernelsByName.range = s.range;
    if (s.kernelsByName.groups.size() > maxKernels)
        s.kernelsByName.groups.resize(maxKernels);
    s.kernelTimeNs = s.layers.totalNs;
    for (const Group& g : s.layers.groups)
        s.kernels += g.count;
    return s;
}

}  // namespace wt
