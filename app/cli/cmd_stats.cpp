// wheretime stats FILE[:RUN]: where a run's kernel time goes, grouped by layer, scope path,
// phase, op, kernel name, activity kind or kernel category; of the whole run or of a time range
// (--range, by the clip rule the GUI's range selection uses), with per-group distributions in
// --json and --csv; per step (--group-by step) the time on the GPU of each step (busy, idle,
// compute, communication, memory: docs/definitions.md). Every figure is analysis/'s
// (computeRunStats, computeBreakdown, countSteps, computeStepTimes, computeDeviceTimes); the
// groups are analysis's breakdown table (breakdownTable), the steps, devices and ranks its
// stepsTable, devicesTable and ranksTable, all rendered by the one writer (render/): the text
// tables, --csv and --json's "groups", "devices" and "steps". A run still being captured
// prints what it has committed, marked partial. --histogram GROUP: the distribution of one
// group's instance durations (analysis/histogram.h, docs/histograms.md) as the histogram tables.
#include "analysis/rankstats.h"
#include "analysis/activityview.h"
#include "analysis/breakdown.h"
#include "analysis/breakdowntable.h"
#include "analysis/compare.h"
#include "render/textformat.h"
#include "analysis/gputime.h"
#include "analysis/gputimetable.h"
#include "analysis/histogram.h"
#include "analysis/histogramtable.h"
#include "analysis/kernelcategory.h"
#include "render/textelide.h"
#include "analysis/opfeatures.h"
#include "analysis/rangesummary.h"
#include "analysis/runprofile.h"
#include "analysis/summarytable.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "render/histogramtext.h"
#include "render/tablewriter.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"
#include "analysis/launchlatency.h"
#include "storage/reader.h"

#include <cstdio>
#include <algorithm>
#include <iostream>
#include <memory>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime stats FILE[:RUN] [--group-by layer|scope|phase|op|kernel|kind|category|step|device]\n"
    "                       [--depth N] [--within GROUPBY=KEY]... [--range T0:T1] [--categories FILE]\n"
    "                       [--width N] [--json | --csv]\n"
    "       wheretime stats FILE[:RUN] --summary [--range T0:T1] [--width N] [--json | --csv]\n"
    "       wheretime stats FILE[:RUN] --histogram GROUP [--group-by G] [--depth N] [--within G=K]...\n"
    "                       [--instances kernels|scopes] [--bins-per-decade B] [--slowest N] [--json | --csv]\n\n"
    "Kernel time of a run and its share per group (largest first).\n"
    "  --group-by   layer (default; the layer across phases and steps), scope (path at --depth),\n"
    "               phase, op, kernel (name), kind (kernel, memcpy, memset), category (gemm,\n"
    "               attention, communication, ... by the kernel name, docs/categories.md; memcpy\n"
    "               and memset count as memory), or step: per step its kernels, kernel time,\n"
    "               busy (union of kernels and memory operations), idle (span - busy), span,\n"
    "               compute, exposed communication and exposed memory, after one line per device\n"
    "               with busy, idle, compute, communication and memory (docs/definitions.md)\n"
    "  --depth N    scope path depth for --group-by scope (default 3)\n"
    "  --within G=K only kernels whose group under G is K, e.g. --within layer=softmax\n"
    "  --range T0:T1  only the time range [T0, T1), counted from the run's time 0 (the capture's\n"
    "               start, an import's earliest event: the 0 of every output, the CSV and Chrome\n"
    "               exports and the GUI's ruler): ns, or with a unit, e.g. 2ms:5ms,\n"
    "               1.5us:20us. Each activity counts with its overlap with the range (the GUI's\n"
    "               range selection rule)\n"
    "  --categories FILE  category rules (REGEX -> CATEGORY a line, first match wins) instead of\n"
    "               those stored with the run; the built-in rules still apply after them\n"
    "  --width N    short names of at most N characters, distinct (docs/names.md; default:\n"
    "               full names, 60 for a text table on a terminal; 0: full names)\n"
    "A run still being captured (status writing) shows what it has committed so far, marked\n"
    "partial (a line; \"partial\": true in --json; a note on stderr with --csv).\n"
    "  --json       {run, partial, kernels, kernel_time_ns, kernel_busy_ns, kernel_span_ns (the\n"
    "               kernels' union and extent, all devices), range, groups: [{name, path, time_ns,\n"
    "               share, count, mean_ns, median_ns, min_ns, max_ns, flops, bytes, flop_per_s,\n"
    "               bytes_per_s}] (op features summed over the group, null where the run has none;\n"
    "               the rates over the group's summed time; median, min and max null without a\n"
    "               distribution), devices: [{id, name, TIME}], steps: [{name, TIME, index}]} where TIME is\n"
    "               start_ns, end_ns, kernels, memory_ops, kernel_time_ns, busy_ns, idle_ns, idle_share\n"
    "               (null over an empty span), span_ns, compute_ns, non_compute_ns, comm_ns, comm_overlap_ns,\n"
    "               comm_exposed_ns, memory_ns, memory_overlap_ns, memory_exposed_ns (group_by echoes\n"
    "               --group-by; with --group-by step the groups are the steps); with --range, the distributions are\n"
    "               of the clipped durations; step and device times count from the run's time 0, like --range\n"
    "               launch_latency: [{device_id, device, kernels, launched, median_ns, p95_ns, max_ns,\n"
    "               mean_ns, short_kernels, outliers}] (the run, device_id null, then each device;\n"
    "               kernel start - its launching API call's start, by correlation id; docs/definitions.md)\n"
    "  --csv        one row per group, the fields of --json's groups in that order (raw numbers,\n"
    "               empty where --json has null): the bytes of the GUI's table export and of the\n"
    "               report's breakdown-*.csv; with --group-by step one row per step (the report's\n"
    "               steps.csv): name, start_ns, end_ns, kernels, kernel_time_ns, busy_ns, idle_ns, span_ns,\n"
    "               comm_ns, comm_overlap_ns, idle_share, compute_ns, non_compute_ns, comm_exposed_ns,\n"
    "               memory_ops, memory_ns, memory_overlap_ns, memory_exposed_ns, index\n"
    "--summary    the run summary the GUI's details panel shows (one row: id, name, workload, variant,\n"
    "               device, backend, status, steps (a step on several ranks counts once, as in\n"
    "               --group-by step), devices, kernels, memory_ops, kernel_time_ns, span_ns,\n"
    "               dropped_records); with --range its range summary: a row for the range (section\n"
    "               range: start_ns, end_ns, kernel time inside it, kernels), then the time by layer\n"
    "               (section layer) and the top 10 kernels (section kernel): section, name,\n"
    "               start_ns, end_ns, time_ns, share, count. --csv: the bytes of the details panel's\n"
    "               export; --json: the whole table {table, columns, rows, notes}\n"
    "--group-by device: one row per device (the ranks of a run imported with --one-run): kernels,\n"
    "  kernel time, share, steps, mean step time and slowest step (a step's GPU span on the device),\n"
    "  the rank with the largest mean step marked; --json {run, name, group_by, total_ns, groups:\n"
    "  [{name, device_id, count, time_ns, share, steps, mean_step_ns, slowest_step, slowest_step_ns, straggler}]}\n"
    "  (mean and slowest step null on a device without steps; straggler 1 for the slowest rank, else 0)\n"
    "--histogram GROUP  the distribution of one group's instance durations (docs/histograms.md):\n"
    "  GROUP is a key of --group-by (default layer; kernel: a kernel name, scope: a path at --depth;\n"
    "  step: a step name, or all for every step). Log bins: B per decade (--bins-per-decade, default\n"
    "  10), edges at 10^(i/B) ns rounded up to whole ns, from the minimum's bin to the maximum's, so\n"
    "  two runs' bins line up. Text: the group's n, total, mean, min, median, p95 and max, one line per\n"
    "  bin (its range, count, share, count per step, a bar of #), then the --slowest N (default 10)\n"
    "  instances, longest first. An unknown GROUP: one line naming the nearest keys, exit 1.\n"
    "  --instances  kernels (default: the group's activities, stats' count, median, min and max) or\n"
    "               scopes (the group's scope instances by GPU span, first kernel start to last kernel\n"
    "               end; layer, op, phase, scope; always for --group-by step)\n"
    "  --json       {run, name, group_by, depth, group, instances, bins_per_decade, steps, summary:\n"
    "               {group, instances, count, total_ns, mean_ns, min_ns, median_ns, p95_ns, max_ns,\n"
    "               steps, bins_per_decade}, bins: [{lo_ns, hi_ns, count, share, per_step}] ([lo, hi);\n"
    "               per_step = count / steps, null without steps), slowest: [{rank, start_ns,\n"
    "               duration_ns, end_ns, name, path, device_id, track, index}]}\n"
    "  --csv        the bins: lo_ns, hi_ns, count, share, per_step\n";

// --group-by step: the devices table, then the steps table (text), or the steps table (CSV).
int printSteps(const std::vector<DeviceTime>& devices, const std::vector<StepTime>& steps, bool csvOut, size_t width)
{
    const Table stepTable = stepsTable(steps);
    if (csvOut) {
        // The first ten columns keep their places (scripts read them by position); the rest follow.
        std::cout << render::csv(stepTable);
        return 0;
    }
    render::TextOptions text;
    text.width = width;
    std::cout << '\n' << render::text(devicesTable(devices), text);
    if (steps.empty()) {
        std::printf("\nno steps in this run (imports: ranges named like the --step pattern of `wheretime import`)\n");
        return 0;
    }
    std::cout << '\n' << render::text(stepTable, text);
    return 0;
}

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
    const Table table = ranksTable(rows);
    if (args.flag("--json")) {
        int64_t total = 0;
        for (const RankStats& r : rows)
            total = saturatingAdd(total, r.kernelTimeNs);
        std::cout << "{\"run\":" << run.id << ",\"name\":" << json::quote(run.name) << ",\"group_by\":\"device\",\"total_ns\":" << total
                  << ",\"groups\":" << render::jsonRows(table) << "}\n";
        return 0;
    }
    std::printf("run %lld  %s  (%zu device%s)\n\n", static_cast<long long>(run.id), run.name.c_str(), rows.size(), rows.size() == 1 ? "" : "s");
    std::cout << render::text(table);   // the straggler as a note above the table
    return 0;
}

// --range T0:T1, from the run's time 0 (none without the option).
std::optional<TimeRange> rangeOption(const Args& args)
{
    std::optional<TimeRange> range;
    if (auto text = args.value("--range")) {
        range = parseTimeRange(*text);
        if (!range)
            throw UsageError("--range needs T0:T1 with T0 <= T1 (ns, or with a unit: 2ms:5ms), got '" + *text + "'");
    }
    return range;
}

// --summary: the details panel's run summary, or with --range its range summary
// (analysis/summarytable.h), rendered by the one writer.
int runSummary(Args& args)
{
    if (args.value("--group-by") || !args.values("--within").empty() || args.value("--depth"))
        throw UsageError("--summary takes no --group-by, --within or --depth");
    outputFormat(args);   // --json and --csv exclude each other
    const size_t width = nameWidth(args);
    const std::optional<TimeRange> range = rangeOption(args);
    const CategoriesPtr categories = categoriesOption(args);
    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    db.exec("BEGIN");   // one read snapshot (a run being captured)
    Reader reader(db);
    const int64_t runId = reader.resolveRun(selector);
    auto profile = RunProfile::load(reader, runId, categories);
    ActivityColumns columns = ActivityColumns::load(reader, runId, profile->tree);
    const ActivityView view = columns.view();
    const Table table = range ? rangeSummaryTable(summarizeRange(*profile, view, *range))
                              : runSummaryTable(profile->run, computeStepTimes(*profile, view), computeDeviceTimes(*profile, view));
    db.rollback();
    if (args.flag("--csv")) {
        std::cout << render::csv(table);
    } else if (args.flag("--json")) {
        std::cout << render::json(table) << '\n';
    } else {
        render::TextOptions text;
        text.width = size_t(width);
        std::cout << render::text(table, text);
    }
    return 0;
}

// --histogram GROUP: one group's instance durations on log bins, its summary and its slowest
// instances (analysis/histogram.h), rendered by the one writer.
int runHistogram(Args& args)
{
    if (args.flag("--summary") || args.value("--range"))
        throw UsageError("--histogram takes no --summary or --range");
    const std::string groupByText = args.value("--group-by", "layer");
    if (groupByText == "device")
        throw UsageError("--histogram groups by layer, scope, phase, op, kernel, kind, category or step, not device");
    HistogramGroup group;
    group.key = *args.value("--histogram");
    group.steps = groupByText == "step";
    if (!group.steps)
        group.level.groupBy = groupByOption(args).value_or(GroupBy::Layer);
    group.level.depth = scopeDepth(args);
    group.level.filters = withinFilters(args);
    const std::string of = args.value("--instances", group.steps ? "scopes" : "kernels");
    if (of != "kernels" && of != "scopes")
        throw UsageError("--instances must be kernels or scopes, got '" + of + "'");
    group.of = of == "scopes" ? HistogramOf::Scopes : HistogramOf::Activities;
    if (group.steps && group.of != HistogramOf::Scopes)
        throw UsageError("--group-by step: the instances are the steps (--instances scopes)");
    if (group.of == HistogramOf::Scopes && !group.steps &&
        (group.level.groupBy == GroupBy::Kernel || group.level.groupBy == GroupBy::Kind || group.level.groupBy == GroupBy::Category))
        throw UsageError("--instances scopes needs a scope grouping (layer, scope, phase, op or step)");
    if (group.of == HistogramOf::Scopes && !group.level.filters.empty())
        throw UsageError("--within filters kernels; it does not apply to --instances scopes");
    HistogramOptions options;
    const long long bpd = args.integer("--bins-per-decade", kDefaultBinsPerDecade);
    if (bpd < 1 || bpd > 100)
        throw UsageError("--bins-per-decade must be 1..100");
    options.binsPerDecade = int(bpd);
    const long long slowest = args.integer("--slowest", static_cast<long long>(kDefaultSlowest));
    if (slowest < 0)
        throw UsageError("--slowest must be 0 or more");
    options.slowest = size_t(slowest);
    const OutputFormat format = outputFormat(args);
    const CategoriesPtr categories = categoriesOption(args);

    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    db.exec("BEGIN");   // one read snapshot
    Reader reader(db);
    const int64_t runId = reader.resolveRun(selector);
    auto profile = RunProfile::load(reader, runId, categories);
    ActivityColumns columns = ActivityColumns::load(reader, runId, profile->tree);
    const ActivityView view = columns.view();
    options.steps = countSteps(reader, runId, profile->tree);
    db.rollback();
    const std::string what = group.steps ? std::string("step") : std::string(toString(group.level.groupBy));
    if (group.steps && group.key == "all")
        group.key.clear();
    if (!group.key.empty() || !group.steps) {
        const std::vector<std::string> keys = histogramKeys(view, profile->tree, profile->strings, group);
        if (!std::binary_search(keys.begin(), keys.end(), group.key)) {
            std::string msg = "no " + what + " '" + render::printable(group.key) + "' in run " + std::to_string(profile->run.id);
            if (group.of == HistogramOf::Scopes)
                msg += " (scope instances)";
            const std::vector<std::string> near = nearKeys(keys, group.key, 5);
            if (near.empty()) {
                msg += "; it has no " + what + " groups";
            } else {
                msg += "; near: ";
                for (size_t i = 0; i < near.size(); ++i)
                    msg += (i ? ", '" : "'") + render::printable(near[i]) + "'";
            }
            throw std::runtime_error(msg);
        }
    }
    const Histogram h = computeHistogram(view, profile->tree, profile->strings, group, options);
    const Table bins = histogramTable(h);
    const Table summary = histogramSummaryTable(h);
    const Table slow = histogramSlowestTable(h, view, profile->tree, profile->strings);
    if (format == OutputFormat::Csv) {
        std::cout << render::csv(bins);
        return 0;
    }
    if (format == OutputFormat::Json) {
        const std::string one = render::jsonRows(summary);   // "[{...}]": the one row as an object
        std::cout << "{\"run\":" << profile->run.id << ",\"name\":" << json::quote(profile->run.name)
                  << ",\"group_by\":" << json::quote(what) << ",\"depth\":" << group.level.depth
                  << ",\"group\":" << (group.steps && group.key.empty() ? std::string("null") : json::quote(group.key))
                  << ",\"instances\":" << json::quote(std::string(toString(h.group.of)))
                  << ",\"bins_per_decade\":" << h.binsPerDecade << ",\"steps\":" << h.steps
                  << ",\"summary\":" << one.substr(1, one.size() - 2) << ",\n\"bins\":" << render::jsonRows(bins)
                  << ",\n\"slowest\":" << render::jsonRows(slow) << "}\n";
        return 0;
    }
    std::printf("run %lld  %s  %s %s  on %s\n", static_cast<long long>(profile->run.id), render::printable(profile->run.name).c_str(),
                profile->run.workload.c_str(), profile->run.variant.c_str(), profile->run.device.c_str());
    std::printf("histogram of %s %s (%s; %d bins per decade; %lld step%s)\n", what.c_str(),
                group.steps && group.key.empty() ? "(every step)" : ("'" + render::printable(group.key) + "'").c_str(),
                std::string(toString(h.group.of)).c_str(), h.binsPerDecade, static_cast<long long>(h.steps), h.steps == 1 ? "" : "s");
    std::cout << '\n' << render::text(summary);
    if (h.count == 0) {
        std::printf("\nno instances\n");
        return 0;
    }
    std::cout << '\n' << render::histogramText(bins);
    if (!h.slowest.empty())
        std::cout << "\nslowest " << h.slowest.size() << "\n" << render::text(slow);
    return 0;
}

int runStats(Args& args)
{
    args.parse({"--group-by", "--depth", "--within", "--range", "--categories", "--width", "--histogram", "--instances",
                "--bins-per-decade", "--slowest"},
               {"--json", "--csv", "--summary"});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE[:RUN]");
    if (args.value("--histogram"))
        return runHistogram(args);
    for (const char* o : {"--instances", "--bins-per-decade", "--slowest"})
        if (args.value(o))
            throw UsageError(std::string(o) + " goes with --histogram GROUP");
    if (args.flag("--summary"))
        return runSummary(args);
    if (args.value("--group-by", "") == "device")
        return runDeviceStats(args);
    BreakdownOptions options;
    const bool bySteps = args.value("--group-by", "") == "step";
    options.groupBy = bySteps ? GroupBy::Layer : groupByOption(args).value_or(GroupBy::Layer);
    const size_t width = nameWidth(args);
    if (bySteps && (args.value("--range") || !args.values("--within").empty()))
        throw UsageError("--group-by step shows whole steps; --range and --within do not apply");
    const CategoriesPtr categories = categoriesOption(args);   // a bad file: exit 1 with "FILE:LINE: ..."
    options.depth = scopeDepth(args);
    options.filters = withinFilters(args);
    outputFormat(args);   // --json and --csv exclude each other
    const std::optional<TimeRange> range = rangeOption(args);
    const bool distributions = args.flag("--json") || args.flag("--csv") || range || bySteps;

    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    // One read snapshot: a capture still writing the run commits while this reads, and the
    // summary, totals and activities must be those of one commit.
    db.exec("BEGIN");
    Reader reader(db);
    int64_t runId = reader.resolveRun(selector);
    auto profile = RunProfile::load(reader, runId, categories);
    RunStats s = computeRunStats(*profile, options);
    // Status `writing` as read means its writer is alive: the figures are of the committed steps.
    const bool partial = s.run.status == RunStatus::Writing;
    const int64_t committedSteps = partial ? countSteps(reader, runId, profile->tree) : 0;
    std::vector<DeviceTime> devices;
    std::vector<StepTime> steps;
    if (distributions) {
        // Distributions and ranges need every activity, not only the stored totals.
        ActivityColumns columns = ActivityColumns::load(reader, runId, profile->tree);
        const ActivityView view = columns.view();
        // Range ends count from the run's time 0, as every stored time, the CSV and Chrome exports
        // and the GUI's ruler do.
        s.breakdown = computeBreakdown(*profile, options.level(), &view, range);
        devices = computeDeviceTimes(*profile, view);
        steps = computeStepTimes(*profile, view);
    }
    std::vector<LaunchLatency> launchLatency;
    if (args.flag("--json"))
        launchLatency = computeLaunchLatency(reader, runId);
    db.rollback();   // ends the read snapshot
    const Breakdown& b = s.breakdown;

    if (args.flag("--json")) {
        std::cout << "{\"run\":" << s.run.id << ",\"name\":" << json::quote(s.run.name)
                  << ",\"workload\":" << json::quote(s.run.workload) << ",\"variant\":" << json::quote(s.run.variant)
                  << ",\"device\":" << json::quote(s.run.device) << ",\"status\":" << json::quote(toString(s.run.status))
                  << ",\"partial\":" << (partial ? "true" : "false")
                  << ",\"kernels\":" << s.kernels << ",\"kernel_time_ns\":" << s.kernelTimeNs
                  << ",\"kernel_busy_ns\":" << s.kernelBusyNs << ",\"kernel_span_ns\":" << s.kernelSpanNs
                  << ",\"group_by\":" << json::quote(bySteps ? std::string("step") : std::string(toString(b.groupBy)))
                  << ",\"depth\":" << b.depth;
        if (range)
            std::cout << ",\"range\":{\"start_ns\":" << range->startNs << ",\"end_ns\":" << range->endNs << "}";
        else
            std::cout << ",\"range\":null";
        std::cout << ",\"total_ns\":" << b.totalNs << ",\"groups\":";
        // --group-by step: the groups are the steps (the same rows as "steps" below); else the
        // breakdown table's rows.
        const Table stepTable = stepsTable(steps);
        std::cout << (bySteps ? render::jsonRows(stepTable) : render::jsonRows(breakdownTable(b)));
        std::cout << ",\n\"devices\":" << render::jsonRows(devicesTable(devices)) << ",\n\"steps\":" << render::jsonRows(stepTable)
                  << ",\n\"launch_latency\":" << render::jsonRows(launchLatencyTable(launchLatency)) << "}\n";
        return 0;
    }
    if (bySteps) {
        if (args.flag("--csv") && partial)
            std::fprintf(stderr, "wheretime stats: partial: run %lld is still being captured (%lld steps committed so far)\n",
                         static_cast<long long>(s.run.id), static_cast<long long>(committedSteps));
        if (!args.flag("--csv")) {
            std::printf("run %lld  %s  %s %s  on %s  (%s)\n", static_cast<long long>(s.run.id), render::printable(s.run.name).c_str(),
                        s.run.workload.c_str(), s.run.variant.c_str(), s.run.device.c_str(),
                        std::string(toString(s.run.status)).c_str());
            if (partial)
                std::printf("partial: the capture is still running; these figures cover what it has committed (%lld steps done)\n",
                            static_cast<long long>(committedSteps));
            std::printf("kernels %lld   kernel time %s   kernel busy %s   kernel span %s\n", static_cast<long long>(s.kernels),
                        formatDuration(s.kernelTimeNs).c_str(), formatDuration(s.kernelBusyNs).c_str(), formatDuration(s.kernelSpanNs).c_str());
        }
        return printSteps(devices, steps, args.flag("--csv"), width);
    }
    const Table table = breakdownTable(b);
    if (args.flag("--csv")) {
        if (partial)
            std::fprintf(stderr, "wheretime stats: partial: run %lld is still being captured (%lld steps committed so far)\n",
                         static_cast<long long>(s.run.id), static_cast<long long>(committedSteps));
        std::cout << render::csv(table);   // the bytes the GUI's export and the report write
        return 0;
    }
    std::printf("run %lld  %s  %s %s  on %s  (%s)\n", static_cast<long long>(s.run.id), render::printable(s.run.name).c_str(),
                s.run.workload.c_str(), s.run.variant.c_str(), s.run.device.c_str(), std::string(toString(s.run.status)).c_str());
    if (partial)
        std::printf("partial: the capture is still running; these figures cover what it has committed (%lld steps done)\n",
                    static_cast<long long>(committedSteps));
    std::printf("kernels %lld   kernel time %s   kernel busy %s   kernel span %s\n", static_cast<long long>(s.kernels),
                formatDuration(s.kernelTimeNs).c_str(), formatDuration(s.kernelBusyNs).c_str(), formatDuration(s.kernelSpanNs).c_str());
    if (range)
        std::printf("range %s .. %s   time in range %s\n", formatDuration(range->startNs).c_str(),
                    formatDuration(range->endNs).c_str(), formatDuration(b.totalNs).c_str());
    // Full names (the column as wide as the longest), or elided in the middle with --width; the
    // median where distributions were computed, FLOP/s and B/s where the run has op features.
    render::TextOptions text;
    text.width = width;
    std::cout << '\n' << render::text(table, text);
    return 0;
}

const RegisterCommand reg{{"stats", "time share by layer, scope, phase, op, kernel, kind or category; per step (--range T0:T1)",
                           kUsage, runStats}};

}  // namespace
}  // namespace wt::cli
