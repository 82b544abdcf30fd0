#include "analysis/evaluationtable.h"

namespace wt {

Table evaluationRunsTable(const Evaluation& ev, const std::string& file, const std::string& device)
{
    Table t;
    t.id = "prediction_evaluation";
    t.add("run", "run", Unit::Count);
    t.add("name", "name", Unit::Text);
    t.add("measured_step_ns", "measured", Unit::Ns);
    t.add("model_step_ns", "predictor", Unit::Ns);
    t.add("roofline_step_ns", "roofline", Unit::Ns);
    t.add("flops_step_ns", "FLOPs only", Unit::Ns);
    t.add("layers", "layers", Unit::Count, false);
    t.add("layer_mape_model", "layer MAPE", Unit::Percent);
    t.add("layer_mape_roofline", "layer MAPE roofline", Unit::Percent, false);
    t.add("layer_mape_flops", "layer MAPE FLOPs only", Unit::Percent, false);
    t.notes.push_back("leave-one-run-out over " + std::to_string(ev.runs.size()) + " runs of " + file + " (roofline: " +
                      (device.empty() ? std::string("none, no calibration") : device) +
                      "); step times per step, each run predicted by the predictor fitted on the others");
    auto roofline = [&](double v) { return ev.hasRoofline ? Cell(v) : Cell(); };
    for (const RunEvaluation& r : ev.runs) {
        std::vector<Cell>& row = t.addRow();
        size_t c = 0;
        row[c++] = r.runId;
        row[c++] = r.name;
        row[c++] = r.measuredStepNs;
        row[c++] = r.modelStepNs;
        row[c++] = roofline(r.rooflineStepNs);
        row[c++] = r.flopsStepNs;
        row[c++] = int64_t(r.layers);
        row[c++] = r.layerMapeModel;
        row[c++] = roofline(r.layerMapeRoofline);
        row[c++] = r.layerMapeFlops;
    }
    return t;
}

Table evaluationMapeTable(const Evaluation& ev)
{
    Table t;
    t.id = "prediction_mape";
    t.add("error_of", "MAPE", Unit::Text);
    t.add("model", "predictor", Unit::Percent);
    t.add("roofline", "roofline", Unit::Percent);
    t.add("flops", "FLOPs only", Unit::Percent);
    auto roofline = [&](double v) { return ev.hasRoofline ? Cell(v) : Cell(); };
    t.rows.push_back({std::string("per layer"), ev.layerMapeModel, roofline(ev.layerMapeRoofline), ev.layerMapeFlops});
    t.rows.push_back({std::string("whole step"), ev.stepMapeModel, roofline(ev.stepMapeRoofline), ev.stepMapeFlops});
    return t;
}

}  // namespace wt
