// Comparing runs by structure, never by time: the groups of each run at one grouping (scope
// path, layer, op, kernel name, kind; the same keys and numbers as `wheretime stats`) are
// matched by their key, per step (the mean of the steps) or per run; groups found in some runs
// only are kept and marked. The kernel-level diff of a scope (a layer) matches kernel names
// inside each matched op and pairs the kernels one run lost with those the other gained, side by
// side, without merging their names. One code path for `wheretime compare`, the GUI's compare
// view and reports (docs/compare.md).
#pragma once

#include "analysis/breakdown.h"
#include "analysis/samplestats.h"
#include "analysis/scopetree.h"
#include "storage/types.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wt {

class Reader;

// A comparison that cannot be made as asked (e.g. per step with a run that has no steps).
struct CompareError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ComparePer { Step, Run };
std::optional<ComparePer> comparePerFromString(std::string_view text);
std::string_view toString(ComparePer per);

// Imports name each profiler step apart ("ProfilerStep#551"); for matching, every such name
// becomes this one, so the steps of two traces (and of one trace) are one group, like the single
// "step" scope of a capture.
inline constexpr const char* kImportStepName = "ProfilerStep#*";

// One run reduced to what comparing needs. It owns its names, so runs of different files (and
// of Readers that are gone) compare; load it on a worker thread, compare anywhere. Any totals
// will do (e.g. totalsOf() a time range), with the step count that goes with them.
struct CompareRun {
    std::string file;                  // where the run came from (display only)
    RunInfo info;
    int64_t steps = 0;                 // executions of the step scope; 0 = the run has no steps
    double stepWallNs = 0;             // captures: mean span of the step scopes (host clock, ns); 0 = unknown
    std::vector<TotalRow> totals;      // the stored per-(scope, kernel name, kind) totals
    ScopeTree tree;                    // step names folded (ProfilerStep#551 -> kImportStepName)
    std::unordered_map<uint32_t, std::string> strings;   // the names the totals use
    // The samples of noise: per step (in time order, as many as `steps` when read), the totals
    // of the activities inside that step, in the shape of `totals`. Empty when not read (runs
    // without steps, or made by hand); a comparison then has no per-step samples of this run.
    std::vector<std::vector<TotalRow>> stepTotals;
    bool hasScopes() const { return !tree.nodes().empty(); }
};

// Reads a run's stored totals, scope tree and step count, and with `stepSamples` the per-step
// totals: those stored when the run was finished (schema version 3), else computed as
// readStepTotals does (older files: reads the scope instances and passes over the activities). The run's stored settings (layer depth, category rules)
// apply to the tree; `categories` replaces the stored rules. Throws StorageError. With `stepWall`,
// captures' step wall time (CompareRun::stepWallNs: reads every scope instance; variants show it).
CompareRun loadCompareRun(const Reader& reader, int64_t runId, std::string file = {}, CategoriesPtr categories = nullptr,
                          bool stepSamples = true, bool stepWall = true);

// Per step of the run (its outermost step-level scope instances in time order; imports: the
// distinct top-level ProfilerStep#N names, the ranks of a job sharing them), the per-(scope,
// kernel name, kind) totals of the activities inside that step. Activities outside every step
// are in no sample. Empty when the run has no steps.
std::vector<std::vector<TotalRow>> readStepTotals(const Reader& reader, int64_t runId, const ScopeTree& tree);

// The step count of a run: instances of its outermost "step"-level scopes, those of one scope
// that overlap in time counting once (the ranks of a job: storage/stepmerge.h), else the number
// of distinct top-level profiler-step ranges (imports: ProfilerStep#N), else 0. Read from the
// stored step totals where the run has them.
int64_t countSteps(const Reader& reader, int64_t runId, const ScopeTree& tree);
// The same, with the step count the run stored (Reader::StepTotals::stepCount) already read.
int64_t countSteps(const Reader& reader, int64_t runId, const ScopeTree& tree, std::optional<int64_t> storedSteps);

// Per step of `run` (its stepTotals, in time order), each group's time at `options`: the groups
// (paths) of computeBreakdown(run.totals, ..., options), one value per step, 0 in a step without
// the group. Summed over the steps a group's values are its breakdown time. Empty when the run's
// steps were not read. (The samples of a sweep's points; compareSides keeps its own per-side loop.)
std::unordered_map<std::string, std::vector<double>> groupStepSamples(const CompareRun& run, const BreakdownOptions& options);

struct CompareOptions {
    std::optional<GroupBy> groupBy;    // unset: layer when every run has scopes, else kernel
    int depth = 3;                     // for GroupBy::Scope
    std::vector<std::pair<GroupBy, std::string>> filters;   // as BreakdownOptions::filters (--within)
    std::optional<ComparePer> per;     // unset: step when every run has steps, else run
};

// One group's (or one kernel's) figures in one run.
struct CompareCell {
    bool present = false;              // the group has activities in this run
    int64_t totalNs = 0;               // whole run
    int64_t totalCount = 0;            // activities, whole run
    double ns = 0;                     // per the comparison's unit: totalNs, or totalNs / steps
    double count = 0;                  // likewise for totalCount
    // The samples: per step the group's time in each step (0 in a step without it), per run its
    // total in each repeat of the side. n = 0 when the runs' steps were not read.
    SampleStats stats;
};

struct CompareGroup {
    std::string name;                  // display name (last path component, kernel name, kind)
    std::string path;                  // the key groups are matched by
    std::vector<CompareCell> cells;    // one per run, BASE first
    // Against BASE, one per run (BASE's own: 0, 0% and 1). A group absent from a run counts as
    // 0 ns there, so deltas are always defined and add up to the change of the total; the change
    // in % and the ratio are unset where BASE has no time in the group.
    std::vector<double> deltaNs;
    std::vector<std::optional<double>> deltaPct;   // 100 * delta / BASE's ns
    std::vector<std::optional<double>> ratio;
    double change = 0;                 // the largest |delta| over the runs: the sort key
    // Noise, against BASE, one per run (BASE's own: none, p 1, within noise): Welch's 95%
    // interval of the delta (none with fewer than kMinSamples samples on a side), the p-value
    // after Holm's control over the groups of the comparison (per OTHER), and the verdict.
    std::vector<std::optional<WelchInterval>> interval;
    std::vector<double> adjustedP;
    std::vector<Verdict> verdict;
    int presentIn() const;             // how many runs have the group
    bool inAll() const { return presentIn() == int(cells.size()); }
};

// One run pooled into a side as a repeat.
struct CompareRepeat {
    std::string file;
    int64_t id = 0;
    int64_t steps = 0;
};

// One side of a comparison: a run, or several runs of one configuration pooled as repeats (their
// steps are the side's samples; `file` and `info` are the first repeat's).
struct CompareRunSummary {
    std::string file;
    RunInfo info;
    int64_t steps = 0;                 // 0 = no steps; pooled: the steps of every repeat
    std::vector<CompareRepeat> repeats;   // the runs of the side, the first one included
    CompareCell total;                 // every group together (the run's total at the grouping)
    double deltaNs = 0;                // total against BASE's total
    std::optional<double> deltaPct;    // in % of BASE's total
    std::optional<double> ratio;
    // The total's noise against BASE (tested on its own, not one of the groups' family).
    std::optional<WelchInterval> interval;
    Verdict verdict = Verdict::WithinNoise;
};

struct Comparison {
    GroupBy groupBy = GroupBy::Layer;
    int depth = 3;
    std::vector<std::pair<GroupBy, std::string>> filters;
    ComparePer per = ComparePer::Run;
    std::vector<CompareRunSummary> runs;   // BASE first
    std::vector<CompareGroup> groups;      // largest change first; ties: larger first, then by path
    std::vector<std::string> notes;        // how it was compared (per-step rule, grouping fallback)
};

// Compares runs (BASE first; at least one) at one grouping. The per-run numbers are exactly
// computeBreakdown's at the same options (divided by the steps when per step). Throws
// CompareError when per step is asked and a run has no steps.
Comparison compareRuns(const std::vector<const CompareRun*>& runs, const CompareOptions& options);

// Runs of one configuration, pooled as repeats of one side.
using CompareSide = std::vector<const CompareRun*>;
// As compareRuns, each side the pool of its runs: per step, the side's time is its repeats'
// time over their steps together and every step of every repeat is a sample; per run, the mean
// of its repeats, each a sample. Throws CompareError when a side is empty, names one run twice,
// or its runs are not repeats of one configuration (checkRepeats).
Comparison compareSides(const std::vector<CompareSide>& sides, const CompareOptions& options);

// The tags `wheretime capture --repeat N` stores in each run's metadata: runs with one repeat id
// are repeats of one configuration.
inline constexpr const char* kRepeatIdKey = "repeat_id";         // unique per configuration and invocation
inline constexpr const char* kRepeatIndexKey = "repeat_index";   // 0-based position among the repeats
inline constexpr const char* kRepeatCountKey = "repeat_count";   // N

// The runs of the file tagged with `runId`'s repeat id, by id (the run itself among them); just
// `runId` when it has no repeat tag.
std::vector<int64_t> repeatsOf(const Reader& reader, int64_t runId);

// Throws CompareError naming each setting in which the runs differ (runSettings of
// analysis/variants.h, the seed and the name aside) with its values: runs pooled as repeats must
// be one configuration (workload, variant, preset, sizes, backend, device).
void checkRepeats(const CompareSide& runs, std::string_view side);

enum class KernelChange {
    Unchanged,   // same name in the same op, same count and time
    Changed,     // same name in the same op, count or time differ
    Removed,     // in BASE only (and not paired)
    Added,       // in OTHER only (and not paired)
    Swapped,     // BASE's kernel `baseName` and OTHER's `otherName`, paired within one op
    Moved,       // the same name, in op `op` in BASE and in `otherOp` in OTHER
};
std::string_view toString(KernelChange change);

struct KernelDiffRow {
    KernelChange change = KernelChange::Unchanged;
    std::string op;                    // the op (scope) the kernel ran in: BASE's, OTHER's when Added
    std::string otherOp;               // OTHER's op: equal to `op` unless Moved
    std::string baseName;              // empty when Added
    std::string otherName;             // empty when Removed; equal to baseName unless Swapped
    bool similarNames = false;         // Swapped: the names differ only in template arguments or numbers
    CompareCell base, other;
    double deltaNs = 0;
    std::optional<double> deltaPct;    // in % of BASE's time; unset where BASE has none
    std::optional<double> ratio;
    // Noise (per step: the kernel's time in each step of each run, 0 in a step without it; the
    // cells' stats): Welch's 95% interval of the delta, the p after Holm's control over the
    // diff's rows, and the verdict. Per run (one sample a side): not enough samples.
    std::optional<WelchInterval> interval;
    double adjustedP = 1;
    Verdict verdict = Verdict::NotEnoughSamples;
};

struct KernelDiffOptions {
    std::vector<std::pair<GroupBy, std::string>> filters;   // the scope to diff, e.g. {{Layer, "softmax"}}
    GroupBy within = GroupBy::Op;      // kernel names are matched inside these groups: op, layer or phase
    std::optional<ComparePer> per;     // as CompareOptions::per
};

struct KernelDiff {
    std::vector<std::pair<GroupBy, std::string>> filters;
    GroupBy within = GroupBy::Op;
    ComparePer per = ComparePer::Run;
    CompareRunSummary base, other;     // totals inside the filters; other.interval/verdict: the total's noise (tested alone)
    std::vector<KernelDiffRow> rows;   // largest |delta| first; ties by op, then name
    int unchanged = 0, changed = 0, removed = 0, added = 0, swapped = 0, moved = 0;
    std::vector<std::string> notes;
};

// The kernel-level diff of a scope (a layer): kernels matched by name inside each matched op;
// the BASE-only and OTHER-only kernels are then paired, largest with largest: the same name in
// another op (moved), then within one op names that differ only in template arguments or
// numbers, then the rest of the op (swaps). Names are never merged. With the runs' per-step
// totals read (loadCompareRun's stepSamples) every row and the total carry their noise. Throws
// CompareError like compareRuns.
KernelDiff diffKernels(const CompareRun& base, const CompareRun& other, const KernelDiffOptions& options);

// The rows of a kernel diff by change: how many, and their time in BASE and OTHER (per the
// diff's unit) and the change. One entry per KernelChange, in enum order.
struct KernelChangeTotal {
    KernelChange change = KernelChange::Unchanged;
    int rows = 0;
    double baseNs = 0, otherNs = 0, deltaNs = 0;
};
std::vector<KernelChangeTotal> changeTotals(const KernelDiff& diff);

// The name with template/argument lists removed and digit runs replaced by '#': what two
// kernel names must share to be paired as "similar" ("sgemm_128x64_nn" ~ "sgemm_64x32_nn").
std::string kernelStem(std::string_view name);

}  // namespace wt
