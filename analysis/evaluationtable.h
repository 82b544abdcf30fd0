// The tables of a held-out evaluation (analysis/predictor.h, evaluate()): what
// `wheretime predict --evaluate [--hold-out H]` prints (text, --csv, --json rows).
//   evaluationRunsTable   one row per held-out run: its measured step, the step predicted by
//                         the predictor fitted on the other runs, by the roofline and by FLOPs
//                         alone (ns per step), and its per-layer mean absolute percentage errors
//   evaluationGroupsTable one row per held-out group (a run, workload, preset or variant): its
//                         per-step and per-layer MAPE, the predictor's and the baselines'
//   evaluationWorstLayersTable  the held-out layers with the largest errors of the predictor
//   evaluationOpsTable    the op names with the largest absolute errors: where the error comes from
//   evaluationMapeTable   two rows (per layer, whole step): the MAPE of the predictor, the
//                         roofline and FLOPs alone, in percent
//   evaluationPerRunTable the same against each run alone, with the repeats' own spread
// The roofline's columns are none when the evaluation had no device.
#pragma once

#include "analysis/predictor.h"
#include "analysis/table.h"

#include <string>

namespace wt {

// Columns: run, name, measured_step_ns, model_step_ns, roofline_step_ns, flops_step_ns, layers,
// layer_mape_model, layer_mape_roofline, layer_mape_flops, group, repeats (one row per
// configuration: its repeats pooled, measured as the median over their steps). Notes: the
// hold-out, the file and the roofline's device (`device` empty: none).
Table evaluationRunsTable(const Evaluation& ev, const std::string& file, const std::string& device);

// Columns: group, runs, layers, step_mape_model, step_mape_roofline, step_mape_flops,
// layer_mape_model, layer_mape_roofline, layer_mape_flops (percent).
Table evaluationGroupsTable(const Evaluation& ev);

// Columns: run, name, group, layer, measured_ns, model_ns (per step), error_pct (signed),
// step_share (the layer's share of the measured step).
Table evaluationWorstLayersTable(const Evaluation& ev);

// Columns: op, kind, launches, measured_ns, model_ns (per step, summed over the held-out runs),
// error_pct (signed), share (of the held-out runs' measured time), by_features (the share of its
// launches no op-kind class covered): the op names with the largest absolute errors.
Table evaluationOpsTable(const Evaluation& ev);

// Columns: error_of ("per layer", "whole step"), model, roofline, flops.
Table evaluationMapeTable(const Evaluation& ev);

// The same two rows against every run alone (Evaluation::perRun): error_of, model, roofline,
// flops, repeats (each run against its configuration's other repeats: the noise floor; none
// without repeats), compared (runs, or (run, layer) pairs), with_repeats (those with siblings).
Table evaluationPerRunTable(const Evaluation& ev);

}  // namespace wt
