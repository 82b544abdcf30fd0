// The held-out error beside a prediction: how far off a predictor of this file was on runs it had
// not seen. The measured runs of the file (those with op features) are evaluated as `wheretime
// predict --evaluate --hold-out H` evaluates them (analysis/predictor.h, evaluate()): each group
// held out in turn, the predictor fitted on the other groups' runs. The table is what
// `wheretime sweep` prints after the sweep table (text, --errors --csv, "held_out" in --json) and
// what the GUI's scaling view lists under the sweep table and quotes beside the chosen layer:
// one table, so the two show the same figures by construction.
#pragma once

#include "analysis/predictor.h"
#include "analysis/sweep.h"
#include "analysis/table.h"

#include <optional>
#include <string>
#include <vector>

namespace wt {

class Database;
class Reader;

// What an evaluation of a file reads: its measured runs with op features (predicted runs, backend
// `model`, left out) and its first calibration (the units of the features; none: nominal units).
// Throws StorageError, and std::runtime_error (one line) for a damaged calibration.
struct EvaluationInput {
    std::vector<RunSamples> runs;
    std::optional<DeviceSpec> calibration;
};
EvaluationInput loadEvaluationInput(Database& db, const std::string& file);

struct HeldOutErrorOptions {
    // None: the widest split the runs allow: workload when they span two workloads or more, else
    // preset, else variant, else each run (leave-one-run-out).
    std::optional<HoldOut> holdOut;
    PredictorKind model = PredictorKind::Regression;
    std::string predictor;   // the stored predictor this error stands for ("" : none named; notes only)
};

struct HeldOutError {
    HoldOut holdOut = HoldOut::Run;
    PredictorKind model = PredictorKind::Regression;
    std::string predictor;
    std::vector<HoldOut> possible;   // the hold-outs these runs allow (two groups or more), run last
    Evaluation evaluation;
};

// The hold-outs `runs` allow, widest first (workload, preset, variant, run).
std::vector<HoldOut> possibleHoldOuts(const std::vector<RunSamples>& runs);

// Evaluates `input` (std::invalid_argument, one line: fewer than two runs with features, or a
// hold-out with one group only).
HeldOutError computeHeldOutError(const EvaluationInput& input, const HeldOutErrorOptions& options);

// The predictor a predicted sweep was made with (its first run's metadata `cost_model` and the
// stored predictor of that name): its name and kind (regression when it is not stored in this
// file); the roofline ("roofline", regression: the table's roofline column is then the twin's
// figure) when the twin names none.
HeldOutErrorOptions heldOutOptionsFor(Database& db, const Reader& reader, const SweepInfo& predictedSweep);

// Column ids of the held-out error table.
inline constexpr const char* kHeldOutErrorOfColumn = "error_of";   // "layer", "step", "every layer"
inline constexpr const char* kHeldOutLayerColumn = "layer";        // the layer's name ("" for step and every layer)
inline constexpr const char* kHeldOutPairsColumn = "runs";         // held-out runs counted (with that layer)
inline constexpr const char* kHeldOutMapeModelColumn = "mape_model";
inline constexpr const char* kHeldOutMapeRooflineColumn = "mape_roofline";   // none without a device
inline constexpr const char* kHeldOutMapeFlopsColumn = "mape_flops";
inline constexpr const char* kHeldOutBiasColumn = "mean_error_model";        // signed: below 0 predicted low
inline constexpr const char* kHeldOutHoldOutColumn = "hold_out";             // CSV / JSON only
inline constexpr const char* kHeldOutModelColumn = "model";                  // CSV / JSON only

// Over the held-out runs in `runIds` (empty: every held-out run; a sweep passes its runs, each
// predicted by the model fitted without its group): one row per layer name (name order; `layer`
// non-empty: that layer's only; runs = those with the layer), then the whole step (MAPE over the
// runs) and every layer (over every (run, layer) pair; runs = the runs), in percent. Notes: the
// hold-out and its groups, the model and the predictor it stands for, the runs counted.
// Columns: error_of, layer, runs, mape_model, mape_roofline, mape_flops, mean_error_model,
// hold_out, model.
Table heldOutErrorTable(const HeldOutError& error, const std::string& layer = {}, const std::vector<int64_t>& runIds = {});

}  // namespace wt
