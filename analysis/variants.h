// Variants side by side: N runs of one workload that differ in ONE setting (the softmax variant
// by default, or any size: hidden, vocab, batch, seq, layers, cutoffs, ...). The setting is
// found from the runs' stored configuration (RunInfo::configJson, device, backend); runs that
// differ in two or more settings are refused with every differing setting named. Per run: one
// layer's (default softmax) forward, backward, update and total time per step, its share of the
// step, the step time, the speedups against a baseline run, and the layer's time per op (for
// stacked bars). Every number is compareRuns' over the same runs (the layer grouping, per step),
// so the variants table equals `wheretime compare` over those runs; speedups are ratios of those
// numbers. One code path for `wheretime variants`, the GUI's variants view and reports
// (docs/softmax-variants.md).
#pragma once

#include "analysis/compare.h"
#include "storage/types.h"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wt {

// Runs that cannot be shown side by side: fewer than one run, two or more settings differ
// (what() names each, with its values), a run without steps, an unknown baseline value.
struct VariantsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The settings of a run that make it what it is, as (key, value) text sorted by key: every
// field of the stored configuration (workload, preset, variant, vocab, hidden, layers, kernel or
// heads/ffn, batch, seq, cutoffs as "a,b,c", lr, momentum, clip, warmup, zipf, corpus, seed,
// backend) plus "device". Derived fields are left out ("tokens" = batch * seq). The "cutoffs" of
// a `full`-variant run (which has none) are left out too, so full vs adaptive differs in the
// variant only. A run without a configuration (an import) has workload, variant, backend, device.
// Throws VariantsError (one line, naming the run) when the stored configuration is damaged.
std::vector<std::pair<std::string, std::string>> runSettings(const RunInfo& run);

// One setting whose value is not the same in every run.
struct SettingDifference {
    std::string key;                   // e.g. "variant", "hidden"
    std::vector<std::string> values;   // one per run, in the runs' order ("" where a run lacks it)
};

// The settings (runSettings) whose values differ between the runs, sorted by key; empty when
// the runs agree in every setting (or there is one run). A setting some runs lack (the cutoffs
// of `full`) differs only when two runs that have it disagree.
std::vector<SettingDifference> differingSettings(const std::vector<const RunInfo*>& runs);

// Picks, from a file's runs, the ones to show as variants of `anchor`: complete captures (not
// imports) whose settings equal the anchor's in everything but `setting` (a setting one of the
// two lacks matches); for each
// value of `setting` the newest such run (highest id). Returned oldest first (by id), the anchor
// among them. The GUI's "Compare variants" passes the current run; the CLI the newest run.
std::vector<int64_t> selectVariantRuns(const std::vector<RunInfo>& runs, const RunInfo& anchor,
                                       const std::string& setting = "variant");

// The newest complete capture (highest id; backend not "import") of `workload` (any when empty),
// the CLI's default anchor; nullopt when there is none.
std::optional<RunInfo> newestCapture(const std::vector<RunInfo>& runs, const std::string& workload = {});

struct VariantsOptions {
    std::string layer = "softmax";     // the layer to compare (a layer key, as `--group-by layer` shows)
    // The differing setting's value of the baseline run (a variant name, a hidden size, ...);
    // when no run has it, or the baseline is empty, the first run is the baseline.
    std::string baseline = "adaptive";
};

// One op of the layer in one run.
struct VariantOp {
    std::string name;                  // op key (e.g. "head_gemm", "fused_loss")
    double ns = 0;                     // time per step (ns) summed over the phases
};

// One run (one variant) of the table. All times are kernel time per step (ns), the mean step.
struct VariantRow {
    std::string file;                  // display only
    RunInfo info;
    std::string value;                 // the differing setting's value in this run; the variant
                                       // name when nothing differs
    int64_t steps = 0;
    bool hasLayer = false;             // the run has kernels in the layer
    double forwardNs = 0;              // the layer in phase "forward"
    double backwardNs = 0;             // the layer in phase "backward"
    double updateNs = 0;               // the layer's other time (phase "update": grad norm, SGD, loss read-back)
    double layerNs = 0;                // the layer in all phases = compare's layer cell (forward+backward+update)
    double share = 0;                  // layerNs / stepNs (fraction, 0..1)
    double stepNs = 0;                 // kernel time of the step: every kernel of it = compare's total
    double stepWallNs = 0;             // wall time of a step: the mean span of the step scopes (host
                                       // clock; CompareRun::stepWallNs), else the traced span / steps
    // Against the baseline: baseline's time / this run's time (> 1 = faster than the baseline);
    // unset where this run has no time there. The baseline's own are 1.
    std::optional<double> speedup;           // of layerNs
    std::optional<double> forwardSpeedup;    // of forwardNs
    std::optional<double> backwardSpeedup;   // of backwardNs
    std::optional<double> stepSpeedup;       // of stepNs
    // Noise against the baseline (none on the baseline's row, and with fewer than 3 steps a
    // side): the 95% interval of the speedups, from Welch's interval [lo, hi] of the per-step
    // delta as base / (base + hi) .. base / (base + lo) (no upper end when base + lo <= 0), and
    // the layer's verdict under Holm's control over the non-baseline runs (the step's: alone).
    std::optional<double> speedupLow, speedupHigh;
    std::optional<double> stepSpeedupLow, stepSpeedupHigh;
    Verdict verdict = Verdict::NotEnoughSamples;       // the layer; Faster = faster than the baseline
    Verdict stepVerdict = Verdict::NotEnoughSamples;
    std::vector<VariantOp> ops;        // the layer's ops, in VariantsTable::opNames order (0 where absent)
};

struct VariantsTable {
    std::string setting;               // the one differing setting ("variant", "hidden", ...);
                                       // empty when the runs agree in every setting
    std::string layer;                 // VariantsOptions::layer
    size_t baseline = 0;               // index into rows
    std::vector<VariantRow> rows;      // in the runs' order
    std::vector<std::string> opNames;  // every op of the layer in any run, largest (summed over the runs) first:
                                       // the stacking order of the op bars
    std::vector<std::string> notes;    // e.g. "run 3 has no kernels in layer softmax"
};

// The table over runs (at least one; each with steps). Throws VariantsError when two or more
// settings differ (naming each: "the runs differ in 2 settings: hidden (256, 512), variant
// (adaptive, full); pick runs that differ in one"), or a run has no steps. Baseline by
// VariantsOptions::baseline's value of the differing setting, else the first run.
VariantsTable computeVariants(const std::vector<const CompareRun*>& runs, const VariantsOptions& options = {});

}  // namespace wt
