// wheretime roofline FILE[:RUN]: per op of a captured run, its time per step against the
// device's roofline bound (analysis/rooflinetable.h): a CPU capture against this machine's
// calibration (`wheretime calibrate FILE`), a GPU capture against the device table (--device
// h200). The table bench_roofline and the GPU check print (docs/performance.md).
#include "analysis/rooflinetable.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "render/tablewriter.h"
#include "render/textformat.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <cstdio>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime roofline FILE[:RUN] [--device NAME] [--min-time T] [--json | --csv]\n\n"
    "Per op of a captured run (by layer family: conv0 .. conv9 are conv*), its time per step, achieved\n"
    "FLOP/s and B/s, and the device's bound for the same work: max(FLOPs / peak, bytes / bandwidth,\n"
    "exps / exp rate) + launches x the fixed cost of a launch, summed over the launches; x bound =\n"
    "time / bound (1.0: at the device's limit). Needs the op features a capture stores (imports have none).\n"
    "  --device NAME  h200, h100, a100, v100, rtx4090 (docs/prediction.md), or a calibration stored in\n"
    "               FILE (`wheretime calibrate FILE`); default: FILE's first calibration\n"
    "  --min-time T ops under T per step fold into one row (ns, or with a unit: 0.5ms; default 0)\n"
    "  --json       {run, name, workload, variant, steps, device: {the calibration's fields}, rows: [{layer, op,\n"
    "               kind, launches, time_ns, flop_per_s, bytes_per_s, bound, bound_ns, x_bound, flops, bytes,\n"
    "               exps, flops_ns, memory_ns, exp_ns, launch_ns}]} (per step; the last row is the step)\n"
    "  --csv        the rows\n";

int runRoofline(Args& args)
{
    args.parse();
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE[:RUN]");
    const OutputFormat format = outputFormat(args);
    RooflineOptions options;
    if (auto t = args.value("--min-time")) {
        auto ns = parseDuration(*t);
        if (!ns || *ns < 0)
            throw UsageError("--min-time takes a duration (ns, or with a unit: 0.5ms), not '" + *t + "'");
        options.minNs = double(*ns);
    }
    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    std::optional<DeviceSpec> device;
    if (auto name = args.value("--device")) {
        device = resolveDevice(*name, db, file);
        if (!device)
            return fail("unknown device '" + *name + "' (not in the table, and " + file +
                        " holds no calibration of that name; see wheretime calibrate)");
    } else {
        const auto calibrations = CostModelStore(db).list("device");
        if (calibrations.empty())
            return fail(file + " holds no calibration: give --device (h200, h100, a100, v100, rtx4090) or run "
                               "`wheretime calibrate " + file + "` on the machine that captured it");
        device = calibrationOf(calibrations.front(), file);
    }
    Reader reader(db);
    const int64_t runId = reader.resolveRun(selector);
    const RunSamples samples = loadRunSamples(reader, runId);
    if (samples.launches.empty())
        return fail("run " + std::to_string(runId) + " has no op features (imports and older files store none): "
                    "the roofline needs a capture of a bundled workload");
    const Table table = rooflineTable(rooflineOps(samples, *device), *device, options);

    if (format == OutputFormat::Csv) {
        std::cout << render::csv(table);
        return 0;
    }
    const RunInfo& run = samples.run;
    if (format == OutputFormat::Json) {
        std::cout << "{\"run\":" << run.id << ",\"name\":" << json::quote(run.name) << ",\"workload\":" << json::quote(run.workload)
                  << ",\"variant\":" << json::quote(run.variant) << ",\"steps\":" << samples.steps
                  << ",\"device\":" << toJson(*device) << ",\n\"rows\":" << render::jsonRows(table) << "}\n";
        return 0;
    }
    std::printf("run %lld  %s  %s %s  on %s  (%lld step%s)\n", static_cast<long long>(run.id), render::printable(run.name).c_str(),
                run.workload.c_str(), run.variant.c_str(), run.device.c_str(), static_cast<long long>(samples.steps),
                samples.steps == 1 ? "" : "s");
    std::cout << '\n' << render::text(table);
    return 0;
}

const RegisterCommand reg{{"roofline", "per op of a capture: time per step against the device's roofline bound", kUsage,
                           runRoofline,
                           {{"--device", "NAME", "a table device (h200, ...) or a calibration in FILE (default: FILE's first)"},
                            {"--min-time", "T", "ops under T per step fold into one row"},
                            {"--json", "", "print JSON"},
                            {"--csv", "", "print the rows as CSV"}}}};

}  // namespace
}  // namespace wt::cli
