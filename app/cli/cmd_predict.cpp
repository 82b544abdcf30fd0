// wheretime predict: predicted runs of a bundled workload (backend `model`), from the roofline
// of a device in the table or a calibrated CPU, or from a fitted predictor (--model); fitting
// predictors on measured runs (--fit); leave-one-run-out evaluation (--evaluate). The figures
// come from analysis/costmodel.h and analysis/predictor.h (the evaluation's tables from
// analysis/evaluationtable.h, written by render/); this file lists the ops (kernels'
// dry run) and writes the runs with the scope tree a capture has.
#include "analysis/costmodel.h"
#include "analysis/evaluationtable.h"
#include "analysis/opfeatures.h"
#include "analysis/predictor.h"
#include "app/cli/command.h"
#include "kernels/model.h"
#include "render/tablewriter.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/isotime.h"
#include "storage/json.h"
#include "storage/reader.h"
#include "storage/writer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime predict --workload W [--variant V] [--preset P] [--set key=value]...\n"
    "                         [--sweep key=v1,v2,...] --device NAME [--model NAME] [--steps N] -o FILE\n"
    "       wheretime predict --fit FILE[:RUN]... --name NAME [-o FILE]\n"
    "       wheretime predict --evaluate FILE [--device NAME] [--json | --csv]\n\n"
    "Predicted runs: the ops of a training step (as `wheretime workloads W --ops` lists them), each\n"
    "with a predicted time, written as a run with backend `model` and the scope tree of a capture,\n"
    "so stats, compare and the GUI show it like a measurement (metadata predicted=true).\n"
    "  --device     h200, h100, a100, v100, rtx4090 (the table in docs/prediction.md), or the name of a\n"
    "               calibration stored in FILE (`wheretime calibrate FILE`, default name cpu)\n"
    "  --model      a predictor fitted with --fit and stored in FILE: its per-op-kind costs replace the\n"
    "               roofline (the device then only names the run)\n"
    "  --sweep      one predicted run per value, tagged sweep_id/sweep_key/sweep_value in its metadata\n"
    "               (a second --sweep: one per pair, a grid, like capture --sweep); the scaling view\n"
    "               draws a predicted sweep as dashed lines over its measured twin (same keys, workload\n"
    "               and preset);\n"
    "               the key is a --set key, or variant\n"
    "  --steps N    identical predicted steps per run (default 3, as a capture)\n"
    "  --preset     default paper\n"
    "--fit: fits a predictor on measured runs with op features (FILE alone: every such run in it) and\n"
    "stores it as NAME in -o FILE (default: the first FILE). --fit takes every FILE[:RUN] up to the\n"
    "next option (--fit a.wt:1 a.wt:2 b.wt), or may be repeated.\n"
    "--evaluate: holds each measured run of FILE out in turn, fits on the rest, predicts it; prints\n"
    "per-layer and whole-step mean absolute percentage errors of the predictor, the roofline of\n"
    "--device (default: the file's first calibration) and FLOPs alone (one ns/FLOP fitted on the rest).\n"
    "  --csv        one row per held-out run: run, name, measured_step_ns, model_step_ns,\n"
    "               roofline_step_ns, flops_step_ns, layers, layer_mape_model, layer_mape_roofline,\n"
    "               layer_mape_flops (ns per step; MAPE in percent; roofline empty without a device)\n"
    "  --json       {file, roofline_device, runs: [the --csv rows as objects], mape: [{error_of: \"per\n"
    "               layer\" | \"whole step\", model, roofline, flops}]} (percent; null without a device)\n";

// A table device, or a calibration stored in the file (nullopt: neither).
std::optional<DeviceSpec> resolveDevice(const std::string& name, Database* db)
{
    if (auto d = tableDevice(name))
        return d;
    if (db) {
        if (auto m = CostModelStore(*db).get(name); m && m->kind == "device")
            return deviceFromJson(m->body);
    }
    return std::nullopt;
}

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
    std::istringstream in(op.shapes);
    std::string part;
    while (in >> part) {
        auto eq = part.find('=');
        if (eq == std::string::npos)
            continue;
        const std::string key = part.substr(0, eq);
        const int64_t v = std::atoll(part.c_str() + eq + 1);
        if (op.kind == kernels::LaunchKind::Gemm) {
            if (key == "M") s.m = v;
            if (key == "N") s.n = v;
            if (key == "K") s.k = v;
            if (key == "batch") s.batch = v;
        }
    }
    if (op.kind == kernels::LaunchKind::Gemm && s.batch == 0)
        s.batch = 1;
    return s;
}

const char* levelOfDepth(size_t depth)
{
    return depth == 0 ? "step" : depth == 1 ? "phase" : depth == 2 ? "layer" : "op";
}

struct PredictJob {
    std::string variant;
    std::vector<std::pair<std::string, std::string>> overrides;
    std::string sweepValue, sweepValue2;   // this run's values of the swept key(s)
};

// One --sweep KEY=v1,v2,...
struct SweepAxis {
    std::string key;
    std::vector<std::string> values;
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
    const std::string preset = args.value("--preset", "paper");
    std::vector<std::pair<std::string, std::string>> overrides;
    try {
        for (const std::string& s : args.values("--set"))
            overrides.push_back(kernels::parseOverride(s));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    std::vector<PredictJob> jobs;
    const std::string baseVariant = args.value("--variant", "adaptive");
    // One --sweep: one run per value; two: one per pair (a grid), like capture --sweep.
    std::vector<SweepAxis> axes;
    for (const std::string& sweep : args.values("--sweep")) {
        auto eq = sweep.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 >= sweep.size())
            throw UsageError("--sweep needs key=v1,v2,..., got '" + sweep + "'");
        SweepAxis axis{sweep.substr(0, eq), {}};
        std::string value;
        std::istringstream in(sweep.substr(eq + 1));
        while (std::getline(in, value, ',')) {
            if (value.empty())
                throw UsageError("--sweep has an empty value in '" + sweep + "'");
            axis.values.push_back(value);
        }
        axes.push_back(std::move(axis));
    }
    if (axes.size() > 2)
        throw UsageError("at most two --sweep (a grid)");
    if (axes.size() == 2 && axes[0].key == axes[1].key)
        throw UsageError("the two --sweep name the same key '" + axes[0].key + "'");
    const std::string sweepKey = axes.empty() ? "" : axes[0].key;
    const std::string sweepKey2 = axes.size() < 2 ? "" : axes[1].key;
    auto apply = [](PredictJob& j, const std::string& key, const std::string& value) {
        if (key == "variant")
            j.variant = value;
        else
            j.overrides.emplace_back(key, value);
    };
    const std::vector<std::string> none{""};
    for (const std::string& v1 : axes.empty() ? none : axes[0].values)
        for (const std::string& v2 : axes.size() < 2 ? none : axes[1].values) {
            PredictJob j{baseVariant, overrides, v1, v2};
            if (!sweepKey.empty())
                apply(j, sweepKey, v1);
            if (!sweepKey2.empty())
                apply(j, sweepKey2, v2);
            jobs.push_back(std::move(j));
        }
    // Resolve every configuration before writing anything: a bad value writes no run.
    std::vector<std::unique_ptr<kernels::Model>> models;
    for (const PredictJob& j : jobs) {
        try {
            models.push_back(kernels::Model::create(*workload, preset, j.variant, j.overrides, kernels::BackendKind::Cpu, 1));
        } catch (const kernels::SizeError& e) {
            return fail(e.what());   // one line, exit 1, before the file is opened
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
    }

    Database db(*output, OpenMode::ReadWrite);
    auto device = resolveDevice(*deviceName, &db);
    if (!device)
        return fail("unknown device '" + *deviceName + "' (not in the table, and " + *output +
                    " holds no calibration of that name; see wheretime calibrate)");
    std::optional<Predictor> predictor;
    std::string costModel = "roofline";
    if (auto name = args.value("--model")) {
        auto stored = CostModelStore(db).get(*name);
        if (!stored || stored->kind != "predictor")
            return fail(*output + " holds no predictor named '" + *name + "' (fit one with wheretime predict --fit)");
        predictor = Predictor::fromJson(stored->body);
        if (!predictor)
            return fail("predictor '" + *name + "' in " + *output + " is damaged");
        costModel = *name;
    }
    const std::string sweepId = sweepKey.empty() ? "" : "predict-" + std::to_string(std::time(nullptr)) + "-" +
                                                        std::to_string(getpid());
    Writer writer(db);
    for (size_t ji = 0; ji < jobs.size(); ++ji) {
        kernels::Model& model = *models[ji];
        const auto ops = model.listOps();
        std::vector<LaunchSample> samples;
        std::vector<int64_t> times;
        samples.reserve(ops.size());
        for (const auto& op : ops) {
            samples.push_back(sampleOf(op));
            const double ns = predictor ? predictor->predictNs(samples.back()) : rooflineNs(*device, samples.back());
            times.push_back(std::max<int64_t>(1, std::llround(ns)));
        }
        const auto& cfg = model.config();
        RunInfo info;
        info.name = args.value("--name", cfg.workload + "-" + cfg.variant + "-" + preset + "-predicted-" + device->name) +
                    (sweepKey.empty() ? "" : "-" + sweepKey + "=" + jobs[ji].sweepValue) +
                    (sweepKey2.empty() ? "" : "-" + sweepKey2 + "=" + jobs[ji].sweepValue2);
        info.workload = cfg.workload;
        info.variant = cfg.variant;
        info.preset = preset;
        info.configJson = model.configJson();
        info.backend = "model";
        info.device = predictor && !predictor->device.empty() ? predictor->device : device->title;
        info.devicePropertiesJson = toJson(*device);
        info.startedAt = isoUtcNow();
        writer.beginRun(info);
        writer.addDevice(DeviceInfo{0, info.device, info.devicePropertiesJson});
        const bool gpu = device->kind == "gpu" && !predictor;
        const int64_t kernelTrack = writer.addTrack(0, 0, TrackKind::Kernel);
        const int64_t memoryTrack = gpu ? writer.addTrack(0, 0, TrackKind::Memory) : kernelTrack;
        int64_t t = 0, correlation = 0;
        for (int step = 0; step < steps; ++step) {
            struct Open { std::string name; int64_t node, instance; };
            std::vector<Open> open;
            for (size_t i = 0; i < ops.size(); ++i) {
                std::vector<std::string> parts;
                std::istringstream in(ops[i].scope);
                for (std::string p; std::getline(in, p, '/');)
                    parts.push_back(p);
                size_t common = 0;
                while (common < open.size() && common < parts.size() && open[common].name == parts[common])
                    ++common;
                while (open.size() > common) {
                    writer.endScopeInstance(open.back().instance, t);
                    open.pop_back();
                }
                for (size_t d = common; d < parts.size(); ++d) {
                    const int64_t parentNode = d ? open[d - 1].node : 0, parentInstance = d ? open[d - 1].instance : 0;
                    const int64_t node = writer.addScope(parentNode, parts[d], levelOfDepth(d));
                    open.push_back(Open{parts[d], node, writer.beginScopeInstance(node, parentInstance, t)});
                }
                const LaunchSample& s = samples[i];
                Activity a;
                a.kind = !gpu || s.kind == "kernel" || s.kind == "gemm" ? ActivityKind::Kernel
                         : s.kind == "memcpy"                          ? ActivityKind::Memcpy
                                                                        : ActivityKind::Memset;
                a.trackId = a.kind == ActivityKind::Kernel ? kernelTrack : memoryTrack;
                a.startNs = t;
                a.endNs = t + times[i];
                a.nameId = writer.intern(s.name);
                a.scopeInstanceId = open.empty() ? 0 : open.back().instance;
                a.correlationId = ++correlation;
                if (a.kind != ActivityKind::Kernel)
                    a.bytes = int64_t(s.bytesRead);
                writer.addActivity(a);
                LaunchFeatures f;
                f.scopeInstanceId = a.scopeInstanceId;
                f.nameId = a.nameId;
                f.kind = s.kind;
                f.flops = s.flops;
                f.bytesRead = s.bytesRead;
                f.bytesWritten = s.bytesWritten;
                f.m = s.m, f.n = s.n, f.k = s.k, f.batch = s.batch;
                f.shapesId = s.shapes.empty() ? 0 : writer.intern(s.shapes);
                f.correlationId = a.correlationId;
                writer.addLaunch(f);
                t = a.endNs;
            }
            while (!open.empty()) {
                writer.endScopeInstance(open.back().instance, t);
                open.pop_back();
            }
        }
        writer.setMetadata("predicted", "true");
        writer.setMetadata("cost_model", costModel);
        writer.setMetadata("device_source", device->source);
        writer.setMetadata("steps", std::to_string(steps));
        if (!sweepKey.empty()) {
            writer.setMetadata("sweep_id", sweepId);
            writer.setMetadata("sweep_key", sweepKey);
            writer.setMetadata("sweep_value", jobs[ji].sweepValue);
            writer.setMetadata("sweep_index", std::to_string(ji));
            if (!sweepKey2.empty()) {
                writer.setMetadata("sweep_key2", sweepKey2);
                writer.setMetadata("sweep_value2", jobs[ji].sweepValue2);
            }
        }
        writer.finishRun(RunStatus::Complete, t);
        std::printf("run %lld  %s  predicted step %.3f ms on %s (%s)\n", static_cast<long long>(writer.runId()),
                    info.name.c_str(), double(t) / steps / 1e6, info.device.c_str(), costModel.c_str());
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
    Predictor p;
    try {
        p = Predictor::fit(runs, *name);
    } catch (const std::invalid_argument& e) {
        return fail(e.what());
    }
    const std::string out = args.value("-o", args.value("--output", firstFile));
    Database db(out, OpenMode::ReadWrite);
    CostModelStore(db).put(StoredCostModel{*name, "predictor", "", p.toJson()});
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
    Reader reader(db);
    std::vector<RunSamples> runs;
    for (const RunInfo& r : reader.runs()) {
        if (r.backend == "model")
            continue;
        RunSamples s = loadRunSamples(reader, r.id);
        if (!s.launches.empty())
            runs.push_back(std::move(s));
    }
    std::optional<DeviceSpec> device;
    if (auto name = args.value("--device")) {
        device = resolveDevice(*name, &db);
        if (!device)
            return fail("unknown device '" + *name + "'");
    } else {
        auto calibrations = CostModelStore(db).list("device");
        if (!calibrations.empty())
            device = deviceFromJson(calibrations.front().body);
    }
    Evaluation ev;
    try {
        ev = evaluate(runs, device);
    } catch (const std::invalid_argument& e) {
        return fail(file + ": " + e.what());
    }
    const std::string deviceName = device ? device->name : std::string();
    const Table runsTable = evaluationRunsTable(ev, file, deviceName), mape = evaluationMapeTable(ev);
    if (args.flag("--json")) {
        std::cout << "{\"file\":" << json::quote(file) << ",\"roofline_device\":"
                  << (device ? json::quote(device->name) : std::string("null")) << ",\n\"runs\":" << render::jsonRows(runsTable)
                  << ",\n\"mape\":" << render::jsonRows(mape) << "}\n";
        return 0;
    }
    if (args.flag("--csv")) {
        std::cout << render::csv(runsTable);
        return 0;
    }
    std::cout << render::text(runsTable, {44}) << "\n" << render::text(mape);
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
                            {"--model", "NAME", "a predictor fitted with --fit and stored in the file"},
                            {"--steps", "N", "identical predicted steps per run (default 3)"},
                            {"--name", "NAME", "the run's name; with --fit, the predictor's"},
                            {"-o", "FILE", "the wheretime file to write to"},
                            {"--output", "FILE", "the same as -o"},
                            {"--fit", "FILE[:RUN]...", "fit a predictor on these runs (every FILE[:RUN] up to the next option)"},
                            {"--evaluate", "FILE", "leave-one-run-out evaluation of the runs of FILE"},
                            {"--json", "", "--evaluate: print JSON"},
                            {"--csv", "", "--evaluate: print the per-run table as CSV"}}}};

}  // namespace
}  // namespace wt::cli
