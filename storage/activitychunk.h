// Encoding of activity chunks: up to kMaxActivities activities of one track, sorted by start,
// stored as one row of `activity_chunks` (see docs/schema.md). Rows per kernel would cap
// inserts at about half a million per second and cost about 40 bytes each; chunks take
// about 12 bytes per kernel and decode at hundreds of millions of fields per second.
//
// Blob layout (all integers LEB128 varints; "z" = zigzag-encoded signed delta):
//   u8 format (1), varint count, then nine columns of `count` values each:
//   z start delta (first from the chunk's start_ns), duration_ns, kind, name_id,
//   z scope_instance_id delta, z correlation_id delta, config_id, bytes, z seq delta
//   (first from the chunk's first_seq).
#pragma once

#include "types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

struct ChunkHeader {
    int64_t startNs = 0;    // first activity's start
    int64_t endNs = 0;      // latest end of any activity in the chunk
    int64_t firstSeq = 0;
    int64_t count = 0;
};

// The columns of an activity that the chunk stores (launch config by id).
struct StoredActivity {
    int64_t startNs;
    int64_t durationNs;
    int64_t scopeInstanceId;
    int64_t correlationId;
    int64_t bytes;
    int64_t seq;
    int64_t configId;
    uint32_t nameId;
    uint8_t kind;
};

class ActivityChunk {
public:
    static constexpr size_t kMaxActivities = 2048;
    static constexpr uint8_t kFormat = 1;

    // Sorts `rows` by (start, seq) and encodes them; fills the header.
    static std::string encode(std::vector<StoredActivity>& rows, ChunkHeader& header);
    // Appends the decoded rows to `out`; throws StorageError on a malformed blob.
    static void decode(std::string_view blob, const ChunkHeader& header, std::vector<StoredActivity>& out);
    // The smallest and largest non-zero scope instance id of the chunk's activities (both 0
    // when none has one): reads that column only, allocates nothing. Throws StorageError on a
    // malformed blob.
    static void instanceRange(std::string_view blob, int64_t& minId, int64_t& maxId);
};

}  // namespace wt
