#include "activitychunk.h"

#include "storageerror.h"
#include "varint.h"

#include <algorithm>

namespace wt {

using varint::Cursor;
using varint::unzigzag;
using varint::zigzag;
static inline void putVarint(std::string& out, uint64_t v) { varint::put(out, v); }

std::string ActivityChunk::encode(std::vector<StoredActivity>& rows, ChunkHeader& h)
{
    std::sort(rows.begin(), rows.end(), [](const StoredActivity& a, const StoredActivity& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    });
    h.count = int64_t(rows.size());
    h.startNs = rows.empty() ? 0 : rows.front().startNs;
    h.firstSeq = rows.empty() ? 0 : rows.front().seq;
    h.endNs = h.startNs;
    std::string out;
    out.reserve(rows.size() * 14 + 8);
    out.push_back(char(kFormat));
    putVarint(out, rows.size());
    int64_t prev = h.startNs;
    for (const auto& r : rows) {
        putVarint(out, zigzag(r.startNs - prev));
        prev = r.startNs;
        h.endNs = std::max(h.endNs, r.startNs + r.durationNs);
    }
    for (const auto& r : rows) putVarint(out, uint64_t(r.durationNs));
    for (const auto& r : rows) putVarint(out, r.kind);
    for (const auto& r : rows) putVarint(out, r.nameId);
    prev = 0;
    for (const auto& r : rows) { putVarint(out, zigzag(r.scopeInstanceId - prev)); prev = r.scopeInstanceId; }
    prev = 0;
    for (const auto& r : rows) { putVarint(out, zigzag(r.correlationId - prev)); prev = r.correlationId; }
    for (const auto& r : rows) putVarint(out, uint64_t(r.configId));
    for (const auto& r : rows) putVarint(out, uint64_t(r.bytes));
    prev = h.firstSeq;
    for (const auto& r : rows) { putVarint(out, zigzag(r.seq - prev)); prev = r.seq; }
    return out;
}

void ActivityChunk::decode(std::string_view blob, const ChunkHeader& h, std::vector<StoredActivity>& out)
{
    Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    if (blob.empty() || uint8_t(blob[0]) != kFormat)
        throw StorageError("corrupt activity chunk: unknown format");
    ++c.p;
    uint64_t n = c.next();
    if (n > blob.size())   // every activity takes at least nine bytes
        throw StorageError("corrupt activity chunk: bad count");
    size_t base = out.size();
    out.resize(base + n);
    StoredActivity* r = out.data() + base;
    // Deltas add with wrap-around (a damaged blob must not overflow); the results are checked.
    uint64_t prev = uint64_t(h.startNs);
    for (uint64_t i = 0; i < n; ++i) {
        prev += uint64_t(unzigzag(c.next()));
        r[i].startNs = int64_t(prev);
        if (!timeInRange(r[i].startNs))
            throw StorageError("corrupt activity chunk: start out of range");
    }
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t d = c.next();
        if (d >= uint64_t(kMaxTimeNs))
            throw StorageError("corrupt activity chunk: duration out of range");
        r[i].durationNs = int64_t(d);
    }
    for (uint64_t i = 0; i < n; ++i) r[i].kind = uint8_t(c.next());
    for (uint64_t i = 0; i < n; ++i) r[i].nameId = uint32_t(c.next());
    prev = 0;
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].scopeInstanceId = int64_t(prev); }
    prev = 0;
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].correlationId = int64_t(prev); }
    for (uint64_t i = 0; i < n; ++i) r[i].configId = int64_t(c.next());
    for (uint64_t i = 0; i < n; ++i) r[i].bytes = int64_t(c.next());
    prev = uint64_t(h.firstSeq);
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].seq = int64_t(prev); }
    for (uint64_t i = 0; i < n; ++i)
        if (r[i].kind > uint8_t(ActivityKind::Memset))
            throw StorageError("corrupt activity chunk: unknown activity kind");
    if (c.p != c.end)
        throw StorageError("corrupt activity chunk: trailing bytes");
}

void ActivityChunk::instanceRange(std::string_view blob, int64_t& minId, int64_t& maxId)
{
    Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    if (blob.empty() || uint8_t(blob[0]) != kFormat)
        throw StorageError("corrupt activity chunk: unknown format");
    ++c.p;
    const uint64_t n = c.next();
    if (n > blob.size())
        throw StorageError("corrupt activity chunk: bad count");
    // Start, duration, kind and name come first: 4n varints, each ending in a byte below 0x80.
    for (uint64_t left = 4 * n; left > 0; ++c.p) {
        if (c.p == c.end)
            throw StorageError("corrupt chunk (truncated)");
        left -= *c.p < 0x80 ? 1 : 0;
    }
    minId = maxId = 0;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; ++i) {
        prev += uint64_t(unzigzag(c.next()));
        const int64_t id = int64_t(prev);
        if (id == 0)
            continue;
        minId = minId == 0 ? id : std::min(minId, id);
        maxId = maxId == 0 ? id : std::max(maxId, id);
    }
}

}  // namespace wt
