#include "reader.h"

#include "statement.h"
#include "storageerror.h"

#include <algorithm>
#include <charconv>

namespace wt {

namespace {

constexpr const char* kRunColumns =
    "id, name, workload, variant, preset, config, backend, device, device_properties, started_at, origin_ns, "
    "duration_ns, status, dropped_records, source_file, kernels, kernel_time_ns, busy_ns, span_start_ns, span_end_ns";

RunInfo runFromRow(const Statement& s)
{
    RunInfo r;
    r.id = s.int64(0);
    r.name = s.text(1);
    r.workload = s.text(2);
    r.variant = s.text(3);
    r.preset = s.text(4);
    r.configJson = s.text(5);
    r.backend = s.text(6);
    r.device = s.text(7);
    r.devicePropertiesJson = s.text(8);
    r.startedAt = s.text(9);
    r.originNs = s.int64(10);
    r.durationNs = s.int64(11);
    r.status = runStatusFromString(s.textView(12));
    r.droppedRecords = s.int64(13);
    r.sourceFile = s.text(14);
    r.kernels = s.int64(15);
    r.kernelTimeNs = s.int64(16);
    r.busyNs = s.int64(17);
    r.spanStartNs = s.int64(18);
    r.spanEndNs = s.int64(19);
    return r;
}

}  // namespace

Reader::Reader(Database& db) : m_db(db) {}

std::vector<RunInfo> Reader::runs() const
{
    std::vector<RunInfo> out;
    Statement s(m_db.handle(), std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id");
    while (s.step())
        out.push_back(runFromRow(s));
    return out;
}

RunInfo Reader::run(int64_t runId) const
{
    Statement s(m_db.handle(), std::string("SELECT ") + kRunColumns + " FROM runs WHERE id=?");
    s.bind(1, runId);
    if (!s.step())
        throw StorageError(m_db.path() + ": no run with id " + std::to_string(runId));
    return runFromRow(s);
}

int64_t Reader::resolveRun(const std::string& selector) const
{
    if (selector.empty()) {
        Statement s(m_db.handle(), "SELECT max(id) FROM runs");
        if (s.step() && !s.isNull(0))
            return s.int64(0);
        throw StorageError(m_db.path() + ": holds no runs");
    }
    int64_t id = 0;
    auto [p, ec] = std::from_chars(selector.data(), selector.data() + selector.size(), id);
    if (ec == std::errc() && p == selector.data() + selector.size())
        return run(id).id;
    Statement s(m_db.handle(), "SELECT max(id) FROM runs WHERE name=?");
    s.bind(1, selector);
    if (s.step() && !s.isNull(0))
        return s.int64(0);
    throw StorageError(m_db.path() + ": no run named '" + selector + "'");
}

std::vector<DeviceInfo> Reader::devices(int64_t runId) const
{
    std::vector<DeviceInfo> out;
    Statement s(m_db.handle(), "SELECT id, name, properties FROM devices WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    while (s.step())
        out.push_back(DeviceInfo{int32_t(s.int64(0)), s.text(1), s.text(2)});
    return out;
}

std::vector<Track> Reader::tracks(int64_t runId) const
{
    std::vector<Track> out;
    Statement s(m_db.handle(), "SELECT id, device_id, stream, kind, name, count, max_duration_ns FROM tracks "
                               "WHERE run_id=? ORDER BY device_id, kind, stream");
    s.bind(1, runId);
    while (s.step()) {
        Track t;
        t.id = s.int64(0);
        t.runId = runId;
        t.deviceId = int32_t(s.int64(1));
        t.stream = s.int64(2);
        t.kind = s.textView(3) == "memory" ? TrackKind::Memory : TrackKind::Kernel;
        t.name = s.text(4);
        t.count = s.int64(5);
        t.maxDurationNs = s.int64(6);
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<ScopeNode> Reader::scopes(int64_t runId) const
{
    std::vector<ScopeNode> out;
    Statement s(m_db.handle(), "SELECT id, parent_id, name_id, level_id, depth FROM scopes WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    while (s.step())
        out.push_back(ScopeNode{s.int64(0), s.int64(1), uint32_t(s.int64(2)), uint32_t(s.int64(3)), int32_t(s.int64(4))});
    return out;
}

std::vector<ScopeInstance> Reader::scopeInstances(int64_t runId) const
{
    std::vector<ScopeInstance> out;
    Statement s(m_db.handle(), "SELECT id, scope_id, parent_id, start_ns, end_ns, gpu_start_ns, gpu_end_ns "
                               "FROM scope_instances WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    while (s.step())
        out.push_back(ScopeInstance{s.int64(0), s.int64(1), s.int64(2), s.int64(3), s.int64(4), s.int64(5), s.int64(6)});
    return out;
}

std::vector<TotalRow> Reader::totals(int64_t runId) const
{
    std::vector<TotalRow> out;
    Statement s(m_db.handle(), "SELECT scope_id, name_id, kind, count, time_ns FROM totals WHERE run_id=?");
    s.bind(1, runId);
    while (s.step())
        out.push_back(TotalRow{s.int64(0), uint32_t(s.int64(1)), ActivityKind(s.int64(2)), s.int64(3), s.int64(4)});
    return out;
}

std::vector<ApiCall> Reader::apiCalls(int64_t runId) const
{
    std::vector<ApiCall> out;
    Statement s(m_db.handle(), "SELECT start_ns, duration_ns, thread_id, name_id, correlation_id FROM api_calls "
                               "WHERE run_id=? ORDER BY start_ns");
    s.bind(1, runId);
    while (s.step())
        out.push_back(ApiCall{s.int64(0), s.int64(0) + s.int64(1), s.int64(2), uint32_t(s.int64(3)), s.int64(4)});
    return out;
}

std::vector<std::pair<std::string, std::string>> Reader::metadata(int64_t runId) const
{
    std::vector<std::pair<std::string, std::string>> out;
    Statement s(m_db.handle(), "SELECT key, value FROM metadata WHERE run_id=? ORDER BY key");
    s.bind(1, runId);
    while (s.step())
        out.emplace_back(s.text(0), s.text(1));
    return out;
}

const LaunchConfig& Reader::config(int64_t id) const
{
    static const LaunchConfig none;
    if (id == 0)
        return none;
    if (!m_configsLoaded) {
        Statement s(m_db.handle(), "SELECT id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
                                   "static_smem, dynamic_smem FROM launch_configs");
        while (s.step()) {
            LaunchConfig c;
            for (int i = 0; i < 3; ++i) {
                c.grid[i] = int32_t(s.int64(1 + i));
                c.block[i] = int32_t(s.int64(4 + i));
            }
            c.registers = int32_t(s.int64(7));
            c.staticSmem = int32_t(s.int64(8));
            c.dynamicSmem = int32_t(s.int64(9));
            m_configs.emplace(s.int64(0), c);
        }
        m_configsLoaded = true;
    }
    auto it = m_configs.find(id);
    return it == m_configs.end() ? none : it->second;
}

static constexpr const char* kActivityColumns =
    "track_id, start_ns, seq, duration_ns, kind, name_id, scope_instance_id, correlation_id, config_id, bytes";

static Activity activityFromRow(const Statement& s)
{
    Activity a;
    a.trackId = s.int64(0);
    a.startNs = s.int64(1);
    a.seq = s.int64(2);
    a.endNs = a.startNs + s.int64(3);
    a.kind = ActivityKind(s.int64(4));
    a.nameId = uint32_t(s.int64(5));
    a.scopeInstanceId = s.int64(6);
    a.correlationId = s.int64(7);
    a.bytes = s.int64(9);
    return a;
}

std::vector<Activity> Reader::activities(int64_t trackId, int64_t t0, int64_t t1) const
{
    int64_t maxDuration = 0;
    {
        Statement s(m_db.handle(), "SELECT max_duration_ns FROM tracks WHERE id=?");
        s.bind(1, trackId);
        if (s.step())
            maxDuration = s.int64(0);
    }
    // A run still being written has no max duration yet: fall back to scanning from the start.
    int64_t from = maxDuration > 0 ? t0 - maxDuration : INT64_MIN;
    std::vector<Activity> out;
    Statement s(m_db.handle(), std::string("SELECT ") + kActivityColumns +
                                   " FROM activities WHERE track_id=?1 AND start_ns>=?2 AND start_ns<?3 "
                                   "AND start_ns+duration_ns>?4 ORDER BY start_ns, seq");
    s.bind(1, trackId).bind(2, from).bind(3, t1).bind(4, t0);
    while (s.step()) {
        Activity a = activityFromRow(s);
        a.config = config(s.int64(8));
        // Zero-length activities exactly at t0 still belong to the window.
        out.push_back(a);
    }
    return out;
}

void Reader::forEachActivity(int64_t runId, const std::function<bool(const Activity&)>& fn) const
{
    for (const Track& t : tracks(runId)) {
        Statement s(m_db.handle(), std::string("SELECT ") + kActivityColumns +
                                       " FROM activities WHERE track_id=? ORDER BY start_ns, seq");
        s.bind(1, t.id);
        while (s.step()) {
            Activity a = activityFromRow(s);
            a.config = config(s.int64(8));
            if (!fn(a))
                return;
        }
    }
}

const std::unordered_map<uint32_t, std::string>& Reader::strings() const
{
    if (!m_stringsLoaded) {
        Statement s(m_db.handle(), "SELECT id, value FROM strings");
        while (s.step())
            m_strings.emplace(uint32_t(s.int64(0)), s.text(1));
        m_stringsLoaded = true;
    }
    return m_strings;
}

const std::string& Reader::string(uint32_t id) const
{
    static const std::string empty;
    if (id == 0)
        return empty;
    const auto& all = strings();
    auto it = all.find(id);
    if (it == all.end()) {
        // Strings may have been added by a concurrent writer since the first load.
        m_stringsLoaded = false;
        m_strings.clear();
        const auto& again = strings();
        auto it2 = again.find(id);
        return it2 == again.end() ? empty : it2->second;
    }
    return it->second;
}

}  // namespace wt
