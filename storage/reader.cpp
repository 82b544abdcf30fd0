#include "reader.h"

#include "activitychunk.h"
#include "apicallchunk.h"
#include "instancechunk.h"
#include "launchconfigs.h"
#include "statement.h"
#include "steptotalsblob.h"
#include "storageerror.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <unistd.h>

namespace wt {

namespace {

constexpr const char* kRunColumns =
    "id, name, workload, variant, preset, config, backend, device, device_properties, started_at, origin_ns, "
    "duration_ns, status, dropped_records, source_file, kernels, kernel_time_ns, busy_ns, span_start_ns, span_end_ns, "
    "writer_pid, writer_host";

std::string hostName()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

// A run still 'writing' whose writer on this host is gone reads as incomplete, also through
// a read-only open (a read-write open marks it in the file).
RunStatus effectiveStatus(std::string_view status, int64_t pid, std::string_view host)
{
    RunStatus s = runStatusFromString(status);
    if (s != RunStatus::Writing)
        return s;
    static const std::string self = hostName();
    bool alive = pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
    return host == self && !alive ? RunStatus::Incomplete : s;
}

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
    r.status = effectiveStatus(s.textView(12), s.int64(20), s.textView(21));
    r.droppedRecords = s.int64(13);
    r.sourceFile = s.text(14);
    r.kernels = s.int64(15);
    r.kernelTimeNs = s.int64(16);
    r.busyNs = s.int64(17);
    // A damaged row's summary times are clamped into the range a run can hold, so that no
    // consumer overflows on them (span = end - start); the fuzzer found one that did.
    auto clampTime = [](int64_t t) { return std::clamp<int64_t>(t, -kMaxTimeNs + 1, kMaxTimeNs - 1); };
    r.spanStartNs = clampTime(s.int64(18));
    r.spanEndNs = clampTime(s.int64(19));
    r.durationNs = std::clamp<int64_t>(r.durationNs, 0, kMaxTimeNs - 1);
    return r;
}

// The scope ids of a run, for the instances' check: a table when the ids are dense enough
// (millions of lookups: a hash set cost ~0.1 s per million), else a set.
class ScopeIdSet {
public:
    ScopeIdSet(const Database& db, int64_t runId)
    {
        std::vector<int64_t> ids;
        Statement s(db.handle(), "SELECT id FROM scopes WHERE run_id=? ORDER BY id");
        s.bind(1, runId);
        while (s.step())
            ids.push_back(s.int64(0));
        if (ids.empty())
            return;
        // Bounds from the values, not from ORDER BY: in a damaged file an id may be stored as
        // text or a real, which SQLite sorts after the integers (fuzz_wtfile).
        const auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
        const uint64_t range = uint64_t(*hi) - uint64_t(*lo) + 1;   // wraps for spans past 2^63: a set then
        if (range != 0 && range <= uint64_t(ids.size()) * 4 + 4096) {
            m_first = *lo;
            m_table.assign(size_t(range), 0);
            for (int64_t id : ids)
                m_table[size_t(uint64_t(id) - uint64_t(m_first))] = 1;
        } else {
            m_set.insert(ids.begin(), ids.end());
        }
    }
    bool has(int64_t id) const
    {
        if (!m_table.empty())
            return id >= m_first && uint64_t(id) - uint64_t(m_first) < m_table.size() &&
                   m_table[size_t(uint64_t(id) - uint64_t(m_first))];
        return m_set.count(id) != 0;
    }

private:
    int64_t m_first = 0;
    std::vector<uint8_t> m_table;
    std::unordered_set<int64_t> m_set;
};

// Decodes the blobs of column `col` of `s` on `threads` threads, in no particular order: this
// thread steps SQLite (one connection is one thread's) and copies the blobs into batches that
// the other threads and this one decode. decode(blob, worker) with worker in [0, threads). The
// first exception stops the others and is rethrown here.
template <class Decode>
void decodeUnordered(Statement& s, int col, int threads, const Decode& decode)
{
    if (threads <= 1) {
        while (s.step())
            decode(s.blob(col), 0);
        return;
    }
    using Batch = std::vector<std::string>;
    constexpr size_t kBatch = 16;   // chunks per batch: ~0.5 MB of instance blobs
    std::mutex m;
    std::condition_variable cv;
    std::deque<Batch> queue;
    std::vector<Batch> spare;
    bool done = false;
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    auto runBatch = [&](Batch& b, int worker) {
        try {
            for (const std::string& blob : b)
                if (!failed.load(std::memory_order_relaxed))
                    decode(std::string_view(blob), worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(m);
            if (!error)
                error = std::current_exception();
            failed = true;
        }
        std::lock_guard<std::mutex> lock(m);
        b.clear();
        spare.push_back(std::move(b));
        cv.notify_all();
    };
    auto work = [&](int worker) {
        for (;;) {
            Batch b;
            {
                std::unique_lock<std::mutex> lock(m);
                cv.wait(lock, [&] { return !queue.empty() || done; });
                if (queue.empty())
                    return;
                b = std::move(queue.front());
                queue.pop_front();
                cv.notify_all();
            }
            runBatch(b, worker);
        }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < threads; ++w)
        pool.emplace_back(work, w);
    try {
        Batch b;
        auto push = [&] {
            std::unique_lock<std::mutex> lock(m);
            queue.push_back(std::move(b));
            cv.notify_all();
            b = Batch();
            if (!spare.empty()) {
                b = std::move(spare.back());
                spare.pop_back();
            }
            // Enough queued for the others: this thread decodes one batch itself.
            if (queue.size() > size_t(threads) * 2) {
                Batch mine = std::move(queue.front());
                queue.pop_front();
                lock.unlock();
                runBatch(mine, 0);
            }
        };
        while (!failed.load(std::memory_order_relaxed) && s.step()) {
            std::string_view blob = s.blob(col);
            b.emplace_back(blob);
            if (b.size() >= kBatch)
                push();
        }
        if (!b.empty())
            push();
    } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error)
            error = std::current_exception();
        failed = true;
    }
    {
        std::lock_guard<std::mutex> lock(m);
        done = true;
        cv.notify_all();
    }
    work(0);   // help drain what is left
    for (std::thread& t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

// Decodes activity chunks on one other thread ahead of their consumer, which takes them in
// the order they were filled (a track's blocks reach the loader in time order). A ring of
// kSlots jobs, reused: the consumer fills slot tail, the worker decodes slot work, the consumer
// takes slot head (head <= work <= tail <= head + kSlots).
class DecodeAhead {
public:
    struct Job {
        const Track* track = nullptr;
        ChunkHeader header;
        std::string blob;
        std::vector<StoredActivity> rows;
        std::string error;          // the decoder's reason; empty = decoded
        std::exception_ptr failed;  // what `prepare` threw
    };
    static constexpr size_t kSlots = 8;

    explicit DecodeAhead(const Reader::BlockFn& prepare) : m_prepare(prepare), m_worker([this] { run(); }) {}
    ~DecodeAhead()
    {
        {
            std::lock_guard<std::mutex> lock(m_m);
            m_stop = true;
        }
        m_cv.notify_all();
        m_worker.join();
    }
    bool canFill() const { return m_tail - m_head < kSlots; }
    bool empty() const { return m_head == m_tail; }
    Job& slotToFill() { return m_ring[m_tail % kSlots]; }
    void submit()
    {
        std::lock_guard<std::mutex> lock(m_m);
        ++m_tail;
        m_cv.notify_all();
    }
    // The oldest job, once decoded. A consumer that has to wait waits for half the ring (or
    // all that was submitted), and the worker wakes it only then: one wake-up per few chunks
    // instead of one per chunk (a futex wake and a context switch each, ~100k at 100M kernels).
    Job& front()
    {
        std::unique_lock<std::mutex> lock(m_m);
        if (m_work <= m_head) {
            m_want = std::min(m_tail, m_head + kSlots / 2);
            m_cv.wait(lock, [&] { return m_work >= m_want; });
            m_want = 0;
        }
        return m_ring[m_head % kSlots];
    }
    void pop()
    {
        std::lock_guard<std::mutex> lock(m_m);
        ++m_head;
    }

private:
    void run()
    {
        for (;;) {
            size_t k;
            {
                std::unique_lock<std::mutex> lock(m_m);
                m_cv.wait(lock, [&] { return m_stop || m_work < m_tail; });
                if (m_stop)
                    return;
                k = m_work;
            }
            Job& j = m_ring[k % kSlots];
            j.rows.clear();
            j.error.clear();
            j.failed = nullptr;
            try {
                ActivityChunk::decode(j.blob, j.header, j.rows);
            } catch (const StorageError& e) {
                j.error = e.what();
            }
            if (j.error.empty() && m_prepare && !j.rows.empty() && !m_prepareFailed) {
                try {
                    m_prepare(*j.track, j.rows.data(), j.rows.size());
                } catch (...) {
                    j.failed = std::current_exception();
                    m_prepareFailed = true;   // later blocks are not prepared: the caller stops at this one
                }
            }
            bool wake;
            {
                std::lock_guard<std::mutex> lock(m_m);
                ++m_work;
                wake = m_want != 0 && m_work >= m_want;
            }
            if (wake)
                m_cv.notify_all();
        }
    }

    const Reader::BlockFn& m_prepare;
    bool m_prepareFailed = false;   // worker only
    Job m_ring[kSlots];
    std::mutex m_m;
    std::condition_variable m_cv;
    size_t m_head = 0, m_work = 0, m_tail = 0;   // m_work and m_tail change under m_m
    size_t m_want = 0;                           // the consumer waits for m_work >= m_want (0: not waiting)
    bool m_stop = false;
    std::thread m_worker;   // last: starts after the ring exists
};

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

void Reader::damaged(int64_t runId, const std::string& what) const
{
    throw StorageError(m_db.path() + ": run " + std::to_string(runId) + " is damaged (" + what +
                       "); the file's other runs can still be read");
}

void Reader::damagedTrack(const Database& db, int64_t trackId, const std::string& what)
{
    int64_t runId = 0;
    {
        Statement s(db.handle(), "SELECT run_id FROM tracks WHERE id=?");
        s.bind(1, trackId);
        if (s.step())
            runId = s.int64(0);
    }
    throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + what + ", track " +
                       std::to_string(trackId) + "); the file's other runs can still be read");
}

std::vector<ScopeNode> Reader::scopes(int64_t runId) const
{
    std::vector<ScopeNode> out;
    Statement s(m_db.handle(), "SELECT id, parent_id, name_id, level_id, depth FROM scopes WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    while (s.step()) {
        int64_t depth = s.int64(4);
        out.push_back(ScopeNode{s.int64(0), s.int64(1), uint32_t(s.int64(2)), uint32_t(s.int64(3)),
                                int32_t(std::clamp<int64_t>(depth, INT32_MIN, INT32_MAX))});
    }
    validateScopes(runId, out);
    return out;
}

void Reader::validateScopes(int64_t runId, const std::vector<ScopeNode>& nodes) const
{
    // Every consumer walks parent links (paths, ancestors, layer grouping): a cycle, a parent
    // that is not in the run, or a depth that disagrees with the links would make them loop
    // or mislabel, so such a tree is refused here, once, for all of them.
    std::unordered_map<int64_t, size_t> index;
    index.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].id <= 0)
            damaged(runId, "scope with id " + std::to_string(nodes[i].id));
        index.emplace(nodes[i].id, i);
    }
    std::vector<int32_t> depth(nodes.size(), 0);   // 0 = not known yet, -1 = on the current walk
    std::vector<size_t> chain;
    for (size_t i = 0; i < nodes.size(); ++i) {
        chain.clear();
        size_t at = i;
        int32_t base = 0;
        while (depth[at] == 0) {
            depth[at] = -1;
            chain.push_back(at);
            int64_t parent = nodes[at].parentId;
            if (parent == 0)
                break;
            auto it = index.find(parent);
            if (it == index.end())
                damaged(runId, "scope " + std::to_string(nodes[at].id) + " names a missing parent " + std::to_string(parent));
            at = it->second;
        }
        if (depth[at] == -1 && nodes[at].parentId != 0)
            damaged(runId, "scope " + std::to_string(nodes[at].id) + " is its own ancestor");
        if (depth[at] > 0)
            base = depth[at];
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            depth[*it] = ++base;
            if (base > kMaxScopeDepth)
                damaged(runId, "scopes nested deeper than " + std::to_string(kMaxScopeDepth) + " levels");
            if (nodes[*it].depth != base)
                damaged(runId, "scope " + std::to_string(nodes[*it].id) + " has depth " + std::to_string(nodes[*it].depth) +
                                   ", its parents say " + std::to_string(base));
        }
    }
}

std::vector<ScopeInstance> Reader::scopeInstances(int64_t runId, int threads) const
{
    std::vector<ScopeInstance> out;
    bool dense = false;
    int64_t first = 0;
    forEachScopeInstanceBlock(
        runId,
        [&](const InstanceLayout& l) {
            dense = l.dense;
            first = l.firstId;
            if (dense)
                out.resize(l.count);
        },
        [&](const ScopeInstance* rows, size_t count) {
            if (!dense) {
                out.assign(rows, rows + count);
                return;
            }
            for (size_t i = 0; i < count; ++i)
                out[size_t(rows[i].id - first)] = rows[i];
        },
        threads);
    return out;
}

std::vector<ScopeInstance> Reader::scopeInstancesBetween(int64_t runId, int64_t firstId, int64_t lastId) const
{
    std::vector<ScopeInstance> out, rows;
    Statement s(m_db.handle(), "SELECT data FROM scope_instance_chunks WHERE run_id=?1 AND first_id<=?3 AND last_id>=?2");
    s.bind(1, runId).bind(2, firstId).bind(3, lastId);
    while (s.step()) {
        rows.clear();
        try {
            InstanceChunk::decode(s.blob(0), rows);
        } catch (const StorageError& e) {
            damaged(runId, e.what());
        }
        for (const ScopeInstance& si : rows)
            if (si.id >= firstId && si.id <= lastId)
                out.push_back(si);
    }
    std::sort(out.begin(), out.end(), [](const ScopeInstance& a, const ScopeInstance& b) { return a.id < b.id; });
    return out;
}

void Reader::forEachScopeInstanceBlock(int64_t runId, const std::function<void(const InstanceLayout&)>& layout,
                                       const std::function<void(const ScopeInstance*, size_t)>& fn, int threads) const
{
    // Chunks hold instances in the order they ended. The chunk index knows each chunk's count
    // and id range: when the counts fill the range exactly, ids are dense (writers number a
    // run's instances 1..n) and each goes straight to its slot, id - first, with no sort; each
    // id is still checked against the range and seen once (a bitmap), so a damaged index or
    // blob is refused, not misplaced. A run with holes (a killed writer lost its last unwritten
    // instances) is collected and sorted.
    // The index and the chunks must come from one snapshot (a capture may commit in between):
    // a read transaction unless the connection is in one already: an explicit one (the GUI's
    // loader) or an active statement's (the SQL extension reads inside its host's query; a
    // ROLLBACK here would abort that query).
    struct Snapshot {
        Database& db;
        bool own = false;
        explicit Snapshot(Database& d) : db(d)
        {
            sqlite3* h = d.handle();
            bool busy = false;
            for (sqlite3_stmt* st = sqlite3_next_stmt(h, nullptr); st && !busy; st = sqlite3_next_stmt(h, st))
                busy = sqlite3_stmt_busy(st) != 0;
            own = sqlite3_get_autocommit(h) != 0 && !busy;
            if (own)
                db.exec("BEGIN");
        }
        ~Snapshot()
        {
            if (own)
                db.rollback();
        }
    } snapshot(m_db);
    InstanceLayout l;
    {
        Statement s(m_db.handle(), "SELECT count(*), min(first_id), max(last_id), sum(count) FROM scope_instance_chunks "
                                   "WHERE run_id=?");
        s.bind(1, runId);
        if (s.step() && s.int64(0) > 0 && !s.isNull(1) && !s.isNull(2) && !s.isNull(3)) {
            const int64_t lo = s.int64(1), hi = s.int64(2), n = s.int64(3);
            l.dense = lo >= 1 && hi >= lo && n > 0 && uint64_t(hi - lo) + 1 == uint64_t(n) && n <= int64_t(1) << 40;
            l.firstId = lo;
            l.count = size_t(std::max<int64_t>(n, 0));
        } else if (s.int64(0) == 0) {
            l.dense = true;   // no instances
            l.count = 0;
        }
    }
    Statement s(m_db.handle(), "SELECT data FROM scope_instance_chunks WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    if (!l.dense) {
        std::vector<ScopeInstance> out;
        while (s.step()) {
            try {
                InstanceChunk::decode(s.blob(0), out);
            } catch (const StorageError& e) {
                damaged(runId, e.what());
            }
        }
        auto byId = [](const ScopeInstance& a, const ScopeInstance& b) { return a.id < b.id; };
        if (!std::is_sorted(out.begin(), out.end(), byId))
            std::sort(out.begin(), out.end(), byId);
        validateInstances(runId, out);
        l.firstId = out.empty() ? 0 : out.front().id;
        l.count = out.size();
        layout(l);
        if (!out.empty())
            fn(out.data(), out.size());
        return;
    }
    layout(l);
    if (l.count == 0)
        return;
    const ScopeIdSet scopeIds(m_db, runId);
    // One bit per slot: set when its instance was seen. Words are or-ed atomically, once per
    // run of instances that fall into the same word (a chunk's ids are close together).
    std::vector<std::atomic<uint64_t>> seen((l.count + 63) / 64);
    std::atomic<uint64_t> placed{0};
    threads = std::max(1, threads);
    std::vector<std::vector<ScopeInstance>> buffers(static_cast<size_t>(threads));
    const int64_t first = l.firstId, last = l.firstId + int64_t(l.count) - 1;
    decodeUnordered(s, 0, threads, [&](std::string_view blob, int worker) {
        std::vector<ScopeInstance>& rows = buffers[size_t(worker)];
        rows.clear();
        try {
            InstanceChunk::decode(blob, rows);
        } catch (const StorageError& e) {
            damaged(runId, e.what());
        }
        size_t word = SIZE_MAX;
        uint64_t mask = 0;
        auto flush = [&] {
            if (word != SIZE_MAX && (seen[word].fetch_or(mask, std::memory_order_relaxed) & mask))
                damaged(runId, "a scope instance id is not unique and positive");
        };
        for (const ScopeInstance& si : rows) {
            if (si.id < first || si.id > last)
                damaged(runId, "scope instance id " + std::to_string(si.id) + " is outside the ids " + std::to_string(first) +
                                   ".." + std::to_string(last) + " its chunk index names");
            if (si.parentId < 0 || si.parentId >= si.id)
                damaged(runId, "scope instance " + std::to_string(si.id) + " names parent " + std::to_string(si.parentId));
            if (!scopeIds.has(si.scopeId))
                damaged(runId, "scope instance " + std::to_string(si.id) + " names a missing scope " + std::to_string(si.scopeId));
            const size_t slot = size_t(si.id - first), w = slot / 64;
            const uint64_t bit = uint64_t(1) << (slot % 64);
            if (w != word) {
                flush();
                word = w;
                mask = 0;
            }
            if (mask & bit)
                damaged(runId, "scope instance id " + std::to_string(si.id) + " is not unique and positive");
            mask |= bit;
        }
        flush();
        placed.fetch_add(rows.size(), std::memory_order_relaxed);
        if (!rows.empty())
            fn(rows.data(), rows.size());
    });
    if (placed.load() != l.count)   // unique and in range, so fewer: the index's counts are wrong
        damaged(runId, "its scope instance chunks hold " + std::to_string(placed.load()) + " instances, their index says " +
                           std::to_string(l.count));
}

std::vector<HostThread> Reader::hostThreads(int64_t runId) const
{
    std::vector<HostThread> out;
    Statement s(m_db.handle(), "SELECT id, pid, tid, name, process_name FROM host_threads WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    while (s.step())
        out.push_back(HostThread{s.int64(0), s.int64(1), s.int64(2), s.text(3), s.text(4)});
    return out;
}

int64_t Reader::countScopeInstances(int64_t runId, const std::vector<int64_t>& scopeIds) const
{
    if (scopeIds.empty())
        return 0;
    int64_t count = 0;
    Statement s(m_db.handle(), "SELECT data FROM scope_instance_chunks WHERE run_id=?");
    s.bind(1, runId);
    while (s.step())
        count += InstanceChunk::countScopes(s.blob(0), scopeIds);
    return count;
}

void Reader::validateInstances(int64_t runId, const std::vector<ScopeInstance>& instances) const
{
    // `instances` is sorted by id. Writers store an instance after its parent began: a parent id
    // is smaller than the instance's own (a cycle is impossible then). Ids are unique and
    // positive; scopes exist in the run.
    if (instances.empty())
        return;
    const ScopeIdSet scopeIds(m_db, runId);
    int64_t previous = 0;
    for (const ScopeInstance& si : instances) {
        bool unique = si.id > previous;
        previous = si.id;
        if (!unique)
            damaged(runId, "scope instance id " + std::to_string(si.id) + " is not unique and positive");
        if (si.parentId < 0 || si.parentId >= si.id)
            damaged(runId, "scope instance " + std::to_string(si.id) + " names parent " + std::to_string(si.parentId));
        if (!scopeIds.has(si.scopeId))
            damaged(runId, "scope instance " + std::to_string(si.id) + " names a missing scope " + std::to_string(si.scopeId));
    }
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

std::optional<Reader::StepTotals> Reader::stepTotals(int64_t runId, bool withRows) const
{
    Statement s(m_db.handle(), withRows ? "SELECT steps, step_instances, data FROM step_totals WHERE run_id=?"
                                        : "SELECT steps, step_instances FROM step_totals WHERE run_id=?");
    s.bind(1, runId);
    if (!s.step())
        return std::nullopt;
    StepTotals out;
    const int64_t steps = s.int64(0);
    out.stepInstances = s.int64(1);
    if (steps < 0 || steps > int64_t(1) << 32)
        damaged(runId, "its step totals name " + std::to_string(steps) + " steps");
    out.stepCount = steps;
    if (withRows) {
        try {
            out.steps = StepTotalsBlob::decode(s.blob(2), size_t(steps));
        } catch (const StorageError& e) {
            damaged(runId, e.what());
        }
    }
    return out;
}

bool Reader::forEachStepTotals(int64_t runId, const std::function<void(size_t, const std::vector<TotalRow>&)>& fn) const
{
    Statement s(m_db.handle(), "SELECT steps, data FROM step_totals WHERE run_id=?");
    s.bind(1, runId);
    if (!s.step())
        return false;
    const int64_t steps = s.int64(0);
    if (steps < 0 || steps > int64_t(1) << 32)
        damaged(runId, "its step totals name " + std::to_string(steps) + " steps");
    try {
        StepTotalsBlob::forEachStep(s.blob(1), size_t(steps), fn);
    } catch (const StorageError& e) {
        damaged(runId, e.what());
    }
    return true;
}

std::vector<ApiCall> Reader::apiCalls(int64_t runId) const
{
    std::vector<ApiCall> out;
    Statement s(m_db.handle(), "SELECT data FROM api_call_chunks WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    while (s.step()) {
        try {
            ApiCallChunk::decode(s.blob(0), out);
        } catch (const StorageError& e) {
            damaged(runId, e.what());
        }
    }
    auto byStart = [](const ApiCall& a, const ApiCall& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.correlationId < b.correlationId;
    };
    if (!std::is_sorted(out.begin(), out.end(), byStart))
        std::stable_sort(out.begin(), out.end(), byStart);
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

std::vector<LaunchFeatures> Reader::launches(int64_t runId) const
{
    std::vector<LaunchFeatures> out;
    Statement s(m_db.handle(), "SELECT seq, scope_instance_id, name_id, kind, flops, bytes_read, bytes_written, m, n, k, "
                               "batch, shapes_id, correlation_id FROM launches WHERE run_id=? ORDER BY seq");
    s.bind(1, runId);
    while (s.step()) {
        LaunchFeatures l;
        l.seq = s.int64(0);
        l.scopeInstanceId = s.int64(1);
        l.nameId = uint32_t(s.int64(2));
        l.kind = s.text(3);
        l.flops = s.real(4);
        l.bytesRead = s.real(5);
        l.bytesWritten = s.real(6);
        l.m = s.int64(7);
        l.n = s.int64(8);
        l.k = s.int64(9);
        l.batch = s.int64(10);
        l.shapesId = uint32_t(s.int64(11));
        l.correlationId = s.int64(12);
        out.push_back(std::move(l));
    }
    return out;
}

int64_t Reader::countLaunches(int64_t runId) const
{
    Statement s(m_db.handle(), "SELECT count(*) FROM launches WHERE run_id=?");
    s.bind(1, runId);
    return s.step() ? s.int64(0) : 0;
}

const LaunchConfig& Reader::config(int64_t id) const
{
    static const LaunchConfig none;
    if (id == 0)
        return none;
    if (!m_configsLoaded) {
        forEachLaunchConfig(m_db.handle(), [&](int64_t cid, const LaunchConfig& c) { m_configs.emplace(cid, c); });
        m_configsLoaded = true;
    }
    auto it = m_configs.find(id);
    return it == m_configs.end() ? none : it->second;
}

void Reader::toActivity(const StoredActivity& r, int64_t trackId, Activity& a) const
{
    a.trackId = trackId;
    a.startNs = r.startNs;
    a.endNs = r.startNs + r.durationNs;
    a.kind = ActivityKind(r.kind);
    a.nameId = r.nameId;
    a.scopeInstanceId = r.scopeInstanceId;
    a.correlationId = r.correlationId;
    a.bytes = r.bytes;
    a.seq = r.seq;
    a.config = config(r.configId);
}

std::vector<Activity> Reader::activities(int64_t trackId, int64_t t0, int64_t t1) const
{
    // The index holds (track, start, end) of every chunk: only chunks that overlap are read.
    Statement s(m_db.handle(), "SELECT start_ns, end_ns, first_seq, count, data FROM activity_chunks "
                               "WHERE track_id=?1 AND start_ns<?2 AND end_ns>=?3 ORDER BY start_ns");
    s.bind(1, trackId).bind(2, t1).bind(3, t0);
    std::vector<StoredActivity> rows;
    while (s.step()) {
        ChunkHeader h{s.int64(0), s.int64(1), s.int64(2), s.int64(3)};
        size_t before = rows.size();
        try {
            ActivityChunk::decode(s.blob(4), h, rows);
        } catch (const StorageError& e) {
            damagedTrack(m_db, trackId, e.what());
        }
        // Keep only the activities that overlap [t0, t1) (zero-length ones at t0 included).
        size_t w = before;
        for (size_t i = before; i < rows.size(); ++i) {
            const StoredActivity& r = rows[i];
            if (r.startNs < t1 && (r.startNs + r.durationNs > t0 || r.startNs == t0))
                rows[w++] = r;
        }
        rows.resize(w);
    }
    auto byStart = [](const StoredActivity& a, const StoredActivity& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    };
    if (!std::is_sorted(rows.begin(), rows.end(), byStart))   // chunks of late, out-of-order records
        std::sort(rows.begin(), rows.end(), byStart);
    std::vector<Activity> out(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        toActivity(rows[i], trackId, out[i]);
    return out;
}

void Reader::forEachActivity(int64_t runId, const std::function<bool(const Activity&)>& fn) const
{
    Activity a;
    forEachActivityBlock(runId, [&](const Track& t, const StoredActivity* rows, size_t count) {
        for (size_t i = 0; i < count; ++i) {
            toActivity(rows[i], t.id, a);
            if (!fn(a))
                return false;
        }
        return true;
    });
}

void Reader::forEachActivityBlock(int64_t runId,
                                  const std::function<bool(const Track&, const StoredActivity*, size_t)>& fn,
                                  int threads, const BlockFn& prepare) const
{
    // Without a decoding thread, `prepare` runs here just before `fn`.
    auto both = [&](const Track& t, const StoredActivity* rows, size_t n) {
        if (prepare)
            prepare(t, rows, n);
        return fn(t, rows, n);
    };
    auto byStart = [](const StoredActivity& a, const StoredActivity& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    };
    std::vector<StoredActivity> rows;
    const std::vector<Track> all = tracks(runId);   // outlives the decoding thread's jobs that point into it
    std::unique_ptr<DecodeAhead> ahead;
    if (threads > 1)
        ahead = std::make_unique<DecodeAhead>(prepare);
    for (const Track& t : all) {
        // Chunks of a track normally follow each other in time and are streamed one by one.
        // When their spans overlap (late, out-of-order records), the track is sorted first.
        bool overlapping = false;
        {
            Statement h(m_db.handle(), "SELECT start_ns, end_ns FROM activity_chunks WHERE track_id=? ORDER BY start_ns");
            h.bind(1, t.id);
            int64_t maxEnd = INT64_MIN;
            while (h.step() && !overlapping) {
                overlapping = h.int64(0) < maxEnd;
                maxEnd = std::max(maxEnd, h.int64(1));
            }
        }
        Statement s(m_db.handle(), "SELECT start_ns, end_ns, first_seq, count, data FROM activity_chunks "
                                   "WHERE track_id=? ORDER BY start_ns");
        s.bind(1, t.id);
        if (ahead && !overlapping) {
            // This thread steps SQLite and runs the callback; the other decodes in between.
            bool more = true;
            for (;;) {
                while (more && ahead->canFill()) {
                    if (!s.step()) {
                        more = false;
                        break;
                    }
                    DecodeAhead::Job& j = ahead->slotToFill();
                    j.track = &t;
                    j.header = ChunkHeader{s.int64(0), s.int64(1), s.int64(2), s.int64(3)};
                    const std::string_view blob = s.blob(4);
                    j.blob.assign(blob.data(), blob.size());
                    ahead->submit();
                }
                if (ahead->empty())
                    break;
                DecodeAhead::Job& j = ahead->front();
                if (!j.error.empty())
                    damaged(runId, j.error + ", track " + std::to_string(t.id));
                if (j.failed)
                    std::rethrow_exception(j.failed);
                const bool go = j.rows.empty() || fn(t, j.rows.data(), j.rows.size());
                ahead->pop();
                if (!go)
                    return;
            }
            continue;
        }
        rows.clear();
        while (s.step()) {
            ChunkHeader h{s.int64(0), s.int64(1), s.int64(2), s.int64(3)};
            if (!overlapping)
                rows.clear();
            try {
                ActivityChunk::decode(s.blob(4), h, rows);
            } catch (const StorageError& e) {
                damaged(runId, std::string(e.what()) + ", track " + std::to_string(t.id));
            }
            if (!overlapping && !rows.empty() && !both(t, rows.data(), rows.size()))
                return;
        }
        if (!overlapping || rows.empty())
            continue;
        std::sort(rows.begin(), rows.end(), byStart);
        if (!both(t, rows.data(), rows.size()))
            return;
    }
}

void Reader::refresh()
{
    m_strings.clear();
    m_stringsLoaded = false;
    m_configs.clear();
    m_configsLoaded = false;
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
