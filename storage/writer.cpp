#include "writer.h"

#include "statement.h"
#include "storageerror.h"

#include <algorithm>
#include <chrono>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace wt {

namespace {

struct PairHash {
    size_t operator()(const std::pair<int64_t, std::string>& k) const
    {
        return std::hash<int64_t>()(k.first) * 1000003u ^ std::hash<std::string>()(k.second);
    }
};

struct ConfigHash {
    size_t operator()(const LaunchConfig& c) const
    {
        size_t h = 1469598103934665603ull;
        auto mix = [&](int32_t v) { h = (h ^ uint32_t(v)) * 1099511628211ull; };
        for (int i = 0; i < 3; ++i) { mix(c.grid[i]); mix(c.block[i]); }
        mix(c.registers); mix(c.staticSmem); mix(c.dynamicSmem);
        return h;
    }
};

struct TotalKey {
    int64_t scopeId;
    uint32_t nameId;
    uint8_t kind;
    bool operator==(const TotalKey&) const = default;
};
struct TotalKeyHash {
    size_t operator()(const TotalKey& k) const
    {
        return (std::hash<int64_t>()(k.scopeId) * 31 + k.nameId) * 7 + k.kind;
    }
};

std::string hostName()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

// Union length of intervals; sorts them in place.
int64_t unionLength(std::vector<std::pair<int64_t, int64_t>>& iv)
{
    std::sort(iv.begin(), iv.end());
    int64_t total = 0;
    int64_t cs = 0, ce = 0;
    bool open = false;
    for (auto [s, e] : iv) {
        if (!open) { cs = s; ce = e; open = true; continue; }
        if (s <= ce) { ce = std::max(ce, e); continue; }
        total += ce - cs;
        cs = s; ce = e;
    }
    if (open)
        total += ce - cs;
    return total;
}

// Kernel totals and spans of one run, fed activity by activity, written once at the end.
struct Summary {
    std::unordered_map<TotalKey, std::pair<int64_t, int64_t>, TotalKeyHash> totals;   // count, time
    std::vector<std::pair<int64_t, int64_t>> kernelIntervals;
    int64_t kernels = 0, kernelTime = 0, spanStart = INT64_MAX, spanEnd = INT64_MIN;

    void add(int64_t scopeId, uint32_t nameId, ActivityKind kind, int64_t start, int64_t end)
    {
        auto& t = totals[TotalKey{scopeId, nameId, uint8_t(kind)}];
        t.first += 1;
        t.second += end - start;
        if (kind != ActivityKind::Kernel)
            return;
        ++kernels;
        kernelTime += end - start;
        spanStart = std::min(spanStart, start);
        spanEnd = std::max(spanEnd, end);
        kernelIntervals.emplace_back(start, end);
    }

    void write(sqlite3* db, int64_t runId)
    {
        Statement del(db, "DELETE FROM totals WHERE run_id=?");
        del.bind(1, runId).run();
        Statement ins(db, "INSERT INTO totals(run_id, scope_id, name_id, kind, count, time_ns) VALUES (?,?,?,?,?,?)");
        for (auto& [k, v] : totals)
            ins.bind(1, runId).bind(2, k.scopeId).bind(3, k.nameId).bind(4, int64_t(k.kind))
                .bind(5, v.first).bind(6, v.second).run();
        int64_t busy = unionLength(kernelIntervals);
        Statement up(db, "UPDATE runs SET kernels=?, kernel_time_ns=?, busy_ns=?, span_start_ns=?, span_end_ns=? WHERE id=?");
        up.bind(1, kernels).bind(2, kernelTime).bind(3, busy)
            .bind(4, kernels ? spanStart : int64_t(0)).bind(5, kernels ? spanEnd : int64_t(0)).bind(6, runId).run();
    }
};

}  // namespace

struct Writer::Impl {
    Database& db;
    sqlite3* h;
    int64_t runId = 0;
    bool inRun = false;
    bool inTransaction = false;
    bool externalTransaction = false;   // the caller holds a transaction: never begin or commit
    int64_t rowsInBatch = 0;
    int64_t seq = 0;

    std::unique_ptr<Statement> insString, insDevice, insTrack, insScope, insInstance, insConfig, insActivity,
        insApi, insMeta;

    std::unordered_map<std::string, uint32_t> strings;
    uint32_t nextString = 1;
    bool stringsLoaded = false;
    std::unordered_map<LaunchConfig, int64_t, ConfigHash> configs;
    bool configsLoaded = false;

    struct TrackKey { int32_t device; int64_t stream; TrackKind kind; bool operator==(const TrackKey&) const = default; };
    struct TrackKeyHash { size_t operator()(const TrackKey& k) const { return (size_t(k.device) * 1000003u) ^ size_t(k.stream) * 31 ^ size_t(k.kind); } };
    std::unordered_map<TrackKey, int64_t, TrackKeyHash> tracks;
    struct TrackStats { int64_t count = 0, maxDuration = 0; };
    std::unordered_map<int64_t, TrackStats> trackStats;

    std::unordered_map<std::pair<int64_t, std::string>, int64_t, PairHash> scopes;

    // Scope instances of this run, indexed by id - instanceBase.
    int64_t instanceBase = 1;
    std::vector<int64_t> instScope, instParent, instStart;
    std::vector<int64_t> instGpuStart, instGpuEnd;
    std::vector<uint8_t> instWritten;

    Summary summary;

    explicit Impl(Database& d) : db(d), h(d.handle()) {}

    void ensureTransaction()
    {
        if (externalTransaction)
            return;
        if (!inTransaction) {
            db.begin();
            inTransaction = true;
        }
    }

    void commitOwned()
    {
        if (inTransaction && !externalTransaction) {
            db.commit();
            inTransaction = false;
        }
    }

    void rollbackOwned()
    {
        if (inTransaction && !externalTransaction) {
            db.rollback();
            inTransaction = false;
        }
    }

    void countRow()
    {
        if (externalTransaction)
            return;
        if (++rowsInBatch >= kBatchRows) {
            db.commit();
            inTransaction = false;
            rowsInBatch = 0;
            ensureTransaction();
        }
    }

    void loadStrings()
    {
        if (stringsLoaded)
            return;
        Statement s(h, "SELECT id, value FROM strings");
        while (s.step()) {
            uint32_t id = uint32_t(s.int64(0));
            strings.emplace(s.text(1), id);
            nextString = std::max(nextString, id + 1);
        }
        stringsLoaded = true;
    }

    void loadConfigs()
    {
        if (configsLoaded)
            return;
        Statement s(h, "SELECT id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem FROM launch_configs");
        while (s.step()) {
            LaunchConfig c;
            for (int i = 0; i < 3; ++i) {
                c.grid[i] = int32_t(s.int64(1 + i));
                c.block[i] = int32_t(s.int64(4 + i));
            }
            c.registers = int32_t(s.int64(7));
            c.staticSmem = int32_t(s.int64(8));
            c.dynamicSmem = int32_t(s.int64(9));
            configs.emplace(c, s.int64(0));
        }
        configsLoaded = true;
    }

    int64_t configId(const LaunchConfig& c)
    {
        static const LaunchConfig none;
        if (c == none)
            return 0;
        loadConfigs();
        auto it = configs.find(c);
        if (it != configs.end())
            return it->second;
        insConfig->bind(1, int64_t(c.grid[0])).bind(2, int64_t(c.grid[1])).bind(3, int64_t(c.grid[2]))
            .bind(4, int64_t(c.block[0])).bind(5, int64_t(c.block[1])).bind(6, int64_t(c.block[2]))
            .bind(7, int64_t(c.registers)).bind(8, int64_t(c.staticSmem)).bind(9, int64_t(c.dynamicSmem)).run();
        int64_t id = sqlite3_last_insert_rowid(h);
        configs.emplace(c, id);
        return id;
    }

    size_t instanceIndex(int64_t id, const char* what) const
    {
        if (id < instanceBase || size_t(id - instanceBase) >= instScope.size())
            throw StorageError(std::string(what) + ": unknown scope instance " + std::to_string(id));
        return size_t(id - instanceBase);
    }

    void writeInstance(size_t i, int64_t endNs)
    {
        insInstance->bind(1, instanceBase + int64_t(i)).bind(2, runId).bind(3, instScope[i]).bind(4, instParent[i])
            .bind(5, instStart[i]).bind(6, endNs).run();
        instWritten[i] = 1;
        countRow();
    }

    void requireRun(const char* what) const
    {
        if (!inRun)
            throw StorageError(std::string(what) + ": no run is being written");
    }

    void reset()
    {
        inRun = false;
        tracks.clear();
        trackStats.clear();
        scopes.clear();
        instScope.clear(); instParent.clear(); instStart.clear();
        instGpuStart.clear(); instGpuEnd.clear(); instWritten.clear();
        summary = Summary{};
        seq = 0;
    }
};

Writer::Writer(Database& db) : d(std::make_unique<Impl>(db))
{
    if (db.readOnly())
        throw StorageError(db.path() + ": opened read-only; cannot write a run");
    auto* h = db.handle();
    d->externalTransaction = !sqlite3_get_autocommit(h);
    d->insString = std::make_unique<Statement>(h, "INSERT INTO strings(id, value) VALUES (?, ?)");
    d->insDevice = std::make_unique<Statement>(h, "INSERT OR REPLACE INTO devices(run_id, id, name, properties) VALUES (?,?,?,?)");
    d->insTrack = std::make_unique<Statement>(h, "INSERT INTO tracks(run_id, device_id, stream, kind, name) VALUES (?,?,?,?,?)");
    d->insScope = std::make_unique<Statement>(h, "INSERT INTO scopes(run_id, parent_id, name_id, level_id, depth) VALUES (?,?,?,?,?)");
    d->insInstance = std::make_unique<Statement>(h, "INSERT INTO scope_instances(id, run_id, scope_id, parent_id, start_ns, end_ns) VALUES (?,?,?,?,?,?)");
    d->insConfig = std::make_unique<Statement>(h, "INSERT INTO launch_configs(grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem) VALUES (?,?,?,?,?,?,?,?,?)");
    d->insActivity = std::make_unique<Statement>(h, "INSERT INTO activities(track_id, start_ns, seq, duration_ns, kind, name_id, scope_instance_id, correlation_id, config_id, bytes) VALUES (?,?,?,?,?,?,?,?,?,?)");
    d->insApi = std::make_unique<Statement>(h, "INSERT INTO api_calls(run_id, thread_id, start_ns, duration_ns, name_id, correlation_id) VALUES (?,?,?,?,?,?)");
    d->insMeta = std::make_unique<Statement>(h, "INSERT OR REPLACE INTO metadata(run_id, key, value) VALUES (?,?,?)");
}

Writer::~Writer()
{
    if (!d->inRun && d->inTransaction) {
        try {
            d->commitOwned();
        } catch (...) {
            d->rollbackOwned();
        }
        return;
    }
    if (d->inRun) {
        try {
            finishRun(RunStatus::Failed, 0);
        } catch (...) {
            d->rollbackOwned();
        }
    }
}

int64_t Writer::runId() const { return d->runId; }

int64_t Writer::beginRun(const RunInfo& info)
{
    if (d->inRun)
        throw StorageError("beginRun: a run is already being written");
    d->reset();
    d->ensureTransaction();
    try {
        Statement s(d->h, "INSERT INTO runs(name, workload, variant, preset, config, backend, device, device_properties, "
                          "started_at, origin_ns, duration_ns, status, dropped_records, source_file, writer_pid, writer_host) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?,'writing',?,?,?,?)");
        s.bind(1, info.name).bind(2, info.workload).bind(3, info.variant).bind(4, info.preset)
            .bind(5, info.configJson.empty() ? std::string_view("{}") : std::string_view(info.configJson))
            .bind(6, info.backend).bind(7, info.device)
            .bind(8, info.devicePropertiesJson.empty() ? std::string_view("{}") : std::string_view(info.devicePropertiesJson))
            .bind(9, info.startedAt).bind(10, info.originNs).bind(11, info.durationNs).bind(12, info.droppedRecords)
            .bind(13, info.sourceFile).bind(14, int64_t(::getpid())).bind(15, hostName());
        s.run();
        d->runId = sqlite3_last_insert_rowid(d->h);
        Statement m(d->h, "SELECT coalesce(max(id), 0) + 1 FROM scope_instances");
        if (m.step())
            d->instanceBase = m.int64(0);
        // Make the run visible to readers at once (status 'writing').
        d->commitOwned();
        d->ensureTransaction();
    } catch (...) {
        d->rollbackOwned();
        throw;
    }
    d->inRun = true;
    return d->runId;
}

uint32_t Writer::intern(std::string_view text)
{
    d->loadStrings();
    auto it = d->strings.find(std::string(text));
    if (it != d->strings.end())
        return it->second;
    d->ensureTransaction();
    uint32_t id = d->nextString++;
    d->insString->bind(1, int64_t(id)).bind(2, text).run();
    d->strings.emplace(std::string(text), id);
    return id;
}

void Writer::addDevice(const DeviceInfo& device)
{
    d->requireRun("addDevice");
    d->insDevice->bind(1, d->runId).bind(2, int64_t(device.id)).bind(3, device.name)
        .bind(4, device.propertiesJson.empty() ? std::string_view("{}") : std::string_view(device.propertiesJson)).run();
}

int64_t Writer::addTrack(int32_t deviceId, int64_t stream, TrackKind kind, std::string_view name)
{
    d->requireRun("addTrack");
    Impl::TrackKey key{deviceId, stream, kind};
    auto it = d->tracks.find(key);
    if (it != d->tracks.end())
        return it->second;
    std::string label = name.empty() ? (kind == TrackKind::Kernel ? "Stream " : "Memory, stream ") + std::to_string(stream)
                                     : std::string(name);
    d->insTrack->bind(1, d->runId).bind(2, int64_t(deviceId)).bind(3, stream).bind(4, toString(kind)).bind(5, label).run();
    int64_t id = sqlite3_last_insert_rowid(d->h);
    d->tracks.emplace(key, id);
    d->trackStats[id];
    return id;
}

int64_t Writer::addScope(int64_t parentId, std::string_view name, std::string_view level)
{
    d->requireRun("addScope");
    auto key = std::make_pair(parentId, std::string(name));
    auto it = d->scopes.find(key);
    if (it != d->scopes.end())
        return it->second;
    int depth = 1;
    if (parentId != 0) {
        Statement s(d->h, "SELECT depth FROM scopes WHERE id=? AND run_id=?");
        s.bind(1, parentId).bind(2, d->runId);
        if (!s.step())
            throw StorageError("addScope: unknown parent scope " + std::to_string(parentId));
        depth = int(s.int64(0)) + 1;
    }
    uint32_t nameId = intern(name);
    uint32_t levelId = intern(level);
    d->insScope->bind(1, d->runId).bind(2, parentId).bind(3, nameId).bind(4, levelId).bind(5, int64_t(depth)).run();
    int64_t id = sqlite3_last_insert_rowid(d->h);
    d->scopes.emplace(std::move(key), id);
    return id;
}

int64_t Writer::beginScopeInstance(int64_t scopeId, int64_t parentInstanceId, int64_t startNs)
{
    d->requireRun("beginScopeInstance");
    if (parentInstanceId != 0)
        d->instanceIndex(parentInstanceId, "beginScopeInstance");
    int64_t id = d->instanceBase + int64_t(d->instScope.size());
    d->instScope.push_back(scopeId);
    d->instParent.push_back(parentInstanceId);
    d->instStart.push_back(startNs);
    d->instGpuStart.push_back(INT64_MAX);
    d->instGpuEnd.push_back(INT64_MIN);
    d->instWritten.push_back(0);
    return id;
}

void Writer::endScopeInstance(int64_t instanceId, int64_t endNs)
{
    d->requireRun("endScopeInstance");
    size_t i = d->instanceIndex(instanceId, "endScopeInstance");
    if (d->instWritten[i])
        throw StorageError("endScopeInstance: instance " + std::to_string(instanceId) + " already ended");
    d->ensureTransaction();
    d->writeInstance(i, endNs);
}

int64_t Writer::addScopeInstance(int64_t scopeId, int64_t parentInstanceId, int64_t startNs, int64_t endNs)
{
    int64_t id = beginScopeInstance(scopeId, parentInstanceId, startNs);
    endScopeInstance(id, endNs);
    return id;
}

void Writer::addActivity(const Activity& a)
{
    d->requireRun("addActivity");
    int64_t scopeId = 0;
    if (a.scopeInstanceId != 0) {
        size_t i = d->instanceIndex(a.scopeInstanceId, "addActivity");
        scopeId = d->instScope[i];
        d->instGpuStart[i] = std::min(d->instGpuStart[i], a.startNs);
        d->instGpuEnd[i] = std::max(d->instGpuEnd[i], a.endNs);
    }
    auto ts = d->trackStats.find(a.trackId);
    if (ts == d->trackStats.end())
        throw StorageError("addActivity: unknown track " + std::to_string(a.trackId));
    int64_t duration = std::max<int64_t>(0, a.endNs - a.startNs);
    ts->second.count += 1;
    ts->second.maxDuration = std::max(ts->second.maxDuration, duration);
    d->summary.add(scopeId, a.nameId, a.kind, a.startNs, a.startNs + duration);
    d->ensureTransaction();
    d->insActivity->bind(1, a.trackId).bind(2, a.startNs).bind(3, d->seq++).bind(4, duration)
        .bind(5, int64_t(a.kind)).bind(6, a.nameId).bind(7, a.scopeInstanceId).bind(8, a.correlationId)
        .bind(9, d->configId(a.config)).bind(10, a.bytes).run();
    d->countRow();
}

void Writer::addApiCall(const ApiCall& c)
{
    d->requireRun("addApiCall");
    d->ensureTransaction();
    d->insApi->bind(1, d->runId).bind(2, c.threadId).bind(3, c.startNs).bind(4, std::max<int64_t>(0, c.endNs - c.startNs))
        .bind(5, c.nameId).bind(6, c.correlationId).run();
    d->countRow();
}

void Writer::setMetadata(std::string_view key, std::string_view value)
{
    d->requireRun("setMetadata");
    d->ensureTransaction();
    d->insMeta->bind(1, d->runId).bind(2, key).bind(3, value).run();
}

void Writer::setDroppedRecords(int64_t dropped)
{
    d->requireRun("setDroppedRecords");
    d->ensureTransaction();
    Statement s(d->h, "UPDATE runs SET dropped_records=? WHERE id=?");
    s.bind(1, dropped).bind(2, d->runId).run();
}

void Writer::finishRun(RunStatus status, int64_t durationNs)
{
    d->requireRun("finishRun");
    try {
        d->ensureTransaction();
        // Instances never ended (interrupted capture) end at their last activity or their start.
        size_t n = d->instScope.size();
        for (size_t i = 0; i < n; ++i)
            if (!d->instWritten[i])
                d->writeInstance(i, std::max(d->instStart[i], d->instGpuEnd[i] == INT64_MIN ? d->instStart[i] : d->instGpuEnd[i]));
        // GPU spans: children have larger ids than their parents, so one backward pass propagates.
        for (size_t i = n; i-- > 0;) {
            int64_t p = d->instParent[i];
            if (p != 0 && d->instGpuStart[i] != INT64_MAX) {
                size_t pi = size_t(p - d->instanceBase);
                d->instGpuStart[pi] = std::min(d->instGpuStart[pi], d->instGpuStart[i]);
                d->instGpuEnd[pi] = std::max(d->instGpuEnd[pi], d->instGpuEnd[i]);
            }
        }
        Statement span(d->h, "UPDATE scope_instances SET gpu_start_ns=?, gpu_end_ns=? WHERE id=?");
        for (size_t i = 0; i < n; ++i)
            if (d->instGpuStart[i] != INT64_MAX)
                span.bind(1, d->instGpuStart[i]).bind(2, d->instGpuEnd[i]).bind(3, d->instanceBase + int64_t(i)).run();
        Statement tr(d->h, "UPDATE tracks SET count=?, max_duration_ns=? WHERE id=?");
        for (auto& [id, st] : d->trackStats)
            tr.bind(1, st.count).bind(2, st.maxDuration).bind(3, id).run();
        d->summary.write(d->h, d->runId);
        Statement r(d->h, "UPDATE runs SET status=?, duration_ns=?, writer_pid=0 WHERE id=?");
        r.bind(1, toString(status)).bind(2, durationNs).bind(3, d->runId).run();
        d->commitOwned();
    } catch (...) {
        d->rollbackOwned();
        d->reset();
        throw;
    }
    d->reset();
}

void Writer::discardRun()
{
    if (!d->inRun)
        return;
    if (d->externalTransaction) {
        // The caller rolls its transaction back; nothing of the run was committed.
        d->reset();
        return;
    }
    d->rollbackOwned();
    int64_t run = d->runId;
    d->reset();
    d->db.begin();
    try {
        const char* sqls[] = {
            "DELETE FROM activities WHERE track_id IN (SELECT id FROM tracks WHERE run_id=?1)",
            "DELETE FROM tracks WHERE run_id=?1", "DELETE FROM scope_instances WHERE run_id=?1",
            "DELETE FROM scopes WHERE run_id=?1", "DELETE FROM api_calls WHERE run_id=?1",
            "DELETE FROM metadata WHERE run_id=?1", "DELETE FROM totals WHERE run_id=?1",
            "DELETE FROM devices WHERE run_id=?1", "DELETE FROM runs WHERE id=?1"};
        for (const char* sql : sqls) {
            Statement s(d->h, sql);
            s.bind(1, run).run();
        }
        d->db.commit();
    } catch (...) {
        d->db.rollback();
        throw;
    }
    // Interned strings of the discarded run stay: they are shared and cheap.
    d->stringsLoaded = false;
    d->strings.clear();
    d->nextString = 1;
    d->configsLoaded = false;
    d->configs.clear();
}

void Writer::recoverRun(Database& db, int64_t runId)
{
    sqlite3* h = db.handle();
    db.begin();
    try {
        Summary summary;
        std::unordered_map<int64_t, std::pair<int64_t, int64_t>> spans;
        std::unordered_map<int64_t, int64_t> instScope, instParent;
        {
            Statement s(h, "SELECT id, scope_id, parent_id FROM scope_instances WHERE run_id=?");
            s.bind(1, runId);
            while (s.step()) {
                instScope[s.int64(0)] = s.int64(1);
                instParent[s.int64(0)] = s.int64(2);
            }
        }
        {
            Statement s(h, "SELECT a.start_ns, a.duration_ns, a.kind, a.name_id, a.scope_instance_id FROM activities a "
                           "JOIN tracks t ON t.id = a.track_id WHERE t.run_id=?");
            s.bind(1, runId);
            while (s.step()) {
                int64_t start = s.int64(0), end = start + s.int64(1), inst = s.int64(4);
                int64_t scope = 0;
                if (auto it = instScope.find(inst); it != instScope.end()) {
                    scope = it->second;
                    auto [sp, fresh] = spans.try_emplace(inst, start, end);
                    if (!fresh) {
                        sp->second.first = std::min(sp->second.first, start);
                        sp->second.second = std::max(sp->second.second, end);
                    }
                }
                summary.add(scope, uint32_t(s.int64(3)), ActivityKind(s.int64(2)), start, end);
            }
        }
        std::vector<int64_t> ids;
        for (auto& [id, p] : instParent)
            ids.push_back(id);
        std::sort(ids.rbegin(), ids.rend());
        for (int64_t id : ids) {
            auto sp = spans.find(id);
            int64_t p = instParent[id];
            if (sp == spans.end() || p == 0)
                continue;
            auto [pp, fresh] = spans.try_emplace(p, sp->second);
            if (!fresh) {
                pp->second.first = std::min(pp->second.first, sp->second.first);
                pp->second.second = std::max(pp->second.second, sp->second.second);
            }
        }
        Statement span(h, "UPDATE scope_instances SET gpu_start_ns=?, gpu_end_ns=? WHERE id=?");
        for (auto& [id, sp] : spans)
            span.bind(1, sp.first).bind(2, sp.second).bind(3, id).run();
        Statement tr(h, "UPDATE tracks SET count=(SELECT count(*) FROM activities WHERE track_id=tracks.id), "
                        "max_duration_ns=(SELECT coalesce(max(duration_ns),0) FROM activities WHERE track_id=tracks.id) WHERE run_id=?");
        tr.bind(1, runId).run();
        summary.write(h, runId);
        Statement r(h, "UPDATE runs SET status='incomplete', writer_pid=0 WHERE id=?");
        r.bind(1, runId).run();
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

}  // namespace wt
