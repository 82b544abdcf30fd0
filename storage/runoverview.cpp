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
#include <unordered_map>
#include <utility>

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
        end = std::max(end, start + 1);
        const uint32_t b0 = bucketOf(start);
        touch(b0).count += 1;
        // Item time per bucket for the dominant key.
        for (uint32_t b = b0, last = bucketOf(end - 1); b <= last; ++b) {
            const int64_t bs = bucketStart(b);
            const int64_t ns = std::min(end, bs + m_width) - std::max(start, bs);
            if (ns > 0)
                addKey(b, key, ns);
        }
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
    // Instances by index (id order, parents first); their GPU spans and devices grow from the
    // kernels under them, as the timeline's lanes do.
    // Only (id, scope, parent) of each instance, decoded chunk by chunk: 24 bytes an instance
    // rather than a whole ScopeInstance (88M instances at 100M kernels).
    struct Inst {
        int64_t id, scopeId, parentId;
    };
    std::vector<Inst> inst;
    {
        Statement n(db.handle(), "SELECT coalesce(sum(count), 0) FROM scope_instance_chunks WHERE run_id=?");
        n.bind(1, runId);
        if (n.step() && n.int64(0) > 0 && n.int64(0) < (int64_t(1) << 32))
            inst.reserve(size_t(n.int64(0)));
        Statement s(db.handle(), "SELECT data, count FROM scope_instance_chunks WHERE run_id=? ORDER BY id");
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
                inst.push_back(Inst{r.id, r.scopeId, r.parentId});
        }
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

    RowBuilder builder(ov.originNs, ov.bucketNs, ov.bucketCount);
    std::map<int64_t, OverviewRow> trackRows;
    for (const Track& t : tracks) {
        OverviewRow r;
        r.kind = OverviewRow::Kind::Track;
        r.trackId = t.id;
        r.deviceId = t.deviceId;
        trackRows[t.id] = r;
    }
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
    std::vector<ScopeLaneItem> laneItems;
    for (auto& [key, items] : lanes) {
        std::sort(items.begin(), items.end());
        OverviewRow r;
        r.kind = OverviewRow::Kind::Lane;
        r.deviceId = key.first;
        r.depth = key.second;
        r.items = int64_t(items.size());
        for (const LaneItem& it : items)
            builder.add(it.start, it.end, it.key);
        r.buckets = builder.finish();
        if (laneSet) {
            // The lane's level: the most common of its first 256 items' (ties: the first by name).
            std::map<std::string, int> levels;
            for (size_t k = 0; k < std::min<size_t>(items.size(), 256); ++k)
                ++levels[reader.string(scopeLevel[items[k].key])];
            std::string level;
            int best = -1;
            for (const auto& [lvl, n] : levels)
                if (n > best) {
                    best = n;
                    level = lvl;
                }
            laneItems.resize(items.size());
            for (size_t k = 0; k < items.size(); ++k)
                laneItems[k] = ScopeLaneItem{items[k].id, items[k].start, items[k].end};
            laneSet->addLane(key.first, key.second, laneItems, std::move(level));
        }
        std::vector<LaneItem>().swap(items);
        ov.rows.push_back(std::move(r));
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
