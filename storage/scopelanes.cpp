#include "scopelanes.h"

#include "database.h"
#include "statement.h"
#include "storageerror.h"
#include "varint.h"

#include <algorithm>
#include <climits>

namespace wt {

void ScopeLaneSet::addLane(int32_t deviceId, int32_t depth, const std::vector<ScopeLaneItem>& items, std::string level)
{
    beginLane(deviceId, depth);
    for (const ScopeLaneItem& it : items)
        appendItem(it);
    endLane(std::move(level));
}

void ScopeLaneSet::beginLane(int32_t deviceId, int32_t depth)
{
    m_pending.clear();
    m_lane = ScopeLane{};
    m_lane.deviceId = deviceId;
    m_lane.depth = depth;
}

void ScopeLaneSet::appendItem(const ScopeLaneItem& item)
{
    if (m_lane.items == 0)
        m_lane.firstStartNs = item.startNs;
    m_lane.lastStartNs = item.startNs;
    m_lane.maxDurationNs = std::max(m_lane.maxDurationNs, item.endNs - item.startNs);
    ++m_lane.items;
    m_pending.push_back(item);
    if (m_pending.size() == kChunkItems)
        flushChunk();
}

void ScopeLaneSet::endLane(std::string level)
{
    flushChunk();
    if (m_lane.items == 0)
        return;
    m_lane.level = std::move(level);
    lanes.push_back(std::move(m_lane));
    m_lane = ScopeLane{};
}

void ScopeLaneSet::flushChunk()
{
    if (m_pending.empty())
        return;
    ScopeLaneChunk c;
    c.lane = uint32_t(lanes.size());
    c.startNs = m_pending.front().startNs;
    c.endNs = INT64_MIN;
    c.count = int64_t(m_pending.size());
    for (const ScopeLaneItem& it : m_pending)
        c.endNs = std::max(c.endNs, std::max(it.endNs, it.startNs + 1));
    c.data = encodeScopeLaneItems(m_pending.data(), m_pending.size(), c.startNs);
    if (m_spill) {
        if (std::fwrite(c.data.data(), 1, c.data.size(), m_spill.get()) != c.data.size())
            throw StorageError("cannot write the scope lanes' temporary file (disk full?)");
        c.spillOffset = m_spillEnd;
        c.spillBytes = int64_t(c.data.size());
        m_spillEnd += c.spillBytes;
        std::string().swap(c.data);
    }
    chunks.push_back(std::move(c));
    m_pending.clear();
}

void ScopeLaneSet::spillToFile()
{
    if (m_spill)
        return;
    std::FILE* f = std::tmpfile();
    if (!f)
        throw StorageError("cannot create a temporary file for the scope lanes");
    m_spill.reset(f, std::fclose);
}

std::string ScopeLaneSet::chunkData(size_t chunk) const
{
    const ScopeLaneChunk& c = chunks.at(chunk);
    if (c.spillOffset < 0)
        return c.data;
    std::string out(size_t(c.spillBytes), '\0');
    if (!m_spill || std::fflush(m_spill.get()) != 0 || fseeko(m_spill.get(), off_t(c.spillOffset), SEEK_SET) != 0 ||
        std::fread(out.data(), 1, out.size(), m_spill.get()) != out.size())
        throw StorageError("cannot read the scope lanes' temporary file");
    fseeko(m_spill.get(), 0, SEEK_END);
    return out;
}

size_t ScopeLaneSet::bytes() const
{
    size_t b = lanes.capacity() * sizeof(ScopeLane) + chunks.capacity() * sizeof(ScopeLaneChunk);
    for (const ScopeLaneChunk& c : chunks)
        b += c.data.capacity();
    return b;
}

// Format 1: per item the id as a zigzag delta from the previous one (the first from 0), the
// start as a delta from the previous start (the first from the chunk's start; items are in
// start order) and the span's length.
std::string encodeScopeLaneItems(const ScopeLaneItem* items, size_t n, int64_t chunkStartNs)
{
    std::string out;
    out.reserve(1 + n * 7);
    out.push_back(char(ScopeLaneSet::kFormat));
    int64_t prevId = 0, prevStart = chunkStartNs;
    for (size_t i = 0; i < n; ++i) {
        const ScopeLaneItem& it = items[i];
        varint::put(out, varint::zigzag(int64_t(uint64_t(it.instanceId) - uint64_t(prevId))));
        varint::put(out, uint64_t(it.startNs) - uint64_t(prevStart));
        varint::put(out, uint64_t(it.endNs) - uint64_t(it.startNs));
        prevId = it.instanceId;
        prevStart = it.startNs;
    }
    return out;
}

void decodeScopeLaneItems(std::string_view blob, int64_t chunkStartNs, int64_t count, std::vector<ScopeLaneItem>& out)
{
    auto bad = [](const char* why) { throw StorageError(std::string("corrupt scope lane chunk (") + why + ")"); };
    if (blob.empty() || uint8_t(blob[0]) != ScopeLaneSet::kFormat)
        bad("unknown format");
    if (count < 0 || uint64_t(count) > blob.size())   // every item takes at least 3 bytes
        bad("count");
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()) + 1, reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    const size_t at = out.size();
    out.resize(at + size_t(count));
    int64_t id = 0, start = chunkStartNs;
    constexpr int64_t kLimit = int64_t(1) << 62;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t dId = varint::unzigzag(c.next());
        const uint64_t dStart = c.next(), len = c.next();
        if (dStart > uint64_t(kLimit) || len > uint64_t(kLimit) || dId > kLimit || dId < -kLimit)
            bad("value out of range");
        id += dId;
        start += int64_t(dStart);
        if (id <= 0 || start > kLimit || start < -kLimit)
            bad("value out of range");
        ScopeLaneItem& it = out[at + size_t(i)];
        it.instanceId = id;
        it.startNs = start;
        it.endNs = start + int64_t(len);
        if (it.endNs > kLimit)
            bad("value out of range");
    }
    if (c.p != c.end)
        bad("trailing bytes");
}

bool hasScopeLaneTables(const Database& db)
{
    Statement t(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='scope_lane_sets'");
    return t.step() && t.int64(0) > 0;
}

void storeScopeLanes(Database& db, int64_t runId, const ScopeLaneSet& set)
{
    sqlite3* h = db.handle();
    for (const char* sql : {"DELETE FROM scope_lane_chunks WHERE run_id=?", "DELETE FROM scope_lanes WHERE run_id=?",
                            "DELETE FROM scope_lane_sets WHERE run_id=?"}) {
        Statement del(h, sql);
        del.bind(1, runId).run();
    }
    Statement lane(h, "INSERT INTO scope_lanes(run_id, lane, device_id, depth, items, first_start_ns, last_start_ns, "
                      "max_duration_ns, level) VALUES (?,?,?,?,?,?,?,?,?)");
    for (size_t i = 0; i < set.lanes.size(); ++i) {
        const ScopeLane& l = set.lanes[i];
        lane.bind(1, runId).bind(2, int64_t(i)).bind(3, int64_t(l.deviceId)).bind(4, int64_t(l.depth)).bind(5, l.items)
            .bind(6, l.firstStartNs).bind(7, l.lastStartNs).bind(8, l.maxDurationNs).bind(9, l.level);
        lane.run();
    }
    Statement chunk(h, "INSERT INTO scope_lane_chunks(run_id, lane, start_ns, end_ns, count, data) VALUES (?,?,?,?,?,?)");
    for (size_t i = 0; i < set.chunks.size(); ++i) {
        const ScopeLaneChunk& c = set.chunks[i];
        const std::string data = set.chunkData(i);
        chunk.bind(1, runId).bind(2, int64_t(c.lane)).bind(3, c.startNs).bind(4, c.endNs).bind(5, c.count)
            .bindBlobNoCopy(6, data.data(), data.size());
        chunk.run();
    }
    Statement run(h, "INSERT INTO scope_lane_sets(run_id, format, lanes) VALUES (?,?,?)");
    run.bind(1, runId).bind(2, int64_t(ScopeLaneSet::kFormat)).bind(3, int64_t(set.lanes.size())).run();
}

std::optional<std::vector<ScopeLane>> readScopeLanes(const Database& db, int64_t runId)
{
    if (db.schemaVersion() < 6 || !hasScopeLaneTables(db))
        return std::nullopt;
    int64_t count = 0;
    {
        Statement s(db.handle(), "SELECT format, lanes FROM scope_lane_sets WHERE run_id=?");
        s.bind(1, runId);
        if (!s.step() || s.int64(0) != ScopeLaneSet::kFormat)
            return std::nullopt;   // none, or a format this build does not know: as if none
        count = s.int64(1);
    }
    std::vector<ScopeLane> lanes;
    Statement s(db.handle(), "SELECT lane, device_id, depth, items, first_start_ns, last_start_ns, max_duration_ns, level "
                             "FROM scope_lanes WHERE run_id=? ORDER BY lane");
    s.bind(1, runId);
    while (s.step()) {
        if (s.int64(0) != int64_t(lanes.size()) || s.int64(3) <= 0 || s.int64(4) > s.int64(5) || s.int64(6) < 0)
            throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (corrupt scope lane)");
        ScopeLane l;
        l.deviceId = int32_t(s.int64(1));
        l.depth = int32_t(s.int64(2));
        l.items = s.int64(3);
        l.firstStartNs = s.int64(4);
        l.lastStartNs = s.int64(5);
        l.maxDurationNs = s.int64(6);
        l.level = s.text(7);
        lanes.push_back(std::move(l));
    }
    if (int64_t(lanes.size()) != count)
        throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (scope lanes missing)");
    return lanes;
}

void readScopeLaneItems(const Database& db, int64_t runId, uint32_t lane, int64_t t0, int64_t t1, std::vector<ScopeLaneItem>& out)
{
    if (t1 <= t0)
        return;
    Statement s(db.handle(), "SELECT start_ns, count, data FROM scope_lane_chunks WHERE run_id=?1 AND lane=?2 AND start_ns < ?3 "
                             "AND end_ns > ?4 ORDER BY start_ns, id");
    s.bind(1, runId).bind(2, int64_t(lane)).bind(3, t1).bind(4, t0);
    std::vector<ScopeLaneItem> rows;
    while (s.step()) {
        rows.clear();
        try {
            decodeScopeLaneItems(s.blob(2), s.int64(0), s.int64(1), rows);
        } catch (const StorageError& e) {
            throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + e.what() + ")");
        }
        for (const ScopeLaneItem& it : rows)
            if (it.startNs < t1 && std::max(it.endNs, it.startNs + 1) > t0)
                out.push_back(it);
    }
}

void forEachScopeLaneChunk(const Database& db, int64_t runId,
                           const std::function<bool(uint32_t lane, const ScopeLaneItem* items, size_t n)>& fn)
{
    Statement s(db.handle(), "SELECT lane, start_ns, count, data FROM scope_lane_chunks WHERE run_id=? ORDER BY lane, start_ns, id");
    s.bind(1, runId);
    std::vector<ScopeLaneItem> rows;
    while (s.step()) {
        rows.clear();
        try {
            decodeScopeLaneItems(s.blob(3), s.int64(1), s.int64(2), rows);
        } catch (const StorageError& e) {
            throw StorageError(db.path() + ": run " + std::to_string(runId) + " is damaged (" + e.what() + ")");
        }
        if (!fn(uint32_t(s.int64(0)), rows.data(), rows.size()))
            return;
    }
}

}  // namespace wt
