// wheretime stats FILE[:RUN]: where a run's kernel time goes, grouped by layer, scope path,
// phase, op, kernel name or activity kind.
#include "analysis/breakdown.h"
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
    "usage: wheretime stats FILE[:RUN] [--group-by layer|scope|phase|op|kernel|kind] [--depth N]\n"
    "                       [--within GROUPBY=KEY]... [--json | --csv]\n\n"
    "Kernel time of a run and its share per group (largest first).\n"
    "  --group-by   layer (default; the layer across phases), scope (path at --depth),\n"
    "               phase, op, kernel (name) or kind (kernel, memcpy, memset)\n"
    "  --depth N    scope path depth for --group-by scope (default 3)\n"
    "  --within G=K only kernels whose group under G is K, e.g. --within layer=softmax\n"
    "  --json       {run, kernels, kernel_time_ns, busy_ns, span_ns, groups: [{name, path, time_ns, share, count}]}\n"
    "  --csv        one row per group\n";

int runStats(Args& args)
{
    args.parse({"--group-by", "--depth", "--within"}, {"--json", "--csv"});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE[:RUN]");
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

    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    int64_t runId = reader.resolveRun(selector);
    RunStats s = computeRunStats(reader, runId, options);
    const Breakdown& b = s.breakdown;

    if (args.flag("--json")) {
        std::cout << "{\"run\":" << s.run.id << ",\"name\":" << json::quote(s.run.name)
                  << ",\"workload\":" << json::quote(s.run.workload) << ",\"variant\":" << json::quote(s.run.variant)
                  << ",\"device\":" << json::quote(s.run.device) << ",\"status\":" << json::quote(toString(s.run.status))
                  << ",\"kernels\":" << s.kernels << ",\"kernel_time_ns\":" << s.kernelTimeNs
                  << ",\"busy_ns\":" << s.busyNs << ",\"span_ns\":" << s.spanNs
                  << ",\"group_by\":" << json::quote(toString(b.groupBy)) << ",\"depth\":" << b.depth
                  << ",\"total_ns\":" << b.totalNs << ",\"groups\":[";
        for (size_t i = 0; i < b.groups.size(); ++i) {
            const Group& gr = b.groups[i];
            std::cout << (i ? ",\n " : "\n ") << "{\"name\":" << json::quote(gr.name) << ",\"path\":" << json::quote(gr.path)
                      << ",\"time_ns\":" << gr.timeNs << ",\"share\":" << json::number(gr.share)
                      << ",\"count\":" << gr.count << "}";
        }
        std::cout << "]}\n";
        return 0;
    }
    if (args.flag("--csv")) {
        std::cout << "name,path,time_ns,share,count\n";
        for (const Group& gr : b.groups)
            std::cout << csv::field(gr.name) << ',' << csv::field(gr.path) << ',' << gr.timeNs << ','
                      << json::number(gr.share) << ',' << gr.count << '\n';
        return 0;
    }
    std::printf("run %lld  %s  %s %s  on %s  (%s)\n", static_cast<long long>(s.run.id), s.run.name.c_str(),
                s.run.workload.c_str(), s.run.variant.c_str(), s.run.device.c_str(), std::string(toString(s.run.status)).c_str());
    std::printf("kernels %lld   kernel time %s   busy %s   span %s\n\n", static_cast<long long>(s.kernels),
                formatDuration(s.kernelTimeNs).c_str(), formatDuration(s.busyNs).c_str(), formatDuration(s.spanNs).c_str());
    std::printf("%-48s %14s %7s %9s\n", std::string(toString(b.groupBy)).c_str(), "time", "share", "count");
    for (const Group& gr : b.groups)
        std::printf("%-48.48s %14s %7s %9lld\n", gr.path.c_str(), formatDuration(gr.timeNs).c_str(),
                    formatShare(gr.share).c_str(), static_cast<long long>(gr.count));
    return 0;
}

const RegisterCommand reg{{"stats", "time share of a run by layer, scope, phase, op, kernel or kind", kUsage, runStats}};

}  // namespace
}  // namespace wt::cli
