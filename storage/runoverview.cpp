#include "runoverview.h"

#include "activitychunk.h"
#include "database.h"
#include "instancechunk.h"
#include "reader.h"
#include "scopelanes.h"
#include "statement.h"
#include "storageerror.h"
#include "varint.h"

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <unistd.h>

namespace wt {

namespace {

std::function<void()>& beforeCommitHook()
{
    static std::function<void()> hook;
    return hook;
}

// Accumulates one row's buckets from its items, fed in start order. Busy time and extent come
// from the union of the items (merged as they come); the dominant key from each item's time
// clipped to each bucket it touches. The dense scratch is reused row after row and reset only
// where a row touched it.
class RowBuilder {
public:
    RowBuilder(int64_t originNs, int64_t bucketNs, uint32_t buckets)
        : m_origin(originNs), m_width(bucketNs), m_n(buckets), m_acc(buckets)
    {
    }

    void add(int64_t start, int64_t end, int64_t key)
    {
        addSpan(start, end);
        addKeyTime(start, end, key);
    }

    // The two halves of add, for a pass that learns an item's key later than its span (the
    // bounded pass): the count and the union, fed in start order; the key's time per bucket,
    // in any order (sums).
    void addKeyTime(int64_t start, int64_t end, int64_t key)
    {
        end = std::max(end, start + 1);
        for (uint32_t b = bucketOf(start), last = bucketOf(end - 1); b <= last; ++b) {
            const int64_t bs = bucketStart(b);
            const int64_t ns = std::min(end, bs + m_width) - std::max(start, bs);
            if (ns > 0)
                addKey(b, key, ns);
        }
    }

    void addSpan(int64_t start, int64_t end)
    {
        end = std::max(end, start + 1);
        touch(bucketOf(start)).count += 1;
        if (m_open && start <= m_unionEnd) {
            m_unionEnd = std::max(m_unionEnd, end);
            return;
        }
        flushUnion();
        m_open = true;
        m_unionStart = start;
        m_unionEnd = end;
    }

    // The row's buckets; resets the builder for the next row.
    std::vector<OverviewBucket> finish()
    {
        flushUnion();
        flushKey();
        std::sort(m_touched.begin(), m_touched.end());
        std::vector<OverviewBucket> out;
        out.reserve(m_touched.size());
        for (uint32_t b : m_touched) {
            Acc& a = m_acc[b];
            OverviewBucket o;
            o.index = b;
            o.count = a.count;
            o.busyNs = a.busy;
            o.coverStartNs = a.busy > 0 ? a.coverStart : 0;
            o.coverEndNs = a.busy > 0 ? a.coverEnd : 0;
            int64_t best = -1;
            for (const auto& [key, ns] : a.keys)
                if (ns > best || (ns == best && key < o.key)) {
                    best = ns;
                    o.key = key;
                }
            out.push_back(o);
            a = Acc{};
            a.keys.clear();
        }
        m_touched.clear();
        return out;
    }

private:
    struct Acc {
        bool touched = false;
        int64_t count = 0, busy = 0;
        int64_t coverStart = INT64_MAX, coverEnd = 0;
        std::vector<std::pair<int64_t, int64_t>> keys;   // (key, item ns); few per bucket
    };
    int64_t m_origin, m_width;
    uint32_t m_n;
    std::vector<Acc> m_acc;
    std::vector<uint32_t> m_touched;
    bool m_open = false;
    int64_t m_unionStart = 0, m_unionEnd = 0;
    // Consecutive items of one key in one bucket (a layer's kernels) add up here first.
    bool m_keyPending = false;
    uint32_t m_keyBucket = 0;
    int64_t m_key = 0, m_keyNs = 0;

    int64_t bucketStart(uint32_t b) const { return m_origin + int64_t(b) * m_width; }
    uint32_t bucketOf(int64_t t) const
    {
        if (t <= m_origin)
            return 0;
        return uint32_t(std::min<int64_t>((t - m_origin) / m_width, int64_t(m_n) - 1));
    }
    Acc& touch(uint32_t b)
    {
        Acc& a = m_acc[b];
        if (!a.touched) {
            a.touched = true;
            m_touched.push_back(b);
        }
        return a;
    }
    void addKey(uint32_t b, int64_t key, int64_t ns)
    {
        if (m_keyPending && b == m_keyBucket && key == m_key) {
            m_keyNs += ns;
            return;
        }
        flushKey();
        m_keyPending = true;
        m_keyBucket = b;
        m_key = key;
        m_keyNs = ns;
    }
    void flushKey()
    {
        if (!m_keyPending)
            return;
        m_keyPending = false;
        Acc& a = touch(m_keyBucket);
        for (auto& [k, ns] : a.keys)
            if (k == m_key) {
                ns += m_keyNs;
                return;
            }
        a.keys.emplace_back(m_key, m_keyNs);
    }
    void flushUnion()
    {
        if (!m_open)
            return;
        m_open = false;
        for (uint32_t b = bucketOf(m_unionStart), last = bucketOf(m_unionEnd - 1); b <= last; ++b) {
            const int64_t bs = bucketStart(b);
            const int64_t lo = std::max(m_unionStart, bs), hi = std::min(m_unionEnd, bs + m_width);
            if (hi <= lo)
                continue;
            Acc& a = touch(b);
            a.busy += hi - lo;
            a.coverStart = std::min(a.coverStart, lo - bs);
            a.coverEnd = std::max(a.coverEnd, hi - bs);
        }
    }
};

// ---- The bounded pass (a run whose in-memory pass would exceed the memory budget) ----------
//
// Instances are taken in blocks of consecutive ids, the highest first: per block one pass over
// the instance chunks (the block's scope and parent) and one over the activities (the block's
// kernels' spans and devices, and the key time of the activities whose instance it holds): the
// first over every activity (it also counts and unions them), the others over the chunks that
// name one of the block's ids (a per-chunk id range, read once). A block's spans go up the tree inside it
// (parents have smaller ids) and, for a parent in a later block, into `pending` (about the
// open ancestors at the block's edge). Its lane items go into sorted runs in a temporary
// file, merged at the end in lane order (device, depth, start, id) into the lanes' rows and
// the ScopeLaneSet (itself spilled). Memory: one block (41 bytes an instance id), one run's
// buffer (40 bytes an item), the tracks' builders (about 1 MB each); not the run.

int64_t& budgetSetting()
{
    static int64_t budget = RunOverview::kDefaultMemoryBudget;
    return budget;
}

struct SpillItem {
    int32_t device, depth;
    int64_t start, end, scope, id;
    bool operator<(const SpillItem& o) const
    {
        return std::tie(device, depth, start, id) < std::tie(o.device, o.depth, o.start, o.id);
    }
};

// Sorted runs of lane items, varint-coded (deltas to the previous item), in one unnamed
// temporary file.
class SpillRuns {
public:
    struct Run {
        int64_t offset = 0, bytes = 0, items = 0;
    };

    void write(std::vector<SpillItem>& items)
    {
        if (items.empty())
            return;
        std::sort(items.begin(), items.end());
        if (!m_file) {
            std::FILE* f = std::tmpfile();
            if (!f)
                throw StorageError("cannot create a temporary file for the run's summary");
            m_file.reset(f, std::fclose);
        }
        std::string out;
        out.reserve(items.size() * 12);
        SpillItem prev{0, 0, 0, 0, 0, 0};
        for (const SpillItem& it : items) {
            varint::put(out, varint::zigzag(int64_t(it.device) - prev.device));
            varint::put(out, varint::zigzag(int64_t(it.depth) - prev.depth));
            varint::put(out, varint::zigzag(int64_t(uint64_t(it.start) - uint64_t(prev.start))));
            varint::put(out, varint::zigzag(int64_t(uint64_t(it.id) - uint64_t(prev.id))));
            varint::put(out, uint64_t(it.end - it.start));
            varint::put(out, varint::zigzag(int64_t(uint64_t(it.scope) - uint64_t(prev.scope))));
            prev = it;
        }
        if (pwrite(fileno(m_file.get()), out.data(), out.size(), off_t(m_end)) != ssize_t(out.size()))
            throw StorageError("cannot write the summary's temporary file (disk full?)");
        m_runs.push_back(Run{m_end, int64_t(out.size()), int64_t(items.size())});
        m_end += int64_t(out.size());
        items.clear();
    }

    // Reads one run back item by item.
    class Cursor {
    public:
        Cursor(int fd, const Run& r) : m_fd(fd), m_run(r) {}
        bool next(SpillItem& it)
        {
            if (m_read == m_run.items)
                return false;
            if (m_buf.size() - m_at < 64 && m_fileAt < m_run.bytes) {   // an item takes at most 60 bytes
                m_buf.erase(0, m_at);
                m_at = 0;
                const size_t want = size_t(std::min<int64_t>(1 << 16, m_run.bytes - m_fileAt));
                const size_t have = m_buf.size();
                m_buf.resize(have + want);
                if (pread(m_fd, m_buf.data() + have, want, off_t(m_run.offset + m_fileAt)) != ssize_t(want))
                    throw StorageError("cannot read the summary's temporary file");
                m_fileAt += int64_t(want);
            }
            varint::Cursor c{reinterpret_cast<const uint8_t*>(m_buf.data()) + m_at, reinterpret_cast<const uint8_t*>(m_buf.data()) + m_buf.size()};
            m_prev.device = int32_t(m_prev.device + varint::unzigzag(c.next()));
            m_prev.depth = int32_t(m_prev.depth + varint::unzigzag(c.next()));
            m_prev.start = int64_t(uint64_t(m_prev.start) + uint64_t(varint::unzigzag(c.next())));
            m_prev.id = int64_t(uint64_t(m_prev.id) + uint64_t(varint::unzigzag(c.next())));
            m_prev.end = m_prev.start + int64_t(c.next());
            m_prev.scope = int64_t(uint64_t(m_prev.scope) + uint64_t(varint::unzigzag(c.next())));
            m_at = size_t(c.p - reinterpret_cast<const uint8_t*>(m_buf.data()));
            ++m_read;
            it = m_prev;
            return true;
        }

    private:
        int m_fd;
        Run m_run;
        std::string m_buf;
        size_t m_at = 0;
        int64_t m_fileAt = 0, m_read = 0;
        SpillItem m_prev{0, 0, 0, 0, 0, 0};
    };

    // Every item of every run in sorted order: fn(item).
    template <class Fn>
    void merge(std::vector<SpillItem>& inMemory, Fn&& fn)
    {
        if (m_runs.empty()) {   // everything fitted one buffer
            std::sort(inMemory.begin(), inMemory.end());
            for (const SpillItem& it : inMemory)
                fn(it);
            return;
        }
        write(inMemory);
        std::vector<Cursor> cursors;
        cursors.reserve(m_runs.size());
        for (const Run& r : m_runs)
            cursors.emplace_back(fileno(m_file.get()), r);
        using Head = std::pair<SpillItem, size_t>;
        auto later = [](const Head& a, const Head& b) { return b.first < a.first; };
        std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
        for (size_t i = 0; i < cursors.size(); ++i) {
            SpillItem it;
            if (cursors[i].next(it))
                heads.emplace(it, i);
        }
        while (!heads.empty()) {
            const auto [it, i] = heads.top();
            heads.pop();
            fn(it);
            SpillItem nx;
            if (cursors[i].next(nx))
                heads.emplace(nx, i);
        }
    }

private:
    std::shared_ptr<std::FILE> m_file;
    int64_t m_end = 0;
    std::vector<Run> m_runs;
};

// Lanes' rows (and the ScopeLaneSet) from the items in lane order: shared by both passes.
class LaneEmitter {
public:
    LaneEmitter(RunOverview& ov, ScopeLaneSet* set, Reader& reader, const std::unordered_map<int64_t, uint32_t>& scopeLevel)
        : m_ov(ov), m_set(set), m_reader(reader), m_scopeLevel(scopeLevel), m_builder(ov.originNs, ov.bucketNs, ov.bucketCount)
    {
    }

    void add(int32_t device, int32_t depth, int64_t start, int64_t end, int64_t scope, int64_t id)
    {
        if (!m_open || device != m_device || depth != m_depth) {
            finish();
            m_open = true;
            m_device = device;
            m_depth = depth;
            m_items = 0;
            m_levels.clear();
            if (m_set)
                m_set->beginLane(device, depth);
        }
        ++m_items;
        m_builder.add(start, end, scope);
        if (m_set) {
            // The lane's level: the most common of its first 256 items' (ties: the first by name).
            if (m_items <= 256) {
                auto lv = m_scopeLevel.find(scope);
                ++m_levels[m_reader.string(lv == m_scopeLevel.end() ? 0 : lv->second)];
            }
            m_set->appendItem(ScopeLaneItem{id, start, end});
        }
    }

    void finish()
    {
        if (!m_open)
            return;
        m_open = false;
        OverviewRow r;
        r.kind = OverviewRow::Kind::Lane;
        r.deviceId = m_device;
        r.depth = m_depth;
        r.items = m_items;
        r.buckets = m_builder.finish();
        m_ov.rows.push_back(std::move(r));
        if (m_set) {
            std::string level;
            int best = -1;
            for (const auto& [lvl, n] : m_levels)
                if (n > best) {
                    best = n;
                    level = lvl;
                }
            m_set->endLane(std::move(level));
        }
    }

private:
    RunOverview& m_ov;
    ScopeLaneSet* m_set;
    Reader& m_reader;
    const std::unordered_map<int64_t, uint32_t>& m_scopeLevel;
    RowBuilder m_builder;
    bool m_open = false;
    int32_t m_device = 0, m_depth = 0;
    int64_t m_items = 0;
    std::map<std::string, int> m_levels;
};

bool hasOverviewTables(const Database& db)
{
    Statement t(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='overview_rows'");
    return t.step() && t.int64(0) > 0;
}

}  // namespace

void setBeforeOverviewCommit(std::function<void()> hook) { beforeCommitHook() = std::move(hook); }

std::vector<OverviewBucket> OverviewRow::coarsen(const std::vector<OverviewBucket>& level, int64_t bucketNs)
{
    std::vector<OverviewBucket> out;
    for (size_t i = 0; i < level.size();) {
        const OverviewBucket& a = level[i];
        OverviewBucket m = a;
        m.index = a.index / 2;
        if (a.index % 2 == 1) {   // a right half alone
            m.coverStartNs += bucketNs;
            m.coverEndNs += bucketNs;
            out.push_back(m);
            ++i;
            continue;
        }
        if (i + 1 < level.size() && level[i + 1].index == a.index + 1) {
            const OverviewBucket& b = level[i + 1];
            m.count += b.count;
            m.busyNs += b.busyNs;
            if (a.busyNs == 0) {
                m.coverStartNs = bucketNs + b.coverStartNs;
                m.coverEndNs = bucketNs + b.coverEndNs;
            } else if (b.busyNs > 0) {
                m.coverEndNs = bucketNs + b.coverEndNs;
            }
            if (b.busyNs > a.busyNs || (b.busyNs == a.busyNs && b.key < a.key))
                m.key = b.key;
            i += 2;
        } else {
            ++i;
        }
        out.push_back(m);
    }
    return out;
}

std::string encodeOverviewBuckets(const std::vector<OverviewBucket>& buckets)
{
    std::string out;
    out.push_back(char(RunOverview::kFormat));
    varint::put(out, buckets.size());
    uint32_t prev = 0;
    for (size_t i = 0; i < buckets.size(); ++i) {
        const OverviewBucket& b = buckets[i];
        varint::put(out, i == 0 ? b.index : b.index - prev - 1);
        prev = b.index;
        varint::put(out, uint64_t(b.count));
        varint::put(out, uint64_t(b.busyNs));
        varint::put(out, uint64_t(b.coverStartNs));
        varint::put(out, uint64_t(b.coverEndNs - b.coverStartNs));
        varint::put(out, varint::zigzag(b.key));
    }
    return out;
}

std::vector<OverviewBucket> decodeOverviewBuckets(std::string_view blob, uint32_t bucketCount, int64_t bucketNs)
{
    auto bad = [](const char* why) { throw StorageError(std::string("corrupt overview blob (") + why + ")"); };
    if (blob.empty() || uint8_t(blob[0]) != RunOverview::kFormat)
        bad("unknown format");
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()) + 1, reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    const uint64_t n = c.next();
    if (n > bucketCount)
        bad("more buckets than the grid");
    std::vector<OverviewBucket> out;
    out.resize(size_t(n));
    uint64_t index = 0;
    for (uint64_t i = 0; i < n; ++i) {
        OverviewBucket& b = out[size_t(i)];
        const uint64_t delta = c.next();
        index = i == 0 ? delta : index + 1 + delta;
        if (delta >= bucketCount || index >= bucketCount)
            bad("bucket outside the grid");
        b.index = uint32_t(index);
        const uint64_t count = c.next(), busy = c.next(), cover = c.next(), extent = c.next();
        if (busy > uint64_t(bucketNs) || cover > uint64_t(bucketNs) || extent > uint64_t(bucketNs) - cover || count > uint64_t(INT64_MAX))
            bad("figure outside its bucket");
        b.count = int64_t(count);
        b.busyNs = int64_t(busy);
        b.coverStartNs = int64_t(cover);
        b.coverEndNs = int64_t(cover + extent);
        b.key = varint::unzigzag(c.next());
    }
    if (c.p != c.end)
        bad("trailing bytes");
    return out;
}

namespace {

// One empty row per track, by track id: what both passes fill.
std::map<int64_t, OverviewRow> emptyTrackRows(const std::vector<Track>& tracks)
{
    std::map<int64_t, OverviewRow> rows;
    for (const Track& t : tracks) {
        OverviewRow r;
        r.kind = OverviewRow::Kind::Track;
        r.trackId = t.id;
        r.deviceId = t.deviceId;
        rows[t.id] = r;
    }
    return rows;
}

// Every instance of the run, chunk by chunk in id order: fn(const ScopeInstance&). A chunk that
// does not decode fails the pass in one line naming the run.
template <class Fn>
void forEachStoredInstance(Database& db, int64_t runId, Fn&& fn)
{
    Statement s(db.handle(), "SELECT data FROM scope_instance_chunks WHERE run_id=? ORDER BY id");
    s.bind(1, runId);
    std::vector<ScopeInstance> rows;
    while (s.step()) {
        rows.clear();
        try {
            InstanceChunk::decode(s.blob(0), rows);
        } catch (const StorageError& e) {
            throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + e.what() + ")");
        }
        for (const ScopeInstance& r : rows)
            fn(r);
    }
}

// The bounded pass (see above): the grid, tracks and scopes are known; `minId`..`maxId` are the
// run's instance ids.
void computeBounded(Database& db, int64_t runId, RunOverview& ov, const std::vector<Track>& tracks,
                    const std::unordered_map<int64_t, int32_t>& scopeDepth, const std::unordered_map<int64_t, uint32_t>& scopeLevel,
                    const std::vector<int32_t>& deviceIds, ScopeLaneSet* laneSet, int64_t budget, int64_t minId, int64_t maxId)
{
    Reader reader(db);
    if (laneSet)
        laneSet->spillToFile();
    // Half the budget for a block (41 bytes an id), half for the lane items' buffer (40 bytes).
    const int64_t width = std::max<int64_t>(64, budget / 2 / 41);
    const size_t runItems = size_t(std::max<int64_t>(64, budget / 2 / int64_t(sizeof(SpillItem))));
    std::map<int64_t, std::unique_ptr<RowBuilder>> builders;   // by track id
    std::map<int64_t, OverviewRow> trackRows = emptyTrackRows(tracks);
    struct Span {
        int64_t start = INT64_MAX, end = INT64_MIN;
        uint64_t mask = 0;
    };
    std::unordered_map<int64_t, Span> pending;   // from children in blocks done, to parents in blocks to come
    SpillRuns runs;
    std::vector<SpillItem> buffer;
    std::vector<int64_t> scope, parent, gpuStart, gpuEnd;
    std::vector<uint64_t> mask;
    std::vector<uint8_t> present;
    bool firstPass = true;
    auto deviceBit = [&](int32_t deviceId) {
        const size_t i = size_t(std::lower_bound(deviceIds.begin(), deviceIds.end(), deviceId) - deviceIds.begin());
        return uint64_t(1) << std::min<size_t>(i, 63);
    };
    // Per activity chunk the range of instance ids it names (decoding that column only), so
    // that the blocks after the first read only the chunks that hold their kernels: ids follow
    // time, so a block's kernels are in about its share of the chunks.
    struct ChunkRange {
        int64_t rowid, minId, maxId;
    };
    std::vector<ChunkRange> chunkRanges;
    std::unordered_map<int64_t, const Track*> trackById;
    for (const Track& t : tracks)
        trackById[t.id] = &t;
    if (maxId + 1 - minId > width) {
        Statement s(db.handle(), "SELECT c.id, c.data FROM activity_chunks c JOIN tracks t ON c.track_id=t.id WHERE t.run_id=? ORDER BY c.id");
        s.bind(1, runId);
        while (s.step()) {
            ChunkRange r{s.int64(0), 0, 0};
            try {
                ActivityChunk::instanceRange(s.blob(1), r.minId, r.maxId);
            } catch (const StorageError& e) {
                throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + e.what() + ")");
            }
            if (r.maxId > 0)
                chunkRanges.push_back(r);
        }
    }
    for (int64_t hi = maxId + 1; hi > minId;) {
        const int64_t lo = std::max(minId, hi - width);
        const size_t n = size_t(hi - lo);
        scope.assign(n, 0);
        parent.assign(n, 0);
        gpuStart.assign(n, INT64_MAX);
        gpuEnd.assign(n, INT64_MIN);
        mask.assign(n, 0);
        present.assign(n, 0);
        forEachStoredInstance(db, runId, [&](const ScopeInstance& r) {
            if (r.id >= lo && r.id < hi) {
                const size_t k = size_t(r.id - lo);
                present[k] = 1;
                scope[k] = r.scopeId;
                parent[k] = r.parentId;
            }
        });
        RowBuilder* b = nullptr;
        int64_t currentTrack = 0;
        uint64_t bit = 0;
        auto process = [&](const Track& track, const StoredActivity* rows, size_t count) {
            if (!b || track.id != currentTrack) {
                currentTrack = track.id;
                auto& slot = builders[track.id];
                if (!slot)
                    slot = std::make_unique<RowBuilder>(ov.originNs, ov.bucketNs, ov.bucketCount);
                b = slot.get();
                bit = deviceBit(track.deviceId);
                OverviewRow& r = trackRows[track.id];
                r.kind = OverviewRow::Kind::Track;
                r.trackId = track.id;
                r.deviceId = track.deviceId;
            }
            if (firstPass)
                trackRows[track.id].items += int64_t(count);
            for (size_t k = 0; k < count; ++k) {
                const StoredActivity& a = rows[k];
                const int64_t end = a.startNs + std::max<int64_t>(a.durationNs, 0);
                if (firstPass)
                    b->addSpan(a.startNs, end);
                const int64_t id = a.scopeInstanceId;
                if (id >= lo && id < hi) {
                    const size_t i = size_t(id - lo);
                    b->addKeyTime(a.startNs, end, present[i] ? scope[i] : -int64_t(a.nameId) - 1);
                    if (present[i] && ActivityKind(a.kind) == ActivityKind::Kernel) {
                        gpuStart[i] = std::min(gpuStart[i], a.startNs);
                        gpuEnd[i] = std::max(gpuEnd[i], end);
                        mask[i] |= bit;
                    }
                } else if (firstPass && (id < minId || id > maxId)) {
                    b->addKeyTime(a.startNs, end, -int64_t(a.nameId) - 1);   // no instance: its name
                }
            }
            return true;
        };
        if (firstPass) {
            // Every activity, each track in start order (the counts and the union need it).
            reader.forEachActivityBlock(runId, process);
        } else {
            // Only the chunks that name an instance of the block, in any order (sums and extremes).
            Statement one(db.handle(), "SELECT track_id, start_ns, end_ns, first_seq, count, data FROM activity_chunks WHERE id=?");
            std::vector<StoredActivity> rows;
            for (const ChunkRange& r : chunkRanges) {
                if (r.maxId < lo || r.minId >= hi)
                    continue;
                one.bind(1, r.rowid);
                if (!one.step())
                    throw StorageError(db.path() + ": run " + std::to_string(runId) + " changed while its summary was computed");
                auto t = trackById.find(one.int64(0));
                rows.clear();
                try {
                    ActivityChunk::decode(one.blob(5), ChunkHeader{one.int64(1), one.int64(2), one.int64(3), one.int64(4)}, rows);
                } catch (const StorageError& e) {
                    throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + e.what() + ")");
                }
                one.reset();
                if (t != trackById.end())
                    process(*t->second, rows.data(), rows.size());
            }
        }
        firstPass = false;
        // What children in blocks done gave this block's instances.
        for (auto it = pending.begin(); it != pending.end();) {
            if (it->first >= lo && it->first < hi) {
                const size_t k = size_t(it->first - lo);
                if (present[k]) {
                    gpuStart[k] = std::min(gpuStart[k], it->second.start);
                    gpuEnd[k] = std::max(gpuEnd[k], it->second.end);
                    mask[k] |= it->second.mask;
                }
                it = pending.erase(it);
            } else {
                ++it;
            }
        }
        // Spans up the tree, then the block's lane items.
        for (size_t k = n; k-- > 0;) {
            const int64_t id = lo + int64_t(k), p = parent[k];
            if (!present[k] || p == 0 || p >= id || gpuStart[k] > gpuEnd[k])
                continue;
            if (p >= lo) {
                const size_t q = size_t(p - lo);
                if (!present[q])
                    continue;
                gpuStart[q] = std::min(gpuStart[q], gpuStart[k]);
                gpuEnd[q] = std::max(gpuEnd[q], gpuEnd[k]);
                mask[q] |= mask[k];
            } else if (p >= minId) {
                Span& sp = pending[p];
                sp.start = std::min(sp.start, gpuStart[k]);
                sp.end = std::max(sp.end, gpuEnd[k]);
                sp.mask |= mask[k];
            }
        }
        for (size_t k = 0; k < n; ++k) {
            if (!present[k] || gpuStart[k] > gpuEnd[k])
                continue;
            auto depth = scopeDepth.find(scope[k]);
            if (depth == scopeDepth.end())
                continue;
            for (size_t dv = 0; dv < deviceIds.size(); ++dv)
                if (mask[k] & (uint64_t(1) << std::min<size_t>(dv, 63))) {
                    buffer.push_back(SpillItem{deviceIds[dv], depth->second, gpuStart[k], gpuEnd[k], scope[k], lo + int64_t(k)});
                    if (buffer.size() >= runItems)
                        runs.write(buffer);
                }
        }
        hi = lo;
    }
    std::vector<int64_t>().swap(scope);
    std::vector<int64_t>().swap(parent);
    std::vector<int64_t>().swap(gpuStart);
    std::vector<int64_t>().swap(gpuEnd);
    std::vector<uint64_t>().swap(mask);
    std::vector<uint8_t>().swap(present);
    pending.clear();
    for (auto& [id, r] : trackRows) {
        auto it = builders.find(id);
        if (it != builders.end()) {
            r.buckets = it->second->finish();
            it->second.reset();
        }
        ov.rows.push_back(std::move(r));
    }
    builders.clear();
    LaneEmitter lanes(ov, laneSet, reader, scopeLevel);
    runs.merge(buffer, [&](const SpillItem& it) { lanes.add(it.device, it.depth, it.start, it.end, it.scope, it.id); });
    lanes.finish();
}

}  // namespace

void setOverviewMemoryBudget(int64_t bytes) { budgetSetting() = bytes > 0 ? bytes : RunOverview::kDefaultMemoryBudget; }

int64_t overviewMemoryBudget() { return budgetSetting(); }

RunOverview computeRunOverview(Database& db, int64_t runId, ScopeLaneSet* laneSet)
{
    Reader reader(db);
    RunOverview ov;
    {
        Statement s(db.handle(), "SELECT min(c.start_ns), max(c.end_ns), max(c.start_ns), sum(c.count) FROM activity_chunks c "
                                 "JOIN tracks t ON c.track_id=t.id WHERE t.run_id=?");
        s.bind(1, runId);
        if (!s.step() || s.isNull(0))
            return ov;
        ov.originNs = s.int64(0);
        const int64_t end = std::max(s.int64(1), s.int64(2) + 1);   // an item lasts at least 1 ns
        ov.activities = s.int64(3);
        const int64_t span = std::max<int64_t>(end - ov.originNs, 1);
        ov.bucketNs = std::max<int64_t>(1, (span + RunOverview::kBuckets - 1) / RunOverview::kBuckets);
        ov.bucketCount = uint32_t((span + ov.bucketNs - 1) / ov.bucketNs);
    }
    const std::vector<Track> tracks = reader.tracks(runId);
    std::unordered_map<int64_t, int32_t> scopeDepth;
    std::unordered_map<int64_t, uint32_t> scopeLevel;
    for (const ScopeNode& n : reader.scopes(runId)) {
        scopeDepth[n.id] = n.depth;
        scopeLevel[n.id] = n.levelId;
    }
    std::vector<int32_t> deviceIds;   // bit i of a mask: deviceIds[i] (the 64th and later share bit 63)
    for (const DeviceInfo& dv : reader.devices(runId))
        deviceIds.push_back(dv.id);
    for (const Track& t : tracks)
        if (std::find(deviceIds.begin(), deviceIds.end(), t.deviceId) == deviceIds.end())
            deviceIds.push_back(t.deviceId);
    std::sort(deviceIds.begin(), deviceIds.end());
    auto deviceBit = [&](int32_t deviceId) {
        const size_t i = size_t(std::lower_bound(deviceIds.begin(), deviceIds.end(), deviceId) - deviceIds.begin());
        return uint64_t(1) << std::min<size_t>(i, 63);
    };

    // Over the budget the bounded pass: the in-memory one holds ~100 bytes an instance at its
    // peak (below), more with holes in the ids.
    int64_t instances = 0, minId = 0, maxId = 0;
    {
        Statement n(db.handle(), "SELECT coalesce(sum(count), 0) FROM scope_instance_chunks WHERE run_id=?");
        n.bind(1, runId);
        if (n.step())
            instances = n.int64(0);
    }
    const int64_t budget = overviewMemoryBudget();
    if (instances > 0 && (instances > budget / 100 || instances >= (int64_t(1) << 32))) {
        // The ids' range, from the chunks' id columns (each chunk's least and greatest id, as the
        // Writer stores them); a damaged chunk fails the pass when the blocks decode it.
        Statement s(db.handle(), "SELECT min(first_id), max(last_id) FROM scope_instance_chunks WHERE run_id=?");
        s.bind(1, runId);
        if (!s.step())
            return ov;
        minId = s.int64(0);
        maxId = s.int64(1);
        computeBounded(db, runId, ov, tracks, scopeDepth, scopeLevel, deviceIds, laneSet, budget, minId, maxId);
        return ov;
    }

    // Instances by index (id order, parents first); their GPU spans and devices grow from the
    // kernels under them, as the timeline's lanes do.
    // Only (id, scope, parent) of each instance, decoded chunk by chunk: 24 bytes an instance
    // rather than a whole ScopeInstance (88M instances at 100M kernels).
    struct Inst {
        int64_t id, scopeId, parentId;
    };
    std::vector<Inst> inst;
    {
        if (instances > 0)
            inst.reserve(size_t(instances));
        forEachStoredInstance(db, runId, [&](const ScopeInstance& r) { inst.push_back(Inst{r.id, r.scopeId, r.parentId}); });
    }
    std::sort(inst.begin(), inst.end(), [](const Inst& a, const Inst& b) { return a.id < b.id; });
    const bool contiguous = inst.empty() || inst.back().id - inst.front().id + 1 == int64_t(inst.size());
    std::unordered_map<int64_t, uint32_t> indexById;
    if (!contiguous)
        for (size_t i = 0; i < inst.size(); ++i)
            indexById[inst[i].id] = uint32_t(i);
    const int64_t firstId = inst.empty() ? 0 : inst.front().id;
    auto indexOf = [&](int64_t id) -> uint32_t {
        if (id == 0 || inst.empty())
            return UINT32_MAX;
        if (contiguous)
            return id >= firstId && id - firstId < int64_t(inst.size()) ? uint32_t(id - firstId) : UINT32_MAX;
        auto it = indexById.find(id);
        return it == indexById.end() ? UINT32_MAX : it->second;
    };
    std::vector<int64_t> gpuStart(inst.size(), INT64_MAX), gpuEnd(inst.size(), INT64_MIN);
    std::vector<uint64_t> deviceMask(inst.size(), 0);

    RowBuilder builder(ov.originNs, ov.bucketNs, ov.bucketCount);
    std::map<int64_t, OverviewRow> trackRows = emptyTrackRows(tracks);
    int64_t currentTrack = 0;
    OverviewRow* current = nullptr;
    uint64_t currentBit = 0;
    auto closeTrack = [&] {
        if (current)
            current->buckets = builder.finish();
        current = nullptr;
    };
    reader.forEachActivityBlock(runId, [&](const Track& track, const StoredActivity* rows, size_t count) {
        if (track.id != currentTrack || !current) {
            closeTrack();
            currentTrack = track.id;
            current = &trackRows[track.id];
            current->kind = OverviewRow::Kind::Track;
            current->trackId = track.id;
            current->deviceId = track.deviceId;
            currentBit = deviceBit(track.deviceId);
        }
        current->items += int64_t(count);
        for (size_t k = 0; k < count; ++k) {
            const StoredActivity& a = rows[k];
            const int64_t end = a.startNs + std::max<int64_t>(a.durationNs, 0);
            const uint32_t i = indexOf(a.scopeInstanceId);
            builder.add(a.startNs, end, i != UINT32_MAX ? inst[i].scopeId : -int64_t(a.nameId) - 1);
            if (i != UINT32_MAX && ActivityKind(a.kind) == ActivityKind::Kernel) {
                gpuStart[i] = std::min(gpuStart[i], a.startNs);
                gpuEnd[i] = std::max(gpuEnd[i], end);
                deviceMask[i] |= currentBit;
            }
        }
        return true;
    });
    closeTrack();
    for (auto& [id, r] : trackRows)
        ov.rows.push_back(std::move(r));

    // Spans go up the tree (parents have smaller ids), then lanes per (device, depth).
    for (size_t i = inst.size(); i-- > 0;) {
        const uint32_t p = indexOf(inst[i].parentId);
        if (p == UINT32_MAX || p >= i || gpuStart[i] > gpuEnd[i])
            continue;
        gpuStart[p] = std::min(gpuStart[p], gpuStart[i]);
        gpuEnd[p] = std::max(gpuEnd[p], gpuEnd[i]);
        deviceMask[p] |= deviceMask[i];
    }
    // Lane order: GPU start, then id (the GUI's lanes: start, then instance index).
    struct LaneItem {
        int64_t start, end, key, id;
        bool operator<(const LaneItem& o) const { return std::tie(start, id) < std::tie(o.start, o.id); }
    };
    std::map<std::pair<int32_t, int32_t>, std::vector<LaneItem>> lanes;
    for (size_t i = 0; i < inst.size(); ++i) {
        if (gpuStart[i] > gpuEnd[i])
            continue;
        auto depth = scopeDepth.find(inst[i].scopeId);
        if (depth == scopeDepth.end())
            continue;
        for (size_t dv = 0; dv < deviceIds.size(); ++dv)
            if (deviceMask[i] & (uint64_t(1) << std::min<size_t>(dv, 63)))
                lanes[{deviceIds[dv], depth->second}].push_back(LaneItem{gpuStart[i], gpuEnd[i], inst[i].scopeId, inst[i].id});
    }
    std::vector<Inst>().swap(inst);
    std::vector<int64_t>().swap(gpuStart);
    std::vector<int64_t>().swap(gpuEnd);
    LaneEmitter emit(ov, laneSet, reader, scopeLevel);
    for (auto& [key, items] : lanes) {
        std::sort(items.begin(), items.end());
        for (const LaneItem& it : items)
            emit.add(key.first, key.second, it.start, it.end, it.key, it.id);
        emit.finish();
        std::vector<LaneItem>().swap(items);
    }
    return ov;
}

void storeRunOverview(Database& db, int64_t runId, const RunOverview& ov, const ScopeLaneSet* lanes)
{
    sqlite3* h = db.handle();
    const bool own = sqlite3_get_autocommit(h) != 0;
    if (own)
        db.begin();
    try {
        {
            Statement del(h, "DELETE FROM overview_rows WHERE run_id=?");
            del.bind(1, runId).run();
        }
        Statement ins(h, "INSERT INTO overview_rows(run_id, row, kind, track_id, device_id, depth, items, data) VALUES (?,?,?,?,?,?,?,?)");
        for (size_t i = 0; i < ov.rows.size(); ++i) {
            const OverviewRow& r = ov.rows[i];
            const std::string blob = encodeOverviewBuckets(r.buckets);
            ins.bind(1, runId).bind(2, int64_t(i)).bind(3, int64_t(r.kind)).bind(4, r.trackId).bind(5, int64_t(r.deviceId))
                .bind(6, int64_t(r.depth)).bind(7, r.items).bindBlobNoCopy(8, blob.data(), blob.size());
            ins.run();
        }
        Statement run(h, "INSERT OR REPLACE INTO overviews(run_id, format, origin_ns, bucket_ns, buckets, activities) VALUES (?,?,?,?,?,?)");
        run.bind(1, runId).bind(2, int64_t(RunOverview::kFormat)).bind(3, ov.originNs).bind(4, ov.bucketNs)
            .bind(5, int64_t(ov.bucketCount)).bind(6, ov.activities).run();
        if (lanes && hasScopeLaneTables(db))
            storeScopeLanes(db, runId, *lanes);
        if (beforeCommitHook())
            beforeCommitHook()();
        if (own)
            db.commit();
    } catch (...) {
        if (own)
            db.rollback();
        throw;
    }
}

std::optional<RunOverview> readRunOverview(const Database& db, int64_t runId)
{
    if (db.schemaVersion() < 5 || !hasOverviewTables(db))
        return std::nullopt;
    RunOverview ov;
    {
        Statement s(db.handle(), "SELECT format, origin_ns, bucket_ns, buckets, activities FROM overviews WHERE run_id=?");
        s.bind(1, runId);
        if (!s.step())
            return std::nullopt;
        if (s.int64(0) != RunOverview::kFormat)
            return std::nullopt;   // a format this build does not know: as if none
        ov.originNs = s.int64(1);
        ov.bucketNs = s.int64(2);
        const int64_t n = s.int64(3);
        ov.activities = s.int64(4);
        if (ov.bucketNs < 1 || n < 0 || n > int64_t(RunOverview::kBuckets) + 1)
            throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (corrupt overview grid)");
        ov.bucketCount = uint32_t(n);
    }
    Statement s(db.handle(), "SELECT kind, track_id, device_id, depth, items, data FROM overview_rows WHERE run_id=? ORDER BY row");
    s.bind(1, runId);
    while (s.step()) {
        OverviewRow r;
        r.kind = s.int64(0) == 1 ? OverviewRow::Kind::Lane : OverviewRow::Kind::Track;
        r.trackId = s.int64(1);
        r.deviceId = int32_t(s.int64(2));
        r.depth = int32_t(s.int64(3));
        r.items = s.int64(4);
        try {
            r.buckets = decodeOverviewBuckets(s.blob(5), ov.bucketCount, ov.bucketNs);
        } catch (const StorageError& e) {
            throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + e.what() + ")");
        }
        ov.rows.push_back(std::move(r));
    }
    return ov;
}

}  // namespace wt
