#include "activitychunkcursor.h"

#include "reader.h"

namespace wt {

ActivityChunkCursor::ActivityChunkCursor(const Database& db, int64_t trackId, int64_t maxStartNs, int64_t minEndNs)
    : m_db(db), m_trackId(trackId), m_stmt(db.handle(), "SELECT start_ns, end_ns, first_seq, count, data FROM activity_chunks "
                          "WHERE track_id=?1 AND start_ns<=?2 AND end_ns>=?3 ORDER BY start_ns")
{
    m_stmt.bind(1, trackId).bind(2, maxStartNs).bind(3, minEndNs);
}

bool ActivityChunkCursor::next(std::vector<StoredActivity>& rows)
{
    rows.clear();
    if (!m_stmt.step())
        return false;
    ChunkHeader h{m_stmt.int64(0), m_stmt.int64(1), m_stmt.int64(2), m_stmt.int64(3)};
    try {
        ActivityChunk::decode(m_stmt.blob(4), h, rows);
    } catch (const StorageError& e) {
        Reader::damagedTrack(m_db, m_trackId, e.what());
    }
    ++m_chunksRead;
    return true;
}

}  // namespace wt
