// wheretime predict: predicted runs of a bundled workload (backend `model`), from the roofline
// of a device in the table or a calibrated CPU, or from a fitted predictor (--model); fitting
// predictors on measured runs (--fit; --model mlp: the MLP); held-out evaluation (--evaluate
// --hold-out run|workload|preset|variant). The figures
// come from analysis/costmodel.h and analysis/predictor.h (the evaluation's tables from
// analysis/evaluationtable.h, written by render/); the runs are written by the model tracer
// (capture/modeltracer.h) from the ops of kernels' dry run; --sweep is kernels/sweepplan.h.
#include "analysis/costmodel.h"
#include "analysis/heldouterror.h"
#include "analysis/evaluationtable.h"
#include "analysis/opfeatures.h"
#include "analysis/predictor.h"
#include "analysis/sweep.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "app/cli/sweepargs.h"
#include "capture/modeltracer.h"
#include "kernels/model.h"
#include "render/tablewriter.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/isotime.h"
#include "storage/json.h"
#include "storage/reader.h"
#include "storage/writer.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <unistd.h>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime predict --workload W [--variant V] [--preset P] [--set key=value]...\n"
    "                         [--sweep key=v1,v2,...] --device NAME [--model NAME] [--steps N] -o FILE\n"
    "       wheretime predict --fit FILE[:RUN]... --name NAME [--model regression|mlp] [-o FILE]\n"
    "       wheretime predict --evaluate FILE [--hold-out run|workload|preset|variant] [--device NAME]\n"
    "                         [--model regression|mlp] [--ops-by-group] [--json | --csv]\n\n"
    "Predicted runs: the ops of a training step (as `wheretime workloads W --ops` lists them), each\n"
    "with a predicted time, written as a run with backend `model` and the scope tree of a capture,\n"
    "so stats, compare and the GUI show it like a measurement (metadata predicted=true).\n"
    "  --device     h200, h100, a100, v100, rtx4090 (the table in docs/prediction.md), or the name of a\n"
    "               calibration stored in FILE (`wheretime calibrate FILE`, default name cpu)\n"
    "  --model      a predictor fitted with --fit and stored in FILE: its per-op-kind costs replace the\n"
    "               roofline; fitted with another calibration than --device's, every cost scales as\n"
    "               the two calibrations' rates do (peak, bandwidth, launch overhead)\n"
    "  --sweep      one predicted run per value, tagged sweep_id/sweep_key/sweep_value in its metadata\n"
    "               (a second --sweep: one per pair, a grid, like capture --sweep); the scaling view\n"
    "               draws a predicted sweep as dashed lines over its measured twin (same keys, workload\n"
    "               and preset);\n"
    "               the key is a --set key, variant or preset; values as capture --sweep (',' or ';')\n"
    "  --steps N    identical predicted steps per run (default 3, as a capture)\n"
    "  --preset     default paper\n"
    "--fit: fits a predictor on measured runs with op features (FILE alone: every such run in it) and\n"
    "stores it as NAME in -o FILE (default: the first FILE), with the first FILE's calibration (its\n"
    "cross-kind features are in its units). --fit takes every FILE[:RUN] up to the next option\n"
    "(--fit a.wt:1 a.wt:2 b.wt), or may be repeated.\n"
    "--evaluate: holds each group of measured runs of FILE out in turn, fits on the other groups'\n"
    "runs, predicts the group's; prints per-layer and whole-step mean absolute percentage errors of\n"
    "the predictor, the roofline of --device (default: the file's first calibration) and FLOPs alone\n"
    "(one ns/FLOP fitted on the rest), per run, per group, the worst layers and the op names with the\n"
    "largest errors (where the error comes from; `by features`: launches no op-kind class covered).\n"
    "The runs of one configuration (one configuration JSON, or capture --repeat) are repeats: held out\n"
    "together and compared as one row, measured as the median over the steps of every repeat.\n"
    "  --hold-out   run (default: leave-one-run-out), workload (gcn, transformer, bert, groupbert,\n"
    "               bert-blocksparse: bert with density < 1), preset, variant\n"
    "  --ops-by-group  the op table per held-out group and op name (which group's ops the error\n"
    "               comes from), with a group column\n"
    "  --model      with --fit and --evaluate: regression (default: per op kind, with the cross-kind\n"
    "               feature model) or mlp (per launch: the MLP of Justus et al., seed 1)\n"
    "  --csv        one row per held-out run: run, name, measured_step_ns, model_step_ns,\n"
    "               roofline_step_ns, flops_step_ns, layers, layer_mape_model, layer_mape_roofline,\n"
    "               layer_mape_flops, group, repeats (ns per step; MAPE in percent; roofline empty\n"
    "               without a device)\n"
    "  --json       {file, roofline_device, hold_out, model, runs: [the --csv rows as objects],\n"
    "               groups: [{group, runs, layers, step_mape_model, step_mape_roofline, step_mape_flops,\n"
    "               layer_mape_model,\n"
    "               layer_mape_roofline, layer_mape_flops}], worst_layers: [{run, name, group, layer,\n"
    "               measured_ns, model_ns, error_pct, step_share}], worst_ops: [{op, kind, launches,\n"
    "               measured_ns, model_ns, error_pct, share, by_features}], mape: [{error_of: \"per layer\" |\n"
    "               \"whole step\", model, roofline, flops}], per_run: [the same two rows against each run\n"
    "               alone: {error_of, model, roofline, flops, repeats (each run against its\n"
    "               configuration's other repeats), compared, with_repeats}]} (percent; null\n"
    "               without a device)\n";

// The op of a dry run as the cost models read it (the features a capture stores for it).
LaunchSample sampleOf(const kernels::OpInfo& op)
{
    LaunchSample s;
    s.name = op.name;
    s.kind = kernels::launchKindName(op.kind);
    s.path = op.scope;
    s.flops = op.flops;
    s.bytesRead = op.bytesRead;
    s.bytesWritten = op.bytesWritten;
    s.shapes = op.shapes;
    const kernels::GemmShape g = kernels::gemmShape(op.kind, op.dims);
    s.m = g.m, s.n = g.n, s.k = g.k, s.batch = g.batch;
    return s;
}

// One predicted run to write: its configuration and its sweep values.
struct PredictJob {
    std::string variant, preset;
    std::vector<std::pair<std::string, std::string>> overrides;
    std::vector<std::string> sweepValues;   // this run's value of each swept key
};

int runPredictRuns(Args& args)
{
    auto workload = args.value("--workload");
    if (!workload)
        throw UsageError("--workload is required (gcn or transformer)");
    auto deviceName = args.value("--device");
    if (!deviceName)
        throw UsageError("--device is required (h200, h100, a100, v100, rtx4090, or a calibration in FILE)");
    auto output = args.value("-o");
    if (!output)
        output = args.value("--output");
    if (!output)
        throw UsageError("-o FILE is required");
    const int steps = int(args.integer("--steps", 3));
    if (steps < 1 || steps > 1000)
        throw UsageError("--steps must be between 1 and 1000");
    std::vector<std::pair<std::string, std::string>> overrides;
    try {
        for (const std::string& s : args.values("--set"))
            overrides.push_back(kernels::parseOverride(s));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    // One --sweep: one run per value; two: one per pair (a grid), the plan capture --sweep reads.
    const kernels::SweepPlan plan = sweepPlanOf(args, overrides);
    std::vector<PredictJob> jobs;
    const PredictJob base{args.value("--variant", "adaptive"), args.value("--preset", "paper"), overrides, {}};
    if (plan.empty())
        jobs.push_back(base);
    for (const std::vector<std::string>& combo : plan.combos) {
        PredictJob j = base;
        for (size_t a = 0; a < plan.axes.size(); ++a)
            kernels::applySweepValue(plan.axes[a].key, combo[a], j.variant, j.preset, j.overrides);
        j.sweepValues = combo;
        jobs.push_back(std::move(j));
    }
    // Resolve every configuration before writing anything: a bad value writes no run.
    std::vector<std::unique_ptr<kernels::Model>> models;
    for (const PredictJob& j : jobs) {
        try {
            models.push_back(kernels::Model::create(*workload, j.preset, j.variant, j.overrides, kernels::BackendKind::Cpu, 1));
        } catch (const kernels::SizeError& e) {
            return fail(e.what());   // one line, exit 1, before the file is opened
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
    }

    Database db(*output, OpenMode::ReadWrite);
    auto device = resolveDevice(*deviceName, db, *output);
    if (!device)
        return fail("unknown device '" + *deviceName + "' (not in the table, and " + *output +
                    " holds no calibration of that name; see wheretime calibrate)");
    std::optional<Predictor> predictor;
    std::string costModel = "roofline";
    bool rescaled = false;
    if (auto name = args.value("--model")) {
        auto stored = CostModelStore(db).get(*name);
        if (!stored || stored->kind != "predictor")
            return fail(*output + " holds no predictor named '" + *name + "' (fit one with wheretime predict --fit)");
        std::string why;
        predictor = Predictor::fromJson(stored->body, &why);
        if (!predictor)
            return fail("predictor '" + *name + "' in " + *output + " is damaged: " + why);
        costModel = *name;
        // Fitted with another calibration than the target device's: scale it as the rates differ.
        if (predictor->calibration && toJson(*predictor->calibration) != toJson(*device))
            predictor = predictor->rescaledTo(*device), rescaled = true;
    }
    const std::string sweepId = plan.empty() ? "" : "predict-" + std::to_string(std::time(nullptr)) + "-" +
                                                    std::to_string(getpid());
    Writer writer(db);
    for (size_t ji = 0; ji < jobs.size(); ++ji) {
        kernels::Model& model = *models[ji];
        capture::PredictedRun run;
        run.ops = model.listOps();
        run.opNs.reserve(run.ops.size());
        std::vector<LaunchSample> samples;
        samples.reserve(run.ops.size());
        for (const kernels::OpInfo& op : run.ops)
            samples.push_back(sampleOf(op));
        markRunContext(samples);   // as loadRunSamples marks a capture's launches
        for (const LaunchSample& s : samples) {
            const double ns = predictor ? predictor->predictNs(s) : rooflineNs(*device, s);
            run.opNs.push_back(std::max<int64_t>(1, std::llround(ns)));
        }
        const auto& cfg = model.config();
        RunInfo& info = run.info;
        info.name = args.value("--name", cfg.workload + "-" + cfg.variant + "-" + jobs[ji].preset + "-predicted-" + device->name) +
                    plan.nameTag(ji);
        info.workload = cfg.workload;
        info.variant = cfg.variant;
        info.preset = jobs[ji].preset;
        info.configJson = model.configJson();
        info.device = predictor && !rescaled && !predictor->device.empty() ? predictor->device : device->title;
        info.devicePropertiesJson = toJson(*device);
        info.startedAt = isoUtcNow();
        run.memoryOps = device->kind == "gpu" && !predictor;
        run.steps = steps;
        run.metadata = {{"predicted", "true"}, {"cost_model", costModel}, {"device_source", device->source},
                        {"steps", std::to_string(steps)}};
        if (!plan.empty()) {
            run.metadata.insert(run.metadata.end(), {{kSweepIdKey, sweepId}, {kSweepKeyKey, plan.axes[0].key},
                                                     {kSweepValueKey, jobs[ji].sweepValues[0]},
                                                     {kSweepIndexKey, std::to_string(ji)}});
            if (plan.axes.size() == 2)
                run.metadata.insert(run.metadata.end(), {{kSweepKey2Key, plan.axes[1].key},
                                                         {kSweepValue2Key, jobs[ji].sweepValues[1]}});
        }
        int64_t spanNs = 0;
        const int64_t runId = capture::writePredictedRun(writer, run, &spanNs);
        std::printf("run %lld  %s  predicted step %.3f ms on %s (%s)\n", static_cast<long long>(runId), info.name.c_str(),
                    double(spanNs) / steps / 1e6, info.device.c_str(), costModel.c_str());
    }
    return 0;
}

// --fit FILE[:RUN]...: Args hands every selector after --fit (and of a repeated --fit).
int runFit(Args& args)
{
    auto name = args.value("--name");
    if (!name || name->empty())
        throw UsageError("--fit needs --name NAME for the fitted predictor");
    std::vector<RunSamples> runs;
    std::string firstFile;
    for (const std::string& sel : args.values("--fit")) {
        auto [file, selector] = splitRunSelector(sel);
        if (firstFile.empty())
            firstFile = file;
        Database db(file, OpenMode::ReadOnly);
        Reader reader(db);
        std::vector<int64_t> ids;
        if (selector.empty()) {
            for (const RunInfo& r : reader.runs())
                if (r.backend != "model")
                    ids.push_back(r.id);
        } else {
            ids.push_back(reader.resolveRun(selector));
        }
        for (int64_t id : ids) {
            RunSamples s = loadRunSamples(reader, id);
            if (!s.launches.empty())
                runs.push_back(std::move(s));
        }
    }
    std::optional<DeviceSpec> calibration;
    {
        Database db(firstFile, OpenMode::ReadOnly);
        auto calibrations = CostModelStore(db).list("device");
        if (!calibrations.empty())
            calibration = calibrationOf(calibrations.front(), firstFile);
    }
    auto kind = parsePredictorKind(args.value("--model", "regression"));
    if (!kind)
        throw UsageError("--model with --fit takes regression or mlp");
    Predictor p;
    try {
        p = *kind == PredictorKind::Mlp ? Predictor::fitMlp(runs, *name, calibration) : Predictor::fit(runs, *name, calibration);
    } catch (const std::invalid_argument& e) {
        return fail(e.what());
    }
    const std::string out = args.value("-o", args.value("--output", firstFile));
    Database db(out, OpenMode::ReadWrite);
    CostModelStore(db).put(StoredCostModel{*name, "predictor", "", p.toJson()});
    if (p.mlp) {
        std::printf("fitted %s (mlp) on %zu runs (%s): %lld distinct launches, stored in %s\n", name->c_str(), runs.size(),
                    p.device.c_str(), static_cast<long long>(p.mlp->samples), out.c_str());
        return 0;
    }
    std::printf("fitted %s on %zu runs (%s): %zu op kinds, stored in %s\n", name->c_str(), runs.size(), p.device.c_str(),
                p.classes.size(), out.c_str());
    for (const auto& [key, c] : p.classes)
        std::printf("  %-36s %6lld launches  overhead %9.0f ns  %8.4f ns/kFLOP  %8.4f ns/kB\n", key.c_str(),
                    static_cast<long long>(c.samples), c.overheadNs, c.nsPerFlop * 1e3, c.nsPerByte * 1e3);
    return 0;
}

int runEvaluate(Args& args)
{
    const std::string file = *args.value("--evaluate");
    if (args.flag("--json") && args.flag("--csv"))
        throw UsageError("--json and --csv exclude each other");
    Database db(file, OpenMode::ReadOnly);
    // The runs and calibration `wheretime sweep`'s held-out error reads too (analysis/heldouterror.h).
    EvaluationInput input = loadEvaluationInput(db, file);
    const std::vector<RunSamples>& runs = input.runs;
    EvaluationOptions options;
    if (auto h = args.value("--hold-out")) {
        auto parsed = parseHoldOut(*h);
        if (!parsed)
            throw UsageError("--hold-out takes run, workload, preset or variant, not '" + *h + "'");
        options.holdOut = *parsed;
    }
    options.opsByGroup = args.flag("--ops-by-group");
    if (auto m = args.value("--model")) {
        auto parsed = parsePredictorKind(*m);
        if (!parsed)
            throw UsageError("--model with --evaluate takes regression or mlp, not '" + *m + "'");
        options.model = *parsed;
    }
    std::optional<DeviceSpec> device;
    options.calibration = input.calibration;
    if (auto name = args.value("--device")) {
        device = resolveDevice(*name, db, file);
        if (!device)
            return fail("unknown device '" + *name + "'");
    } else {
        device = options.calibration;
    }
    options.roofline = device;
    Evaluation ev;
    try {
        ev = evaluate(runs, options);
    } catch (const std::invalid_argument& e) {
        return fail(file + ": " + e.what());
    }
    const std::string deviceName = device ? device->name : std::string();
    const Table runsTable = evaluationRunsTable(ev, file, deviceName), mape = evaluationMapeTable(ev),
                groups = evaluationGroupsTable(ev), worst = evaluationWorstLayersTable(ev), ops = evaluationOpsTable(ev),
                perRun = evaluationPerRunTable(ev);
    if (args.flag("--json")) {
        std::cout << "{\"file\":" << json::quote(file) << ",\"roofline_device\":"
                  << (device ? json::quote(device->name) : std::string("null"))
                  << ",\"hold_out\":" << json::quote(holdOutName(ev.holdOut))
                  << ",\"model\":" << json::quote(predictorKindName(ev.model)) << ",\n\"runs\":" << render::jsonRows(runsTable)
                  << ",\n\"groups\":" << render::jsonRows(groups) << ",\n\"worst_layers\":" << render::jsonRows(worst) << ",\n\"worst_ops\":" << render::jsonRows(ops)
                  << ",\n\"mape\":" << render::jsonRows(mape) << ",\n\"per_run\":" << render::jsonRows(perRun) << "}\n";
        return 0;
    }
    if (args.flag("--csv")) {
        std::cout << render::csv(runsTable);
        return 0;
    }
    std::cout << render::text(runsTable, {44}) << "\n";
    if (ev.holdOut != HoldOut::Run)
        std::cout << render::text(groups) << "\n";
    std::cout << render::text(worst, {44}) << "\n" << render::text(ops, {44}) << "\n" << render::text(mape) << "\n"
              << render::text(perRun);
    return 0;
}

int runPredict(Args& args)
{
    args.parse();
    if (!args.positionals().empty())
        throw UsageError("unexpected argument '" + args.positionals()[0] + "'");
    const bool fit = !args.values("--fit").empty(), eval = args.value("--evaluate").has_value();
    if (fit && eval)
        throw UsageError("--fit and --evaluate exclude each other");
    if (fit)
        return runFit(args);
    if (eval)
        return runEvaluate(args);
    return runPredictRuns(args);
}

// The table is what parsing, the completions and the man page read (command.h): the usage
// text alone also named `workloads W --ops`, so the completions offered --ops here.
const RegisterCommand reg{{"predict", "predicted runs from a cost model (roofline or fitted), --fit, --evaluate", kUsage,
                           runPredict,
                           {{"--workload", "W", "the bundled workload to predict (gcn, transformer, bert, groupbert)"},
                            {"--variant", "V", "softmax variant (default adaptive)"},
                            {"--preset", "P", "size preset (default paper)"},
                            {"--set", "KEY=VALUE", "a size, as capture --set (repeatable)"},
                            {"--sweep", "KEY=VALUES", "one predicted run per value, comma-separated (twice: a grid)"},
                            {"--device", "NAME", "a table device or a calibration stored in the file"},
                            {"--model", "NAME", "a predictor stored in the file; with --fit/--evaluate: regression or mlp"},
                            {"--steps", "N", "identical predicted steps per run (default 3)"},
                            {"--name", "NAME", "the run's name; with --fit, the predictor's"},
                            {"-o", "FILE", "the wheretime file to write to"},
                            {"--output", "FILE", "the same as -o"},
                            {"--fit", "FILE[:RUN]...", "fit a predictor on these runs (every FILE[:RUN] up to the next option)"},
                            {"--evaluate", "FILE", "held-out evaluation of the runs of FILE (--hold-out)"},
                            {"--hold-out", "H", "--evaluate: hold out each run (default), workload, preset or variant"},
                            {"--ops-by-group", "", "--evaluate: the op table per held-out group"},
                            {"--json", "", "--evaluate: print JSON"},
                            {"--csv", "", "--evaluate: print the per-run table as CSV"}}}};

}  // namespace
}  // namespace wt::cli
