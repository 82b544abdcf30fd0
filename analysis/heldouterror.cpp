#include "analysis/heldouterror.h"

#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace wt {

EvaluationInput loadEvaluationInput(Database& db, const std::string& file)
{
    Reader reader(db);
    EvaluationInput in;
    for (const RunInfo& r : reader.runs()) {
        if (r.backend == "model")
            continue;
        RunSamples s = loadRunSamples(reader, r.id);
        if (!s.launches.empty())
            in.runs.push_back(std::move(s));
    }
    auto calibrations = CostModelStore(db).list("device");
    if (!calibrations.empty()) {
        std::string why;
        in.calibration = deviceFromJson(calibrations.front().body, &why);
        if (!in.calibration)
            throw std::runtime_error("calibration '" + calibrations.front().name + "' in " + file + " is damaged: " + why);
    }
    return in;
}

std::vector<HoldOut> possibleHoldOuts(const std::vector<RunSamples>& runs)
{
    std::vector<HoldOut> out;
    for (HoldOut h : {HoldOut::Workload, HoldOut::Preset, HoldOut::Variant, HoldOut::Run}) {
        std::set<std::string> groups;
        for (const RunSamples& r : runs)
            if (std::any_of(r.launches.begin(), r.launches.end(), [](const LaunchSample& s) { return s.timeNs >= 0; }))
                groups.insert(holdOutGroup(r, h));
        if (groups.size() >= 2)
            out.push_back(h);
    }
    return out;
}

HeldOutError computeHeldOutError(const EvaluationInput& input, const HeldOutErrorOptions& options)
{
    HeldOutError e;
    e.possible = possibleHoldOuts(input.runs);
    if (e.possible.empty())
        throw std::invalid_argument("no held-out error: it needs at least two measured runs with op features");
    e.holdOut = options.holdOut.value_or(e.possible.front());
    e.model = options.model;
    e.predictor = options.predictor;
    EvaluationOptions eo;
    eo.holdOut = e.holdOut;
    eo.model = options.model;
    eo.calibration = input.calibration;
    eo.roofline = input.calibration;   // as `predict --evaluate` without --device
    e.evaluation = evaluate(input.runs, eo);
    return e;
}

HeldOutErrorOptions heldOutOptionsFor(Database& db, const Reader& reader, const SweepInfo& predictedSweep)
{
    HeldOutErrorOptions o;
    o.predictor = "roofline";
    if (predictedSweep.runIds.empty())
        return o;
    for (const auto& [key, value] : reader.metadata(predictedSweep.runIds.front()))
        if (key == "cost_model" && value != "roofline") {
            // Named but stored elsewhere (or damaged): its name stays, evaluated as the default kind.
            o.predictor = value;
            auto stored = CostModelStore(db).get(value);
            if (!stored || stored->kind != "predictor")
                return o;
            if (auto p = Predictor::fromJson(stored->body))
                o.model = p->mlp ? PredictorKind::Mlp : PredictorKind::Regression;
        }
    return o;
}

namespace {

// MAPE and signed mean error (percent) of predictions against measurements.
struct Errors {
    int n = 0;
    double model = 0, roofline = 0, flops = 0, bias = 0;
    void add(double measured, double m, double r, double f)
    {
        if (!(measured > 0))
            return;
        ++n;
        model += std::fabs(m - measured) / measured * 100.0;
        roofline += std::fabs(r - measured) / measured * 100.0;
        flops += std::fabs(f - measured) / measured * 100.0;
        bias += (m - measured) / measured * 100.0;
    }
    double mean(double sum) const { return n ? sum / n : 0.0; }
};

}  // namespace

Table heldOutErrorTable(const HeldOutError& error, const std::string& layer, const std::vector<int64_t>& runIds)
{
    const Evaluation& ev = error.evaluation;
    auto counted = [&](int64_t run) { return runIds.empty() || std::find(runIds.begin(), runIds.end(), run) != runIds.end(); };
    Table t;
    t.id = "held_out_error";
    t.add(kHeldOutErrorOfColumn, "error of", Unit::Text);
    t.add(kHeldOutLayerColumn, "layer", Unit::Text);
    t.add(kHeldOutPairsColumn, "held-out runs", Unit::Count);
    t.add(kHeldOutMapeModelColumn, "MAPE predictor", Unit::Percent);
    t.add(kHeldOutMapeRooflineColumn, "roofline", Unit::Percent);
    t.add(kHeldOutMapeFlopsColumn, "FLOPs only", Unit::Percent);
    t.add(kHeldOutBiasColumn, "mean error", Unit::Percent);
    t.add(kHeldOutHoldOutColumn, "hold-out", Unit::Text, false);
    t.add(kHeldOutModelColumn, "model", Unit::Text, false);
    const std::string holdOut = holdOutName(error.holdOut), model = predictorKindName(error.model);
    auto row = [&](const std::string& of, const std::string& name, const Errors& e) {
        t.rows.push_back({of, name, int64_t(e.n), e.mean(e.model), ev.hasRoofline ? Cell(e.mean(e.roofline)) : Cell(),
                          e.mean(e.flops), e.mean(e.bias), holdOut, model});
    };
    std::map<std::string, Errors> perLayer;
    Errors everyLayer, step;
    std::set<int64_t> runs;
    for (const LayerPrediction& p : ev.layers)
        if (counted(p.runId)) {
            perLayer[p.layer].add(p.measuredNs, p.modelNs, p.rooflineNs, p.flopsNs);
            everyLayer.add(p.measuredNs, p.modelNs, p.rooflineNs, p.flopsNs);
        }
    for (const RunEvaluation& r : ev.runs)
        if (counted(r.runId)) {
            step.add(r.measuredStepNs, r.modelStepNs, r.rooflineStepNs, r.flopsStepNs);
            runs.insert(r.runId);
        }
    for (const auto& [name, e] : perLayer)
        if (layer.empty() || name == layer)
            row("layer", name, e);
    row("step", "", step);
    // Its means are over (run, layer) pairs; it counts the runs.
    t.rows.push_back({std::string("every layer"), std::string(), int64_t(runs.size()), everyLayer.mean(everyLayer.model),
                      ev.hasRoofline ? Cell(everyLayer.mean(everyLayer.roofline)) : Cell(), everyLayer.mean(everyLayer.flops),
                      everyLayer.mean(everyLayer.bias), holdOut, model});
    std::string groups;
    for (const GroupEvaluation& g : ev.groups)
        groups += (groups.empty() ? "" : ", ") + g.group;
    t.notes.push_back("held out by " + holdOut + ": each of " + std::to_string(ev.groups.size()) + " groups predicted by a " + model +
                      " fitted on the other groups' runs (" + groups + ")");
    t.notes.push_back((error.predictor.empty() ? std::string("the file's measured runs with op features")
                                               : "the error of predictor " + error.predictor +
                                                     (error.predictor == "roofline" ? " (its column: roofline)" : ", refitted per group,") +
                                                     " on the file's measured runs") +
                      (runIds.empty() ? std::string()
                                      : ": over " + std::to_string(runs.size()) + " of the " + std::to_string(ev.runs.size()) +
                                            " held-out runs (those of the sweep)"));
    t.notes.push_back("MAPE in percent of the measured time per step; mean error signed (below 0: predicted low)");
    return t;
}

}  // namespace wt
