// Time share of a run: kernel time grouped by scope path at a depth, by layer, by phase, by
// op, by kernel name, or by activity kind (grouping.h). One code path for the CLI
// (`wheretime stats`), the GUI's pies, tables and details panel, and reports. Input is the
// reduced form (TotalRow): the stored totals of a whole run, or rangeTotals of a time range;
// with the activities at hand each group also gets its distribution (activitystats.h).
// The 'other' rule of charts (threshold and top-N slices) is here too, once.
#pragma once

#include "analysis/activityview.h"
#include "analysis/grouping.h"
#include "analysis/runprofile.h"
#include "analysis/scopetree.h"
#include "analysis/timerange.h"
#include "storage/types.h"

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt {

class Reader;

// The achieved rate of docs/definitions.md: an amount of work (FLOPs, bytes read + written)
// over the summed duration of the activities that did it (kernel time for kernels; a group's
// time for a group), per second; 0 without time. The one division behind every FLOP/s and B/s
// of the tables, `wheretime stats` and the details panel.
inline double achievedPerS(double amount, int64_t timeNs)
{
    return timeNs > 0 ? amount / (double(timeNs) * 1e-9) : 0.0;
}

// One group of a breakdown: the one row type the CLI, the tables, the charts and the details
// panel show (views add their colour).
struct Group {
    std::string name;      // display name (last path component, kernel name, kind)
    std::string path;      // full key: scope path, or the name again
    int64_t timeNs = 0;
    double share = 0;      // of Breakdown::totalNs
    int64_t count = 0;     // activities
    double meanNs = 0;     // timeNs / count
    // Per-activity durations (clipped ones for a range); known when the activities were given.
    bool hasDistribution = false;
    int64_t medianNs = 0;  // lower median
    int64_t minNs = 0;
    int64_t maxNs = 0;
    // What the workload knew of the group's launches (captures of bundled workloads, whole
    // run only): FLOPs and bytes read + written summed over the launches of the activities the
    // group counts (kernels; memcpy and memset too when grouping by kind or category); the
    // achieved rates divide them by timeNs, those activities' summed duration.
    bool hasCost = false;
    double flops = 0;
    double bytes = 0;
    double flopPerS() const { return hasCost ? achievedPerS(flops, timeNs) : 0.0; }
    double bytesPerS() const { return hasCost ? achievedPerS(bytes, timeNs) : 0.0; }
};

struct Breakdown {
    GroupBy groupBy = GroupBy::Layer;
    int depth = 0;
    std::vector<GroupFilter> filters;
    std::optional<TimeRange> range;  // set for the breakdown of a time range
    int64_t totalNs = 0;           // kernel time (or all activity time when grouping by kind)
    std::vector<Group> groups;     // largest first; ties by path
};

// The options `wheretime stats` and older callers pass (a GroupLevel with the depth second).
struct BreakdownOptions {
    GroupBy groupBy = GroupBy::Layer;
    int depth = kDefaultScopeDepth;        // for GroupBy::Scope
    std::vector<GroupFilter> filters;      // see GroupLevel
    GroupLevel level() const { return GroupLevel{groupBy, filters, depth}; }
};

// The group key (path) of one totals row under a grouping; what filters compare against.
std::string groupKey(const TotalRow& row, const ScopeTree& tree, const Strings& strings, GroupBy groupBy, int depth);

Breakdown computeBreakdown(const std::vector<TotalRow>& totals, const ScopeTree& tree, const Strings& strings,
                           const BreakdownOptions& options);
Breakdown computeBreakdown(const std::vector<TotalRow>& totals, const ScopeTree& tree, const Strings& strings,
                           const GroupLevel& level);

// The breakdown the views show: the whole run from the stored totals, or a range from the
// activities clipped to it (needs `activities`); with `activities`, every group also carries
// its distribution.
Breakdown computeBreakdown(const RunProfile& profile, const GroupLevel& level, const ActivityView* activities = nullptr,
                           const std::optional<TimeRange>& range = std::nullopt);

// Totals of a list of activities (any subset): the brute-force twin of the stored totals.
// instanceScope maps scope instance id -> scope id.
std::vector<TotalRow> totalsOf(const std::vector<Activity>& activities,
                               const std::unordered_map<int64_t, int64_t>& instanceScope);

// A chart slice: one group, or 'other' holding the groups the rule merged (always last; at
// least two: a single group the rule would merge keeps its own slice).
struct Slice {
    std::string name;              // the group's name, "other (N)" for other
    std::string path;              // group key; empty for other
    int64_t timeNs = 0;
    double share = 0;
    bool other = false;
    std::vector<size_t> members;   // indices into Breakdown::groups
    bool filteredOut = false;      // other: the groups a name filter hides (filteredSlices)
};
// Pies: groups with share < threshold (a fraction, e.g. 0.02) merge into 'other'.
// Bars: the largest maxCount - 1 groups, then one 'other' with the rest (none when all fit).
// Over any list of groups in breakdown order (Group, or a view's row type derived from it).
using GroupAt = std::function<const Group&(size_t)>;
std::vector<Slice> thresholdSlices(size_t count, const GroupAt& group, double threshold);
std::vector<Slice> topSlices(size_t count, const GroupAt& group, size_t maxCount);
template <class G>
std::vector<Slice> thresholdSlices(const std::vector<G>& groups, double threshold)
{
    return thresholdSlices(groups.size(), [&](size_t i) -> const Group& { return groups[i]; }, threshold);
}
template <class G>
std::vector<Slice> topSlices(const std::vector<G>& groups, size_t maxCount)
{
    return topSlices(groups.size(), [&](size_t i) -> const Group& { return groups[i]; }, maxCount);
}
// A chart under a name filter: `slices` (thresholdSlices or topSlices) over the groups the filter
// keeps (`kept`: indices into the groups, in breakdown order; members index the subset), its
// members mapped back to the groups, then one 'filtered out (N)' slice (other and filteredOut
// set) holding the other groups, so the chart still adds up to the whole and every share stays
// a share of the whole. No filtered-out slice when the filter keeps every group.
std::vector<Slice> filteredSlices(std::vector<Slice> slices, const std::vector<size_t>& kept, size_t count,
                                  const GroupAt& group);
inline std::vector<Slice> thresholdSlices(const Breakdown& b, double threshold) { return thresholdSlices(b.groups, threshold); }
inline std::vector<Slice> topSlices(const Breakdown& b, size_t maxCount) { return topSlices(b.groups, maxCount); }

// The numbers `wheretime stats` prints.
struct RunStats {
    RunInfo run;
    int64_t kernels = 0;
    int64_t kernelTimeNs = 0;      // sum of kernel durations
    // The stored summary's union of kernel intervals, all devices together (kernels only, no
    // memory operations: not the devices' busy of gputime.h; docs/definitions.md).
    int64_t kernelBusyNs = 0;
    int64_t kernelSpanNs = 0;      // first kernel start to last kernel end, all devices
    Breakdown breakdown;
};
RunStats computeRunStats(const RunProfile& profile, const BreakdownOptions& options);
RunStats computeRunStats(const Reader& reader, int64_t runId, const BreakdownOptions& options);

}  // namespace wt
