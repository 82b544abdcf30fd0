// libFuzzer target: the chunk decoders (activities, scope instances, API calls) and the
// per-step totals blob (byte 0 = 3; the step count from the second header field) on arbitrary
// blobs with arbitrary chunk headers. A decoder either throws a one-line StorageError or
// returns rows whose times lie within +-kMaxTimeNs; never overflows (UBSan) or over-reads (ASan).
#include "storage/activitychunk.h"
#include "storage/apicallchunk.h"
#include "storage/instancechunk.h"
#include "storage/steptotalsblob.h"
#include "storage/storageerror.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <tuple>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace wt;
    if (size < 17)
        return 0;
    int64_t startNs = 0, firstSeq = 0;
    std::memcpy(&startNs, data + 1, 8);
    std::memcpy(&firstSeq, data + 9, 8);
    std::string_view blob(reinterpret_cast<const char*>(data + 17), size - 17);
    try {
        switch (data[0] % 4) {
        case 0: {
            std::vector<StoredActivity> rows;
            // Headers come from the file too; the writer's are within range, a damaged file's need not be.
            ActivityChunk::decode(blob, ChunkHeader{startNs, startNs, firstSeq, 0}, rows);
            for (const StoredActivity& r : rows)
                if (!timeInRange(r.startNs) || r.durationNs < 0 || r.durationNs >= kMaxTimeNs || r.kind > 2)
                    std::abort();
            break;
        }
        case 1: {
            std::vector<ScopeInstance> rows;
            InstanceChunk::decode(blob, rows);
            for (const ScopeInstance& r : rows)
                if (!timeInRange(r.startNs) || !timeInRange(r.endNs) || r.threadId < 0 || r.threadId > INT32_MAX)
                    std::abort();
            break;
        }
        case 3: {
            // Exactly `steps` steps or a StorageError; what decodes encodes back to itself.
            const size_t steps = size_t(uint64_t(firstSeq) % 4096);
            const std::vector<std::vector<TotalRow>> decoded = StepTotalsBlob::decode(blob, steps);
            if (decoded.size() != steps)
                std::abort();
            bool sorted = true;
            for (const auto& step : decoded)
                for (size_t i = 1; i < step.size(); ++i)
                    if (std::tie(step[i - 1].scopeId, step[i - 1].nameId, step[i - 1].kind) >= std::tie(step[i].scopeId, step[i].nameId, step[i].kind))
                        sorted = false;
            if (sorted) {
                const auto again = StepTotalsBlob::decode(StepTotalsBlob::encode(decoded), steps);
                for (size_t k = 0; k < steps; ++k) {
                    if (again[k].size() != decoded[k].size())
                        std::abort();
                    for (size_t i = 0; i < again[k].size(); ++i)
                        if ((again[k][i].scopeId != decoded[k][i].scopeId || again[k][i].nameId != decoded[k][i].nameId ||
                             again[k][i].kind != decoded[k][i].kind || again[k][i].count != decoded[k][i].count ||
                             again[k][i].timeNs != decoded[k][i].timeNs))
                            std::abort();
                }
            }
            break;
        }
        default: {
            std::vector<ApiCall> rows;
            ApiCallChunk::decode(blob, rows);
            for (const ApiCall& r : rows)
                if (!timeInRange(r.startNs) || !timeInRange(r.endNs))
                    std::abort();
        }
        }
    } catch (const StorageError& e) {
        if (std::strchr(e.what(), '\n'))
            std::abort();
    }
    return 0;
}
