// wheretime sweep FILE: the table behind the scaling chart of a sweep (runs captured with
// `wheretime capture --sweep`): per swept value and layer, the layer's kernel time per step and
// its share of the step, with the predicted twin's time and error; per point its noise (the 95% t
// interval of the mean per step over every step of its repeats) and whether the prediction lies
// inside it. The table is analysis/sweeptable's, written by render/ (the GUI's scaling export
// writes the same bytes). With a predicted twin (or --hold-out, --errors) the held-out error
// follows: analysis/heldouterror's table, the one the GUI's scaling view lists.
#include "analysis/heldouterror.h"
#include "analysis/sweep.h"
#include "analysis/sweeptable.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <cstdio>
#include <iostream>
#include <optional>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime sweep FILE [--sweep ID] [--layer L] [--hold-out H] [--errors] [--json | --csv]\n"
    "       wheretime sweep FILE --list [--json]\n\n"
    "The table behind a sweep's scaling chart (runs made by `wheretime capture --sweep`): per swept\n"
    "value (sorted numerically when every value is a number) and per layer, the layer's kernel\n"
    "time per step, its share of the step's kernel time and the step's kernel time. On a grid with\n"
    "`variant` one series per layer and variant (x: the other key); on another grid one per layer\n"
    "and value of the second key. The GUI's scaling view draws and exports the same table.\n"
    "  --sweep ID   the sweep (default: the newest measured one in FILE); --list shows the file's sweeps\n"
    "  --layer L    only layer L (e.g. softmax)\n"
    "A predicted twin in the file (`wheretime predict --sweep` with the same keys, workload and preset)\n"
    "adds its time at each measured point and the error (predicted - measured) / measured, then its\n"
    "own points as rows with source `predicted`.\n"
    "Noise: a point's samples are the layer's time in each of its steps; the repeats of a point\n"
    "(`capture --sweep ... --repeat N`: one repeat id) pool into it, every step of every repeat a\n"
    "sample. Text shows +- (the 95% t interval of the mean per step) and n; with a twin, `inside`\n"
    "says whether the prediction lies inside that interval (yes/no; none without an interval).\n"
    "  --csv        one row per point: series, layer, [the grid's other key], the swept key, run,\n"
    "               repeats, source, layer_ns, pm_ns, n, stddev_ns, ci_low_ns, ci_high_ns, share,\n"
    "               step_ns, predicted_ns, predicted_run, error_pct, predicted_inside (ns per step;\n"
    "               share a fraction; error in percent; empty where none)\n"
    "  --json       {sweep: {id, key, key2, values, values2, runs, workload, preset, started_at},\n"
    "               predicted_sweep, x_key, group_key, numeric, x_values, layers, notes, rows: [the\n"
    "               --csv rows as objects keyed by the header, null where none]}\n"
    "Held-out error (with a predicted twin, or --hold-out / --errors): how far off the twin's predictor\n"
    "was on runs it had not seen. The file's measured runs with op features are evaluated as\n"
    "`wheretime predict --evaluate FILE --hold-out H` does (each group held out in turn, the twin's\n"
    "predictor kind, regression or mlp, refitted on the other groups); per layer (--layer: that one),\n"
    "the whole step and every layer: MAPE of the predictor, the roofline of the file's calibration and\n"
    "FLOPs only, and the predictor's signed mean error, in percent. Text prints it after the table.\n"
    "  --hold-out H workload, preset, variant or run (default: the first of these with two groups)\n"
    "  --errors     print only the held-out table (--csv writes the sweep table alone without it):\n"
    "               text, --csv (error_of, layer, runs, mape_model,\n"
    "               mape_roofline, mape_flops, mean_error_model, hold_out, model) or --json rows\n"
    "Over the sweep's runs only (each predicted by the fit without its group).\n"
    "  --json adds held_out: {hold_out, model, predictor, possible, notes, rows} (null: none; then\n"
    "               held_out_why says why)\n"
    "See docs/softmax-variants.md and docs/prediction.md.\n";

std::string strings(const std::vector<std::string>& v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? "," : "") + json::quote(v[i]);
    return out + "]";
}

std::string sweepJson(const SweepInfo& s)
{
    std::string runs = "[";
    for (size_t i = 0; i < s.runIds.size(); ++i)
        runs += (i ? "," : "") + std::to_string(s.runIds[i]);
    runs += "]";
    return "{\"id\":" + json::quote(s.id) + ",\"key\":" + json::quote(s.key) + ",\"key2\":" + json::quote(s.key2) +
           ",\"values\":" + strings(s.values) + ",\"values2\":" + strings(s.values2) + ",\"runs\":" + runs +
           ",\"workload\":" + json::quote(s.workload) + ",\"preset\":" + json::quote(s.preset) +
           ",\"started_at\":" + json::quote(s.startedAt) + "}";
}

std::string join(const std::vector<std::string>& v)
{
    std::string out;
    for (const std::string& s : v)
        out += (out.empty() ? "" : ",") + s;
    return out;
}

int runSweep(Args& args)
{
    args.parse({"--sweep", "--layer", "--hold-out"}, {"--json", "--csv", "--list", "--errors"});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE");
    const OutputFormat format = outputFormat(args);
    const bool asJson = format == OutputFormat::Json, asCsv = format == OutputFormat::Csv;
    const std::string& file = args.positionals()[0];
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);

    if (args.flag("--list")) {
        if (asCsv)
            throw UsageError("--list prints text or --json");
        std::vector<SweepInfo> sweeps = listSweeps(reader);
        if (asJson) {
            std::cout << "[";
            for (size_t i = 0; i < sweeps.size(); ++i)
                std::cout << (i ? ",\n " : "\n ") << sweepJson(sweeps[i]);
            std::cout << "]\n";
            return 0;
        }
        if (sweeps.empty())
            std::printf("%s holds no sweep\n", file.c_str());
        for (const SweepInfo& s : sweeps)
            std::printf("%s  %s %s  %s=%s%s  %zu runs  %s\n", s.id.c_str(), s.workload.c_str(), s.preset.c_str(), s.key.c_str(),
                        join(s.values).c_str(), s.key2.empty() ? "" : (" x " + s.key2 + "=" + join(s.values2)).c_str(),
                        s.runIds.size(), s.startedAt.c_str());
        return 0;
    }

    SweepOptions options;
    options.layer = args.value("--layer", "");
    SweepTable t;
    try {
        t = loadSweep(reader, args.value("--sweep", ""), options, file);
    } catch (const SweepError& e) {
        return fail(e.what());
    }
    // The predicted twin (wheretime predict --sweep with the same keys): its time beside each point.
    std::optional<SweepTable> predicted;
    if (auto twin = predictedTwin(listSweeps(reader), t.sweep))
        predicted = loadSweep(reader, twin->id, options, file);
    const Table table = sweepTable(t, predicted ? &*predicted : nullptr);

    // The held-out error of the twin's predictor (or of a regression, asked for without a twin).
    const bool errorsOnly = args.flag("--errors");
    const auto holdOutArg = args.value("--hold-out");
    std::optional<HeldOutError> heldOut;
    std::string heldOutWhy = "no predicted twin";
    // --csv writes the sweep table alone (the GUI's export): no evaluation for it.
    if (errorsOnly || (!asCsv && (predicted || holdOutArg))) {
        HeldOutErrorOptions ho = predicted ? heldOutOptionsFor(db, reader, predicted->sweep) : HeldOutErrorOptions{};
        if (holdOutArg) {
            ho.holdOut = parseHoldOut(*holdOutArg);
            if (!ho.holdOut)
                throw UsageError("--hold-out takes run, workload, preset or variant, not '" + *holdOutArg + "'");
        }
        try {
            heldOut = computeHeldOutError(loadEvaluationInput(db, file), ho);
        } catch (const std::invalid_argument& e) {
            heldOutWhy = e.what();
        }
    }
    std::optional<Table> heldOutTable;
    if (heldOut)
        heldOutTable = heldOutErrorTable(*heldOut, options.layer, t.sweep.runIds);   // the sweep's runs, each held out with its group
    if (errorsOnly) {
        if (!heldOutTable)
            return fail(file + ": " + heldOutWhy);
        std::cout << (asJson ? render::jsonRows(*heldOutTable) + "\n" : asCsv ? render::csv(*heldOutTable) : render::text(*heldOutTable));
        return 0;
    }
    if (asJson) {
        std::cout << "{\"sweep\":" << sweepJson(t.sweep) << ",\"predicted_sweep\":"
                  << (predicted ? json::quote(predicted->sweep.id) : std::string("null")) << ",\"x_key\":" << json::quote(t.xKey)
                  << ",\"group_key\":" << json::quote(t.groupKey) << ",\"numeric\":" << (t.numeric ? "true" : "false")
                  << ",\"x_values\":" << strings(t.xValues) << ",\"layers\":" << strings(t.layers)
                  << ",\"notes\":" << strings(table.notes) << ",\n\"rows\":" << render::jsonRows(table) << ",\n\"held_out\":";
        if (heldOut) {
            std::vector<std::string> possible;
            for (HoldOut h : heldOut->possible)
                possible.push_back(holdOutName(h));
            std::cout << "{\"hold_out\":" << json::quote(holdOutName(heldOut->holdOut))
                      << ",\"model\":" << json::quote(predictorKindName(heldOut->model))
                      << ",\"predictor\":" << json::quote(heldOut->predictor) << ",\"possible\":" << strings(possible)
                      << ",\"notes\":" << strings(heldOutTable->notes) << ",\"rows\":" << render::jsonRows(*heldOutTable) << "}";
        } else {
            std::cout << "null,\"held_out_why\":" << json::quote(heldOutWhy);
        }
        std::cout << "}\n";
        return 0;
    }
    if (asCsv) {
        std::cout << render::csv(table);
        return 0;
    }
    std::cout << render::text(table, {40});
    if (heldOutTable)
        std::cout << "\n" << render::text(*heldOutTable);
    else if (predicted)
        std::cout << "\nheld-out error: none (" << heldOutWhy << ")\n";
    return 0;
}

const RegisterCommand reg{{"sweep", "the scaling table of a sweep: layer time and share per swept value", kUsage, runSweep}};

}  // namespace
}  // namespace wt::cli
