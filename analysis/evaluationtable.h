// The tables of a leave-one-run-out evaluation (analysis/predictor.h, evaluate()): what
// `wheretime predict --evaluate` prints (text, --csv, --json rows).
//   evaluationRunsTable   one row per held-out run: its measured step, the step predicted by
//                         the predictor fitted on the other runs, by the roofline and by FLOPs
//                         alone (ns per step), and its per-layer mean absolute percentage errors
//   evaluationMapeTable   two rows (per layer, whole step): the MAPE of the predictor, the
//                         roofline and FLOPs alone, in percent
// The roofline's columns are none when the evaluation had no device.
#pragma once

#include "analysis/predictor.h"
#include "analysis/table.h"

#include <string>

namespace wt {

// Columns: run, name, measured_step_ns, model_step_ns, roofline_step_ns, flops_step_ns, layers,
// layer_mape_model, layer_mape_roofline, layer_mape_flops. Notes: the file and the roofline's
// device (`device` empty: none).
Table evaluationRunsTable(const Evaluation& ev, const std::string& file, const std::string& device);

// Columns: error_of ("per layer", "whole step"), model, roofline, flops.
Table evaluationMapeTable(const Evaluation& ev);

}  // namespace wt
