// wheretime runs FILE [--json]: the runs a file holds.
#include "app/cli/command.h"
#include "render/textelide.h"
#include "render/textformat.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace wt::cli {
namespace {

int runRuns(Args& args)
{
    args.parse();
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE");
    Database db(args.positionals()[0], OpenMode::ReadOnly);
    Reader reader(db);
    auto runs = reader.runs();
    if (args.flag("--json")) {
        std::cout << "[";
        for (size_t i = 0; i < runs.size(); ++i) {
            const RunInfo& r = runs[i];
            std::cout << (i ? ",\n " : "") << "{\"id\":" << r.id << ",\"name\":" << json::quote(r.name)
                      << ",\"workload\":" << json::quote(r.workload) << ",\"variant\":" << json::quote(r.variant)
                      << ",\"preset\":" << json::quote(r.preset) << ",\"backend\":" << json::quote(r.backend)
                      << ",\"device\":" << json::quote(r.device) << ",\"started_at\":" << json::quote(r.startedAt)
                      << ",\"duration_ns\":" << r.durationNs << ",\"status\":" << json::quote(toString(r.status))
                      << ",\"dropped_records\":" << r.droppedRecords << ",\"kernels\":" << r.kernels
                      << ",\"kernel_time_ns\":" << r.kernelTimeNs << ",\"source_file\":" << json::quote(r.sourceFile)
                      << "}";
        }
        std::cout << "]\n";
        return 0;
    }
    if (runs.empty()) {
        std::cout << "no runs in " << db.path() << "\n";
        return 0;
    }
    std::printf("%4s  %-24s %-12s %-10s %-7s %-28s %9s %12s  %s\n", "id", "name", "workload", "variant", "backend",
                "device", "kernels", "kernel time", "status");
    for (const RunInfo& r : runs) {
        std::string status(toString(r.status));
        if (r.droppedRecords > 0)
            status += " (" + std::to_string(r.droppedRecords) + " dropped)";
        // Elided in the middle: the runs of a sweep differ at the end ("gcn-adaptive-tiny-hidden=128").
        std::string name = elideMiddle(r.name, 24);
        name.append(24 - std::min<size_t>(24, displayLength(name)), ' ');
        std::printf("%4lld  %s %-12.12s %-10.10s %-7.7s %-28.28s %9lld %12s  %s\n", static_cast<long long>(r.id),
                    name.c_str(), r.workload.c_str(), r.variant.c_str(), r.backend.c_str(), r.device.c_str(),
                    static_cast<long long>(r.kernels), formatDuration(r.kernelTimeNs).c_str(), status.c_str());
    }
    return 0;
}

const RegisterCommand reg{{"runs", "list the runs a file holds",
                           "usage: wheretime runs FILE [--json]\n\n"
                           "Lists the runs in FILE: id, name, workload, variant, backend, device, kernels,\n"
                           "kernel time and status (complete, interrupted, failed, incomplete).\n"
                           "  --json   a JSON array of run objects\n",
                           runRuns,
                           {{"--json", "", "a JSON array of run objects"}}}};

}  // namespace
}  // namespace wt::cli
