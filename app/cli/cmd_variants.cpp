// wheretime variants FILE | FILE:RUN...: runs of one workload that differ in one setting (the
// softmax variant by default) side by side: one layer's forward, backward and total time per
// step, its share of the step, the step time and the speedups against a baseline, and the
// layer's time per op. Every number comes from analysis/variants (compareRuns' numbers).
#include "analysis/variants.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/pathidentity.h"
#include "storage/reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime variants FILE [--workload W] [--setting KEY] [--layer softmax] [--baseline adaptive] [--json]\n"
    "       wheretime variants FILE:RUN FILE:RUN... [--layer L] [--baseline VALUE] [--json]\n\n"
    "Runs of one workload that differ in ONE setting, side by side (per step, the mean step):\n"
    "the layer's forward, backward, update and total kernel time, its share of the step's kernel\n"
    "time, the step's kernel time, the wall time per step and the speedup against the baseline\n"
    "(baseline time / run time: above 1 is faster), then the layer's time per op. The numbers\n"
    "are `wheretime compare`'s over the same runs (the layer's row and the total, per step).\n"
    "With FILE alone: the newest complete capture (of --workload W) and, for every other value of\n"
    "--setting (default variant), the newest run that equals it in every other setting (workload,\n"
    "preset, sizes, seed, device). With FILE:RUN arguments: those runs; runs that differ in two\n"
    "or more settings are refused, naming each.\n"
    "  --layer      the layer to compare (default softmax)\n"
    "  --baseline   the differing setting's value of the baseline run (default adaptive; else the\n"
    "               first run)\n"
    "  --json       {setting, layer, baseline, notes, ops: [names], runs: [{file, id, name, workload,\n"
    "               variant, preset, value, steps, forward_ns, backward_ns, update_ns, layer_ns, share,\n"
    "               step_ns, step_wall_ns, speedup, forward_speedup, backward_speedup, step_speedup,\n"
    "               ops: {name: ns}}]} (times in ns per step; share a fraction; speedups null where\n"
    "               undefined)\n"
    "See docs/softmax-variants.md.\n";

struct Opened {
    std::unique_ptr<Database> db;
    std::unique_ptr<Reader> reader;
};

std::string optNumber(const std::optional<double>& v)
{
    return v ? json::number(*v) : std::string("null");
}

std::string speedText(const std::optional<double>& v)
{
    if (!v)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", *v);
    return buf;
}

std::string duration(double ns)
{
    return formatDuration(int64_t(std::llround(ns)));
}

int printJson(const VariantsTable& t)
{
    std::cout << "{\"setting\":" << json::quote(t.setting) << ",\"layer\":" << json::quote(t.layer)
              << ",\"baseline\":" << t.baseline << ",\"baseline_value\":" << json::quote(t.rows[t.baseline].value)
              << ",\"notes\":[";
    for (size_t i = 0; i < t.notes.size(); ++i)
        std::cout << (i ? "," : "") << json::quote(t.notes[i]);
    std::cout << "],\"ops\":[";
    for (size_t i = 0; i < t.opNames.size(); ++i)
        std::cout << (i ? "," : "") << json::quote(t.opNames[i]);
    std::cout << "],\n\"runs\":[";
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const VariantRow& r = t.rows[i];
        std::cout << (i ? ",\n " : "\n ") << "{\"file\":" << json::quote(r.file) << ",\"id\":" << r.info.id
                  << ",\"name\":" << json::quote(r.info.name) << ",\"workload\":" << json::quote(r.info.workload)
                  << ",\"variant\":" << json::quote(r.info.variant) << ",\"preset\":" << json::quote(r.info.preset)
                  << ",\"device\":" << json::quote(r.info.device) << ",\"value\":" << json::quote(r.value)
                  << ",\"steps\":" << r.steps << ",\"has_layer\":" << (r.hasLayer ? "true" : "false")
                  << ",\"forward_ns\":" << json::number(r.forwardNs) << ",\"backward_ns\":" << json::number(r.backwardNs)
                  << ",\"update_ns\":" << json::number(r.updateNs) << ",\"layer_ns\":" << json::number(r.layerNs)
                  << ",\"share\":" << json::number(r.share) << ",\"step_ns\":" << json::number(r.stepNs)
                  << ",\"step_wall_ns\":" << json::number(r.stepWallNs) << ",\"speedup\":" << optNumber(r.speedup)
                  << ",\"forward_speedup\":" << optNumber(r.forwardSpeedup)
                  << ",\"backward_speedup\":" << optNumber(r.backwardSpeedup)
                  << ",\"step_speedup\":" << optNumber(r.stepSpeedup) << ",\"ops\":{";
        for (size_t j = 0; j < r.ops.size(); ++j)
            std::cout << (j ? "," : "") << json::quote(r.ops[j].name) << ":" << json::number(r.ops[j].ns);
        std::cout << "}}";
    }
    std::cout << "]}\n";
    return 0;
}

int printText(const VariantsTable& t)
{
    const VariantRow& base = t.rows[t.baseline];
    std::string setting = t.setting.empty() ? std::string("nothing (identical settings)") : t.setting;
    std::printf("%zu runs of %s %s that differ in %s; layer %s, kernel time per step; baseline %s (run %lld)\n",
                t.rows.size(), base.info.workload.c_str(), base.info.preset.c_str(), setting.c_str(), t.layer.c_str(),
                base.value.c_str(), static_cast<long long>(base.info.id));
    for (const std::string& n : t.notes)
        std::printf("%s\n", n.c_str());
    std::printf("\n");
    std::string head = t.setting.empty() ? std::string("variant") : t.setting;
    size_t w = head.size();
    for (const VariantRow& r : t.rows)
        w = std::max(w, r.value.size());
    w = std::min<size_t>(w, 30);
    std::printf("%-*s %5s %12s %12s %12s %12s %7s %12s %12s %8s %8s\n", int(w), head.c_str(), "run", "forward", "backward",
                "update", t.layer.c_str(), "share", "step", "step wall", "speedup", "step x");
    for (const VariantRow& r : t.rows)
        std::printf("%-*s %5lld %12s %12s %12s %12s %7s %12s %12s %8s %8s\n", int(w), r.value.c_str(),
                    static_cast<long long>(r.info.id), duration(r.forwardNs).c_str(), duration(r.backwardNs).c_str(),
                    duration(r.updateNs).c_str(), duration(r.layerNs).c_str(), formatShare(r.share).c_str(),
                    duration(r.stepNs).c_str(), duration(r.stepWallNs).c_str(), speedText(r.speedup).c_str(),
                    speedText(r.stepSpeedup).c_str());
    if (!t.opNames.empty()) {
        std::printf("\nops of layer %s, per step\n", t.layer.c_str());
        size_t ow = 2;
        for (const std::string& n : t.opNames)
            ow = std::max(ow, n.size());
        ow = std::min<size_t>(ow, 40);
        std::printf("%-*s", int(ow), "op");
        for (const VariantRow& r : t.rows)
            std::printf(" %12s", r.value.substr(0, 12).c_str());
        std::printf("\n");
        for (size_t i = 0; i < t.opNames.size(); ++i) {
            std::printf("%-*s", int(ow), t.opNames[i].substr(0, ow).c_str());
            for (const VariantRow& r : t.rows)
                std::printf(" %12s", r.ops[i].ns > 0 ? duration(r.ops[i].ns).c_str() : "-");
            std::printf("\n");
        }
    }
    return 0;
}

int runVariants(Args& args)
{
    args.parse({"--workload", "--setting", "--layer", "--baseline"}, {"--json"});
    const auto& pos = args.positionals();
    if (pos.empty())
        throw UsageError("expected FILE, or FILE:RUN arguments");
    VariantsOptions options;
    options.layer = args.value("--layer", "softmax");
    options.baseline = args.value("--baseline", "adaptive");
    if (options.layer.empty())
        throw UsageError("--layer needs a layer name");

    std::map<std::string, Opened> files;
    auto open = [&](const std::string& file) -> Reader& {
        Opened& o = files[file];
        if (!o.db) {
            o.db = std::make_unique<Database>(file, OpenMode::ReadOnly);
            o.reader = std::make_unique<Reader>(*o.db);
        }
        return *o.reader;
    };
    std::vector<CompareRun> runs;
    bool explicitRuns = pos.size() > 1 || splitRunSelector(pos[0]).second != "";
    if (explicitRuns) {
        if (args.value("--workload") || args.value("--setting"))
            throw UsageError("--workload and --setting pick runs from FILE; with FILE:RUN arguments the runs are given");
        runs.reserve(pos.size());
        for (const std::string& sel : pos) {
            auto [file, selector] = splitRunSelector(sel);
            Reader& reader = open(file);
            runs.push_back(loadCompareRun(reader, reader.resolveRun(selector), file));
        }
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
        Reader& reader = open(file);
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
    return args.flag("--json") ? printJson(t) : printText(t);
}

const RegisterCommand reg{{"variants", "runs that differ in one setting (softmax variant) side by side: layer time, share, speedup",
                           kUsage, runVariants}};

}  // namespace
}  // namespace wt::cli
