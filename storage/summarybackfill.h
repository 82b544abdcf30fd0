// Filling in what an older file lacks, outside the open: the level-of-detail summary (schema 5)
// and the scope lanes (schema 6) of finished runs that have none -- files written before those
// versions, runs recovered from a dead writer, runs finished inside a caller's transaction.
// Opening a file only creates the empty tables (a migration is a schema bump); a run without
// them reads as before (the GUI computes the spans from the activities). This is the pass that
// stores them, run by run: the GUI runs it on a worker after the first frame, `wheretime
// upgrade` in the foreground.
//
// Each run is computed outside any transaction (a finished run does not change) and stored in
// its own write transaction, checked again inside it: a kill loses nothing committed, another
// connection sees a run either without its summary or with all of it, and two processes doing
// the same work store the same rows once each. A writer holding the file (an import, a note)
// is waited for, not failed on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wt {

class Database;

struct MissingSummary {
    int64_t runId = 0;
    int64_t activities = 0;      // rows of the run's activities (the pass's work; progress weights)
    bool overview = false;       // lacks the level-of-detail summary (schema 5)
    bool lanes = false;          // lacks the stored scope lanes (schema 6; always, in a file without their tables)
};

// Says whether to stop (the GUI closing, a cancelled job); empty = never.
using StopFn = std::function<bool()>;

// The finished runs of the file that lack their summary or their scope lanes, by id (works on a
// read-only open, and on an unmigrated schema-5 file read as it is); empty before schema 5.
std::vector<MissingSummary> findMissingSummaries(const Database& db);

// Computes and stores the summary and scope lanes of one run (db opened read-write). Returns
// false when there was nothing to do by the time it would store (the run is gone, being
// written, or another connection stored them meanwhile) or when `stop` turned true. Waits for
// the write lock as long as it takes, checking `stop`. Throws StorageError on a damaged run.
bool backfillSummary(Database& db, int64_t runId, const StopFn& stop = {});

// Every missing run (findMissingSummaries), each in its own transaction; a damaged run is
// skipped and reported to `skipped` (its reads fail with their own message). Returns how many
// runs it stored; 0 on a read-only open.
struct BackfillCallbacks {
    std::function<void(size_t index, size_t count, const MissingSummary&)> before;   // before each run
    std::function<void(const MissingSummary&, double seconds)> stored;               // after each stored run
    std::function<void(const MissingSummary&, const std::string& error)> skipped;    // a damaged run
    StopFn stop;
    int64_t firstRunId = 0;      // this run first, when it is missing (the run on screen)
};
int storeMissingRunOverviews(Database& db, const BackfillCallbacks& callbacks = {});

}  // namespace wt
