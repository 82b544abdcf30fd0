#include "nsysimporter.h"

#include "importerror.h"

#include "storage/database.h"
#include "storage/isotime.h"
#include "storage/utf8.h"

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wt::interop {

namespace {

// A read-only connection to the export; closed on scope exit.
class Connection {
public:
    explicit Connection(const std::string& path) : m_path(path)
    {
        // immutable=1: the export never changes under us, and its folder may be read-only.
        std::string uri = "file:";
        for (char c : path) {
            if (c == '%' || c == '?' || c == '#')
                uri += c == '%' ? "%25" : c == '?' ? "%3f" : "%23";
            else
                uri += c;
        }
        uri += "?immutable=1";
        int rc = sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            std::string why = m_db ? sqlite3_errmsg(m_db) : "cannot open";
            sqlite3_close(m_db);
            m_db = nullptr;
            throw ImportError(path, "cannot open as SQLite: " + why);
        }
    }
    ~Connection() { sqlite3_close(m_db); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }

    [[noreturn]] void fail(const std::string& what) const { throw ImportError(m_path, what); }

    bool hasTable(const std::string& name)
    {
        loadTables();
        return m_tables.count(name) != 0;
    }
    std::vector<std::string> tables()
    {
        loadTables();
        return {m_tables.begin(), m_tables.end()};
    }

    std::unordered_set<std::string> columns(const std::string& table)
    {
        std::unordered_set<std::string> out;
        Stmt s(*this, "SELECT name FROM pragma_table_info('" + table + "')");
        while (s.step())
            out.insert(s.text(0));
        return out;
    }

    class Stmt {
    public:
        Stmt(Connection& c, const std::string& sql) : m_c(c)
        {
            if (sqlite3_prepare_v2(c.handle(), sql.c_str(), -1, &m_s, nullptr) != SQLITE_OK) {
                std::string why = sqlite3_errmsg(c.handle());
                sqlite3_finalize(m_s);
                c.fail("not a readable Nsight Systems export (" + why + ")");
            }
        }
        ~Stmt() { sqlite3_finalize(m_s); }
        Stmt(const Stmt&) = delete;
        Stmt& operator=(const Stmt&) = delete;
        bool step()
        {
            int rc = sqlite3_step(m_s);
            if (rc == SQLITE_ROW)
                return true;
            if (rc == SQLITE_DONE)
                return false;
            m_c.fail(std::string("SQLite error while reading: ") + sqlite3_errmsg(m_c.handle()));
        }
        bool isNull(int i) const { return sqlite3_column_type(m_s, i) == SQLITE_NULL; }
        int64_t int64(int i) const { return sqlite3_column_int64(m_s, i); }
        double real(int i) const { return sqlite3_column_double(m_s, i); }
        std::string text(int i) const
        {
            auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_s, i));
            return p ? std::string(p, size_t(sqlite3_column_bytes(m_s, i))) : std::string();
        }
        int type(int i) const { return sqlite3_column_type(m_s, i); }

    private:
        Connection& m_c;
        sqlite3_stmt* m_s = nullptr;
    };

private:
    void loadTables()
    {
        if (m_tablesLoaded)
            return;
        m_tablesLoaded = true;
        Stmt s(*this, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
        while (s.step())
            m_tables.insert(s.text(0));
    }

    std::string m_path;
    sqlite3* m_db = nullptr;
    std::unordered_set<std::string> m_tables;
    bool m_tablesLoaded = false;
};

// "SELECT a, b, NULL ..." over the columns a table has; missing optional ones read as NULL.
std::string selectColumns(Connection& c, const std::string& table, const std::vector<std::string>& wanted,
                          const std::vector<std::string>& required)
{
    auto have = c.columns(table);
    for (const auto& r : required)
        if (!have.count(r))
            c.fail("table " + table + " has no column '" + r + "' (not a supported Nsight Systems export)");
    std::string sql = "SELECT ";
    for (size_t i = 0; i < wanted.size(); ++i) {
        if (i)
            sql += ", ";
        sql += have.count(wanted[i]) ? "\"" + wanted[i] + "\"" : std::string("NULL");
    }
    return sql + " FROM \"" + table + "\"";
}

// CUPTI numbers correlation ids per process, so in a trace of several processes an id can name
// a launch in each: a kernel of one process joined to another's call (on the shared two-process
// Nsight trace, 11 such pairs, with the call after the kernel). There, each id becomes
// (process number << 40) | id, the process of a call being its globalTid >> 24, so the join
// by id (flows, launch latency) stays within the process. One process: ids are kept as they are.
void separateCorrelations(ImportedTrace& t, const std::vector<int64_t>& processOfActivity)
{
    constexpr int64_t kShift = 40;
    std::vector<int64_t> processes;
    for (int64_t p : processOfActivity)
        if (p >= 0)
            processes.push_back(p);
    for (const ImportedTrace::Call& c : t.calls)
        processes.push_back(c.thread >> 24);
    std::sort(processes.begin(), processes.end());
    processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
    if (processes.size() < 2 || processes.size() >= (size_t(1) << 22))
        return;
    auto tag = [&](int64_t& id, int64_t process) {
        if (id <= 0 || id >= (int64_t(1) << kShift) || process < 0)
            return;
        const int64_t number = std::lower_bound(processes.begin(), processes.end(), process) - processes.begin();
        id |= (number + 1) << kShift;
    };
    for (size_t i = 0; i < t.activities.size() && i < processOfActivity.size(); ++i)
        tag(t.activities[i].correlationId, processOfActivity[i]);
    for (ImportedTrace::Call& c : t.calls)
        tag(c.correlationId, c.thread >> 24);
}

const char* memcpyKindName(int64_t kind)
{
    switch (kind) {
    case 1: return "[CUDA memcpy HtoD]";
    case 2: return "[CUDA memcpy DtoH]";
    case 3: return "[CUDA memcpy HtoA]";
    case 4: return "[CUDA memcpy AtoH]";
    case 5: return "[CUDA memcpy AtoA]";
    case 6: return "[CUDA memcpy AtoD]";
    case 7: return "[CUDA memcpy DtoA]";
    case 8: return "[CUDA memcpy DtoD]";
    case 9: return "[CUDA memcpy HtoH]";
    case 10: return "[CUDA memcpy PtoP]";
    default: return "[CUDA memcpy]";
    }
}

std::string jsonEscape(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20)
            out += ' ';
        else
            out += c;
    }
    return out + "\"";
}

}  // namespace

std::string normalizeNvtxName(std::string_view name)
{
    std::string out(name);
    for (const char* tag : {", op_id = ", ", seq = "}) {
        size_t p;
        while ((p = out.find(tag)) != std::string::npos) {
            size_t e = p + std::char_traits<char>::length(tag);
            size_t d = e;
            while (d < out.size() && out[d] >= '0' && out[d] <= '9')
                ++d;
            if (d == e)
                break;
            out.erase(p, d - p);
        }
    }
    return out;
}

bool NsysImporter::looksLikeExport(const std::string& path)
{
    try {
        Connection c(path);
        if (c.hasTable("EXPORT_META_DATA") || c.hasTable("META_DATA_EXPORT"))
            return true;
        if (!c.hasTable("StringIds"))
            return false;
        for (const auto& t : c.tables())
            if (t.rfind("CUPTI_ACTIVITY_KIND_", 0) == 0)
                return true;
    } catch (const ImportError&) {
    }
    return false;
}

ImportedTrace NsysImporter::parse(const std::string& path)
{
    Connection c(path);
    ImportedTrace t;
    t.format = "nsys";

    // What kind of SQLite file is this?
    std::string metaTable = c.hasTable("META_DATA_EXPORT") ? "META_DATA_EXPORT" : c.hasTable("EXPORT_META_DATA") ? "EXPORT_META_DATA" : "";
    if (metaTable.empty()) {
        bool cupti = false;
        for (const auto& name : c.tables())
            cupti = cupti || name.rfind("CUPTI_ACTIVITY_KIND_", 0) == 0;
        if (!(cupti && c.hasTable("StringIds"))) {
            Connection::Stmt app(c, "PRAGMA application_id");
            if (app.step() && app.int64(0) == Database::kApplicationId)
                c.fail("is a wheretime file, not an Nsight Systems export");
            c.fail("SQLite file is not an Nsight Systems export (no EXPORT_META_DATA or META_DATA_EXPORT table)");
        }
    } else {
        Connection::Stmt s(c, "SELECT name, value FROM \"" + metaTable + "\"");
        while (s.step()) {
            std::string k = s.text(0);
            if (k.find("USER") != std::string::npos || k.find("HOST") != std::string::npos || k.find("PATH") != std::string::npos)
                continue;   // personal data stays out of the wheretime file
            t.metadata.emplace_back(utf8::repaired("nsys." + k), utf8::repaired(s.text(1)));
        }
    }

    // Strings referenced by id.
    std::unordered_map<int64_t, std::string> stringIds;
    if (c.hasTable("StringIds")) {
        Connection::Stmt s(c, "SELECT id, value FROM StringIds");
        while (s.step())
            stringIds.emplace(s.int64(0), s.text(1));
    }
    std::unordered_map<int64_t, uint32_t> localByStringId;
    auto nameOfId = [&](int64_t id) -> uint32_t {
        auto it = localByStringId.find(id);
        if (it != localByStringId.end())
            return it->second;
        auto sv = stringIds.find(id);
        uint32_t local = t.strings.intern(sv != stringIds.end() ? sv->second : "<string " + std::to_string(id) + ">");
        localByStringId.emplace(id, local);
        return local;
    };
    // A name column may hold a StringId (usual) or text (some hand-made or old exports).
    auto nameOf = [&](Connection::Stmt& s, int col, const char* fallback) -> uint32_t {
        if (s.type(col) == SQLITE_INTEGER)
            return nameOfId(s.int64(col));
        if (s.type(col) == SQLITE_TEXT)
            return t.strings.intern(s.text(col));
        return t.strings.intern(fallback);
    };

    // Devices.
    if (c.hasTable("TARGET_INFO_GPU")) {
        std::vector<std::string> props = {"totalMemory", "smCount", "computeMajor", "computeMinor", "clockRate",
                                          "memoryBandwidth", "l2CacheSize", "maxShmemPerBlock", "threadsPerWarp"};
        std::vector<std::string> cols = {"id", "name", "cuDevice"};
        cols.insert(cols.end(), props.begin(), props.end());
        Connection::Stmt s(c, selectColumns(c, "TARGET_INFO_GPU", cols, {"id"}));
        while (s.step()) {
            int32_t id = int32_t(s.isNull(2) ? s.int64(0) : s.int64(2));
            if (std::any_of(t.devices.begin(), t.devices.end(), [&](const DeviceInfo& d) { return d.id == id; }))
                continue;
            std::string json = "{";
            for (size_t i = 0; i < props.size(); ++i)
                if (!s.isNull(int(3 + i)))
                    json += (json.size() > 1 ? "," : "") + jsonEscape(props[i]) + ":" + std::to_string(s.int64(int(3 + i)));
            json += "}";
            t.devices.push_back(DeviceInfo{id, s.isNull(1) ? "GPU " + std::to_string(id) : utf8::repaired(s.text(1)), json});
        }
    }

    if (c.hasTable("TARGET_INFO_SESSION_START_TIME")) {
        Connection::Stmt s(c, selectColumns(c, "TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"}, {}));
        if (s.step() && !s.isNull(0))
            t.startedAt = isoUtc(s.int64(0));
    }

    // The process of each activity (globalPid >> 24; -1: the export does not say): correlation
    // ids are numbered per process.
    std::vector<int64_t> processOfActivity;

    // Kernels.
    if (c.hasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
        Connection::Stmt s(c, selectColumns(c, "CUPTI_ACTIVITY_KIND_KERNEL",
                                            {"start", "end", "deviceId", "streamId", "correlationId", "demangledName", "shortName",
                                             "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                                             "staticSharedMemory", "dynamicSharedMemory", "globalPid"},
                                            {"start", "end", "deviceId", "streamId"}));
        while (s.step()) {
            ImportedTrace::Activity a;
            a.startNs = s.int64(0);
            a.endNs = s.int64(1);
            a.device = int32_t(s.int64(2));
            a.stream = s.int64(3);
            a.correlationId = s.int64(4);
            a.name = s.isNull(5) ? nameOf(s, 6, "<kernel>") : nameOf(s, 5, "<kernel>");
            for (int k = 0; k < 3; ++k) {
                a.config.grid[k] = int32_t(s.int64(7 + k));
                a.config.block[k] = int32_t(s.int64(10 + k));
            }
            a.config.registers = int32_t(s.int64(13));
            a.config.staticSmem = int32_t(s.int64(14));
            a.config.dynamicSmem = int32_t(s.int64(15));
            t.activities.push_back(a);
            processOfActivity.push_back(s.isNull(16) ? -1 : s.int64(16) >> 24);
            ++t.counts.kernels;
        }
    }
    if (c.hasTable("CUPTI_ACTIVITY_KIND_MEMCPY")) {
        Connection::Stmt s(c, selectColumns(c, "CUPTI_ACTIVITY_KIND_MEMCPY",
                                            {"start", "end", "deviceId", "streamId", "correlationId", "bytes", "copyKind", "globalPid"},
                                            {"start", "end", "deviceId", "streamId"}));
        std::unordered_map<int64_t, uint32_t> kindNames;
        while (s.step()) {
            ImportedTrace::Activity a;
            a.kind = ActivityKind::Memcpy;
            a.startNs = s.int64(0);
            a.endNs = s.int64(1);
            a.device = int32_t(s.int64(2));
            a.stream = s.int64(3);
            a.correlationId = s.int64(4);
            a.bytes = s.int64(5);
            int64_t kind = s.int64(6);
            auto it = kindNames.find(kind);
            if (it == kindNames.end())
                it = kindNames.emplace(kind, t.strings.intern(memcpyKindName(kind))).first;
            a.name = it->second;
            t.activities.push_back(a);
            processOfActivity.push_back(s.isNull(7) ? -1 : s.int64(7) >> 24);
            ++t.counts.memcpys;
        }
    }
    if (c.hasTable("CUPTI_ACTIVITY_KIND_MEMSET")) {
        Connection::Stmt s(c, selectColumns(c, "CUPTI_ACTIVITY_KIND_MEMSET",
                                            {"start", "end", "deviceId", "streamId", "correlationId", "bytes", "globalPid"},
                                            {"start", "end", "deviceId", "streamId"}));
        uint32_t name = t.strings.intern("[CUDA memset]");
        while (s.step()) {
            ImportedTrace::Activity a;
            a.kind = ActivityKind::Memset;
            a.startNs = s.int64(0);
            a.endNs = s.int64(1);
            a.device = int32_t(s.int64(2));
            a.stream = s.int64(3);
            a.correlationId = s.int64(4);
            a.bytes = s.int64(5);
            a.name = name;
            t.activities.push_back(a);
            processOfActivity.push_back(s.isNull(6) ? -1 : s.int64(6) >> 24);
            ++t.counts.memsets;
        }
    }
    if (t.activities.empty())
        c.fail("empty trace: the Nsight Systems export holds no kernels, memcpy or memset");

    // Runtime API calls (the launching thread of each activity, by correlation id).
    if (c.hasTable("CUPTI_ACTIVITY_KIND_RUNTIME")) {
        Connection::Stmt s(c, selectColumns(c, "CUPTI_ACTIVITY_KIND_RUNTIME",
                                            {"start", "end", "globalTid", "correlationId", "nameId", "name"},
                                            {"start", "end"}));
        while (s.step()) {
            ImportedTrace::Call call;
            call.startNs = s.int64(0);
            call.endNs = s.int64(1);
            call.thread = s.int64(2);
            call.correlationId = s.int64(3);
            call.osThread = call.thread & 0xFFFFFF;   // serialized GlobalId: the OS tid is in the low 24 bits
            call.name = s.isNull(4) ? nameOf(s, 5, "<runtime call>") : nameOf(s, 4, "<runtime call>");
            t.calls.push_back(call);
            ++t.counts.runtimeCalls;
        }
    }
    separateCorrelations(t, processOfActivity);

    // NVTX push/pop and start/end ranges become scopes; open-ended rows and marks are skipped.
    if (c.hasTable("NVTX_EVENTS")) {
        int64_t pushPop = 59, startEnd = 60;
        if (c.hasTable("ENUM_NSYS_EVENT_TYPE")) {
            Connection::Stmt e(c, "SELECT id, name FROM ENUM_NSYS_EVENT_TYPE");
            while (e.step()) {
                std::string n = e.text(1);
                if (n == "NvtxPushPopRange")
                    pushPop = e.int64(0);
                else if (n == "NvtxStartEndRange")
                    startEnd = e.int64(0);
            }
        }
        Connection::Stmt s(c, selectColumns(c, "NVTX_EVENTS", {"start", "end", "eventType", "text", "textId", "globalTid"},
                                            {"start", "eventType"}));
        uint32_t level = t.strings.intern("nvtx");
        std::unordered_map<std::string, uint32_t> normalized;
        while (s.step()) {
            int64_t type = s.int64(2);
            if ((type != pushPop && type != startEnd) || s.isNull(1)) {
                ++t.counts.skippedRanges;
                continue;
            }
            ImportedTrace::Range r;
            r.startNs = s.int64(0);
            r.endNs = s.int64(1);
            r.thread = s.int64(5);
            std::string raw = !s.isNull(3) ? s.text(3) : !s.isNull(4) ? (stringIds.count(s.int64(4)) ? stringIds[s.int64(4)] : std::string("<nvtx>")) : std::string("<nvtx>");
            auto it = normalized.find(raw);
            if (it == normalized.end())
                it = normalized.emplace(raw, t.strings.intern(normalizeNvtxName(raw))).first;
            r.name = it->second;
            r.level = level;
            t.ranges.push_back(r);
            ++t.counts.ranges;
        }
    }

    // Host threads of the calls and ranges: a serialized GlobalId holds the OS pid in bits
    // 24..47 and the tid in bits 0..23; names from ThreadNames (StringIds) and PROCESSES.
    {
        auto see = [&](int64_t gtid) {
            t.threads.try_emplace(gtid, ImportedTrace::Thread{(gtid >> 24) & 0xFFFFFF, gtid & 0xFFFFFF, {}, {}});
        };
        for (const auto& call : t.calls)
            see(call.thread);
        for (const auto& r : t.ranges)
            see(r.thread);
        if (c.hasTable("ThreadNames") && c.columns("ThreadNames").count("globalTid")) {
            Connection::Stmt s(c, selectColumns(c, "ThreadNames", {"globalTid", "nameId"}, {"globalTid", "nameId"}));
            while (s.step()) {
                auto th = t.threads.find(s.int64(0));
                auto n = s.isNull(1) ? stringIds.end() : stringIds.find(s.int64(1));
                if (th != t.threads.end() && n != stringIds.end())
                    th->second.name = n->second;
            }
        }
        if (c.hasTable("PROCESSES") && c.columns("PROCESSES").count("globalPid")) {
            Connection::Stmt s(c, selectColumns(c, "PROCESSES", {"globalPid", "name"}, {"globalPid"}));
            std::unordered_map<int64_t, std::string> byPid;
            while (s.step())
                if (!s.isNull(1))
                    byPid[(s.int64(0) >> 24) & 0xFFFFFF] = s.text(1);
            for (auto& [key, th] : t.threads)
                if (auto p = byPid.find(th.pid); p != byPid.end())
                    th.processName = p->second;
        }
    }
    return t;
}

}  // namespace wt::interop
