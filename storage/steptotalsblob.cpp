#include "steptotalsblob.h"

#include "storageerror.h"
#include "varint.h"

namespace wt {

// Per step: the row count, then per row the scope id as a delta from the previous row's, the
// name id as a delta from the previous row's when the scope is the same (else absolute), the
// kind, the count and the time in ns (zigzag: any int64 round-trips).
std::string StepTotalsBlob::encode(const std::vector<std::vector<TotalRow>>& steps)
{
    std::string out;
    for (const std::vector<TotalRow>& rows : steps)
        appendStep(out, rows);
    return out;
}

void StepTotalsBlob::appendStep(std::string& out, const std::vector<TotalRow>& rows)
{
    varint::put(out, rows.size());
    int64_t scope = 0;
    uint32_t name = 0;
    for (const TotalRow& r : rows) {
        varint::put(out, varint::zigzag(r.scopeId - scope));
        varint::put(out, varint::zigzag(int64_t(r.nameId) - (r.scopeId == scope ? int64_t(name) : 0)));
        varint::put(out, uint64_t(r.kind));
        varint::put(out, varint::zigzag(r.count));
        varint::put(out, varint::zigzag(r.timeNs));
        scope = r.scopeId;
        name = r.nameId;
    }
}

std::vector<std::vector<TotalRow>> StepTotalsBlob::decode(std::string_view blob, size_t steps)
{
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    std::vector<std::vector<TotalRow>> out(steps);
    for (std::vector<TotalRow>& rows : out) {
        const uint64_t n = c.next();
        if (n > uint64_t(c.end - c.p) / 5)   // a row takes at least 5 bytes
            throw StorageError("corrupt step totals (a step of " + std::to_string(n) + " rows in " +
                               std::to_string(c.end - c.p) + " bytes)");
        rows.resize(size_t(n));
        int64_t scope = 0;
        uint32_t name = 0;
        for (TotalRow& r : rows) {
            const int64_t s = scope + varint::unzigzag(c.next());
            const int64_t nm = (s == scope ? int64_t(name) : 0) + varint::unzigzag(c.next());
            const uint64_t kind = c.next();
            if (nm < 0 || nm > int64_t(UINT32_MAX) || kind > uint64_t(ActivityKind::Memset))
                throw StorageError("corrupt step totals (bad name or kind)");
            r.scopeId = s;
            r.nameId = uint32_t(nm);
            r.kind = ActivityKind(kind);
            r.count = varint::unzigzag(c.next());
            r.timeNs = varint::unzigzag(c.next());
            scope = s;
            name = r.nameId;
        }
    }
    if (c.p != c.end)
        throw StorageError("corrupt step totals (" + std::to_string(c.end - c.p) + " bytes after the last step)");
    return out;
}

}  // namespace wt
