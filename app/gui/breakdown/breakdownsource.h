// The breakdown view's, the exports' and the headless report's adapter onto analysis/,
// widget-free. A BreakdownSource holds one run's RunProfile (loaded once with the run: the
// RunData's, or read from the file for headless use) and, when attached, the loaded RunData
// whose arrays analysis reads as an ActivityView. Every number comes from
// wt::computeBreakdown: the whole run from the stored totals (the path `wheretime stats`
// takes), a range from the activities clipped to it, distributions of each group's activities
// when a RunData is attached. Here only: colours, Qt labels, and the mapping between groups
// and the timeline's selection (through analysis's group keys and filters).
#pragma once

#include "analysis/breakdown.h"
#include "analysis/grouping.h"
#include "analysis/runprofile.h"
#include "app/gui/core/groupselection.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/timelinelayout.h"

#include <QRgb>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wt::gui {

// One drill-down level: analysis's GroupLevel (group-by, the filters of the levels above).
using BreakdownLevel = wt::GroupLevel;

// True for the groupings whose groups are scopes (scope path, layer, phase, op); kernel
// names, kinds and categories group activities by what they are.
bool isScopeGrouping(GroupBy groupBy);

// "layer", "op", ...: the word used in titles and breadcrumbs.
QString groupByLabel(GroupBy groupBy);

// One row of the table and bar chart: analysis's Group and the colour the views draw it with.
struct BreakdownRow : Group {
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

// A chart slice: analysis's Slice (one group, or 'other') with its Qt label and colour.
struct PieSlice : Slice {
    QString label;
    QRgb color = 0;
};

// analysis's threshold rule (share < threshold merges into one trailing 'other') and top-N
// rule (bars: the largest maxCount - 1 rows, then 'other'), coloured.
std::vector<PieSlice> pieSlices(const BreakdownResult& result, double threshold);
std::vector<PieSlice> topSlices(const BreakdownResult& result, size_t maxCount);
// The table's name filter: a case-insensitive substring of the group's name or key (empty
// matches every row).
bool matchesNameFilter(const BreakdownRow& row, const QString& text);
// The charts under the table's name filter: the matching rows by the rule above (their shares
// of the whole), then one 'filtered out (N)' slice (kFilteredOutColor) with the others.
std::vector<PieSlice> pieSlices(const BreakdownResult& result, double threshold, const QString& filter);
std::vector<PieSlice> topSlices(const BreakdownResult& result, size_t maxCount, const QString& filter);

inline constexpr QRgb kOtherColor = 0xffc8c8c8;   // LayerPalette::otherColor()
inline constexpr QRgb kFilteredOutColor = 0xffececec;   // lighter than other: hidden, not merged

class BreakdownSource {
public:
    // Reads the run's profile from the file (headless use, no distributions). Throws
    // wt::StorageError (one-line reason) on bad files or runs.
    static std::shared_ptr<BreakdownSource> load(const std::string& path, int64_t runId);
    // For a loaded run: its profile (no file access) and its activities for distributions
    // and ranges.
    static std::shared_ptr<BreakdownSource> load(std::shared_ptr<const RunData> run);
    // For a run's overview (loadOverviewRun, while its activities load): its profile's stored
    // totals only, so the whole-run breakdown shows at once; no distributions, ranges or
    // selection until the loaded run's source replaces it.
    static std::shared_ptr<BreakdownSource> loadStored(const RunData& overview);
    // The same, keeping the overview: a time range is then read from the file, only that
    // range's chunks (loadRangeRun), for a run over the memory cap that is never loaded whole.
    static std::shared_ptr<BreakdownSource> loadStored(std::shared_ptr<const RunData> overview);

    const RunStats& stats() const { return m_stats; }   // computeRunStats of the whole run
    const RunInfo& run() const { return m_profile->run; }
    const RunProfile& profile() const { return *m_profile; }
    const ScopeTree& tree() const { return m_profile->tree; }
    const Strings& strings() const { return m_profile->strings; }
    const std::vector<TotalRow>& totals() const { return m_profile->totals; }
    const std::shared_ptr<const RunData>& runData() const { return m_data; }
    // Activities behind the figures (the attached run's, 0 without one): what makes a
    // computation long enough to move off the GUI thread.
    int64_t activityCount() const { return m_data ? m_data->activityCount : 0; }
    // computeRange has activities to read: the attached run's, or the file's through the kept overview.
    bool hasRanges() const { return m_data || m_rangeOverview; }

    // The whole run (stored totals), with distributions when a RunData is attached.
    BreakdownResult compute(const BreakdownLevel& level) const;
    // A time range [t0, t1) in ns relative to the run origin (needs a RunData, or the overview
    // of loadStored(shared_ptr): then the range's chunks are read from the file): each
    // activity's time is clipped to the range (analysis's clip rule). Throws StorageError
    // when the file cannot be read.
    BreakdownResult computeRange(const BreakdownLevel& level, double t0, double t1) const;

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
    // with the level's drill-down filters: what the timeline marks. Resolved through
    // analysis's group keys and filters, so the marked kernels are exactly the ones the
    // numbers count. Needs a RunData; empty otherwise.
    GroupSelection groupSelection(const BreakdownLevel& level, const std::vector<std::string>& keys) const;
    // "layer softmax › op head_gemm": the filters of a level, then the keys (with "+ N more").
    static QString groupLabel(const BreakdownLevel& level, const std::vector<std::string>& keys);

private:
    BreakdownResult adapt(const BreakdownLevel& level, const Breakdown& b, double t0, double t1) const;
    QRgb groupColor(GroupBy groupBy, const std::string& name) const;
    int64_t scopeOf(uint32_t node) const;

    std::shared_ptr<const RunProfile> m_profile;
    RunStats m_stats;
    std::shared_ptr<const RunData> m_data;
    std::shared_ptr<const RunData> m_rangeOverview;   // loadStored(shared_ptr): ranges from its file
    LayerPalette m_palette;   // the run's (RunData::palette, or built from the tree headless)
};

}  // namespace wt::gui
