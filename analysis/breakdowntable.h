// The breakdown as a table (table.h): the one figure behind `wheretime stats` (text, --csv,
// --json "groups"), the GUI's breakdown table and its CSV export, and the report's
// breakdown-*.csv. One row per group, in the breakdown's order (largest first). Cells are the
// Group's raw values; the distribution columns are none where a group has no distribution, the
// op-feature columns none where it has no op features, the rates none as well over zero time.
// The achieved rates are Group::flopPerS / bytesPerS, their one definition.
#pragma once

#include "analysis/breakdown.h"
#include "analysis/table.h"

#include <cstddef>
#include <vector>

namespace wt {

// The columns, in this order (what the GUI's model names by index; tst_breakdown checks the ids).
enum class BreakdownColumn : size_t {
    Name,        // name: the group's display name (CSV/JSON and the GUI; text shows the path)
    Path,        // path: the group key, the text table's first column
    Time,        // time_ns
    Share,       // share: of Breakdown::totalNs, 0..1
    Count,       // count: activities
    Mean,        // mean_ns
    Median,      // median_ns (lower median)
    Min,         // min_ns
    Max,         // max_ns
    Flops,       // flops: summed over the group's launches
    Bytes,       // bytes: read + written, summed
    FlopRate,    // flop_per_s: over the group's time
    ByteRate,    // bytes_per_s
    NumColumns
};

// The table of any list of groups in breakdown order (Group, or a view's row type derived from
// it). In text: the path titled by the grouping, time, share, count, mean, the median when
// some group has a distribution and FLOP/s and B/s when some group has op features, as
// `wheretime stats` has always printed them; every column in CSV and JSON.
Table breakdownTable(GroupBy groupBy, size_t count, const GroupAt& group);
template <class G>
Table breakdownTable(GroupBy groupBy, const std::vector<G>& groups)
{
    return breakdownTable(groupBy, groups.size(), [&](size_t i) -> const Group& { return groups[i]; });
}
inline Table breakdownTable(const Breakdown& b) { return breakdownTable(b.groupBy, b.groups); }

}  // namespace wt
