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
    t.add("group", "held out with", Unit::Text, ev.holdOut != HoldOut::Run);
    bool pooled = false;
    for (const RunEvaluation& r : ev.runs)
        pooled = pooled || r.repeats > 1;
    t.add("repeats", "repeats", Unit::Count, pooled);
    const std::string roof = " (roofline: " + (device.empty() ? std::string("none, no calibration") : device) + ")";
    if (ev.holdOut == HoldOut::Run)
        t.notes.push_back("leave-one-run-out over " + std::to_string(ev.runs.size()) + " runs of " + file + roof +
                          "; step times per step, each run predicted by the predictor fitted on the others");
    else
        t.notes.push_back(std::string("held out by ") + holdOutName(ev.holdOut) + ": " + std::to_string(ev.groups.size()) +
                          " groups, " + std::to_string(ev.runs.size()) + " runs of " + file + roof +
                          "; step times per step, each group's runs predicted by the predictor fitted on the other groups' runs");
    t.notes.push_back("measured: the median over the steps of every repeat of a configuration (runs of one configuration "
                      "are held out and compared as one row); predicted: per step");
    t.notes.push_back(std::string("predictor: ") +
                      (ev.model == PredictorKind::Mlp ? "mlp (per launch, Justus et al. 2018)"
                                                      : "regression (per op kind, cross-kind feature model)"));
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
        row[c++] = r.group;
        row[c++] = int64_t(r.repeats);
    }
    return t;
}

Table evaluationGroupsTable(const Evaluation& ev)
{
    Table t;
    t.id = "prediction_groups";
    t.add("group", std::string("held-out ") + holdOutName(ev.holdOut), Unit::Text);
    t.add("runs", "runs", Unit::Count);
    t.add("layers", "layers", Unit::Count, false);
    t.add("step_mape_model", "step MAPE", Unit::Percent);
    t.add("step_mape_roofline", "roofline", Unit::Percent);
    t.add("step_mape_flops", "FLOPs only", Unit::Percent);
    t.add("layer_mape_model", "layer MAPE", Unit::Percent);
    t.add("layer_mape_roofline", "roofline", Unit::Percent);
    t.add("layer_mape_flops", "FLOPs only", Unit::Percent);
    auto roofline = [&](double v) { return ev.hasRoofline ? Cell(v) : Cell(); };
    for (const GroupEvaluation& g : ev.groups)
        t.rows.push_back({g.group, int64_t(g.runs), int64_t(g.layers), g.stepMapeModel, roofline(g.stepMapeRoofline),
                          g.stepMapeFlops, g.layerMapeModel, roofline(g.layerMapeRoofline), g.layerMapeFlops});
    return t;
}

Table evaluationOpsTable(const Evaluation& ev)
{
    Table t;
    t.id = "prediction_ops";
    const bool byGroup = !ev.ops.empty() && !ev.ops.front().group.empty();
    if (byGroup)
        t.add("group", "held out with", Unit::Text);
    t.add("op", "op", Unit::Text);
    t.add("kind", "kind", Unit::Text);
    t.add("launches", "launches", Unit::Count);
    t.add("measured_ns", "measured", Unit::Ns);
    t.add("model_ns", "predictor", Unit::Ns);
    t.add("error_pct", "error", Unit::Percent);
    t.add("share", "share", Unit::Share);
    t.add("by_features", "by features", Unit::Share);
    for (const OpError& o : ev.ops) {
        t.rows.push_back({o.name, o.kind, o.launches, o.measuredNs, o.modelNs,
                          o.measuredNs > 0 ? Cell((o.modelNs - o.measuredNs) / o.measuredNs * 100.0) : Cell(),
                          ev.heldOutMeasuredNs > 0 ? Cell(o.measuredNs / ev.heldOutMeasuredNs) : Cell(),
                          o.launches ? Cell(double(o.byFeatures) / double(o.launches)) : Cell()});
        if (byGroup)
            t.rows.back().insert(t.rows.back().begin(), o.group);
    }
    t.notes.push_back("the op names whose held-out time the predictor missed by the most (per step, summed over the held-out runs)");
    return t;
}

Table evaluationWorstLayersTable(const Evaluation& ev)
{
    Table t;
    t.id = "prediction_worst_layers";
    t.add("run", "run", Unit::Count);
    t.add("name", "name", Unit::Text, false);
    t.add("group", "held out with", Unit::Text, ev.holdOut != HoldOut::Run);
    t.add("layer", "layer", Unit::Text);
    t.add("measured_ns", "measured", Unit::Ns);
    t.add("model_ns", "predictor", Unit::Ns);
    t.add("error_pct", "error", Unit::Percent);
    t.add("step_share", "of the step", Unit::Share);
    t.notes.push_back("the " + std::to_string(ev.worst.size()) +
                      " held-out layers the predictor misses most (per step; error = predicted - measured)");
    for (const LayerError& l : ev.worst)
        t.rows.push_back({l.runId, l.runName, l.group, l.layer, l.measuredNs, l.modelNs, l.errorPct, l.stepShare});
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

Table evaluationPerRunTable(const Evaluation& ev)
{
    Table t;
    t.id = "prediction_per_run";
    t.add("error_of", "MAPE, each run alone", Unit::Text);
    t.add("model", "predictor", Unit::Percent);
    t.add("roofline", "roofline", Unit::Percent);
    t.add("flops", "FLOPs only", Unit::Percent);
    t.add("repeats", "repeats' spread", Unit::Percent);
    t.add("compared", "compared", Unit::Count);
    t.add("with_repeats", "with repeats", Unit::Count);
    const PerRunErrors& p = ev.perRun;
    auto roofline = [&](double v) { return ev.hasRoofline ? Cell(v) : Cell(); };
    auto spread = [](int n, double v) { return n ? Cell(v) : Cell(); };
    t.rows.push_back({std::string("per layer"), p.layerMapeModel, roofline(p.layerMapeRoofline), p.layerMapeFlops,
                      spread(p.repeatLayers, p.layerMapeRepeats), int64_t(p.layers), int64_t(p.repeatLayers)});
    t.rows.push_back({std::string("whole step"), p.stepMapeModel, roofline(p.stepMapeRoofline), p.stepMapeFlops,
                      spread(p.repeatRuns, p.stepMapeRepeats), int64_t(p.runs), int64_t(p.repeatRuns)});
    t.notes.push_back("each run against its own median over its steps (the rows above: the median over every repeat's "
                      "steps); repeats' spread: each run against the median over its configuration's other repeats' "
                      "steps, the floor of a per-run error");
    return t;
}

}  // namespace wt
