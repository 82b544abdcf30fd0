#include "launchlatency.h"

#include "storage/reader.h"

#include <algorithm>
#include <map>

namespace wt {

void summarizeLatencies(std::vector<int64_t>& v, LaunchLatency& out)
{
    out.launched = int64_t(v.size());
    if (v.empty())
        return;
    std::sort(v.begin(), v.end());
    out.medianNs = v[(v.size() - 1) / 2];
    // Nearest rank: the smallest value with at least 95% of the values at or below it.
    const size_t rank = (v.size() * 95 + 99) / 100;
    out.p95Ns = v[std::max<size_t>(rank, 1) - 1];
    out.maxNs = v.back();
    double sum = 0;
    for (int64_t x : v)
        sum += double(x);
    out.meanNs = sum / double(v.size());
    const int64_t limit = out.medianNs > 0 ? out.medianNs * kOutlierFactor : 0;
    out.outliers = limit > 0 ? int64_t(v.end() - std::upper_bound(v.begin(), v.end(), limit)) : 0;
}

LaunchLatencyAccumulator::Acc& LaunchLatencyAccumulator::device(int32_t id)
{
    for (auto& [d, acc] : m_devices)
        if (d == id)
            return acc;
    m_devices.emplace_back(id, Acc{});
    return m_devices.back().second;
}

void LaunchLatencyAccumulator::addKernel(int32_t deviceId)
{
    ++device(deviceId).kernels;
    ++m_all.kernels;
}

void LaunchLatencyAccumulator::addLaunched(int32_t deviceId, int64_t kernelStartNs, int64_t kernelDurationNs,
                                           int64_t callStartNs, int64_t callDurationNs)
{
    Acc& d = device(deviceId);
    ++d.kernels;
    ++m_all.kernels;
    const int64_t latency = kernelStartNs - callStartNs;
    d.latencies.push_back(latency);
    m_all.latencies.push_back(latency);
    if (kernelDurationNs < callDurationNs) {   // HTA's short kernel: launch-bound
        ++d.shortKernels;
        ++m_all.shortKernels;
    }
}

std::vector<LaunchLatency> LaunchLatencyAccumulator::finish(const std::vector<std::pair<int32_t, std::string>>& names)
{
    std::vector<LaunchLatency> out;
    auto row = [&](int32_t id, std::string name, Acc& acc) {
        LaunchLatency l;
        l.deviceId = id;
        l.device = std::move(name);
        l.kernels = acc.kernels;
        l.shortKernels = acc.shortKernels;
        summarizeLatencies(acc.latencies, l);
        out.push_back(std::move(l));
    };
    row(-1, "all", m_all);
    std::sort(m_devices.begin(), m_devices.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [id, acc] : m_devices) {
        std::string name = "device " + std::to_string(id);
        for (const auto& [n, text] : names)
            if (n == id)
                name = text;
        row(id, std::move(name), acc);
    }
    return out;
}

std::vector<LaunchLatency> computeLaunchLatency(const Reader& reader, int64_t runId)
{
    // API calls by correlation id (sorted; ids are unique per launch).
    struct Call {
        int64_t correlation, startNs, durationNs;
    };
    std::vector<Call> calls;
    for (const ApiCall& c : reader.apiCalls(runId))
        if (c.correlationId != 0)
            calls.push_back({c.correlationId, c.startNs, c.endNs - c.startNs});
    std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) { return a.correlation < b.correlation; });

    std::map<int64_t, int32_t> deviceOfTrack;
    for (const Track& t : reader.tracks(runId))
        deviceOfTrack[t.id] = t.deviceId;
    std::vector<std::pair<int32_t, std::string>> names;
    for (const DeviceInfo& d : reader.devices(runId))
        names.emplace_back(d.id, d.name);

    LaunchLatencyAccumulator acc;
    reader.forEachActivity(runId, [&](const Activity& a) {
        if (a.kind != ActivityKind::Kernel)
            return true;
        const int32_t device = deviceOfTrack[a.trackId];
        auto it = a.correlationId == 0 ? calls.end()
                                       : std::lower_bound(calls.begin(), calls.end(), a.correlationId,
                                                          [](const Call& c, int64_t id) { return c.correlation < id; });
        if (it == calls.end() || it->correlation != a.correlationId)
            acc.addKernel(device);
        else
            acc.addLaunched(device, a.startNs, a.endNs - a.startNs, it->startNs, it->durationNs);
        return true;
    });
    return acc.finish(names);
}

Table launchLatencyTable(const std::vector<LaunchLatency>& rows)
{
    Table t;
    t.id = "launch_latency";
    t.add("device_id", "id", Unit::Count, false)
        .add("device", "device", Unit::Text)
        .add("kernels", "kernels", Unit::Count)
        .add("launched", "launched", Unit::Count)
        .add("median_ns", "median latency", Unit::Ns)
        .add("p95_ns", "p95 latency", Unit::Ns)
        .add("max_ns", "max latency", Unit::Ns)
        .add("mean_ns", "mean latency", Unit::Ns)
        .add("short_kernels", "short kernels", Unit::Count)
        .add("outliers", "delay outliers", Unit::Count);
    t.notes.push_back("launch latency: kernel start - start of the API call that launched it (by correlation id)");
    for (const LaunchLatency& l : rows) {
        std::vector<Cell>& r = t.addRow();
        r[0] = l.deviceId < 0 ? Cell() : Cell(int64_t(l.deviceId));
        r[1] = l.device;
        r[2] = l.kernels;
        r[3] = l.launched;
        if (l.launched > 0) {
            r[4] = l.medianNs;
            r[5] = l.p95Ns;
            r[6] = l.maxNs;
            r[7] = l.meanNs;
        }
        r[8] = l.shortKernels;
        r[9] = l.outliers;
    }
    return t;
}

}  // namespace wt
