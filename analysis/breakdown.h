// Time share of a run: kernel time grouped by scope path at a depth, by layer, by phase, by
// op, by kernel name, or by activity kind. One code path for the CLI (`wheretime stats`),
// the GUI's pies and tables, and reports. Input is the reduced form (TotalRow), either the
// stored totals of a whole run or totals computed from the activities of a time range.
#pragma once

#include "analysis/scopetree.h"
#include "storage/types.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt {

class Reader;

enum class GroupBy { Scope, Layer, Phase, Op, Kernel, Kind };
std::optional<GroupBy> groupByFromString(std::string_view text);
std::string_view toString(GroupBy groupBy);

struct Group {
    std::string name;      // display name (last path component, kernel name, kind)
    std::string path;      // full key: scope path, or the name again
    int64_t timeNs = 0;
    double share = 0;      // of Breakdown::totalNs
    int64_t count = 0;     // activities
};

struct Breakdown {
    GroupBy groupBy = GroupBy::Layer;
    int depth = 0;
    int64_t totalNs = 0;           // kernel time (or all activity time when grouping by kind)
    std::vector<Group> groups;     // largest first; ties by path
};

struct BreakdownOptions {
    GroupBy groupBy = GroupBy::Layer;
    int depth = 3;                         // for GroupBy::Scope
    // Drill-down: only rows whose key under each (groupBy, key) filter matches, e.g.
    // {{Layer, "softmax"}} then group by Op; {{Layer, "softmax"}, {Op, "head_gemm"}} by Kernel.
    // A Scope filter's depth is that of its path ({Scope, "step/backward"} compares paths at
    // depth 2), so drilling by scope path works level by level.
    std::vector<std::pair<GroupBy, std::string>> filters;
};

inline constexpr const char* kNoScope = "(no scope)";

// The group key (path) of one totals row under a grouping; what filters compare against.
std::string groupKey(const TotalRow& row, const ScopeTree& tree, const std::unordered_map<uint32_t, std::string>& strings,
                     GroupBy groupBy, int depth);

Breakdown computeBreakdown(const std::vector<TotalRow>& totals, const ScopeTree& tree,
                           const std::unordered_map<uint32_t, std::string>& strings, const BreakdownOptions& options);

// Totals of the activities of a time range (or any subset): the brute-force twin of the
// stored totals. instanceScope maps scope instance id -> scope id.
std::vector<TotalRow> totalsOf(const std::vector<Activity>& activities,
                               const std::unordered_map<int64_t, int64_t>& instanceScope);

// The numbers `wheretime stats` prints.
struct RunStats {
    RunInfo run;
    int64_t kernels = 0;
    int64_t kernelTimeNs = 0;
    int64_t busyNs = 0;
    int64_t spanNs = 0;
    Breakdown breakdown;
};
RunStats computeRunStats(const Reader& reader, int64_t runId, const BreakdownOptions& options);

}  // namespace wt
