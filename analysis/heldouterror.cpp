#include "analysis/heldouterror.h"

#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <algorithm>
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
            auto stored = CostModelStore(db).get(value);
            if (!stored || stored->kind != "predictor")
                return o;
            auto p = Predictor::fromJson(stored->body);
            if (!p)
                return o;
            o.predictor = value;
            o.model = p->mlp ? PredictorKind::Mlp : PredictorKind::Regression;
        }
    return o;
}

Table heldOutErrorTable(const HeldOutError& error, const std::string& layer)
{
    const Evaluation& ev = error.evaluation;
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
    auto roofline = [&](double v) { return ev.hasRoofline ? Cell(v) : Cell(); };
    const std::string holdOut = holdOutName(error.holdOut), model = predictorKindName(error.model);
    for (const LayerNameEvaluation& l : ev.byLayer)
        if (layer.empty() || l.layer == layer)
            t.rows.push_back({std::string("layer"), l.layer, int64_t(l.pairs), l.mapeModel, roofline(l.mapeRoofline), l.mapeFlops,
                              l.meanErrorModel, holdOut, model});
    double stepBias = 0;
    for (const RunEvaluation& r : ev.runs)
        if (r.measuredStepNs > 0)
            stepBias += (r.modelStepNs - r.measuredStepNs) / r.measuredStepNs * 100.0;
    const double runs = double(std::max<size_t>(ev.runs.size(), 1));
    t.rows.push_back({std::string("step"), std::string(), int64_t(ev.runs.size()), ev.stepMapeModel, roofline(ev.stepMapeRoofline),
                      ev.stepMapeFlops, stepBias / runs, holdOut, model});
    double layerBias = 0;
    int64_t pairs = 0;
    for (const LayerNameEvaluation& l : ev.byLayer)
        layerBias += l.meanErrorModel * l.pairs, pairs += l.pairs;
    t.rows.push_back({std::string("every layer"), std::string(), int64_t(ev.runs.size()), ev.layerMapeModel,
                      roofline(ev.layerMapeRoofline), ev.layerMapeFlops, pairs ? layerBias / double(pairs) : 0.0, holdOut, model});
    std::string groups;
    for (const GroupEvaluation& g : ev.groups)
        groups += (groups.empty() ? "" : ", ") + g.group;
    t.notes.push_back("held out by " + holdOut + ": each of " + std::to_string(ev.groups.size()) +
                      " groups predicted by a " + model + " fitted on the other groups' runs (" + groups + ")");
    t.notes.push_back(error.predictor.empty() ? std::string("the file's measured runs with op features")
                                              : "the error of predictor " + error.predictor +
                                                    (error.predictor == "roofline" ? " (its column: roofline)" : " refitted per group") +
                                                    " on the file's measured runs");
    t.notes.push_back("MAPE in percent of the measured time per step; mean error signed (below 0: predicted low)");
    return t;
}

}  // namespace wt
