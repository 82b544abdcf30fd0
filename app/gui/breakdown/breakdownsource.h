// The numbers behind the breakdown view, the exports and the headless report, widget-free.
// A BreakdownSource holds what analysis/ needs for one run (scope tree, interned strings, the
// stored per-(scope, name, kind) totals, the run's summary) and computes breakdowns through
// wt::computeBreakdown: the whole run from the stored totals (the path `wheretime stats`
// takes, so the numbers are identical), a time range from totals of the loaded activities
// clipped to the range. Per-group distributions (median, min, max) need every activity's
// duration, so they come from the loaded RunData when one is attached.
#pragma once

#include "analysis/breakdown.h"
#include "analysis/scopetree.h"
#include "app/gui/core/groupselection.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/timelinelayout.h"

#include <QRgb>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt::gui {

// One drill-down level: what to group by, and the filters of the levels above it.
struct BreakdownLevel {
    GroupBy groupBy = GroupBy::Layer;
    std::vector<std::pair<GroupBy, std::string>> filters;
    bool operator==(const BreakdownLevel&) const = default;
};

// The grouping a slice of `groupBy` drills into (layer -> op -> kernel), nullopt at the bottom.
std::optional<GroupBy> drillTarget(GroupBy groupBy);
// "layer", "op", ...: the word used in titles and breadcrumbs.
QString groupByLabel(GroupBy groupBy);

// Durations of one group's activities (clipped to the range for range breakdowns).
struct GroupStats {
    int64_t count = 0;
    int64_t minNs = 0;
    int64_t medianNs = 0;    // lower median
    int64_t maxNs = 0;
};

// One row of the table and bar chart; one slice of the pie before "other" merging.
struct BreakdownRow {
    std::string name;
    std::string path;        // the group key (what a drill-down filter compares against)
    int64_t timeNs = 0;
    double share = 0;        // of BreakdownResult::totalNs
    int64_t count = 0;
    double meanNs = 0;
    bool hasStats = false;   // median/min/max known (a RunData was attached)
    GroupStats stats;
    QRgb color = 0;
};

struct BreakdownResult {
    BreakdownLevel level;
    bool range = false;      // a time range rather than the whole run
    double rangeStartNs = 0; // relative to the run origin, when range
    double rangeEndNs = 0;
    int64_t totalNs = 0;
    std::vector<BreakdownRow> rows;   // largest first (computeBreakdown's order)
};

// A pie slice: one group, or "other" holding every group whose share is below the threshold.
struct PieSlice {
    QString label;
    std::string path;        // group key; empty for "other"
    int64_t timeNs = 0;
    double share = 0;
    QRgb color = 0;
    bool other = false;
    std::vector<size_t> members;   // indices into BreakdownResult::rows
};

// Merges rows with share < threshold (a fraction, e.g. 0.02) into one trailing "other" slice.
std::vector<PieSlice> pieSlices(const BreakdownResult& result, double threshold);

// The largest maxCount - 1 rows, then one "other" with the rest (bar charts: rows are kept
// even when small, only their number is bounded).
std::vector<PieSlice> topSlices(const BreakdownResult& result, size_t maxCount);

// Color of a group: layers and every other grouping by name through LayerPalette (the
// timeline's colors); groups without a scope are neutral grey.
QRgb groupColor(const std::string& name);
inline constexpr QRgb kOtherColor = 0xffc8c8c8;

class BreakdownSource {
public:
    // Reads the run's summary, scope tree, strings and stored totals. Throws wt::StorageError
    // (one-line reason) on bad files or runs.
    static std::shared_ptr<BreakdownSource> load(const std::string& path, int64_t runId);
    // Same, for a loaded run (reads the file it came from) and keeps the run for distributions.
    static std::shared_ptr<BreakdownSource> load(std::shared_ptr<const RunData> run);

    const RunStats& stats() const { return m_stats; }   // computeRunStats of the whole run
    const RunInfo& run() const { return m_stats.run; }
    const ScopeTree& tree() const { return m_tree; }
    const std::unordered_map<uint32_t, std::string>& strings() const { return m_strings; }
    const std::vector<TotalRow>& totals() const { return m_totals; }
    const std::shared_ptr<const RunData>& runData() const { return m_data; }

    // The whole run (stored totals), with distributions when a RunData is attached.
    BreakdownResult compute(const BreakdownLevel& level) const;
    // A time range [t0, t1) in ns relative to the run origin (needs a RunData): each
    // activity's time is clipped to the range.
    BreakdownResult computeRange(const BreakdownLevel& level, double t0, double t1) const;
    // Totals of the attached run's activities clipped to [t0, t1): the reduced form of a range.
    std::vector<TotalRow> rangeTotals(double t0, double t1) const;

    // Shared selection with the timeline (needs a RunData). The group key of an activity at a
    // level, empty when the level's filters exclude it; node = RunData node index or kNone.
    std::string keyOf(const BreakdownLevel& level, ActivityKind kind, uint32_t node, uint32_t nameId) const;
    // The group key of what the timeline selected (an activity, or a scope instance for the
    // scope groupings), empty when it has none at this level.
    std::string keyOfSelection(const BreakdownLevel& level, const Selection& selection) const;
    // What the timeline should select to show a group: for scope groupings the instance of the
    // group's scope that overlaps [view0, view1) longest (else its first); for kernel names
    // and kinds the longest such activity in view (else in the run). None when not found.
    Selection representative(const BreakdownLevel& level, const std::string& key, double view0, double view1) const;

    // The group of activities behind one or more groups of a level (a slice, a row, "other"),
    // with the level's drill-down filters: what the timeline marks. Uses groupKey, the
    // function computeBreakdown groups and filters with, so the marked kernels are exactly
    // the ones the numbers count. Needs a RunData; empty otherwise.
    GroupSelection groupSelection(const BreakdownLevel& level, const std::vector<std::string>& keys) const;
    // "layer softmax › op head_gemm": the filters of a level, then the keys (with "+ N more").
    static QString groupLabel(const BreakdownLevel& level, const std::vector<std::string>& keys);

private:
    BreakdownResult finish(const BreakdownLevel& level, const Breakdown& b, bool range, double t0, double t1) const;
    std::unordered_map<std::string, GroupStats> distributions(const BreakdownLevel& level, bool range, double t0,
                                                              double t1) const;

    RunStats m_stats;
    ScopeTree m_tree;
    std::unordered_map<uint32_t, std::string> m_strings;
    std::vector<TotalRow> m_totals;
    std::shared_ptr<const RunData> m_data;
    std::vector<int64_t> m_nodeScope;   // RunData node index -> scope id
};

}  // namespace wt::gui
