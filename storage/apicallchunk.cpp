#include "apicallchunk.h"

#include "storageerror.h"
#include "varint.h"

namespace wt {

using varint::unzigzag;
using varint::zigzag;

std::string ApiCallChunk::encode(const std::vector<ApiCall>& rows)
{
    std::string out;
    out.reserve(rows.size() * 10 + 8);
    out.push_back(char(kFormat));
    varint::put(out, rows.size());
    int64_t prev = 0;
    for (const auto& r : rows) { varint::put(out, zigzag(r.startNs - prev)); prev = r.startNs; }
    for (const auto& r : rows) varint::put(out, zigzag(r.endNs - r.startNs));
    prev = 0;
    for (const auto& r : rows) { varint::put(out, zigzag(r.threadId - prev)); prev = r.threadId; }
    for (const auto& r : rows) varint::put(out, r.nameId);
    prev = 0;
    for (const auto& r : rows) { varint::put(out, zigzag(r.correlationId - prev)); prev = r.correlationId; }
    return out;
}

void ApiCallChunk::decode(std::string_view blob, std::vector<ApiCall>& out)
{
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    if (blob.empty() || uint8_t(blob[0]) != kFormat)
        throw StorageError("corrupt API call chunk: unknown format");
    ++c.p;
    uint64_t n = c.next();
    if (n > blob.size())
        throw StorageError("corrupt API call chunk: bad count");
    size_t base = out.size();
    out.resize(base + n);
    ApiCall* r = out.data() + base;
    // Deltas add with wrap-around (a damaged blob must not overflow); the results are checked.
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; ++i) {
        prev += uint64_t(unzigzag(c.next()));
        r[i].startNs = int64_t(prev);
        if (!timeInRange(r[i].startNs))
            throw StorageError("corrupt API call chunk: start out of range");
    }
    for (uint64_t i = 0; i < n; ++i) {
        r[i].endNs = int64_t(uint64_t(r[i].startNs) + uint64_t(unzigzag(c.next())));
        if (!timeInRange(r[i].endNs))
            throw StorageError("corrupt API call chunk: end out of range");
    }
    prev = 0;
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].threadId = int64_t(prev); }
    for (uint64_t i = 0; i < n; ++i) r[i].nameId = uint32_t(c.next());
    prev = 0;
    for (uint64_t i = 0; i < n; ++i) { prev += uint64_t(unzigzag(c.next())); r[i].correlationId = int64_t(prev); }
    if (c.p != c.end)
        throw StorageError("corrupt API call chunk: trailing bytes");
}

}  // namespace wt
