#include "sqltables.h"

#include "storage/activitychunkcursor.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/scopepaths.h"
#include "storage/storageerror.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace wt::sql {

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// What the tables of one connection share: the file (a borrowed Database over the host
// connection, opened when a table is first used), its Reader, and the chunk counter.
struct Connection {
    sqlite3* db = nullptr;
    std::unique_ptr<Database> database;
    std::unique_ptr<Reader> reader;
    int64_t chunksRead = 0;

    Reader& open()
    {
        if (!reader) {
            const char* file = sqlite3_db_filename(db, "main");
            database = std::make_unique<Database>(db, file ? file : "");
            reader = std::make_unique<Reader>(*database);
        }
        return *reader;
    }
};

enum class TableKind { Activities, Kernels, ScopeInstances, ApiCalls };

struct Table : sqlite3_vtab {
    Connection* connection = nullptr;
    TableKind kind = TableKind::Activities;
};

// --- columns ------------------------------------------------------------------------------

enum ActivityColumn {
    A_RunId, A_TrackId, A_Device, A_Stream, A_Kind, A_Name, A_StartNs, A_EndNs, A_DurationNs, A_ScopeInstanceId,
    A_ScopePath, A_CorrelationId, A_GridX, A_GridY, A_GridZ, A_BlockX, A_BlockY, A_BlockZ, A_Registers,
    A_StaticSmem, A_DynamicSmem, A_Bytes, A_Seq
};
constexpr const char* kActivitySchema =
    "CREATE TABLE x(run_id INTEGER, track_id INTEGER, device INTEGER, stream INTEGER, kind TEXT, name TEXT, "
    "start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, scope_instance_id INTEGER, scope_path TEXT, "
    "correlation_id INTEGER, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, "
    "block_z INTEGER, registers_per_thread INTEGER, static_shared_memory INTEGER, dynamic_shared_memory INTEGER, "
    "bytes INTEGER, seq INTEGER)";

enum ScopeInstanceColumn {
    S_RunId, S_Id, S_ScopeId, S_ParentId, S_Level, S_Name, S_Path, S_Depth, S_StartNs, S_EndNs, S_DurationNs,
    S_GpuStartNs, S_GpuEndNs, S_ThreadId
};
constexpr const char* kScopeInstanceSchema =
    "CREATE TABLE x(run_id INTEGER, id INTEGER, scope_id INTEGER, parent_id INTEGER, level TEXT, name TEXT, "
    "path TEXT, depth INTEGER, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, gpu_start_ns INTEGER, "
    "gpu_end_ns INTEGER, thread_id INTEGER)";

enum ApiCallColumn { C_RunId, C_ThreadId, C_Name, C_StartNs, C_EndNs, C_DurationNs, C_CorrelationId };
constexpr const char* kApiCallSchema =
    "CREATE TABLE x(run_id INTEGER, thread_id INTEGER, name TEXT, start_ns INTEGER, end_ns INTEGER, "
    "duration_ns INTEGER, correlation_id INTEGER)";

const char* schemaOf(TableKind kind)
{
    switch (kind) {
    case TableKind::Activities:
    case TableKind::Kernels:
        return kActivitySchema;
    case TableKind::ScopeInstances:
        return kScopeInstanceSchema;
    case TableKind::ApiCalls:
        return kApiCallSchema;
    }
    return kActivitySchema;
}

// idxNum flags: which expensive columns a query reads (built only then).
constexpr int kWantsScopePath = 1;   // activities.scope_path
constexpr int kWantsGpuSpan = 2;     // scope_instances.gpu_start_ns / gpu_end_ns
constexpr int kWantsPaths = 4;       // scope_instances.path

bool columnUsed(sqlite3_uint64 colUsed, int column)
{
    return (colUsed >> std::min(column, 63)) & 1;
}

// --- the constraints a table pushes down ----------------------------------------------------

// Which (column, operator) pairs reach xFilter, encoded in idxStr as two characters each:
// 'a' + column, then the operator: '=' '<' '{' (<=) '>' '}' (>=).
char opChar(unsigned char op)
{
    switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return '=';
    case SQLITE_INDEX_CONSTRAINT_LT: return '<';
    case SQLITE_INDEX_CONSTRAINT_LE: return '{';
    case SQLITE_INDEX_CONSTRAINT_GT: return '>';
    case SQLITE_INDEX_CONSTRAINT_GE: return '}';
    default: return 0;
    }
}

// Whether a table narrows its reading by a constraint on `column` with `op`.
bool pushable(TableKind kind, int column, char op)
{
    switch (kind) {
    case TableKind::Activities:
    case TableKind::Kernels:
        if (column == A_RunId || column == A_TrackId || column == A_Device || column == A_Stream || column == A_Kind)
            return op == '=';
        return column == A_StartNs || column == A_EndNs;
    case TableKind::ScopeInstances:
        return (column == S_RunId || column == S_Id) && op == '=';
    case TableKind::ApiCalls:
        return column == C_RunId && op == '=';
    }
    return false;
}

// An inclusive range of an integer column; empty when lo > hi.
struct Range {
    int64_t lo = kMin;
    int64_t hi = kMax;
    bool empty() const { return lo > hi; }
};

// Narrows `range` by `column op value`, conservatively: SQLite checks every constraint again
// on the rows we return (we never set omit), so a value we cannot use exactly (text, a
// fraction) only narrows as far as is safe. Returns false when no row can match (NULL).
bool narrow(Range& range, char op, sqlite3_value* value)
{
    int type = sqlite3_value_type(value);
    if (type == SQLITE_NULL)
        return false;   // a comparison with NULL is never true
    int64_t lo = kMin, hi = kMax;
    if (type == SQLITE_INTEGER) {
        int64_t v = sqlite3_value_int64(value);
        switch (op) {
        case '=': lo = hi = v; break;
        case '<': hi = v == kMin ? kMin : v - 1; if (v == kMin) lo = kMax; break;
        case '{': hi = v; break;
        case '>': lo = v == kMax ? kMax : v + 1; if (v == kMax) hi = kMin; break;
        case '}': lo = v; break;
        }
    } else if (type == SQLITE_FLOAT) {
        double v = sqlite3_value_double(value);
        if (std::isnan(v))
            return false;
        // Beyond +-2^62 the stored times (|t| < 2^61) are all on one side: clamp there.
        double c = std::clamp(v, -0x1p62, 0x1p62);
        switch (op) {
        case '=':
            if (c != std::floor(c))
                return false;
            lo = hi = int64_t(c);
            break;
        case '<':
        case '{': hi = int64_t(std::ceil(c)); break;
        case '>':
        case '}': lo = int64_t(std::floor(c)); break;
        }
    } else {
        return true;   // text or blob: left to SQLite
    }
    range.lo = std::max(range.lo, lo);
    range.hi = std::min(range.hi, hi);
    return true;
}

// What an activities cursor reads: the constraints of one xFilter call.
struct ActivityFilter {
    Range run, track, device, stream, start, end;
    std::optional<std::string> kind;   // "kernel", "memcpy", "memset"
    bool none = false;                  // a constraint no row can meet
};

int bestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info)
{
    auto* table = static_cast<Table*>(vtab);
    std::string idx;
    int argc = 0;
    bool run = false, track = false, lower = false, upper = false, instance = false;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        char op = opChar(c.op);
        if (!c.usable || !op || c.iColumn < 0 || !pushable(table->kind, c.iColumn, op))
            continue;
        info->aConstraintUsage[i].argvIndex = ++argc;
        info->aConstraintUsage[i].omit = 0;
        idx += char('a' + c.iColumn);
        idx += op;
        run |= c.iColumn == 0 && op == '=';
        bool timeColumn = (table->kind == TableKind::Activities || table->kind == TableKind::Kernels) &&
                          (c.iColumn == A_StartNs || c.iColumn == A_EndNs);
        track |= !timeColumn && c.iColumn != 0;
        lower |= timeColumn && (op == '>' || op == '}' || op == '=');
        upper |= timeColumn && (op == '<' || op == '{' || op == '=');
        instance |= table->kind == TableKind::ScopeInstances && c.iColumn == S_Id;
    }
    double rows = 1e7;
    if (run)
        rows /= 10;
    if (track)
        rows /= 4;
    if (lower && upper)
        rows /= 1000;
    else if (lower || upper)
        rows /= 2;
    if (instance)
        rows = 1;   // one instance by id (a join from kernels.scope_instance_id)
    info->estimatedCost = rows;
    info->estimatedRows = sqlite3_int64(rows);
    int flags = 0;
    if ((table->kind == TableKind::Activities || table->kind == TableKind::Kernels) && columnUsed(info->colUsed, A_ScopePath))
        flags |= kWantsScopePath;
    if (table->kind == TableKind::ScopeInstances) {
        if (columnUsed(info->colUsed, S_GpuStartNs) || columnUsed(info->colUsed, S_GpuEndNs))
            flags |= kWantsGpuSpan;
        if (columnUsed(info->colUsed, S_Path))
            flags |= kWantsPaths;
    }
    info->idxNum = flags;
    if (!idx.empty()) {
        info->idxStr = sqlite3_mprintf("%s", idx.c_str());
        if (!info->idxStr)
            return SQLITE_NOMEM;
        info->needToFreeIdxStr = 1;
    }
    return SQLITE_OK;
}

// --- cursors --------------------------------------------------------------------------------

struct Cursor : sqlite3_vtab_cursor {
    virtual ~Cursor() = default;
    virtual void filter(int flags, const char* idx, int argc, sqlite3_value** argv) = 0;
    virtual void next() = 0;
    virtual bool eof() const = 0;
    virtual void column(sqlite3_context* ctx, int column) = 0;
    int64_t rowid = 0;

    Table& table() const { return *static_cast<Table*>(pVtab); }
    Reader& reader() const { return table().connection->open(); }
};

void resultText(sqlite3_context* ctx, const std::string& text)
{
    sqlite3_result_text(ctx, text.data(), int(text.size()), SQLITE_TRANSIENT);
}

// Interned strings live as long as the connection's Reader (never refreshed here): SQLite may
// point at them instead of copying each one.
void resultInterned(sqlite3_context* ctx, const std::string& text)
{
    sqlite3_result_text(ctx, text.data(), int(text.size()), SQLITE_STATIC);
}

const std::string kEmpty;

const std::string& stringOf(const std::unordered_map<uint32_t, std::string>& strings, uint32_t id)
{
    auto it = strings.find(id);
    return it == strings.end() ? kEmpty : it->second;
}

// The runs a cursor visits: all of them, or those in `range`.
std::vector<int64_t> runsIn(const Reader& reader, const Range& range)
{
    std::vector<int64_t> out;
    if (range.empty())
        return out;
    for (const RunInfo& r : reader.runs())
        if (r.id >= range.lo && r.id <= range.hi)
            out.push_back(r.id);
    return out;
}

// activities and kernels: run by run, track by track, chunk by chunk; the chunk index skips
// the chunks outside the time constraints, the rows of the chunks read are filtered exactly.
class ActivityCursor final : public Cursor {
public:
    void filter(int flags, const char* idx, int argc, sqlite3_value** argv) override
    {
        m_filter = ActivityFilter{};
        m_wantPaths = flags & kWantsScopePath;
        m_kernelsOnly = table().kind == TableKind::Kernels;
        for (int i = 0; i < argc && idx && idx[2 * i]; ++i) {
            int column = idx[2 * i] - 'a';
            char op = idx[2 * i + 1];
            Range* range = nullptr;
            switch (column) {
            case A_RunId: range = &m_filter.run; break;
            case A_TrackId: range = &m_filter.track; break;
            case A_Device: range = &m_filter.device; break;
            case A_Stream: range = &m_filter.stream; break;
            case A_StartNs: range = &m_filter.start; break;
            case A_EndNs: range = &m_filter.end; break;
            case A_Kind:
                if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
                    m_filter.none = true;
                } else if (sqlite3_value_type(argv[i]) == SQLITE_TEXT) {
                    const char* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[i]));
                    std::string kind = text ? text : "";
                    if (m_filter.kind && *m_filter.kind != kind)
                        m_filter.none = true;
                    m_filter.kind = kind;
                }
                continue;
            }
            if (range && !narrow(*range, op, argv[i]))
                m_filter.none = true;
        }
        if (m_filter.kind && *m_filter.kind != "kernel" && *m_filter.kind != "memcpy" && *m_filter.kind != "memset")
            m_filter.none = true;
        if (m_kernelsOnly && m_filter.kind && *m_filter.kind != "kernel")
            m_filter.none = true;
        if (m_kernelsOnly)
            m_filter.kind = "kernel";
        if (m_filter.start.empty() || m_filter.end.empty())
            m_filter.none = true;
        m_kindCode = !m_filter.kind ? -1 : *m_filter.kind == "kernel" ? 0 : *m_filter.kind == "memcpy" ? 1 : 2;
        // An activity lies within its chunk's [start_ns, end_ns]: a chunk can hold a row with
        // start <= start.hi and end >= end.lo only if its first start <= min(start.hi, end.hi)
        // and its latest end >= max(end.lo, start.lo) (durations are never negative).
        m_maxStart = std::min(m_filter.start.hi, m_filter.end.hi);
        m_minEnd = std::max(m_filter.end.lo, m_filter.start.lo);
        m_runs = m_filter.none ? std::vector<int64_t>{} : runsIn(reader(), m_filter.run);
        m_runAt = 0;
        m_tracks.clear();
        m_trackAt = 0;
        m_chunks.reset();
        m_rows.clear();
        m_rowAt = 0;
        m_eof = false;
        rowid = 0;
        m_strings = &reader().strings();
        if (!m_runs.empty())
            enterRun();
        advance();
    }

    void next() override
    {
        ++m_rowAt;
        ++rowid;
        advance();
    }

    bool eof() const override { return m_eof; }

    void column(sqlite3_context* ctx, int column) override
    {
        const StoredActivity& a = m_rows[m_rowAt];
        const Track& t = m_tracks[m_trackAt];
        switch (column) {
        case A_RunId: sqlite3_result_int64(ctx, t.runId); break;
        case A_TrackId: sqlite3_result_int64(ctx, t.id); break;
        case A_Device: sqlite3_result_int64(ctx, t.deviceId); break;
        case A_Stream: sqlite3_result_int64(ctx, t.stream); break;
        case A_Kind: {
            std::string_view k = toString(ActivityKind(a.kind));
            sqlite3_result_text(ctx, k.data(), int(k.size()), SQLITE_STATIC);
            break;
        }
        case A_Name: resultInterned(ctx, stringOf(*m_strings, a.nameId)); break;
        case A_StartNs: sqlite3_result_int64(ctx, a.startNs); break;
        case A_EndNs: sqlite3_result_int64(ctx, a.startNs + a.durationNs); break;
        case A_DurationNs: sqlite3_result_int64(ctx, a.durationNs); break;
        case A_ScopeInstanceId: sqlite3_result_int64(ctx, a.scopeInstanceId); break;
        case A_ScopePath: {
            auto it = m_paths.find(a.scopeInstanceId);
            if (it == m_paths.end())
                sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
            else
                resultText(ctx, it->second);
            break;
        }
        case A_CorrelationId: sqlite3_result_int64(ctx, a.correlationId); break;
        case A_GridX: case A_GridY: case A_GridZ:
            sqlite3_result_int64(ctx, config(a.configId).grid[column - A_GridX]);
            break;
        case A_BlockX: case A_BlockY: case A_BlockZ:
            sqlite3_result_int64(ctx, config(a.configId).block[column - A_BlockX]);
            break;
        case A_Registers: sqlite3_result_int64(ctx, config(a.configId).registers); break;
        case A_StaticSmem: sqlite3_result_int64(ctx, config(a.configId).staticSmem); break;
        case A_DynamicSmem: sqlite3_result_int64(ctx, config(a.configId).dynamicSmem); break;
        case A_Bytes: sqlite3_result_int64(ctx, a.bytes); break;
        case A_Seq: sqlite3_result_int64(ctx, a.seq); break;
        default: sqlite3_result_null(ctx); break;
        }
    }

private:
    // The launch configuration of a row; the columns of one row ask for the same one in turn.
    const LaunchConfig& config(int64_t configId)
    {
        if (!m_config || configId != m_configId) {
            m_config = &reader().launchConfig(configId);
            m_configId = configId;
        }
        return *m_config;
    }

    bool matches(const StoredActivity& a) const
    {
        int64_t end = a.startNs + a.durationNs;
        return a.startNs >= m_filter.start.lo && a.startNs <= m_filter.start.hi && end >= m_filter.end.lo &&
               end <= m_filter.end.hi && (m_kindCode < 0 || a.kind == m_kindCode);
    }

    bool trackMatches(const Track& t) const
    {
        if (t.id < m_filter.track.lo || t.id > m_filter.track.hi || t.deviceId < m_filter.device.lo ||
            t.deviceId > m_filter.device.hi || t.stream < m_filter.stream.lo || t.stream > m_filter.stream.hi)
            return false;
        if (m_filter.kind)
            return (t.kind == TrackKind::Kernel) == (*m_filter.kind == "kernel");
        return true;
    }

    void enterRun()
    {
        int64_t runId = m_runs[m_runAt];
        m_tracks.clear();
        for (Track& t : reader().tracks(runId))
            if (trackMatches(t))
                m_tracks.push_back(std::move(t));
        m_trackAt = 0;
        m_chunks.reset();
        m_rows.clear();
        m_rowAt = 0;
        m_paths.clear();
        if (m_wantPaths && !m_tracks.empty()) {
            // As scopeInstancePaths(), but names come from the loaded strings: Reader::string()
            // reloads them on an unknown id, which would free names SQLite may still point at.
            const ScopePaths paths(reader().scopes(runId), [&](uint32_t id) { return stringOf(*m_strings, id); });
            for (const ScopeInstance& si : reader().scopeInstances(runId))
                m_paths.emplace(si.id, paths.path(si.scopeId));
        }
    }

    // Moves to the first matching row at or after (run, track, chunk, row) position.
    void advance()
    {
        Connection& connection = *table().connection;
        for (;;) {
            while (m_rowAt < m_rows.size()) {
                if (matches(m_rows[m_rowAt]))
                    return;
                ++m_rowAt;
            }
            if (m_chunks && m_chunks->next(m_rows)) {
                ++connection.chunksRead;
                m_rowAt = 0;
                continue;
            }
            if (m_chunks) {
                m_chunks.reset();
                ++m_trackAt;
            }
            if (m_runAt < m_runs.size() && m_trackAt < m_tracks.size()) {
                m_chunks = std::make_unique<ActivityChunkCursor>(*connection.database, m_tracks[m_trackAt].id,
                                                                 m_maxStart, m_minEnd);
                m_rows.clear();
                m_rowAt = 0;
                continue;
            }
            if (m_runAt + 1 < m_runs.size()) {
                ++m_runAt;
                enterRun();
                continue;
            }
            m_runAt = m_runs.size();
            m_eof = true;
            return;
        }
    }

    ActivityFilter m_filter;
    bool m_wantPaths = false;
    bool m_kernelsOnly = false;
    int m_kindCode = -1;   // ActivityKind a row must have, -1 = any
    int64_t m_maxStart = kMax;
    int64_t m_minEnd = kMin;
    std::vector<int64_t> m_runs;
    size_t m_runAt = 0;
    std::vector<Track> m_tracks;
    size_t m_trackAt = 0;
    std::unique_ptr<ActivityChunkCursor> m_chunks;
    std::vector<StoredActivity> m_rows;
    size_t m_rowAt = 0;
    bool m_eof = true;
    std::unordered_map<int64_t, std::string> m_paths;
    const std::unordered_map<uint32_t, std::string>* m_strings = nullptr;
    const LaunchConfig* m_config = nullptr;   // of m_configId (Reader's cache: stable)
    int64_t m_configId = 0;
};

// scope_instances and api_calls: one run at a time, materialized by the Reader (they are
// read whole: no index by time exists for them). The last run read is kept, so a join that
// looks instances up by (run_id, id) row after row reads the run once.
template <typename Row>
class RunRowsCursor : public Cursor {
public:
    void filter(int flags, const char* idx, int argc, sqlite3_value** argv) override
    {
        Range run;
        m_id = Range{};
        bool none = false;
        for (int i = 0; i < argc && idx && idx[2 * i]; ++i) {
            int column = idx[2 * i] - 'a';
            Range& range = column == 0 ? run : m_id;   // run_id, or scope_instances.id
            if (!narrow(range, idx[2 * i + 1], argv[i]))
                none = true;
        }
        m_flags = flags;
        m_runs = none || m_id.empty() ? std::vector<int64_t>{} : runsIn(reader(), run);
        m_runAt = 0;
        rowid = 0;
        m_strings = &reader().strings();
        enter();
        settle();
    }
    void next() override
    {
        ++m_rowAt;
        ++rowid;
        settle();
    }
    bool eof() const override { return m_runAt >= m_runs.size(); }

protected:
    virtual void load(int64_t runId) = 0;
    // The rows of the loaded run that m_id allows: all of them unless a table narrows by id.
    virtual std::pair<size_t, size_t> rowsInRange() const { return {0, m_rows.size()}; }
    int64_t runId() const { return m_runs[m_runAt]; }
    int m_flags = 0;
    Range m_id;
    std::vector<Row> m_rows;
    size_t m_rowAt = 0;
    const std::unordered_map<uint32_t, std::string>* m_strings = nullptr;

private:
    void enter()
    {
        if (m_runAt >= m_runs.size())
            return;
        int64_t run = m_runs[m_runAt];
        if (run != m_loadedRun || (m_flags & ~m_loadedFlags)) {
            m_loadedRun = 0;
            m_rows.clear();
            load(run);
            m_loadedRun = run;
            m_loadedFlags = m_flags;
        }
        std::tie(m_rowAt, m_end) = rowsInRange();
    }
    void settle()
    {
        while (m_runAt < m_runs.size() && m_rowAt >= m_end) {
            ++m_runAt;
            enter();
        }
    }
    std::vector<int64_t> m_runs;
    size_t m_runAt = 0;
    size_t m_end = 0;
    int64_t m_loadedRun = 0;   // run whose rows m_rows holds (0 = none)
    int m_loadedFlags = 0;
};

struct InstanceRow {
    ScopeInstance instance;
    int64_t gpuStartNs = kMax;   // kMax: no activity under it
    int64_t gpuEndNs = kMin;
};

class ScopeInstanceCursor final : public RunRowsCursor<InstanceRow> {
public:
    void column(sqlite3_context* ctx, int column) override
    {
        const InstanceRow& row = m_rows[m_rowAt];
        const ScopeInstance& si = row.instance;
        auto node = m_nodes.find(si.scopeId);
        switch (column) {
        case S_RunId: sqlite3_result_int64(ctx, runId()); break;
        case S_Id: sqlite3_result_int64(ctx, si.id); break;
        case S_ScopeId: sqlite3_result_int64(ctx, si.scopeId); break;
        case S_ParentId: sqlite3_result_int64(ctx, si.parentId); break;
        case S_Level: resultInterned(ctx, node == m_nodes.end() ? kEmpty : stringOf(*m_strings, node->second.levelId)); break;
        case S_Name: resultInterned(ctx, node == m_nodes.end() ? kEmpty : stringOf(*m_strings, node->second.nameId)); break;
        case S_Path: resultText(ctx, m_paths.path(si.scopeId)); break;
        case S_Depth: sqlite3_result_int64(ctx, node == m_nodes.end() ? 0 : node->second.depth); break;
        case S_StartNs: sqlite3_result_int64(ctx, si.startNs); break;
        case S_EndNs: sqlite3_result_int64(ctx, si.endNs); break;
        case S_DurationNs: sqlite3_result_int64(ctx, si.endNs - si.startNs); break;
        case S_GpuStartNs:
        case S_GpuEndNs:
            if (row.gpuStartNs > row.gpuEndNs)
                sqlite3_result_null(ctx);
            else
                sqlite3_result_int64(ctx, column == S_GpuStartNs ? row.gpuStartNs : row.gpuEndNs);
            break;
        case S_ThreadId:
            if (si.threadId == 0)
                sqlite3_result_null(ctx);
            else
                sqlite3_result_int64(ctx, si.threadId);
            break;
        default: sqlite3_result_null(ctx); break;
        }
    }

private:
    std::pair<size_t, size_t> rowsInRange() const override
    {
        auto lower = std::lower_bound(m_rows.begin(), m_rows.end(), m_id.lo,
                                      [](const InstanceRow& r, int64_t id) { return r.instance.id < id; });
        auto upper = std::upper_bound(lower, m_rows.end(), m_id.hi,
                                      [](int64_t id, const InstanceRow& r) { return id < r.instance.id; });
        return {size_t(lower - m_rows.begin()), size_t(upper - m_rows.begin())};
    }

    void load(int64_t runId) override
    {
        const Reader& r = reader();
        std::vector<ScopeNode> nodes = r.scopes(runId);
        m_nodes.clear();
        for (const ScopeNode& n : nodes)
            m_nodes.emplace(n.id, n);
        m_paths = (m_flags & kWantsPaths) ? ScopePaths(nodes, [&](uint32_t id) { return stringOf(*m_strings, id); })
                                          : ScopePaths();
        std::vector<ScopeInstance> instances = r.scopeInstances(runId);   // sorted by id
        m_rows.resize(instances.size());
        std::unordered_map<int64_t, size_t> index;
        for (size_t i = 0; i < instances.size(); ++i) {
            m_rows[i] = InstanceRow{instances[i]};
            if (m_flags & kWantsGpuSpan)
                index.emplace(instances[i].id, i);
        }
        if (!(m_flags & kWantsGpuSpan))
            return;
        // The GPU span: first start to last end of the activities under an instance, its
        // children's included (a parent's id is smaller than its children's: one pass down).
        r.forEachActivityBlock(runId, [&](const Track&, const StoredActivity* rows, size_t count) {
            for (size_t i = 0; i < count; ++i) {
                auto it = index.find(rows[i].scopeInstanceId);
                if (it == index.end())
                    continue;
                InstanceRow& row = m_rows[it->second];
                row.gpuStartNs = std::min(row.gpuStartNs, rows[i].startNs);
                row.gpuEndNs = std::max(row.gpuEndNs, rows[i].startNs + rows[i].durationNs);
            }
            return true;
        });
        for (size_t i = m_rows.size(); i-- > 0;) {
            auto parent = index.find(m_rows[i].instance.parentId);
            if (parent == index.end() || m_rows[i].gpuStartNs > m_rows[i].gpuEndNs)
                continue;
            InstanceRow& p = m_rows[parent->second];
            p.gpuStartNs = std::min(p.gpuStartNs, m_rows[i].gpuStartNs);
            p.gpuEndNs = std::max(p.gpuEndNs, m_rows[i].gpuEndNs);
        }
    }
    std::unordered_map<int64_t, ScopeNode> m_nodes;
    ScopePaths m_paths;
};

class ApiCallCursor final : public RunRowsCursor<ApiCall> {
public:
    void column(sqlite3_context* ctx, int column) override
    {
        const ApiCall& c = m_rows[m_rowAt];
        switch (column) {
        case C_RunId: sqlite3_result_int64(ctx, runId()); break;
        case C_ThreadId: sqlite3_result_int64(ctx, c.threadId); break;
        case C_Name: resultInterned(ctx, stringOf(*m_strings, c.nameId)); break;
        case C_StartNs: sqlite3_result_int64(ctx, c.startNs); break;
        case C_EndNs: sqlite3_result_int64(ctx, c.endNs); break;
        case C_DurationNs: sqlite3_result_int64(ctx, c.endNs - c.startNs); break;
        case C_CorrelationId: sqlite3_result_int64(ctx, c.correlationId); break;
        default: sqlite3_result_null(ctx); break;
        }
    }

private:
    void load(int64_t runId) override { m_rows = reader().apiCalls(runId); }
};

// --- the sqlite3_module callbacks -------------------------------------------------------------

// Runs `fn`, turning exceptions into an SQLite error on the table (one line: StorageError's).
template <typename Fn>
int guarded(sqlite3_vtab* vtab, Fn&& fn)
{
    try {
        fn();
        return SQLITE_OK;
    } catch (const std::bad_alloc&) {
        return SQLITE_NOMEM;
    } catch (const std::exception& e) {
        sqlite3_free(vtab->zErrMsg);
        vtab->zErrMsg = sqlite3_mprintf("%s", e.what());
        return SQLITE_ERROR;
    }
}

int xConnect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** error)
{
    auto* info = static_cast<std::pair<Connection*, TableKind>*>(aux);
    int rc = sqlite3_declare_vtab(db, schemaOf(info->second));
    if (rc != SQLITE_OK)
        return rc;
    try {
        info->first->open();   // a file that is not ours is refused here, with one line
    } catch (const std::exception& e) {
        *error = sqlite3_mprintf("%s", e.what());
        return SQLITE_ERROR;
    }
    auto* table = new (std::nothrow) Table();
    if (!table)
        return SQLITE_NOMEM;
    table->connection = info->first;
    table->kind = info->second;
    *out = table;
    return SQLITE_OK;
}

int xDisconnect(sqlite3_vtab* vtab)
{
    delete static_cast<Table*>(vtab);
    return SQLITE_OK;
}

int xOpen(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out)
{
    Cursor* cursor = nullptr;
    switch (static_cast<Table*>(vtab)->kind) {
    case TableKind::Activities:
    case TableKind::Kernels: cursor = new (std::nothrow) ActivityCursor(); break;
    case TableKind::ScopeInstances: cursor = new (std::nothrow) ScopeInstanceCursor(); break;
    case TableKind::ApiCalls: cursor = new (std::nothrow) ApiCallCursor(); break;
    }
    if (!cursor)
        return SQLITE_NOMEM;
    *out = cursor;
    return SQLITE_OK;
}

int xClose(sqlite3_vtab_cursor* cursor)
{
    delete static_cast<Cursor*>(cursor);
    return SQLITE_OK;
}

int xFilter(sqlite3_vtab_cursor* c, int idxNum, const char* idxStr, int argc, sqlite3_value** argv)
{
    auto* cursor = static_cast<Cursor*>(c);
    return guarded(c->pVtab, [&] { cursor->filter(idxNum, idxStr, argc, argv); });
}

int xNext(sqlite3_vtab_cursor* c)
{
    auto* cursor = static_cast<Cursor*>(c);
    return guarded(c->pVtab, [&] { cursor->next(); });
}

int xEof(sqlite3_vtab_cursor* c)
{
    return static_cast<Cursor*>(c)->eof();
}

int xColumn(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int column)
{
    auto* cursor = static_cast<Cursor*>(c);
    return guarded(c->pVtab, [&] { cursor->column(ctx, column); });
}

int xRowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid)
{
    *rowid = static_cast<Cursor*>(c)->rowid;
    return SQLITE_OK;
}

sqlite3_module makeModule()
{
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = nullptr;   // eponymous only: the tables exist without CREATE VIRTUAL TABLE
    m.xConnect = xConnect;
    m.xBestIndex = bestIndex;
    m.xDisconnect = xDisconnect;
    m.xDestroy = xDisconnect;
    m.xOpen = xOpen;
    m.xClose = xClose;
    m.xFilter = xFilter;
    m.xNext = xNext;
    m.xEof = xEof;
    m.xColumn = xColumn;
    m.xRowid = xRowid;
    return m;
}

const sqlite3_module kModule = makeModule();

// What a connection keeps alive until it closes: the shared state and one (state, kind) per
// table; destroyed by the destructor of wheretime_chunks_read().
struct Registration {
    Connection connection;
    std::pair<Connection*, TableKind> activities{&connection, TableKind::Activities};
    std::pair<Connection*, TableKind> kernels{&connection, TableKind::Kernels};
    std::pair<Connection*, TableKind> scopeInstances{&connection, TableKind::ScopeInstances};
    std::pair<Connection*, TableKind> apiCalls{&connection, TableKind::ApiCalls};
};

void chunksRead(sqlite3_context* ctx, int, sqlite3_value**)
{
    auto* registration = static_cast<Registration*>(sqlite3_user_data(ctx));
    sqlite3_result_int64(ctx, registration->connection.chunksRead);
}

}  // namespace

int SqlTables::registerOn(sqlite3* db, std::string& error)
{
    auto* registration = new (std::nothrow) Registration();
    if (!registration) {
        error = "out of memory";
        return SQLITE_NOMEM;
    }
    registration->connection.db = db;
    // The function owns the registration: SQLite destroys it when the connection closes, after
    // the tables (which only point at it) are gone.
    int rc = sqlite3_create_function_v2(db, "wheretime_chunks_read", 0, SQLITE_UTF8, registration, chunksRead, nullptr,
                                        nullptr, [](void* p) { delete static_cast<Registration*>(p); });
    if (rc != SQLITE_OK) {
        error = std::string("cannot register wheretime_chunks_read(): ") + sqlite3_errmsg(db);
        return rc;
    }
    const std::pair<const char*, std::pair<Connection*, TableKind>*> tables[] = {
        {"activities", &registration->activities},
        {"kernels", &registration->kernels},
        {"scope_instances", &registration->scopeInstances},
        {"api_calls", &registration->apiCalls},
    };
    for (const auto& [name, aux] : tables) {
        rc = sqlite3_create_module_v2(db, name, &kModule, aux, nullptr);
        if (rc != SQLITE_OK) {
            error = std::string("cannot register the table ") + name + ": " + sqlite3_errmsg(db);
            return rc;
        }
    }
    return SQLITE_OK;
}

}  // namespace wt::sql
