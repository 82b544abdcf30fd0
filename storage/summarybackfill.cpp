#include "summarybackfill.h"

#include "database.h"
#include "runoverview.h"
#include "scopelanes.h"
#include "statement.h"
#include "storageerror.h"

#include <algorithm>
#include <chrono>

namespace wt {

namespace {

bool stopped(const StopFn& stop) { return stop && stop(); }

bool hasTable(const Database& db, const char* name)
{
    Statement t(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?");
    t.bind(1, std::string_view(name));
    return t.step() && t.int64(0) > 0;
}

// Whether the run is finished and still lacks its summary or lanes (inside the store's
// transaction: the answer holds until it commits).
bool stillMissing(const Database& db, int64_t runId, bool laneTables)
{
    Statement s(db.handle(), laneTables ? "SELECT status != 'writing' AND (NOT EXISTS (SELECT 1 FROM overviews WHERE run_id=?1) "
                                          "OR NOT EXISTS (SELECT 1 FROM scope_lane_sets WHERE run_id=?1)) FROM runs WHERE id=?1"
                                        : "SELECT status != 'writing' AND NOT EXISTS (SELECT 1 FROM overviews WHERE run_id=?1) "
                                          "FROM runs WHERE id=?1");
    s.bind(1, runId);
    return s.step() && s.int64(0) != 0;
}

// BEGIN IMMEDIATE, waiting past the busy timeout for as long as another writer holds the file
// (an import commits at least once a second); false when `stop` turned true meanwhile.
bool beginWaiting(Database& db, const StopFn& stop)
{
    while (true) {
        const int rc = sqlite3_exec(db.handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK)
            return true;
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            throwSqlite(db.handle(), rc, db.path());
        if (stopped(stop))
            return false;
    }
}

}  // namespace

std::vector<MissingSummary> findMissingSummaries(const Database& db)
{
    std::vector<MissingSummary> out;
    if (!hasTable(db, "overviews"))
        return out;
    const bool laneTables = hasTable(db, "scope_lane_sets");
    Statement s(db.handle(), laneTables
                                 ? "SELECT r.id, (SELECT coalesce(sum(count), 0) FROM tracks WHERE run_id=r.id), "
                                   "NOT EXISTS (SELECT 1 FROM overviews WHERE run_id=r.id), "
                                   "NOT EXISTS (SELECT 1 FROM scope_lane_sets WHERE run_id=r.id) FROM runs r "
                                   "WHERE r.status != 'writing' ORDER BY r.id"
                                 : "SELECT r.id, (SELECT coalesce(sum(count), 0) FROM tracks WHERE run_id=r.id), "
                                   "NOT EXISTS (SELECT 1 FROM overviews WHERE run_id=r.id), 1 FROM runs r "
                                   "WHERE r.status != 'writing' ORDER BY r.id");
    while (s.step()) {
        MissingSummary m{s.int64(0), s.int64(1), s.int64(2) != 0, s.int64(3) != 0};
        if (m.overview || m.lanes)
            out.push_back(m);
    }
    return out;
}

bool backfillSummary(Database& db, int64_t runId, const StopFn& stop)
{
    if (db.readOnly())
        throw StorageError(db.path() + ": opened read-only; the summary of run " + std::to_string(runId) + " cannot be stored");
    const bool laneTables = hasTable(db, "scope_lane_sets");
    if (stopped(stop) || !stillMissing(db, runId, laneTables))
        return false;
    // The pass reads a finished run, which no writer changes: no transaction needed, so it
    // holds no snapshot that would keep the write-ahead log from being checkpointed.
    ScopeLaneSet lanes;
    const RunOverview overview = computeRunOverview(db, runId, &lanes);
    if (stopped(stop) || !beginWaiting(db, stop))
        return false;
    try {
        if (!stillMissing(db, runId, laneTables)) {
            db.rollback();
            return false;
        }
        storeRunOverview(db, runId, overview, &lanes);   // joins this transaction
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
    return true;
}

int storeMissingRunOverviews(Database& db, const BackfillCallbacks& cb)
{
    if (db.readOnly())
        return 0;
    std::vector<MissingSummary> missing = findMissingSummaries(db);
    std::stable_partition(missing.begin(), missing.end(), [&](const MissingSummary& m) { return m.runId == cb.firstRunId; });
    int stored = 0;
    for (size_t i = 0; i < missing.size() && !stopped(cb.stop); ++i) {
        if (cb.before)
            cb.before(i, missing.size(), missing[i]);
        const auto t0 = std::chrono::steady_clock::now();
        try {
            if (backfillSummary(db, missing[i].runId, cb.stop)) {
                ++stored;
                if (cb.stored)
                    cb.stored(missing[i], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
        } catch (const StorageError& e) {
            if (stopped(cb.stop))
                break;   // interrupted (the GUI closing), not damaged
            if (cb.skipped)
                cb.skipped(missing[i], e.what());
        }
    }
    return stored;
}

}  // namespace wt
