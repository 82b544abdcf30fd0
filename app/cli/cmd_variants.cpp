// wheretime variants FILE | FILE:RUN...: runs of one workload that differ in one setting (the
// softmax variant by default) side by side: one layer's forward, backward and total time per
// step, its share of the step, the step time and the speedups against a baseline, and the
// layer's time per op. Every number comes from analysis/variants (compareRuns' numbers), the
// tables from analysis/variantstable, written by render/ (the GUI's exports write the same bytes).
#include "analysis/variants.h"
#include "analysis/variantstable.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "app/cli/runfiles.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/pathidentity.h"
#include "storage/reader.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime variants FILE [--workload W] [--setting KEY] [--layer softmax] [--baseline adaptive] [--json | --csv [--ops]]\n"
    "       wheretime variants FILE:RUN FILE:RUN... [--layer L] [--baseline VALUE] [--json | --csv [--ops]]\n\n"
    "Runs of one workload that differ in ONE setting, side by side (per step, the mean step):\n"
    "the layer's forward, backward, update and total kernel time, its share of the step's kernel\n"
    "time, the step's kernel time, the wall time per step and the speedup against the baseline\n"
    "(baseline time / run time: above 1 is faster), then the layer's time per op. The numbers\n"
    "are `wheretime compare`'s over the same runs (the layer's row and the total, per step).\n"
    "With FILE alone: the newest complete capture (of --workload W) and, for every other value of\n"
    "--setting (default variant), the newest run that equals it in every other setting (workload,\n"
    "preset, sizes, seed, device). With FILE:RUN arguments: those runs; runs that differ in two\n"
    "or more settings are refused, naming each. The GUI's variants view shows and exports the\n"
    "same tables.\n"
    "  --layer      the layer to compare (default softmax)\n"
    "  --baseline   the differing setting's value of the baseline run (default adaptive; else the\n"
    "               first run)\n"
    "  --csv        one row per run: the setting (its name as the header), baseline, run, name, file,\n"
    "               steps, forward_ns, backward_ns, update_ns, layer_ns, share, step_ns, step_wall_ns,\n"
    "               speedup, forward_speedup, backward_speedup, step_speedup (ns per step; share a\n"
    "               fraction; speedups empty where undefined)\n"
    "  --ops        with --csv: the op table instead, one row per op of the layer: op, then one\n"
    "               <value>_ns column per run\n"
    "  --json       {setting, layer, baseline, baseline_value, workload, preset, notes, runs: [the\n"
    "               --csv rows as objects], ops: [the --ops rows as objects]} (null where undefined)\n"
    "See docs/softmax-variants.md.\n";

int printJson(const VariantsTable& t)
{
    const Table runs = variantsTable(t), ops = variantOpsTable(t);
    const VariantRow& base = t.rows[t.baseline];
    std::cout << "{\"setting\":" << json::quote(t.setting) << ",\"layer\":" << json::quote(t.layer)
              << ",\"baseline\":" << t.baseline << ",\"baseline_value\":" << json::quote(base.value)
              << ",\"workload\":" << json::quote(base.info.workload) << ",\"preset\":" << json::quote(base.info.preset)
              << ",\"notes\":[";
    for (size_t i = 0; i < runs.notes.size(); ++i)
        std::cout << (i ? "," : "") << json::quote(runs.notes[i]);
    std::cout << "],\n\"runs\":" << render::jsonRows(runs) << ",\n\"ops\":" << render::jsonRows(ops) << "}\n";
    return 0;
}

int printText(const VariantsTable& t)
{
    std::cout << render::text(variantsTable(t), {30});
    if (!t.opNames.empty())
        std::cout << "\n" << render::text(variantOpsTable(t), {40});
    return 0;
}

int runVariants(Args& args)
{
    args.parse({"--workload", "--setting", "--layer", "--baseline"}, {"--json", "--csv", "--ops"});
    const auto& pos = args.positionals();
    if (pos.empty())
        throw UsageError("expected FILE, or FILE:RUN arguments");
    VariantsOptions options;
    options.layer = args.value("--layer", "softmax");
    options.baseline = args.value("--baseline", "adaptive");
    if (options.layer.empty())
        throw UsageError("--layer needs a layer name");
    const OutputFormat format = outputFormat(args);
    const bool asJson = format == OutputFormat::Json, asCsv = format == OutputFormat::Csv;
    if (args.flag("--ops") && !asCsv)
        throw UsageError("--ops picks the op table of --csv (text and --json have both tables)");

    RunFiles files;
    std::vector<CompareRun> runs;
    bool explicitRuns = pos.size() > 1 || splitRunSelector(pos[0]).second != "";
    if (explicitRuns) {
        if (args.value("--workload") || args.value("--setting"))
            throw UsageError("--workload and --setting pick runs from FILE; with FILE:RUN arguments the runs are given");
        runs.reserve(pos.size());
        for (const std::string& sel : pos)
            runs.push_back(files.load(sel));
        // One run (or the same run twice) has nothing beside it: say what was asked and why.
        std::vector<std::pair<std::string, int64_t>> distinct;
        for (const CompareRun& r : runs)
            if (std::none_of(distinct.begin(), distinct.end(),
                             [&](const auto& d) { return d.second == r.info.id && sameFile(d.first, r.file); }))
                distinct.emplace_back(r.file, r.info.id);
        if (distinct.size() < 2)
            return fail("variants: " + pos[0] + (pos.size() > 1 ? " (given " + std::to_string(pos.size()) + " times)" : std::string()) +
                        " is one run (run " + std::to_string(runs[0].info.id) + " of " + runs[0].file +
                        "); variants sets two or more runs side by side: name more FILE:RUN, or give FILE alone to "
                        "pick the runs that differ in one setting");
    } else {
        const std::string& file = pos[0];
        Reader& reader = files.reader(file);
        std::vector<RunInfo> all = reader.runs();
        std::string workload = args.value("--workload", "");
        auto anchor = newestCapture(all, workload);
        if (!anchor)
            return fail(file + " holds no complete capture" + (workload.empty() ? std::string() : " of " + workload));
        std::string setting = args.value("--setting", "variant");
        std::vector<int64_t> ids = selectVariantRuns(all, *anchor, setting);
        if (ids.size() < 2)
            return fail("only run " + std::to_string(anchor->id) + " of " + file + " (" + anchor->name +
                        ") has these settings; capture more " + setting + " values (scripts/variants.sh), or name runs as FILE:RUN");
        for (int64_t id : ids)
            runs.push_back(loadCompareRun(reader, id, file));
    }
    std::vector<const CompareRun*> ptrs;
    for (const CompareRun& r : runs)
        ptrs.push_back(&r);
    VariantsTable t = computeVariants(ptrs, options);
    if (std::none_of(t.rows.begin(), t.rows.end(), [](const VariantRow& r) { return r.hasLayer; }))
        return fail("no run has kernels in layer " + options.layer);
    if (asCsv) {
        std::cout << render::csv(args.flag("--ops") ? variantOpsTable(t) : variantsTable(t));
        return 0;
    }
    return asJson ? printJson(t) : printText(t);
}

const RegisterCommand reg{{"variants", "runs that differ in one setting (softmax variant) side by side: layer time, share, speedup",
                           kUsage, runVariants}};

}  // namespace
}  // namespace wt::cli
