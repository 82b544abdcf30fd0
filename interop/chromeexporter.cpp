#include "chromeexporter.h"

#include "exacttime.h"
#include "storage/scopepaths.h"

#include "storage/json.h"
#include "storage/reader.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <vector>

namespace wt::interop {

namespace {

const char* category(ActivityKind kind)
{
    switch (kind) {
    case ActivityKind::Kernel: return "kernel";
    case ActivityKind::Memcpy: return "gpu_memcpy";
    case ActivityKind::Memset: return "gpu_memset";
    }
    return "kernel";
}

// Events are written comma-separated; the first one without a comma.
class EventWriter {
public:
    explicit EventWriter(std::ostream& out) : m_out(out) {}
    std::ostream& next()
    {
        m_out << (m_first ? "\n" : ",\n");
        m_first = false;
        return m_out;
    }

private:
    std::ostream& m_out;
    bool m_first = true;
};

}  // namespace

void ChromeExporter::write(const Reader& reader, int64_t runId, std::ostream& out)
{
    const RunInfo run = reader.run(runId);
    // ts counts from the run's time 0, as every other output does (a ts copied into `stats
    // --range` selects the same activities); the header keeps the clock value of time 0, so an
    // import of this file restores the run's times exactly (and aligns ranks by clock).
    auto ts = [&](int64_t rel) { return nsToMicrosText(rel); };
    auto dur = [&](int64_t ns) { return nsToMicrosText(std::max<int64_t>(0, ns)); };

    out << "{\"displayTimeUnit\":\"ns\",\n\"wheretime\":{\"run\":" << json::quote(std::to_string(run.id))
        << ",\"name\":" << json::quote(run.name) << ",\"workload\":" << json::quote(run.workload)
        << ",\"variant\":" << json::quote(run.variant) << ",\"preset\":" << json::quote(run.preset)
        << ",\"backend\":" << json::quote(run.backend) << ",\"device\":" << json::quote(run.device)
        << ",\"started_at\":" << json::quote(run.startedAt) << ",\"source_file\":" << json::quote(run.sourceFile)
        << ",\"status\":" << json::quote(toString(run.status)) << ",\"origin_ns\":" << run.originNs << "},\n";
    // Perfetto shows otherData in its metadata panel.
    out << "\"otherData\":{\"device\":" << json::quote(run.device) << ",\"workload\":" << json::quote(run.workload)
        << ",\"variant\":" << json::quote(run.variant) << ",\"run\":" << json::quote(run.name) << "},\n";
    std::vector<DeviceInfo> devices = reader.devices(runId);
    out << "\"deviceProperties\":[";
    for (size_t i = 0; i < devices.size(); ++i)
        out << (i ? "," : "") << "{\"id\":" << devices[i].id << ",\"name\":" << json::quote(devices[i].name) << "}";
    out << "],\n\"traceEvents\":[";
    EventWriter ev(out);

    // Processes and threads.
    std::unordered_map<int32_t, std::string> deviceName;
    for (const auto& d : devices)
        deviceName[d.id] = d.name;
    std::set<int32_t> pids;
    std::set<std::pair<int32_t, int64_t>> streams;
    for (const Track& t : reader.tracks(runId)) {
        pids.insert(t.deviceId);
        streams.insert({t.deviceId, t.stream});
    }
    for (int32_t pid : pids) {
        std::string label = "GPU " + std::to_string(pid) + (deviceName.count(pid) ? ": " + deviceName[pid] : "");
        ev.next() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid << ",\"tid\":0,\"args\":{\"name\":" << json::quote(label) << "}}";
        ev.next() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
    }
    for (auto [pid, stream] : streams)
        ev.next() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << stream
                  << ",\"args\":{\"name\":" << json::quote("Stream " + std::to_string(stream)) << "}}";
    ev.next() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << kHostPid << ",\"tid\":0,\"args\":{\"name\":\"Host\"}}";

    // Scopes: each root instance goes on the first lane free at its start; its subtree follows,
    // so every lane holds properly nested slices.
    const auto paths = scopeInstancePaths(reader, runId);
    std::vector<ScopeInstance> instances = reader.scopeInstances(runId);
    std::unordered_map<int64_t, const ScopeNode*> nodeOf;
    std::vector<ScopeNode> nodes = reader.scopes(runId);
    for (const auto& n : nodes)
        nodeOf[n.id] = &n;
    std::sort(instances.begin(), instances.end(), [](const ScopeInstance& a, const ScopeInstance& b) { return a.id < b.id; });
    std::unordered_map<int64_t, size_t> laneOf;
    std::vector<int64_t> laneEnd;
    {
        std::vector<const ScopeInstance*> roots;
        for (const auto& i : instances)
            if (i.parentId == 0)
                roots.push_back(&i);
        std::stable_sort(roots.begin(), roots.end(), [](auto* a, auto* b) { return a->startNs < b->startNs; });
        for (const auto* r : roots) {
            size_t lane = 0;
            while (lane < laneEnd.size() && laneEnd[lane] > r->startNs)
                ++lane;
            if (lane == laneEnd.size())
                laneEnd.push_back(0);
            laneEnd[lane] = std::max(r->startNs, r->endNs);
            laneOf[r->id] = lane;
        }
        for (const auto& i : instances)   // parents have smaller ids
            if (i.parentId != 0)
                laneOf[i.id] = laneOf.count(i.parentId) ? laneOf[i.parentId] : 0;
    }
    for (size_t lane = 0; lane < laneEnd.size(); ++lane)
        ev.next() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << kHostPid << ",\"tid\":" << kScopeLaneTid + int64_t(lane)
                  << ",\"args\":{\"name\":" << json::quote(lane ? "Scopes " + std::to_string(lane + 1) : std::string("Scopes")) << "}}";
    for (const auto& i : instances) {
        auto n = nodeOf.find(i.scopeId);
        std::string name = n != nodeOf.end() ? reader.string(n->second->nameId) : std::string("?");
        std::string level = n != nodeOf.end() ? reader.string(n->second->levelId) : std::string();
        auto path = paths.find(i.id);
        ev.next() << "{\"ph\":\"X\",\"cat\":\"scope\",\"name\":" << json::quote(name) << ",\"pid\":" << kHostPid
                  << ",\"tid\":" << kScopeLaneTid + int64_t(laneOf[i.id]) << ",\"ts\":" << ts(i.startNs)
                  << ",\"dur\":" << dur(i.endNs - i.startNs) << ",\"args\":{\"level\":" << json::quote(level)
                  << ",\"path\":" << json::quote(path != paths.end() ? path->second : name) << ",\"wt_instance\":" << i.id
                  << ",\"wt_parent\":" << i.parentId << "}}";
    }

    // API calls, and where each one's flow starts.
    std::unordered_map<int64_t, std::pair<int64_t, int64_t>> callAt;   // correlation -> (thread, start)
    for (const ApiCall& c : reader.apiCalls(runId)) {
        ev.next() << "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":" << json::quote(reader.string(c.nameId))
                  << ",\"pid\":" << kHostPid << ",\"tid\":" << c.threadId << ",\"ts\":" << ts(c.startNs)
                  << ",\"dur\":" << dur(c.endNs - c.startNs) << ",\"args\":{\"correlation\":" << c.correlationId << "}}";
        if (c.correlationId != 0)
            callAt.emplace(c.correlationId, std::make_pair(c.threadId, c.startNs));
    }

    std::unordered_map<int64_t, std::pair<int32_t, int64_t>> trackOf;
    for (const Track& t : reader.tracks(runId))
        trackOf[t.id] = {t.deviceId, t.stream};
    reader.forEachActivity(runId, [&](const Activity& a) {
        auto [device, stream] = trackOf[a.trackId];
        std::ostream& o = ev.next();
        o << "{\"ph\":\"X\",\"cat\":\"" << category(a.kind) << "\",\"name\":" << json::quote(reader.string(a.nameId))
          << ",\"pid\":" << device << ",\"tid\":" << stream << ",\"ts\":" << ts(a.startNs) << ",\"dur\":" << dur(a.endNs - a.startNs)
          << ",\"args\":{\"device\":" << device << ",\"stream\":" << stream << ",\"correlation\":" << a.correlationId;
        if (a.kind == ActivityKind::Kernel) {
            const LaunchConfig& c = a.config;
            o << ",\"grid\":[" << c.grid[0] << "," << c.grid[1] << "," << c.grid[2] << "],\"block\":[" << c.block[0] << ","
              << c.block[1] << "," << c.block[2] << "],\"registers per thread\":" << c.registers
              << ",\"shared memory\":" << int64_t(c.staticSmem) + c.dynamicSmem << ",\"static shared memory\":" << c.staticSmem
              << ",\"dynamic shared memory\":" << c.dynamicSmem;
        } else {
            o << ",\"bytes\":" << a.bytes;
        }
        if (a.scopeInstanceId != 0) {
            auto p = paths.find(a.scopeInstanceId);
            o << ",\"wt_scope\":" << a.scopeInstanceId << ",\"scope\":" << json::quote(p != paths.end() ? p->second : std::string());
        }
        o << "}}";
        if (a.correlationId != 0) {
            auto c = callAt.find(a.correlationId);
            if (c != callAt.end()) {
                ev.next() << "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":" << a.correlationId << ",\"pid\":" << kHostPid
                          << ",\"tid\":" << c->second.first << ",\"ts\":" << ts(c->second.second) << "}";
                ev.next() << "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":" << a.correlationId
                          << ",\"pid\":" << device << ",\"tid\":" << stream << ",\"ts\":" << ts(a.startNs) << "}";
            }
        }
        return true;
    });
    out << "\n]}\n";
}

}  // namespace wt::interop
