// wheretime sweep FILE: the table behind the scaling chart of a sweep (runs captured with
// `wheretime capture --sweep`): per swept value and layer, the layer's kernel time per step and
// its share of the step. Every number comes from analysis/sweep.
#include "analysis/sweep.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <algorithm>
#include <optional>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime sweep FILE [--sweep ID] [--layer L] [--json | --csv]\n"
    "       wheretime sweep FILE --list [--json]\n\n"
    "The table behind a sweep's scaling chart (runs made by `wheretime capture --sweep`): per swept\n"
    "value (sorted numerically when every value is a number) and per layer, the layer's kernel\n"
    "time per step, its share of the step's kernel time and the step's kernel time. On a grid with\n"
    "`variant` one series per layer and variant (x: the other key); on another grid one per layer\n"
    "and value of the second key.\n"
    "  --sweep ID   the sweep (default: the newest in FILE); --list shows the file's sweeps\n"
    "  --layer L    only layer L (e.g. softmax)\n"
    "A predicted twin in the file (`wheretime predict --sweep` with the same keys, workload and preset)\n"
    "adds its time per point: columns predicted and error; predicted_sweep, predicted_run, predicted_ns\n"
    "and predicted_share in --json.\n"
    "  --json       {sweep: {id, key, key2, values, values2, runs, workload, preset, started_at}, x_key,\n"
    "               group_key, numeric, x_values, layers, notes, series: [{name, layer, group, points:\n"
    "               [{value, x, run, present, ns, share, step_ns}]}]} (ns per step; share a fraction)\n"
    "  --csv        one row per point: series, layer, group, value, run, ns, share, step_ns\n"
    "See docs/softmax-variants.md.\n";

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
    args.parse({"--sweep", "--layer"}, {"--json", "--csv", "--list"});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE");
    bool asJson = args.flag("--json"), asCsv = args.flag("--csv");
    if (asJson && asCsv)
        throw UsageError("--json and --csv exclude each other");
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
    auto twinOf = [&](const SweepSeries& s, const SweepPoint& p) -> const SweepPoint* {
        return predicted && p.present ? findSweepPoint(*predicted, s.name, p.value) : nullptr;
    };
    if (asJson) {
        std::cout << "{\"sweep\":" << sweepJson(t.sweep) << ",\"x_key\":" << json::quote(t.xKey)
                  << ",\"group_key\":" << json::quote(t.groupKey) << ",\"numeric\":" << (t.numeric ? "true" : "false")
                  << ",\"x_values\":" << strings(t.xValues) << ",\"layers\":" << strings(t.layers)
                  << ",\"notes\":" << strings(t.notes)
                  << ",\"predicted_sweep\":" << (predicted ? json::quote(predicted->sweep.id) : std::string("null"))
                  << ",\n\"series\":[";
        for (size_t i = 0; i < t.series.size(); ++i) {
            const SweepSeries& s = t.series[i];
            std::cout << (i ? ",\n " : "\n ") << "{\"name\":" << json::quote(s.name) << ",\"layer\":" << json::quote(s.layer)
                      << ",\"group\":" << json::quote(s.group) << ",\"points\":[";
            for (size_t j = 0; j < s.points.size(); ++j) {
                const SweepPoint& p = s.points[j];
                std::cout << (j ? "," : "") << "{\"value\":" << json::quote(p.value)
                          << ",\"x\":" << (p.x ? json::number(*p.x) : std::string("null")) << ",\"run\":" << p.runId
                          << ",\"present\":" << (p.present ? "true" : "false") << ",\"ns\":" << json::number(p.ns)
                          << ",\"share\":" << json::number(p.share) << ",\"step_ns\":" << json::number(p.stepNs);
                if (const SweepPoint* tp = twinOf(s, p))
                    std::cout << ",\"predicted_run\":" << tp->runId << ",\"predicted_ns\":" << json::number(tp->ns)
                              << ",\"predicted_share\":" << json::number(tp->share);
                else
                    std::cout << ",\"predicted_run\":null,\"predicted_ns\":null,\"predicted_share\":null";
                std::cout << "}";
            }
            std::cout << "]}";
        }
        std::cout << "]}\n";
        return 0;
    }
    if (asCsv) {
        std::cout << "series,layer,group," << csv::field(t.xKey) << ",run,ns,share,step_ns\n";
        for (const SweepSeries& s : t.series)
            for (const SweepPoint& p : s.points)
                std::cout << csv::field(s.name) << ',' << csv::field(s.layer) << ',' << csv::field(s.group) << ','
                          << csv::field(p.value) << ',' << p.runId << ',' << json::number(p.ns) << ','
                          << json::number(p.share) << ',' << json::number(p.stepNs) << '\n';
        return 0;
    }
    const SweepInfo& s = t.sweep;
    std::printf("sweep %s: %s %s, %s=%s%s, %zu runs; kernel time per step\n", s.id.c_str(), s.workload.c_str(), s.preset.c_str(),
                s.key.c_str(), join(s.values).c_str(), s.key2.empty() ? "" : (" x " + s.key2 + "=" + join(s.values2)).c_str(),
                s.runIds.size());
    for (const std::string& n : t.notes)
        std::printf("%s\n", n.c_str());
    size_t w = 6;
    for (const SweepSeries& se : t.series)
        w = std::max(w, se.name.size());
    w = std::min<size_t>(w, 40);
    size_t xw = std::max<size_t>(t.xKey.size(), 5);
    for (const std::string& x : t.xValues)
        xw = std::max(xw, x.size());
    if (predicted)
        std::printf("predicted twin: sweep %s (%zu runs, backend model): its time per step and its error\n",
                    predicted->sweep.id.c_str(), predicted->sweep.runIds.size());
    std::printf("\n%-*s %-*s %5s %12s %7s %12s", int(w), "series", int(xw), t.xKey.c_str(), "run", "time", "share", "step");
    if (predicted)
        std::printf(" %12s %8s", "predicted", "error");
    std::printf("\n");
    for (const SweepSeries& se : t.series)
        for (const SweepPoint& p : se.points) {
            std::printf("%-*s %-*s %5lld %12s %7s %12s", int(w), se.name.substr(0, w).c_str(), int(xw), p.value.c_str(),
                        static_cast<long long>(p.runId), p.present ? formatDuration(p.ns).c_str() : "-",
                        formatShare(p.share).c_str(), formatDuration(p.stepNs).c_str());
            if (predicted) {
                const SweepPoint* tp = twinOf(se, p);
                char err[32] = "-";
                if (tp && p.ns > 0)
                    std::snprintf(err, sizeof err, "%+.1f%%", 100.0 * (tp->ns - p.ns) / p.ns);
                std::printf(" %12s %8s", tp ? formatDuration(tp->ns).c_str() : "-", err);
            }
            std::printf("\n");
        }
    return 0;
}

const RegisterCommand reg{{"sweep", "the scaling table of a sweep: layer time and share per swept value", kUsage, runSweep}};

}  // namespace
}  // namespace wt::cli
