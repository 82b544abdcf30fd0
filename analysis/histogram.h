// The distribution of one group's instance durations: a histogram on log-spaced bins, the
// group's n, min, median, p95 and max, and its slowest instances (where they are, so a view
// can jump to them). A group is one of `wheretime stats --group-by`'s (grouping.h: a kernel
// name, an op, a layer, a phase, a scope path, a kind, a category) or the run's steps. Its
// instances are either its activities (what stats' count, median, min and max describe) or,
// for a scope grouping, its scope instances, each with its GPU span (first kernel start to
// last kernel end under it, children included: the bar the timeline draws).
//
// The bins (docs/histograms.md): B bins per decade (default 10) with edges anchored at
// powers of ten, so the bins of any two runs line up and can be overlaid. Bin i holds the
// integer durations d with 10^(i/B) <= d < 10^((i+1)/B) ns, i.e. [edge(i), edge(i+1)) where
// edge(i) is the smallest integer >= 10^(i/B); edges that round to the same integer (below
// 10 ns) merge. The bins run from the bin of the minimum to that of the maximum, empty ones
// between kept, so a plot shows the gaps; durations of 0 ns have a bin [0, 1), and the log bins
// then start at 1 ns.
#pragma once

#include "analysis/activityview.h"
#include "analysis/grouping.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

inline constexpr int kDefaultBinsPerDecade = 10;
inline constexpr size_t kDefaultSlowest = 10;
// HistogramInstance::track of a scope instance (index is then the scope instance index).
inline constexpr uint32_t kScopeInstanceTrack = 0xffffffffu;

enum class HistogramOf {
    Activities,   // the group's activities (kernels; every kind under kind and category groupings)
    Scopes,       // the group's scope instances (scope groupings and steps only), by GPU span
};
std::string_view toString(HistogramOf of);   // "kernels", "scopes"

// Which instances: a grouping and one of its keys, or the run's steps.
struct HistogramGroup {
    GroupLevel level;                  // its filters apply to activities
    std::string key;                   // a key of level (steps: a step name, "" = every step)
    HistogramOf of = HistogramOf::Activities;
    bool steps = false;                // the run's step instances (level ignored; always Scopes)
};

struct HistogramInstance {
    uint32_t track = 0;                // ActivityView track position, kScopeInstanceTrack for a scope
    uint32_t index = 0;                // position in the track, or the scope instance index
    int64_t startNs = 0;               // from the run's time 0 (a scope: its GPU start)
    int64_t durationNs = 0;
};

struct HistogramBin {
    int64_t loNs = 0;                  // [loNs, hiNs)
    int64_t hiNs = 0;
    int64_t count = 0;
};

struct Histogram {
    HistogramGroup group;
    int binsPerDecade = kDefaultBinsPerDecade;
    int64_t count = 0;                 // instances (n)
    int64_t totalNs = 0;               // summed durations (saturating)
    double meanNs = 0;
    int64_t minNs = 0, maxNs = 0;
    int64_t medianNs = 0;              // lower median, as stats' median_ns
    int64_t p95Ns = 0;                 // nearest rank: the ceil(0.95 n)-th smallest
    int64_t steps = 0;                 // the run's step count (0: none; per-step counts undefined)
    std::vector<HistogramBin> bins;    // ascending, contiguous; empty when count == 0
    std::vector<HistogramInstance> slowest;   // longest first; ties by start, track, index

    // The bin holding a duration, -1 when it is outside every bin.
    int binOf(int64_t durationNs) const;
    // count / steps of a bin; nullopt without steps.
    std::optional<double> perStep(size_t bin) const;
};

struct HistogramOptions {
    int binsPerDecade = kDefaultBinsPerDecade;   // 1..100
    size_t slowest = kDefaultSlowest;
    int64_t steps = 0;                           // the run's steps, for the per-step counts
};

// edge(i): the smallest integer >= 10^(i / binsPerDecade) (i >= 0), exact for integers.
int64_t logBinEdge(int i, int binsPerDecade);
// The index i with edge(i) <= d < edge(i + 1) of a duration d >= 1.
int logBinIndex(int64_t durationNs, int binsPerDecade);

// The group's instances (unordered). Throws std::invalid_argument for Scopes under a
// grouping that has no scopes (kernel, kind, category).
std::vector<HistogramInstance> histogramInstances(const ActivityView& view, const ScopeTree& tree, const Strings& strings,
                                                  const HistogramGroup& group);
// Scopes (and steps): by tree position, 1 for the nodes whose instances are the group's
// instances (what a view marks); empty for activity groups.
std::vector<uint8_t> histogramNodes(const ScopeTree& tree, const HistogramGroup& group);
// The keys the group's grouping has in this run (sorted): what an unknown key is checked
// against. Steps: the step names.
std::vector<std::string> histogramKeys(const ActivityView& view, const ScopeTree& tree, const Strings& strings,
                                       const HistogramGroup& group);
// Up to `max` keys nearest to `wanted` (case-insensitive substring matches first, then by edit
// distance), for the one-line error of an unknown group.
std::vector<std::string> nearKeys(const std::vector<std::string>& keys, std::string_view wanted, size_t max = 5);

// The histogram of given instances.
Histogram histogramOf(const std::vector<HistogramInstance>& instances, const HistogramOptions& options = {});
// histogramInstances, then histogramOf; the group echoed in the result.
Histogram computeHistogram(const ActivityView& view, const ScopeTree& tree, const Strings& strings, const HistogramGroup& group,
                           const HistogramOptions& options = {});

class Reader;
// A stored run's histogram of a group: its profile and activities read through `reader` (in
// the caller's transaction), the steps counted (countSteps) for the per-step counts; what the
// compare view's overlay computes per run. options.steps is ignored.
Histogram histogramOfRun(const Reader& reader, int64_t runId, const HistogramGroup& group, HistogramOptions options = {});

}  // namespace wt
