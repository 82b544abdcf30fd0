#include "csvexporter.h"

#include "storage/scopepaths.h"

#include "storage/csv.h"
#include "storage/reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace wt::interop {

namespace {

using csv::field;

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

}  // namespace

void CsvExporter::writeActivities(const Reader& reader, int64_t runId, std::ostream& out)
{
    const auto paths = scopeInstancePaths(reader, runId);
    std::unordered_map<int64_t, std::pair<int32_t, int64_t>> trackOf;
    for (const Track& t : reader.tracks(runId))
        trackOf[t.id] = {t.deviceId, t.stream};
    std::vector<Activity> all;
    reader.forEachActivity(runId, [&](const Activity& a) {
        all.push_back(a);
        return true;
    });
    std::stable_sort(all.begin(), all.end(), [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; });
    out << "start_ns,end_ns,duration_ns,kind,device,stream,name,scope_path,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
           "registers_per_thread,static_shared_memory,dynamic_shared_memory,bytes,correlation_id\n";
    for (const Activity& a : all) {
        auto [device, stream] = trackOf[a.trackId];
        auto p = paths.find(a.scopeInstanceId);
        const LaunchConfig& c = a.config;
        out << a.startNs << ',' << a.endNs << ',' << a.endNs - a.startNs << ',' << toString(a.kind) << ',' << device << ','
            << stream << ',' << field(reader.string(a.nameId)) << ',' << field(p != paths.end() ? p->second : std::string()) << ','
            << c.grid[0] << ',' << c.grid[1] << ',' << c.grid[2] << ',' << c.block[0] << ',' << c.block[1] << ',' << c.block[2] << ','
            << c.registers << ',' << c.staticSmem << ',' << c.dynamicSmem << ',' << a.bytes << ',' << a.correlationId << '\n';
    }
}

void CsvExporter::writeKernelSummary(const Reader& reader, int64_t runId, std::ostream& out)
{
    std::unordered_map<uint32_t, std::vector<int64_t>> byName;
    int64_t total = 0;
    reader.forEachActivity(runId, [&](const Activity& a) {
        if (a.kind == ActivityKind::Kernel) {
            byName[a.nameId].push_back(a.endNs - a.startNs);
            total += a.endNs - a.startNs;
        }
        return true;
    });
    struct Row {
        std::string name;
        int64_t total = 0, count = 0, min = 0, max = 0;
        double avg = 0, median = 0, stddev = 0;
    };
    std::vector<Row> rows;
    for (auto& [nameId, d] : byName) {
        std::sort(d.begin(), d.end());
        Row r;
        r.name = reader.string(nameId);
        r.count = int64_t(d.size());
        for (int64_t v : d)
            r.total += v;
        r.min = d.front();
        r.max = d.back();
        r.avg = double(r.total) / double(r.count);
        size_t n = d.size();
        r.median = n % 2 ? double(d[n / 2]) : (double(d[n / 2 - 1]) + double(d[n / 2])) / 2.0;
        double ss = 0;
        for (int64_t v : d)
            ss += (double(v) - r.avg) * (double(v) - r.avg);
        r.stddev = n > 1 ? std::sqrt(ss / double(n - 1)) : 0.0;   // sample stddev, as Nsight prints
        rows.push_back(std::move(r));
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.total != b.total ? a.total > b.total : a.name < b.name; });
    out << "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";
    for (const Row& r : rows)
        out << fixed(total ? 100.0 * double(r.total) / double(total) : 0.0, 1) << ',' << r.total << ',' << r.count << ','
            << fixed(r.avg, 1) << ',' << fixed(r.median, 1) << ',' << r.min << ',' << r.max << ',' << fixed(r.stddev, 1) << ','
            << field(r.name) << '\n';
}

}  // namespace wt::interop
