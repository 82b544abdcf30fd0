// wheretime capture: run a bundled workload under the CUPTI or CPU tracer and append the run
// to a file; prints its id and a one-line summary.
#include "analysis/breakdown.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "capture/capture.h"
#include "kernels/model.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <cstdio>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime capture --workload gcn|transformer|bert|groupbert [--variant V] [--preset paper|small|tiny]\n"
    "                         [--set key=value]... [--steps N] [--warmup N] [--backend auto|cuda|cpu]\n"
    "                         [--name NAME] [--seed N] -o FILE\n"
    "       wheretime capture ... --no-trace          (time the same steps untraced; writes nothing)\n\n"
    "Runs training steps of a bundled workload under a tracer (CUPTI on a GPU, the CPU tracer\n"
    "elsewhere) and appends the run to FILE. `wheretime workloads` lists workloads, presets,\n"
    "variants and the sizes --set accepts.\n"
    "  --variant    softmax variant (default adaptive)\n"
    "  --preset     default: paper on CUDA, small on the CPU\n"
    "  --steps N    traced steps (default 3); --warmup N untraced steps first (default 1)\n"
    "  --backend    auto (CUDA when a GPU is usable), cuda (fail without one), cpu\n"
    "  --json       print the summary as one JSON object (run, device, steps, kernels, step_ns,\n"
    "               softmax_ns_per_step, softmax_share, dropped_records, loss of the last step, status)\n"
    "SIGINT/SIGTERM/SIGHUP stop after the current op: the run is kept, marked interrupted, exit 130.\n"
    "Every step is committed as it ends: a kill -9 keeps the steps already done (the run reads as incomplete).\n";

int runCaptureCommand(Args& args)
{
    args.parse({"--workload", "--variant", "--preset", "--set", "--steps", "--warmup", "--backend", "--name", "--seed", "-o",
                "--output"},
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

    capture::CaptureResult r;
    try {
        r = capture::runCapture(o);
    } catch (const capture::CaptureUsageError& e) {
        throw UsageError(e.what());
    }
    bool asJson = args.flag("--json");
    if (!o.trace && asJson) {
        std::cout << "{\"traced\":false,\"workload\":" << json::quote(o.workload) << ",\"variant\":" << json::quote(o.variant)
                  << ",\"device\":" << json::quote(r.device) << ",\"steps\":" << r.stepsDone
                  << ",\"step_ns\":" << int64_t(r.medianStepNs) << ",\"loss\":" << json::number(r.lastLoss)
                  << ",\"status\":" << json::quote(r.status) << "}\n";
        return r.status == "interrupted" ? 130 : 0;
    }
    if (!o.trace) {
        std::printf("untraced: %s %s %s on %s: %d steps, median step %s\n", o.workload.c_str(), o.variant.c_str(),
                    r.preset.c_str(), r.device.c_str(), r.stepsDone, formatDuration(int64_t(r.medianStepNs)).c_str());
        return r.status == "interrupted" ? 130 : 0;
    }
    Database db(o.output, OpenMode::ReadOnly);
    Reader reader(db);
    BreakdownOptions layers;
    layers.groupBy = GroupBy::Layer;
    RunStats stats = computeRunStats(reader, r.runId, layers);
    double softmaxShare = 0;
    int64_t softmaxNs = 0;
    for (const Group& g : stats.breakdown.groups)
        if (g.path == "softmax") {
            softmaxShare = g.share;
            softmaxNs = g.timeNs;
        }
    int steps = std::max(1, r.stepsDone);
    if (asJson) {
        std::cout << "{\"traced\":true,\"run\":" << r.runId << ",\"name\":" << json::quote(stats.run.name)
                  << ",\"workload\":" << json::quote(o.workload) << ",\"variant\":" << json::quote(o.variant)
                  << ",\"device\":" << json::quote(r.device) << ",\"steps\":" << r.stepsDone << ",\"kernels\":" << stats.kernels
                  << ",\"step_ns\":" << int64_t(r.medianStepNs) << ",\"kernel_time_ns\":" << stats.kernelTimeNs
                  << ",\"softmax_ns_per_step\":" << softmaxNs / steps << ",\"softmax_share\":" << json::number(softmaxShare)
                  << ",\"dropped_records\":" << r.droppedRecords << ",\"loss\":" << json::number(r.lastLoss)
                  << ",\"status\":" << json::quote(r.status) << "}\n";
    } else {
    std::printf("run %lld: %s on %s, %d steps, %lld kernels, step %s, softmax layer %s/step (%s of kernel time)%s%s\n",
                static_cast<long long>(r.runId), stats.run.name.c_str(), r.device.c_str(), r.stepsDone,
                static_cast<long long>(stats.kernels), formatDuration(int64_t(r.medianStepNs)).c_str(),
                formatDuration(softmaxNs / steps).c_str(), formatShare(softmaxShare).c_str(),
                r.droppedRecords ? (", " + std::to_string(r.droppedRecords) + " records dropped").c_str() : "",
                r.status == "interrupted" ? ", INTERRUPTED" : "");
    }
    if (r.status == "interrupted") {
        std::cerr << "wheretime: capture interrupted; the run is kept and marked interrupted\n";
        return 130;
    }
    return 0;
}

const RegisterCommand reg{{"capture", "run a bundled workload under the GPU or CPU tracer into a file", kUsage, runCaptureCommand}};

}  // namespace
}  // namespace wt::cli
