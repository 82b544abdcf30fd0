// The one table of a sweep (analysis/table.h): what `wheretime sweep` prints (text, --csv,
// --json rows), what the scaling view draws and lists, and what its export and the report's
// scaling.csv write. One row per point: per series (layer, and variant or the other key's value
// on a grid) and swept value, the layer's kernel time per step, its share of the step, the
// step's kernel time and the run; with a predicted twin (predictedTwin) each measured row
// carries the twin's time at that point and the prediction's error, and the twin's own points
// follow as rows with source "predicted" (the chart's dashed lines).
#pragma once

#include "analysis/sweep.h"
#include "analysis/table.h"

#include <string>

namespace wt {

// Column ids of the sweep table. The value column's id is the swept key ("hidden"), the group
// column's (grids only) the other key ("variant"); both fall back to "value" / "group" when the
// key is not a valid column id or is taken.
inline constexpr const char* kSweepSeriesColumn = "series";         // "softmax", "softmax fused"
inline constexpr const char* kSweepLayerColumn = "layer";
inline constexpr const char* kSweepRunColumn = "run";               // the point's run (clicks open it)
inline constexpr const char* kSweepSourceColumn = "source";         // "measured" or "predicted"
inline constexpr const char* kSweepLayerNsColumn = "layer_ns";      // none: the run has no kernels in the layer
inline constexpr const char* kSweepShareColumn = "share";           // layer_ns / step_ns
inline constexpr const char* kSweepStepNsColumn = "step_ns";
inline constexpr const char* kSweepPredictedNsColumn = "predicted_ns";     // measured rows: the twin's layer_ns
inline constexpr const char* kSweepPredictedRunColumn = "predicted_run";   // measured rows: the twin's run
inline constexpr const char* kSweepErrorColumn = "error_pct";       // 100 (predicted_ns - layer_ns) / layer_ns
// The noise of a measured point (SweepPoint::stats, interval): none on predicted rows, none where
// the steps were not read; the interval none with fewer than 3 samples.
inline constexpr const char* kSweepRepeatsColumn = "repeats";       // runs pooled at the point (capture --repeat)
inline constexpr const char* kSweepPmColumn = "pm_ns";              // half the 95% interval of layer_ns (text: ±)
inline constexpr const char* kSweepSamplesColumn = "n";             // samples: steps of every repeat
inline constexpr const char* kSweepStddevColumn = "stddev_ns";      // of the per-step samples
inline constexpr const char* kSweepCiLowColumn = "ci_low_ns";       // the 95% t interval of the mean per step
inline constexpr const char* kSweepCiHighColumn = "ci_high_ns";
inline constexpr const char* kSweepInsideColumn = "predicted_inside";   // "yes" / "no": predicted_ns inside [ci_low_ns, ci_high_ns]

// The table over `measured` (computeSweep) and its predicted twin (nullptr: none; a twin with
// another x key, or numeric where the measured sweep is not, adds nothing). `layer` empty:
// every series, else that layer's only. Rows: the measured series in the table's order, each
// point in x order (a run without the layer's kernels has no time and no share); then, for each
// measured series, the twin's series of the same name: its points that have the layer (on a
// non-numeric axis only the values the measured axis has; on a numeric one every value, beyond
// the measured ones too). Notes: the sweep (id, workload, keys, runs), analysis's notes, and
// the twin when there is one, how the noise is judged, and how many predictions lie inside the
// measured interval. Times per step in ns; share a fraction; error in percent. Column order:
// series, layer, [group], value, run, repeats, source, layer_ns, pm_ns, n, stddev_ns, ci_low_ns,
// ci_high_ns, share, step_ns, predicted_ns, predicted_run, error_pct, predicted_inside.
Table sweepTable(const SweepTable& measured, const SweepTable* predicted = nullptr, const std::string& layer = {});

// Whether the twin's time lies inside the measured point's 95% interval (false without one):
// the table's predicted_inside and the scaling chart's hollow predicted points.
bool sweepPredictionInside(const SweepPoint& measured, const SweepPoint& predicted);

// The id of the value column / group column (empty: no group column) of sweepTable(t).
std::string sweepValueColumn(const SweepTable& t);
std::string sweepGroupColumn(const SweepTable& t);

}  // namespace wt
