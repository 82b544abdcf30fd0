// Encoding of API-call chunks: up to kMaxCalls runtime/driver API calls of one run as one row
// of `api_call_chunks` (see docs/schema.md). Imports carry hundreds of thousands of calls; a
// row and an index entry each cost about 3.5 us to insert, a chunked call about 0.1 us.
//
// Blob layout (LEB128 varints; "z" = zigzag-encoded signed delta): u8 format (1), varint
// count, then five columns of `count` values: z start_ns (delta, the first from 0),
// end_ns - start_ns, z thread_id (delta), name_id, z correlation_id (delta).
#pragma once

#include "types.h"

#include <string>
#include <string_view>
#include <vector>

namespace wt {

class ApiCallChunk {
public:
    static constexpr size_t kMaxCalls = 4096;
    static constexpr uint8_t kFormat = 1;

    static std::string encode(const std::vector<ApiCall>& rows);
    // Appends to `out`; throws StorageError on a malformed blob.
    static void decode(std::string_view blob, std::vector<ApiCall>& out);
};

}  // namespace wt
