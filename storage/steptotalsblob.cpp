#include "steptotalsblob.h"

#include "storageerror.h"
#include "varint.h"

namespace wt {

// Per step: (row count << 1) | same, where same = the keys are the previous step's; then per
// row, unless same, the scope id as a delta from the previous row's, the name id as a delta
// from the previous row's when the scope is the same (else absolute) and the kind; and always
// the count and the time in ns (zigzag: any int64 round-trips).
std::string StepTotalsBlob::encode(const std::vector<std::vector<TotalRow>>& steps)
{
    std::string out;
    static const std::vector<TotalRow> none;
    for (size_t i = 0; i < steps.size(); ++i)
        appendStep(out, steps[i], i ? steps[i - 1] : none);
    return out;
}

void StepTotalsBlob::appendStep(std::string& out, const std::vector<TotalRow>& rows, const std::vector<TotalRow>& previous)
{
    bool same = !rows.empty() && rows.size() == previous.size();
    for (size_t i = 0; same && i < rows.size(); ++i)
        same = rows[i].scopeId == previous[i].scopeId && rows[i].nameId == previous[i].nameId && rows[i].kind == previous[i].kind;
    varint::put(out, (uint64_t(rows.size()) << 1) | (same ? 1 : 0));
    int64_t scope = 0;
    uint32_t name = 0;
    for (const TotalRow& r : rows) {
        if (!same) {
            varint::put(out, varint::zigzag(int64_t(uint64_t(r.scopeId) - uint64_t(scope))));   // wraps, as decode does
            varint::put(out, varint::zigzag(int64_t(r.nameId) - (r.scopeId == scope ? int64_t(name) : 0)));
            varint::put(out, uint64_t(r.kind));
            scope = r.scopeId;
            name = r.nameId;
        }
        varint::put(out, varint::zigzag(r.count));
        varint::put(out, varint::zigzag(r.timeNs));
    }
}

std::vector<std::vector<TotalRow>> StepTotalsBlob::decode(std::string_view blob, size_t steps)
{
    std::vector<std::vector<TotalRow>> out(steps);
    forEachStep(blob, steps, [&](size_t st, const std::vector<TotalRow>& rows) { out[st] = rows; });
    return out;
}

void StepTotalsBlob::forEachStep(std::string_view blob, size_t steps, const std::function<void(size_t, const std::vector<TotalRow>&)>& fn)
{
    varint::Cursor c{reinterpret_cast<const uint8_t*>(blob.data()), reinterpret_cast<const uint8_t*>(blob.data()) + blob.size()};
    std::vector<TotalRow> rows;   // this step's; a step with the keys of the one before keeps them
    for (size_t st = 0; st < steps; ++st) {
        const uint64_t head = c.next();
        const uint64_t n = head >> 1;
        const bool same = head & 1;
        if (n > uint64_t(c.end - c.p) / 2)   // a row takes at least 2 bytes
            throw StorageError("corrupt step totals (a step of " + std::to_string(n) + " rows in " +
                               std::to_string(c.end - c.p) + " bytes)");
        if (same && (st == 0 || rows.size() != n || n == 0))
            throw StorageError("corrupt step totals (a step repeats keys it has no step before it to take from)");
        if (!same)
            rows.resize(size_t(n));
        int64_t scope = 0;
        uint32_t name = 0;
        for (TotalRow& r : rows) {
            if (!same) {
                // Wrapping (unsigned) addition: a corrupt delta must not be signed overflow.
                const int64_t s = int64_t(uint64_t(scope) + uint64_t(varint::unzigzag(c.next())));
                const int64_t nm = (s == scope ? int64_t(name) : 0) + varint::unzigzag(c.next());
                const uint64_t kind = c.next();
                if (s < 0 || nm < 0 || nm > int64_t(UINT32_MAX) || kind > uint64_t(ActivityKind::Memset))
                    throw StorageError("corrupt step totals (bad scope, name or kind)");   // scope ids: 0 = none, else a row id
                r.scopeId = s;
                r.nameId = uint32_t(nm);
                r.kind = ActivityKind(kind);
                scope = s;
                name = r.nameId;
            }
            r.count = varint::unzigzag(c.next());
            r.timeNs = varint::unzigzag(c.next());
        }
        fn(st, rows);
    }
    if (c.p != c.end)
        throw StorageError("corrupt step totals (" + std::to_string(c.end - c.p) + " bytes after the last step)");
}

}  // namespace wt
