// wheretime stats FILE[:RUN]: where a run's kernel time goes, grouped by layer, scope path,
// phase, op, kernel name, activity kind or kernel category; of the whole run or of a time range
// (--range, by the clip rule the GUI's range selection uses), with per-group distributions in
// --json and --csv; per step (--group-by step) the time on the GPU of each step (busy, idle,
// compute, communication, memory: docs/definitions.md). Every figure is analysis/'s
// (computeRunStats, computeBreakdown, countSteps, computeStepTimes, computeDeviceTimes); the
// groups are analysis's breakdown table (breakdownTable), rendered by the one writer (render/):
// the text table, --csv and --json's "groups". A run still being captured prints what it has
// committed, marked partial.
#include "analysis/rankstats.h"
#include "analysis/activityview.h"
#include "analysis/breakdown.h"
#include "analysis/breakdowntable.h"
#include "analysis/compare.h"
#include "analysis/duration.h"
#include "analysis/gputime.h"
#include "analysis/kernelcategory.h"
#include "analysis/textelide.h"
#include "analysis/opfeatures.h"
#include "analysis/runprofile.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "render/tablewriter.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"
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
    "                       [--width N] [--json | --csv]\n\n"
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
    "  --width N    elide names longer than N characters in the middle (default: full names)\n"
    "A run still being captured (status writing) shows what it has committed so far, marked\n"
    "partial (a line; \"partial\": true in --json; a note on stderr with --csv).\n"
    "  --json       {run, partial, kernels, kernel_time_ns, kernel_busy_ns, kernel_span_ns (the\n"
    "               kernels' union and extent, all devices), range, groups: [{name, path, time_ns,\n"
    "               share, count, mean_ns, median_ns, min_ns, max_ns, flops, bytes, flop_per_s,\n"
    "               bytes_per_s}] (op features summed over the group, null where the run has none;\n"
    "               the rates over the group's summed time; median, min and max null without a\n"
    "               distribution), devices: [{id, name, TIME}], steps: [{name, TIME}]} where TIME is\n"
    "               start_ns, end_ns, kernels, memory_ops, kernel_time_ns, busy_ns, idle_ns, span_ns,\n"
    "               compute_ns, non_compute_ns, comm_ns, comm_overlap_ns, comm_exposed_ns, memory_ns,\n"
    "               memory_overlap_ns, memory_exposed_ns (group_by echoes --group-by; with --group-by step\n"
    "               the groups are the steps, each with its index); with --range, the distributions are\n"
    "               of the clipped durations; step and device times count from the run's time 0, like --range\n"
    "  --csv        one row per group, the fields of --json's groups in that order (raw numbers,\n"
    "               empty where --json has null): the bytes of the GUI's table export and of the\n"
    "               report's breakdown-*.csv (per step with --group-by step)\n"
    "--group-by device: one row per device (the ranks of a run imported with --one-run): kernels,\n"
    "  kernel time, share, steps, mean step time and slowest step (a step's GPU span on the device),\n"
    "  the rank with the largest mean step marked; --json {run, name, group_by, total_ns, groups:\n"
    "  [{name, device_id, count, time_ns, share, steps, mean_step_ns, slowest_step, slowest_step_ns, straggler}]}\n";

// Left-aligned in `width` characters (UTF-8 aware), never cut: the caller elides.
std::string padded(const std::string& text, size_t width)
{
    const size_t n = displayLength(text);
    return n >= width ? text : text + std::string(width - n, ' ');
}

void printGpuTimeJson(const GpuTime& t, int64_t zeroNs)
{
    std::cout << "\"start_ns\":" << (t.startNs - zeroNs) << ",\"end_ns\":" << (t.endNs - zeroNs) << ",\"kernels\":" << t.kernels
              << ",\"memory_ops\":" << t.memoryOps << ",\"kernel_time_ns\":" << t.kernelTimeNs << ",\"busy_ns\":" << t.busyNs
              << ",\"idle_ns\":" << t.idleNs << ",\"span_ns\":" << t.spanNs << ",\"compute_ns\":" << t.computeNs
              << ",\"non_compute_ns\":" << t.nonComputeNs() << ",\"comm_ns\":" << t.commNs << ",\"comm_overlap_ns\":" << t.commOverlapNs
              << ",\"comm_exposed_ns\":" << t.commExposedNs() << ",\"memory_ns\":" << t.memoryNs
              << ",\"memory_overlap_ns\":" << t.memoryOverlapNs << ",\"memory_exposed_ns\":" << t.memoryExposedNs;
}

// --group-by step: one line per device, then one row per step (text or CSV).
int printSteps(const std::vector<DeviceTime>& devices, const std::vector<StepTime>& steps, int64_t zeroNs,
               bool csvOut, size_t width)
{
    if (csvOut) {
        // The first ten columns keep their places (scripts read them by position); the new follow.
        std::cout << "name,start_ns,end_ns,kernels,kernel_time_ns,busy_ns,idle_ns,span_ns,comm_ns,comm_overlap_ns,"
                     "memory_ops,compute_ns,memory_ns,memory_overlap_ns,memory_exposed_ns\n";
        for (const StepTime& st : steps) {
            const GpuTime& t = st.time;
            std::cout << csv::field(st.name) << ',' << (t.startNs - zeroNs) << ',' << (t.endNs - zeroNs) << ',' << t.kernels << ','
                      << t.kernelTimeNs << ',' << t.busyNs << ',' << t.idleNs << ',' << t.spanNs << ',' << t.commNs << ','
                      << t.commOverlapNs << ',' << t.memoryOps << ',' << t.computeNs << ',' << t.memoryNs << ','
                      << t.memoryOverlapNs << ',' << t.memoryExposedNs << '\n';
        }
        return 0;
    }
    auto share = [](int64_t part, int64_t whole) { return whole > 0 ? formatShare(double(part) / double(whole)) : std::string("-"); };
    std::printf("\n");
    for (const DeviceTime& d : devices) {
        const GpuTime& t = d.time;
        std::printf("%s: span %s  busy %s  idle %s (%s)  compute %s  communication %s (overlapped %s, exposed %s)  "
                    "memory %s (overlapped %s, exposed %s)\n",
                    (width ? elideMiddle(printable(d.name), width) : printable(d.name)).c_str(), formatDuration(t.spanNs).c_str(),
                    formatDuration(t.busyNs).c_str(), formatDuration(t.idleNs).c_str(), share(t.idleNs, t.spanNs).c_str(),
                    formatDuration(t.computeNs).c_str(), formatDuration(t.commNs).c_str(), formatDuration(t.commOverlapNs).c_str(),
                    formatDuration(t.commExposedNs()).c_str(), formatDuration(t.memoryNs).c_str(),
                    formatDuration(t.memoryOverlapNs).c_str(), formatDuration(t.memoryExposedNs).c_str());
    }
    if (steps.empty()) {
        std::printf("\nno steps in this run (imports: ranges named like the --step pattern of `wheretime import`)\n");
        return 0;
    }
    size_t nameWidth = 4;
    std::vector<std::string> names;
    for (const StepTime& st : steps) {
        names.push_back(width ? elideMiddle(printable(st.name), width) : printable(st.name));
        nameWidth = std::max(nameWidth, displayLength(names.back()));
    }
    std::printf("\n%s %12s %8s %14s %14s %14s %7s %14s %14s %14s %14s\n", padded("step", nameWidth).c_str(), "start", "kernels",
                "kernel time", "busy", "idle", "idle%", "span", "compute", "exposed comm", "exposed mem");
    for (size_t i = 0; i < steps.size(); ++i) {
        const GpuTime& t = steps[i].time;
        std::printf("%s %12s %8lld %14s %14s %14s %7s %14s %14s %14s %14s\n", padded(names[i], nameWidth).c_str(),
                    formatDuration(double(t.startNs - zeroNs)).c_str(), static_cast<long long>(t.kernels),
                    formatDuration(t.kernelTimeNs).c_str(), formatDuration(t.busyNs).c_str(), formatDuration(t.idleNs).c_str(),
                    share(t.idleNs, t.spanNs).c_str(), formatDuration(t.spanNs).c_str(), formatDuration(t.computeNs).c_str(),
                    formatDuration(t.commExposedNs()).c_str(), formatDuration(t.memoryExposedNs).c_str());
    }
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
        std::printf("%-40s %9lld %14s %7s %6lld %12s  %s%s\n", printable(r.device).c_str(), static_cast<long long>(r.kernels),
                    formatDuration(r.kernelTimeNs).c_str(), formatShare(share(r)).c_str(), static_cast<long long>(r.steps),
                    r.steps ? formatDuration(r.meanStepNs).c_str() : "-",
                    r.steps ? (r.slowestStep + " " + formatDuration(r.slowestStepNs)).c_str() : "-", r.straggler ? "  <- slowest rank" : "");
    return 0;
}

int runStats(Args& args)
{
    args.parse({"--group-by", "--depth", "--within", "--range", "--categories", "--width"}, {"--json", "--csv"});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE[:RUN]");
    if (args.value("--group-by", "") == "device")
        return runDeviceStats(args);
    BreakdownOptions options;
    const bool bySteps = args.value("--group-by", "") == "step";
    auto g = bySteps ? std::optional<GroupBy>(GroupBy::Layer) : groupByFromString(args.value("--group-by", "layer"));
    if (!g)
        throw UsageError("unknown --group-by '" + args.value("--group-by", "") + "'");
    options.groupBy = *g;
    const long long width = args.integer("--width", 0);
    if (width < 0)
        throw UsageError("--width must be 0 (full names) or more");
    if (bySteps && (args.value("--range") || !args.values("--within").empty()))
        throw UsageError("--group-by step shows whole steps; --range and --within do not apply");
    CategoriesPtr categories;
    if (auto file = args.value("--categories"))   // a bad file: exit 1 with "FILE:LINE: ..."
        categories = std::make_shared<const KernelCategories>(KernelCategories::load(*file));
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
    const int64_t zeroNs = 0;   // stored times are measured from the run's time 0 (docs/schema.md), as --range is
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
        if (bySteps) {
            // --group-by step: the groups are the steps (the same objects as "steps" below).
            std::cout << "[";
            for (size_t i = 0; i < steps.size(); ++i) {
                std::cout << (i ? ",\n " : "\n ") << "{\"name\":" << json::quote(steps[i].name) << ",\"index\":" << steps[i].index << ',';
                printGpuTimeJson(steps[i].time, zeroNs);
                std::cout << "}";
            }
            std::cout << "]";
        } else {
            std::cout << render::jsonRows(breakdownTable(b));   // the groups: the breakdown table's rows
        }
        std::cout << ",\n\"devices\":[";
        for (size_t i = 0; i < devices.size(); ++i) {
            std::cout << (i ? ",\n " : "\n ") << "{\"id\":" << devices[i].deviceId << ",\"name\":" << json::quote(devices[i].name)
                      << ',';
            printGpuTimeJson(devices[i].time, zeroNs);
            std::cout << "}";
        }
        std::cout << "],\n\"steps\":[";
        for (size_t i = 0; i < steps.size(); ++i) {
            std::cout << (i ? ",\n " : "\n ") << "{\"name\":" << json::quote(steps[i].name) << ',';
            printGpuTimeJson(steps[i].time, zeroNs);
            std::cout << "}";
        }
        std::cout << "]}\n";
        return 0;
    }
    if (bySteps) {
        if (!args.flag("--csv")) {
            std::printf("run %lld  %s  %s %s  on %s  (%s)\n", static_cast<long long>(s.run.id), printable(s.run.name).c_str(),
                        s.run.workload.c_str(), s.run.variant.c_str(), s.run.device.c_str(),
                        std::string(toString(s.run.status)).c_str());
            std::printf("kernels %lld   kernel time %s   kernel busy %s   kernel span %s\n", static_cast<long long>(s.kernels),
                        formatDuration(s.kernelTimeNs).c_str(), formatDuration(s.kernelBusyNs).c_str(), formatDuration(s.kernelSpanNs).c_str());
        }
        return printSteps(devices, steps, zeroNs, args.flag("--csv"), size_t(width));
    }
    const Table table = breakdownTable(b);
    if (args.flag("--csv")) {
        if (partial)
            std::fprintf(stderr, "wheretime stats: partial: run %lld is still being captured (%lld steps committed so far)\n",
                         static_cast<long long>(s.run.id), static_cast<long long>(committedSteps));
        std::cout << render::csv(table);   // the bytes the GUI's export and the report write
        return 0;
    }
    std::printf("run %lld  %s  %s %s  on %s  (%s)\n", static_cast<long long>(s.run.id), printable(s.run.name).c_str(),
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
    text.width = size_t(width);
    std::cout << '\n' << render::text(table, text);
    return 0;
}

const RegisterCommand reg{{"stats", "time share by layer, scope, phase, op, kernel, kind or category; per step (--range T0:T1)",
                           kUsage, runStats}};

}  // namespace
}  // namespace wt::cli
