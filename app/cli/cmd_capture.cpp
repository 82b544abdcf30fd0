// wheretime capture: run a bundled workload under the CUPTI or CPU tracer and append the run
// to a file; prints its id and a one-line summary. --sweep: one run per value (or pair of
// values), tagged with the sweep in each run's metadata (analysis/sweep.h reads them). --repeat N:
// N runs per configuration, tagged as repeats of one another (analysis/compare.h pools them).
#include "analysis/breakdown.h"
#include "analysis/compare.h"
#include "analysis/runprofile.h"
#include "analysis/sweep.h"
#include "app/cli/command.h"
#include "app/cli/sweepargs.h"
#include "render/textformat.h"
#include "capture/capture.h"
#include "capture/cudaplugin.h"
#include "kernels/model.h"
#include "storage/database.h"
#include "storage/isotime.h"
#include "storage/json.h"
#include "storage/reader.h"
#include "wheretime_config.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime capture --workload gcn|transformer|bert|groupbert [--variant V] [--preset paper|small|tiny]\n"
    "                         [--set key=value]... [--steps N] [--warmup N] [--backend auto|cuda|cpu]\n"
    "                         [--name NAME] [--seed N] [--sweep KEY=v1,v2,...]... [--repeat N] -o FILE\n"
    "       wheretime capture ... --no-trace          (time the same steps untraced; writes nothing)\n\n"
    "Runs training steps of a bundled workload under a tracer (CUPTI on a GPU, the CPU tracer\n"
    "elsewhere) and appends the run to FILE. `wheretime workloads` lists workloads, presets,\n"
    "variants and the sizes --set accepts.\n"
    "  --variant    softmax variant (default adaptive)\n"
    "  --preset     default: paper on CUDA, small on the CPU\n"
    "  --steps N    traced steps (default 3); --warmup N untraced steps first (default 1)\n"
    "  --backend    auto (CUDA when a GPU and the CUDA plugin are usable, else the CPU with a notice),\n"
    "               cuda (fail in one line without them), cpu\n"
    "  --sweep K=VS one run per value of K: any size --set accepts (hidden, vocab, batch, seq, layers,\n"
    "               cutoffs, ...), `variant` or `preset`; values separated by ',' (by ';' when one holds\n"
    "               commas: cutoffs=2000,10000;4000,20000). A second --sweep makes a grid (one run per\n"
    "               pair). Every run is tagged in its metadata with the sweep's id (one per invocation),\n"
    "               key(s) and value(s): `wheretime sweep FILE` prints the table. All values are checked\n"
    "               before the first capture; an interrupted run ends the sweep (exit 130)\n"
    "  --repeat N   N runs of each configuration (default 1), tagged as repeats of one another\n"
    "               (metadata repeat_id, repeat_index, repeat_count) for `wheretime compare A --vs B`\n"
    "               and `--repeats`; with --sweep the repeats go round the configurations (every\n"
    "               configuration once, then again), so a drift of the machine hits them alike\n"
    "  --json       print the summary as one JSON object (run, device, steps, kernels, step_ns,\n"
    "               softmax_ns_per_step: the softmax layer's forward + backward kernel time per step,\n"
    "               softmax_layer_ns_per_step: the same with its update phase, softmax_share: the\n"
    "               layer's (all phases) share of the kernel time, dropped_records, loss of the last\n"
    "               step, status; with --sweep also sweep_id, sweep_key, sweep_value...; with --repeat\n"
    "               also repeat_id, repeat_index); one line per run\n"
    "SIGINT/SIGTERM/SIGHUP stop after the current op: the run is kept, marked interrupted, exit 130.\n"
    "Every step is committed as it ends: a kill -9 keeps the steps already done (the run reads as incomplete).\n";

// Unique per invocation: the UTC time and a random part ("20261130T170512-3fa9").
std::string newSweepId()
{
    std::random_device rd;
    char tail[16];
    std::snprintf(tail, sizeof tail, "-%04x", unsigned(rd() & 0xffff));
    return isoUtcCompact(epochNowNs()) + tail;
}

struct Summary {
    int64_t softmaxNs = 0;        // the softmax layer's forward + backward kernel time, whole run
    int64_t softmaxLayerNs = 0;   // the softmax layer in every phase (update too), whole run
    double softmaxShare = 0;      // softmaxLayerNs over the run's kernel time
    RunStats stats;
};

Summary summarize(const std::string& file, int64_t runId)
{
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    auto profile = RunProfile::load(reader, runId);
    Summary s;
    BreakdownOptions layers;
    layers.groupBy = GroupBy::Layer;
    s.stats = computeRunStats(*profile, layers);
    for (const Group& g : s.stats.breakdown.groups)
        if (g.path == "softmax") {
            s.softmaxShare = g.share;
            s.softmaxLayerNs = g.timeNs;
        }
    // Like for like with scripts/softmax-vs-pytorch.py (PyTorch's module forward + backward):
    // the update phase (gradient norm, SGD, loss read-back) is left out.
    BreakdownOptions phases;
    phases.groupBy = GroupBy::Phase;
    phases.filters = {{GroupBy::Layer, "softmax"}};
    Breakdown b = computeBreakdown(profile->totals, profile->tree, profile->strings, phases);
    for (const Group& g : b.groups)
        if (g.path == "forward" || g.path == "backward")
            s.softmaxNs += g.timeNs;
    return s;
}

// Captures one run and prints its summary; returns the exit code of this run (0, 130).
int captureOne(const capture::CaptureOptions& o, bool asJson, const std::string& sweepJson)
{
    capture::CaptureResult r;
    try {
        r = capture::runCapture(o);
    } catch (const capture::CaptureUsageError& e) {
        throw UsageError(e.what());
    }
    if (!o.trace && asJson) {
        std::cout << "{\"traced\":false,\"workload\":" << json::quote(o.workload) << ",\"variant\":" << json::quote(o.variant)
                  << ",\"device\":" << json::quote(r.device) << ",\"steps\":" << r.stepsDone
                  << ",\"step_ns\":" << int64_t(r.medianStepNs) << ",\"loss\":" << json::number(r.lastLoss)
                  << ",\"status\":" << json::quote(r.status) << sweepJson << "}\n";
        return r.status == "interrupted" ? 130 : 0;
    }
    if (!o.trace) {
        std::printf("untraced: %s %s %s on %s: %d steps, median step %s\n", o.workload.c_str(), o.variant.c_str(),
                    r.preset.c_str(), r.device.c_str(), r.stepsDone, formatDuration(int64_t(r.medianStepNs)).c_str());
        return r.status == "interrupted" ? 130 : 0;
    }
    Summary s = summarize(o.output, r.runId);
    const RunStats& stats = s.stats;
    int steps = std::max(1, r.stepsDone);
    if (asJson) {
        std::cout << "{\"traced\":true,\"run\":" << r.runId << ",\"name\":" << json::quote(stats.run.name)
                  << ",\"workload\":" << json::quote(o.workload) << ",\"variant\":" << json::quote(o.variant)
                  << ",\"device\":" << json::quote(r.device) << ",\"steps\":" << r.stepsDone << ",\"kernels\":" << stats.kernels
                  << ",\"step_ns\":" << int64_t(r.medianStepNs) << ",\"kernel_time_ns\":" << stats.kernelTimeNs
                  << ",\"softmax_ns_per_step\":" << s.softmaxNs / steps
                  << ",\"softmax_layer_ns_per_step\":" << s.softmaxLayerNs / steps
                  << ",\"softmax_share\":" << json::number(s.softmaxShare) << ",\"dropped_records\":" << r.droppedRecords
                  << ",\"loss\":" << json::number(r.lastLoss) << ",\"file_overhead_ns\":" << r.fileOverheadNs
                  << ",\"status\":" << json::quote(r.status) << sweepJson << "}\n"
                  << std::flush;
    } else {
        std::printf("run %lld: %s on %s, %d steps, %lld kernels, step %s, softmax layer %s/step forward+backward "
                    "(%s of kernel time with its update)%s%s\n",
                    static_cast<long long>(r.runId), stats.run.name.c_str(), r.device.c_str(), r.stepsDone,
                    static_cast<long long>(stats.kernels), formatDuration(int64_t(r.medianStepNs)).c_str(),
                    formatDuration(s.softmaxNs / steps).c_str(), formatShare(s.softmaxShare).c_str(),
                    r.droppedRecords ? (", " + std::to_string(r.droppedRecords) + " records dropped").c_str() : "",
                    r.status == "interrupted" ? ", INTERRUPTED" : "");
        std::fflush(stdout);
    }
    if (r.status == "interrupted") {
        std::cerr << "wheretime: capture interrupted; the run is kept and marked interrupted\n";
        return 130;
    }
    return 0;
}

int runCaptureCommand(Args& args)
{
    args.parse({"--workload", "--variant", "--preset", "--set", "--steps", "--warmup", "--backend", "--name", "--seed", "-o",
                "--output", "--sweep", "--repeat"},
               {"--no-trace", "--json"});
    if (!args.positionals().empty())
        throw UsageError("unexpected argument '" + args.positionals()[0] + "'");
    capture::CaptureOptions o;
    auto workload = args.value("--workload");
    if (!workload)
        throw UsageError("--workload is required (gcn, transformer, bert or groupbert)");
    o.workload = *workload;
    o.variant = args.value("--variant", "adaptive");
    o.preset = args.value("--preset", "");
    for (const std::string& s : args.values("--set")) {
        try {
            o.overrides.push_back(kernels::parseOverride(s));
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
    }
    o.steps = int(args.integer("--steps", 3));
    o.warmup = int(args.integer("--warmup", 1));
    o.backend = args.value("--backend", "auto");
    o.name = args.value("--name", "");
    o.seed = uint64_t(args.integer("--seed", 1));
    o.output = args.value("-o", args.value("--output", ""));
    o.trace = !args.flag("--no-trace");
    o.installSignalHandlers = true;
    o.notice = [](const std::string& line) { std::cerr << "wheretime capture: " << line << "\n"; };
    bool asJson = args.flag("--json");
    const long long repeat = args.integer("--repeat", 1);
    if (repeat < 1 || repeat > 1000)
        throw UsageError("--repeat must be 1 to 1000, got " + std::to_string(repeat));
    if (repeat > 1 && !o.trace)
        throw UsageError("--repeat stores tagged runs; it cannot be combined with --no-trace");
    // The repeat tags of repeat r of a configuration whose repeats share `id`.
    auto tagRepeat = [&](capture::CaptureOptions& c, const std::string& id, long long r, std::string& json) {
        if (repeat <= 1)
            return;
        c.metadata.emplace_back(kRepeatIdKey, id);
        c.metadata.emplace_back(kRepeatIndexKey, std::to_string(r));
        c.metadata.emplace_back(kRepeatCountKey, std::to_string(repeat));
        json += ",\"repeat_id\":" + json::quote(id) + ",\"repeat_index\":" + std::to_string(r);
    };

    const kernels::SweepPlan plan = sweepPlanOf(args, o.overrides);
    if (plan.empty()) {
        const std::string id = newSweepId();
        for (long long r = 0; r < repeat; ++r) {
            capture::CaptureOptions c = o;
            std::string json;
            tagRepeat(c, id, r, json);
            if (int rc = captureOne(c, asJson, json); rc != 0) {
                if (repeat > 1)
                    std::cerr << "wheretime: repeats " << id << " stopped after " << r + 1 << " of " << repeat << " runs\n";
                return rc;
            }
        }
        if (repeat > 1 && !asJson)
            std::printf("%lld repeats (%s): wheretime compare %s --repeats ...\n", repeat, id.c_str(), o.output.c_str());
        return 0;
    }
    if (!o.trace)
        throw UsageError("--sweep stores tagged runs; it cannot be combined with --no-trace");
    const std::vector<kernels::SweepAxis>& axes = plan.axes;
    const std::vector<std::vector<std::string>>& combos = plan.combos;
    // The preset capture would pick, fixed once, so the runs' names say it.
    bool presetSwept = std::any_of(axes.begin(), axes.end(), [](const kernels::SweepAxis& a) { return a.key == "preset"; });
    if (o.preset.empty() && !presetSwept)
        o.preset = o.backend == "cuda" || (o.backend == "auto" && capture::cudaUsable(nullptr)) ? "paper" : "small";
    std::vector<capture::CaptureOptions> runs;
    std::string id = newSweepId();
    for (size_t i = 0; i < combos.size(); ++i) {
        capture::CaptureOptions c = o;
        const std::string tag = plan.nameTag(i);
        for (size_t a = 0; a < axes.size(); ++a)
            kernels::applySweepValue(axes[a].key, combos[i][a], c.variant, c.preset, c.overrides);
        try {
            kernels::resolveConfig(c.workload, c.preset.empty() ? "small" : c.preset, c.variant, c.overrides);
        } catch (const kernels::SizeError& e) {
            throw kernels::SizeError(std::string("--sweep: ") + e.what());
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--sweep: ") + e.what());
        }
        if (o.name.empty())
            c.name = c.workload + "-" + c.variant + "-" + c.preset + tag;
        else
            c.name = o.name + tag;
        c.metadata = {{kSweepIdKey, id}, {kSweepKeyKey, axes[0].key}, {kSweepValueKey, combos[i][0]},
                      {kSweepIndexKey, std::to_string(i)}};
        if (axes.size() == 2) {
            c.metadata.emplace_back(kSweepKey2Key, axes[1].key);
            c.metadata.emplace_back(kSweepValue2Key, combos[i][1]);
        }
        runs.push_back(std::move(c));
    }
    const size_t total = runs.size() * size_t(repeat);
    if (!asJson)
        std::printf("sweep %s: %zu runs (%s%s)\n", id.c_str(), total,
                    (axes[0].key + (axes.size() == 2 ? " x " + axes[1].key : std::string())).c_str(),
                    repeat > 1 ? (", " + std::to_string(repeat) + " repeats each").c_str() : "");
    size_t done = 0;
    for (long long r = 0; r < repeat; ++r)
        for (size_t i = 0; i < runs.size(); ++i) {
            std::string sweepJson = ",\"sweep_id\":" + json::quote(id) + ",\"sweep_index\":" + std::to_string(i) +
                                    ",\"sweep_key\":" + json::quote(axes[0].key) + ",\"sweep_value\":" + json::quote(combos[i][0]);
            if (axes.size() == 2)
                sweepJson += ",\"sweep_key2\":" + json::quote(axes[1].key) + ",\"sweep_value2\":" + json::quote(combos[i][1]);
            capture::CaptureOptions c = runs[i];
            tagRepeat(c, id + "-" + std::to_string(i), r, sweepJson);
            ++done;
            int rc = captureOne(c, asJson, sweepJson);
            if (rc != 0) {
                std::cerr << "wheretime: sweep " << id << " stopped after " << done << " of " << total << " runs\n";
                return rc;
            }
        }
    if (!asJson)
        std::printf("sweep %s done: wheretime sweep %s --sweep %s\n", id.c_str(), o.output.c_str(), id.c_str());
    return 0;
}

const RegisterCommand reg{{"capture", "run a bundled workload under the GPU or CPU tracer into a file", kUsage, runCaptureCommand}};

}  // namespace
}  // namespace wt::cli
