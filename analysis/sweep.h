// Sweeps: runs that `wheretime capture --sweep KEY=v1,v2,...` made, one per value (a second
// --sweep: one per pair of values, a grid), tagged in each run's metadata with the sweep's id,
// key(s) and value(s). Here they are found in a file and reduced to the table behind the scaling
// chart: per swept value (x, numeric where every value is a number, sorted), per layer, the
// layer's kernel time per step and its share of the step; on a grid with `variant` one series
// per variant (x = the other key). Computed from the stored totals only (compareRuns' numbers at
// the layer grouping, per step). One code path for `wheretime sweep`, the GUI's scaling view and
// reports (docs/softmax-variants.md).
#pragma once

#include "analysis/compare.h"
#include "storage/types.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wt {

class Reader;

// Metadata keys of a sweep's runs (written by capture, read here).
inline constexpr const char* kSweepIdKey = "sweep_id";         // unique per `capture --sweep` invocation
inline constexpr const char* kSweepKeyKey = "sweep_key";       // the first swept key, e.g. "hidden"
inline constexpr const char* kSweepValueKey = "sweep_value";   // this run's value of it, e.g. "512"
inline constexpr const char* kSweepKey2Key = "sweep_key2";     // grids: the second key, e.g. "variant"
inline constexpr const char* kSweepValue2Key = "sweep_value2"; // grids: this run's value of it
inline constexpr const char* kSweepIndexKey = "sweep_index";   // 0-based position of the run in the sweep

// A sweep that cannot be shown (unknown id, no sweep in the file, runs without steps).
struct SweepError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One run's sweep tag.
struct SweepTag {
    std::string id;
    std::string key, value;            // first key and this run's value
    std::string key2, value2;          // second key (grids); empty for a one-key sweep
    int index = -1;                    // position in the sweep; -1 when not stored
    bool isGrid() const { return !key2.empty(); }
};

// The tag in a run's metadata (Reader::metadata); nullopt when the run is not part of a sweep.
std::optional<SweepTag> sweepTagOf(const std::vector<std::pair<std::string, std::string>>& metadata);

// A sweep found in a file.
struct SweepInfo {
    std::string id;
    std::string key, key2;             // key2 empty for a one-key sweep
    std::vector<std::string> values;   // distinct values of key, in sweepValueOrder
    std::vector<std::string> values2;  // distinct values of key2 (grids), in first-seen order
    std::vector<int64_t> runIds;       // the sweep's runs, by id
    std::string workload, preset;      // of its first run
    std::string backend;               // of its first run: "cpu", "cuda", or "model" (predicted)
    bool predicted() const { return backend == "model"; }
    std::string startedAt;             // of its first run (ISO 8601 UTC)
};

// Every sweep of a file, oldest first (by the first run's id). Throws StorageError.
std::vector<SweepInfo> listSweeps(const Reader& reader);

// Sorts values as the chart's x axis: numerically when every value is a number, else in the
// given (capture) order. Returns whether they were numeric.
bool sweepValueOrder(std::vector<std::string>& values);

struct SweepOptions {
    std::string layer;                 // only this layer's series (empty: every layer)
};

// One point of a series: one run, or the repeats of one configuration pooled (`capture --sweep
// ... --repeat N`: the runs of the point that share the newest one's repeat id).
struct SweepPoint {
    std::string value;                 // the x value as captured ("512", "adaptive")
    std::optional<double> x;           // numeric x, when the x values are numbers
    int64_t runId = 0;                 // the run this point comes from (clicks open it); the newest repeat
    bool present = false;              // the run(s) have kernels in the layer
    double ns = 0;                     // the layer's kernel time per step (ns): its time over the steps of every repeat
    double share = 0;                  // ns / stepNs (fraction, 0..1)
    double stepNs = 0;                 // the run's (repeats') kernel time per step (ns)
    std::vector<int64_t> repeatRunIds; // the runs pooled, by id (runId among them); empty when made by hand
    // Noise: the samples are the layer's time in each step of each repeat (0 in a step without
    // it), so stats.mean = ns; n = 0 when the steps were not read. `interval`: the 95% t interval
    // of the mean (samplestats' meanInterval); none with fewer than kMinSamples samples.
    SampleStats stats;
    std::optional<MeanInterval> interval;
};

// One line of the chart: one layer (one-key sweep, or a grid without variant: one per layer and
// value of the second key), or on a grid with variant one per layer and variant.
struct SweepSeries {
    std::string name;                  // "softmax", or "softmax fused" / "softmax batch=32" on grids
    std::string layer;                 // the layer key
    std::string group;                 // the series' value of the non-x key on grids (a variant); empty otherwise
    std::vector<SweepPoint> points;    // one per x value, in SweepTable::xValues order (missing runs skipped)
};

struct SweepTable {
    SweepInfo sweep;
    std::string xKey;                  // the key on the x axis (the non-variant key on a variant grid)
    std::string groupKey;              // the other key on a grid, else empty
    bool numeric = false;              // every x value is a number (log axes make sense)
    std::vector<std::string> xValues;  // sorted (numerically when numeric)
    std::vector<std::string> layers;   // the layers shown, largest total time first
    std::vector<SweepSeries> series;   // by layer (as `layers`), then by group in SweepInfo order
    std::vector<std::string> notes;
};

// One run of a sweep with its tag, for computeSweep.
struct SweepRun {
    SweepTag tag;
    std::string repeatId;              // the run's repeat_id (capture --repeat), empty when none
    CompareRun run;                    // with its per-step totals for the points' noise
};

// The table over the runs of one sweep (all with the same id). A run without steps (still being
// captured, or failed before its first step) is left out with a note; throws SweepError when no
// run has steps. Runs of one point with one repeat id pool into that point (its time and its
// samples); without repeat tags a point is its newest run.
SweepTable computeSweep(const SweepInfo& sweep, const std::vector<const SweepRun*>& runs, const SweepOptions& options = {});

// The predicted twin of a measured sweep: the newest sweep of `sweeps` made by `wheretime
// predict --sweep` (backend model) with the same key(s) (in either order), workload and preset,
// sharing at least two values of the first key. nullopt for a predicted sweep or when none.
std::optional<SweepInfo> predictedTwin(const std::vector<SweepInfo>& sweeps, const SweepInfo& measured);

// The point of series `name` at x value `value` (a present one), nullptr when none: how a
// measured point finds its predicted twin.
const SweepPoint* findSweepPoint(const SweepTable& table, const std::string& name, const std::string& value);

// Loads the runs of sweep `id` (empty: the newest measured sweep of the file, else the newest
// predicted one: predicted sweeps are drawn over their measured twin) and computes its table.
// Throws SweepError (no such sweep: the message lists the file's sweeps) and StorageError.
SweepTable loadSweep(const Reader& reader, const std::string& id, const SweepOptions& options = {},
                     const std::string& file = {});

}  // namespace wt
