// Pulls one track's activity chunks one at a time, for consumers that ask for rows instead of
// taking a callback (the SQL virtual tables of sql/ step row by row). Reads only the chunks that
// may hold an activity starting at or before maxStartNs and ending at or after minEndNs: the
// index on activity_chunks(track_id, start_ns, end_ns) finds them without reading any blob, as
// for Reader::activities(). The caller filters the rows of a chunk exactly.
#pragma once

#include "activitychunk.h"
#include "database.h"
#include "statement.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace wt {

class ActivityChunkCursor {
public:
    ActivityChunkCursor(const Database& db, int64_t trackId,
                        int64_t maxStartNs = std::numeric_limits<int64_t>::max(),
                        int64_t minEndNs = std::numeric_limits<int64_t>::min());

    // Replaces `rows` by the next chunk's activities (sorted by start, seq; chunks come in
    // order of their first start, and may overlap where records came late). False at the end.
    // Throws StorageError on a malformed chunk, naming the file and the run.
    bool next(std::vector<StoredActivity>& rows);
    // Chunks decoded so far.
    int64_t chunksRead() const { return m_chunksRead; }

private:
    const Database& m_db;
    int64_t m_trackId;
    Statement m_stmt;
    int64_t m_chunksRead = 0;
};

}  // namespace wt
