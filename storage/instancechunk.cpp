#include "instancechunk.h"

#include "storageerror.h"
#include "varint.h"

namespace wt {

using varint::unzigzag;
using varint::zigzag;

std::string InstanceChunk::encode(const std::vector<ScopeInstance>& rows)
{
    std::string out;
    out.reserve(rows.size() * 10 + 8);
    bool threads = false;
    for (const auto& r : rows)
        threads = threads || r.threadId != 0;
    out.push_back(char(threads ? kFormatThreads : kFormat));
    varint::put(out, rows.size());
    int64_t prev = 0;
    for (const auto& r : rows) { varint::put(out, zigzag(r.id - prev)); prev = r.id; }
    prev = 0;
    for (const auto& r : rows) { varint::put(out, zigzag(r.scopeId - prev)); prev = r.scopeId; }
    for (const auto& r : rows) varint::put(out, zigzag(r.parentId == 0 ? r.id : r.id - r.parentId));
    prev = 0;
    for (const auto& r : rows) { varint::put(out, zigzag(r.startNs - prev)); prev = r.startNs; }
    for (const auto& r : rows) varint::put(out, zigzag(r.endNs - r.startNs));
    if (threads) {
        prev = 0;
        for (const auto& r : rows) { varint::put(out, zigzag(r.threadId - prev)); prev = r.threadId; }
    }
    return out;
}

void InstanceChunk::decode(std::string_view blob, std::vector<ScopeInstance>& out)
{
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    if (blob.empty() || (uint8_t(blob[0]) != kFormat && uint8_t(blob[0]) != kFormatThreads))
        throw StorageError("corrupt scope instance chunk: unknown format");
    const bool threads = uint8_t(blob[0]) == kFormatThreads;
    ++c.p;
    uint64_t n = c.next();
    if (n > blob.size())
        throw StorageError("corrupt scope instance chunk: bad count");
    size_t base = out.size();
    out.resize(base + n);
    ScopeInstance* r = out.data() + base;
    // Deltas add with wrap-around (a damaged blob must not overflow); the results are checked.
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].id = int64_t(prev); }
    prev = 0;
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].scopeId = int64_t(prev); }
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t d = uint64_t(unzigzag(c.next()));
        r[i].parentId = d == uint64_t(r[i].id) ? 0 : int64_t(uint64_t(r[i].id) - d);
    }
    prev = 0;
    for (uint64_t i = 0; i < n; ++i) {
        prev += uint64_t(unzigzag(c.next()));
        r[i].startNs = int64_t(prev);
        if (!timeInRange(r[i].startNs))
            throw StorageError("corrupt scope instance chunk: start out of range");
    }
    for (uint64_t i = 0; i < n; ++i) {
        r[i].endNs = int64_t(uint64_t(r[i].startNs) + uint64_t(unzigzag(c.next())));
        if (!timeInRange(r[i].endNs))
            throw StorageError("corrupt scope instance chunk: end out of range");
    }
    if (threads) {
        prev = 0;
        for (uint64_t i = 0; i < n; ++i) {
            prev += uint64_t(unzigzag(c.next()));
            r[i].threadId = int64_t(prev);
            if (r[i].threadId < 0 || r[i].threadId > INT32_MAX)
                throw StorageError("corrupt scope instance chunk: thread id out of range");
        }
    }
    if (c.p != c.end)
        throw StorageError("corrupt scope instance chunk: trailing bytes");
}

int64_t InstanceChunk::countScopes(std::string_view blob, const std::vector<int64_t>& scopeIds)
{
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    if (blob.empty() || (uint8_t(blob[0]) != kFormat && uint8_t(blob[0]) != kFormatThreads))
        throw StorageError("corrupt scope instance chunk: unknown format");
    ++c.p;
    uint64_t n = c.next();
    if (n > blob.size())
        throw StorageError("corrupt scope instance chunk: bad count");
    // The id column is skipped: n varints end in n bytes below 0x80.
    for (uint64_t left = n; left > 0; ++c.p) {
        if (c.p == c.end)
            throw StorageError("corrupt chunk (truncated)");
        left -= *c.p < 0x80 ? 1 : 0;
    }
    int64_t prev = 0, count = 0;
    for (uint64_t i = 0; i < n; ++i) {
        prev += unzigzag(c.next());
        for (int64_t id : scopeIds)
            count += id == prev ? 1 : 0;
    }
    return count;
}

}  // namespace wt
