// wheretime stats FILE[:RUN]: where a run's kernel time goes, grouped by layer, scope path,
// phase, op, kernel name or activity kind; of the whole run or of a time range (--range, by
// the clip rule the GUI's range selection uses), with per-group distributions in --json and
// --csv. Every figure is analysis/'s (computeRunStats, computeBreakdown, countSteps). A run still
// being captured prints what it has committed, marked partial.
#include "analysis/rankstats.h"
#include "analysis/activityview.h"
#include "analysis/breakdown.h"
#include "analysis/compare.h"
#include "analysis/duration.h"
#include "analysis/runprofile.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <cstdio>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime stats FILE[:RUN] [--group-by layer|scope|phase|op|kernel|kind|device] [--depth N]\n"
    "                       [--within GROUPBY=KEY]... [--range T0:T1] [--json | --csv]\n\n"
    "Kernel time of a run and its share per group (largest first).\n"
    "  --group-by   layer (default; the layer across phases), scope (path at --depth),\n"
    "               phase, op, kernel (name) or kind (kernel, memcpy, memset)\n"
    "  --depth N    scope path depth for --group-by scope (default 3)\n"
    "  --within G=K only kernels whose group under G is K, e.g. --within layer=softmax\n"
    "  --range T0:T1  only the time range [T0, T1), counted from the run's time 0 (its first\n"
    "               activity, the 0 of the GUI's ruler): ns, or with a unit, e.g. 2ms:5ms,\n"
    "               1.5us:20us. Each activity counts with its overlap with the range (the GUI's\n"
    "               range selection rule)\n"
    "A run still being captured (status writing) shows what it has committed so far, marked\n"
    "partial (a line; \"partial\": true in --json; a note on stderr with --csv).\n"
    "  --json       {run, partial, kernels, kernel_time_ns, busy_ns, span_ns, range, groups: [{name, path,\n"
    "               time_ns, share, count, mean_ns, median_ns, min_ns, max_ns}]}; with --range,\n"
    "               the distributions are of the clipped durations\n"
    "  --csv        one row per group, the same fields\n"
    "--group-by device: one row per device (the ranks of a run imported with --one-run): kernels,\n"
    "  kernel time, share, steps, mean step time and slowest step (a step's GPU span on the device),\n"
    "  the rank with the largest mean step marked; --json {run, name, group_by, total_ns, groups:\n"
    "  [{name, device_id, count, time_ns, share, steps, mean_step_ns, slowest_step, slowest_step_ns, straggler}]}\n";

// --group-by device: one row per device (the ranks of a job imported with --one-run), with
// each device's steps (analysis/rankstats: mean step time, slowest step, the straggler).
int runDeviceStats(Args& args)
{
    if (args.value("--within") || args.value("--range") || args.flag("--csv"))
        throw UsageError("--group-by device takes no --within, --range or --csv");
    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    db.exec("BEGIN");
    Reader reader(db);
    const int64_t runId = reader.resolveRun(selector);
    const RunInfo run = reader.run(runId);
    const ScopeTree tree = ScopeTree::load(reader, runId);
    const std::vector<RankStats> rows = computeRankStats(reader, runId, tree);
    db.rollback();
    int64_t total = 0;
    for (const RankStats& r : rows)
        total = saturatingAdd(total, r.kernelTimeNs);
    auto share = [&](const RankStats& r) { return total > 0 ? double(r.kernelTimeNs) / double(total) : 0.0; };
    if (args.flag("--json")) {
        std::cout << "{\"run\":" << run.id << ",\"name\":" << json::quote(run.name) << ",\"group_by\":\"device\",\"total_ns\":" << total
                  << ",\"groups\":[";
        for (size_t i = 0; i < rows.size(); ++i) {
            const RankStats& r = rows[i];
            std::cout << (i ? ",\n " : "\n ") << "{\"name\":" << json::quote(r.device) << ",\"device_id\":" << r.deviceId
                      << ",\"count\":" << r.kernels << ",\"time_ns\":" << r.kernelTimeNs << ",\"share\":" << json::number(share(r))
                      << ",\"steps\":" << r.steps << ",\"mean_step_ns\":" << r.meanStepNs << ",\"slowest_step\":" << json::quote(r.slowestStep)
                      << ",\"slowest_step_ns\":" << r.slowestStepNs << ",\"straggler\":" << (r.straggler ? "true" : "false") << "}";
        }
        std::cout << "]}\n";
        return 0;
    }
    std::printf("run %lld  %s  (%zu device%s)\n\n", static_cast<long long>(run.id), run.name.c_str(), rows.size(), rows.size() == 1 ? "" : "s");
    std::printf("%-40s %9s %14s %7s %6s %12s  %s\n", "device", "kernels", "kernel time", "share", "steps", "mean step", "slowest step");
    for (const RankStats& r : rows)
        std::printf("%-40s %9lld %14s %7s %6lld %12s  %s%s\n", r.device.c_str(), static_cast<long long>(r.kernels),
                    formatDuration(r.kernelTimeNs).c_str(), formatShare(share(r)).c_str(), static_cast<long long>(r.steps),
                    r.steps ? formatDuration(r.meanStepNs).c_str() : "-",
                    r.steps ? (r.slowestStep + " " + formatDuration(r.slowestStepNs)).c_str() : "-", r.straggler ? "  <- slowest rank" : "");
    return 0;
}

int runStats(Args& args)
{
    args.parse({"--group-by", "--depth", "--within", "--range"}, {"--json", "--csv"});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE[:RUN]");
    if (args.value("--group-by", "") == "device")
        return runDeviceStats(args);
    BreakdownOptions options;
    auto g = groupByFromString(args.value("--group-by", "layer"));
    if (!g)
        throw UsageError("unknown --group-by '" + args.value("--group-by", "") + "'");
    options.groupBy = *g;
    options.depth = int(args.integer("--depth", 3));
    if (options.depth < 1)
        throw UsageError("--depth must be at least 1");
    for (const std::string& w : args.values("--within")) {
        auto eq = w.find('=');
        auto fg = eq == std::string::npos ? std::nullopt : groupByFromString(w.substr(0, eq));
        if (!fg)
            throw UsageError("--within needs GROUPBY=KEY, got '" + w + "'");
        options.filters.emplace_back(*fg, w.substr(eq + 1));
    }
    if (args.flag("--json") && args.flag("--csv"))
        throw UsageError("--json and --csv exclude each other");
    std::optional<TimeRange> range;
    if (auto text = args.value("--range")) {
        range = parseTimeRange(*text);
        if (!range)
            throw UsageError("--range needs T0:T1 with T0 <= T1 (ns, or with a unit: 2ms:5ms), got '" + *text + "'");
    }
    const bool distributions = args.flag("--json") || args.flag("--csv") || range;

    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    // One read snapshot: a capture still writing the run commits while this reads, and the
    // summary, totals and activities must be those of one commit.
    db.exec("BEGIN");
    Reader reader(db);
    int64_t runId = reader.resolveRun(selector);
    auto profile = RunProfile::load(reader, runId);
    RunStats s = computeRunStats(*profile, options);
    // Status `writing` as read means its writer is alive: the figures are of the committed steps.
    const bool partial = s.run.status == RunStatus::Writing;
    const int64_t steps = partial ? countSteps(reader, runId, profile->tree) : 0;
    if (distributions) {
        // Distributions and ranges need every activity, not only the stored totals.
        ActivityColumns columns = ActivityColumns::load(reader, runId, profile->tree);
        const ActivityView view = columns.view();
        // Range ends count from the run's time 0, its first activity (the GUI ruler's 0).
        std::optional<TimeRange> onClock;
        if (range)
            onClock = TimeRange{range->startNs + view.firstStartNs(), range->endNs + view.firstStartNs()};
        s.breakdown = computeBreakdown(*profile, options.level(), &view, onClock);
    }
    db.rollback();   // ends the read snapshot
    const Breakdown& b = s.breakdown;

    if (args.flag("--json")) {
        std::cout << "{\"run\":" << s.run.id << ",\"name\":" << json::quote(s.run.name)
                  << ",\"workload\":" << json::quote(s.run.workload) << ",\"variant\":" << json::quote(s.run.variant)
                  << ",\"device\":" << json::quote(s.run.device) << ",\"status\":" << json::quote(toString(s.run.status))
                  << ",\"partial\":" << (partial ? "true" : "false")
                  << ",\"kernels\":" << s.kernels << ",\"kernel_time_ns\":" << s.kernelTimeNs
                  << ",\"busy_ns\":" << s.busyNs << ",\"span_ns\":" << s.spanNs
                  << ",\"group_by\":" << json::quote(toString(b.groupBy)) << ",\"depth\":" << b.depth;
        if (range)
            std::cout << ",\"range\":{\"start_ns\":" << range->startNs << ",\"end_ns\":" << range->endNs << "}";
        else
            std::cout << ",\"range\":null";
        std::cout << ",\"total_ns\":" << b.totalNs << ",\"groups\":[";
        for (size_t i = 0; i < b.groups.size(); ++i) {
            const Group& gr = b.groups[i];
            std::cout << (i ? ",\n " : "\n ") << "{\"name\":" << json::quote(gr.name) << ",\"path\":" << json::quote(gr.path)
                      << ",\"time_ns\":" << gr.timeNs << ",\"share\":" << json::number(gr.share)
                      << ",\"count\":" << gr.count << ",\"mean_ns\":" << json::number(gr.meanNs)
                      << ",\"median_ns\":" << gr.medianNs << ",\"min_ns\":" << gr.minNs << ",\"max_ns\":" << gr.maxNs << "}";
        }
        std::cout << "]}\n";
        return 0;
    }
    if (args.flag("--csv")) {
        if (partial)
            std::fprintf(stderr, "wheretime stats: partial: run %lld is still being captured (%lld steps committed so far)\n",
                         static_cast<long long>(s.run.id), static_cast<long long>(steps));
        std::cout << "name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns\n";
        for (const Group& gr : b.groups)
            std::cout << csv::field(gr.name) << ',' << csv::field(gr.path) << ',' << gr.timeNs << ','
                      << json::number(gr.share) << ',' << gr.count << ',' << json::number(gr.meanNs) << ',' << gr.medianNs
                      << ',' << gr.minNs << ',' << gr.maxNs << '\n';
        return 0;
    }
    std::printf("run %lld  %s  %s %s  on %s  (%s)\n", static_cast<long long>(s.run.id), s.run.name.c_str(),
                s.run.workload.c_str(), s.run.variant.c_str(), s.run.device.c_str(), std::string(toString(s.run.status)).c_str());
    if (partial)
        std::printf("partial: the capture is still running; these figures cover what it has committed (%lld steps done)\n",
                    static_cast<long long>(steps));
    std::printf("kernels %lld   kernel time %s   busy %s   span %s\n", static_cast<long long>(s.kernels),
                formatDuration(s.kernelTimeNs).c_str(), formatDuration(s.busyNs).c_str(), formatDuration(s.spanNs).c_str());
    if (range)
        std::printf("range %s .. %s   time in range %s\n", formatDuration(range->startNs).c_str(),
                    formatDuration(range->endNs).c_str(), formatDuration(b.totalNs).c_str());
    std::printf("\n%-48s %14s %7s %9s %12s %12s\n", std::string(toString(b.groupBy)).c_str(), "time", "share", "count", "mean",
                distributions ? "median" : "");
    for (const Group& gr : b.groups)
        std::printf("%-48.48s %14s %7s %9lld %12s %12s\n", gr.path.c_str(), formatDuration(gr.timeNs).c_str(),
                    formatShare(gr.share).c_str(), static_cast<long long>(gr.count), formatDuration(gr.meanNs).c_str(),
                    gr.hasDistribution ? formatDuration(gr.medianNs).c_str() : "");
    return 0;
}

const RegisterCommand reg{{"stats", "time share and distributions by layer, scope, phase, op, kernel or kind (--range T0:T1)", kUsage, runStats}};

}  // namespace
}  // namespace wt::cli
