// Encoding of scope-instance chunks: up to kMaxInstances scope instances of one run as one
// row of `scope_instance_chunks` (see docs/schema.md). A capture has about one instance per
// kernel (every op is a scope), so instances get the same compact treatment as activities.
//
// Blob layout (LEB128 varints; "z" = zigzag-encoded signed delta): u8 format (1), varint
// count, then five columns of `count` values: z id (delta to the previous id, the first from
// 0), z scope_id (delta), z id - parent_id (0 = no parent is written as id), z start_ns
// (delta), z end_ns - start_ns. Format 2 (schema version 4) adds a sixth column: z thread_id
// (delta; HostThread::id, 0 = none). The encoder writes format 1 when no instance has a
// thread (captures), so their chunks stay byte for byte what version 3 wrote.
#pragma once

#include "types.h"

#include <string>
#include <string_view>
#include <vector>

namespace wt {

class InstanceChunk {
public:
    static constexpr size_t kMaxInstances = 4096;
    static constexpr uint8_t kFormat = 1;            // five columns
    static constexpr uint8_t kFormatThreads = 2;     // six: with the host thread

    static std::string encode(const std::vector<ScopeInstance>& rows);
    // Appends to `out`; throws StorageError on a malformed blob.
    static void decode(std::string_view blob, std::vector<ScopeInstance>& out);
    // How many of the chunk's instances belong to one of `scopeIds` (a few): reads the id and
    // scope columns only, allocates nothing. Throws StorageError on a malformed blob.
    static int64_t countScopes(std::string_view blob, const std::vector<int64_t>& scopeIds);
};

}  // namespace wt
