// The level-of-detail summary of a run (schema version 5, tables overviews and overview_rows):
// what the timeline needs to draw the whole run before any activity loads. One time grid per
// run (up to kBuckets equal buckets over the run's span), and per row of the timeline -- each
// track, and each scope lane (the scope instances of one depth that ran kernels on one device,
// on their GPU spans: first kernel start to last kernel end, children included) -- the
// non-empty buckets of that grid: items starting there, busy time (union of item time in the
// bucket), the covered extent, and the dominant group (the scope or, without one, the name
// with the most item time there). An item lasts at least 1 ns, as the timeline draws it.
//
// The Writer stores it when it finishes a run, in its own transaction after the run's data,
// so a kill during it loses nothing committed; finished runs that lack it (older files, runs
// finished inside a caller's transaction, recovered runs) get it outside the open, from
// storage/summarybackfill.h (the GUI's background pass, `wheretime upgrade`).
// Level 0 is stored; coarser levels are pairs merged on read (OverviewRow::coarsen), so the
// stored levels cannot disagree.
#pragma once

#include "types.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

class Database;
struct ScopeLaneSet;

struct OverviewBucket {
    uint32_t index = 0;          // bucket b covers [originNs + b * bucketNs, originNs + (b + 1) * bucketNs)
    int64_t count = 0;           // items starting in the bucket
    int64_t busyNs = 0;          // union of the items' time inside the bucket
    int64_t coverStartNs = 0;    // first covered instant, ns after the bucket's start
    int64_t coverEndNs = 0;      // end of the last covered instant, ns after the bucket's start (<= bucketNs)
    // The group with the most item time in the bucket (ties: the smaller key): a scope id
    // (> 0; tracks: the activities' innermost scope, lanes: the instances' scope), or for
    // activities without a scope -(nameId + 1).
    int64_t key = 0;
    bool operator==(const OverviewBucket&) const = default;
};

struct OverviewRow {
    enum class Kind : uint8_t { Track = 0, Lane = 1 };
    Kind kind = Kind::Track;
    int64_t trackId = 0;         // Track: the track; Lane: 0
    int32_t deviceId = 0;        // the track's device, or the lane's
    int32_t depth = 0;           // Lane: the scopes' depth (1 = top level); Track: 0
    int64_t items = 0;           // activities on the track, or instances in the lane
    std::vector<OverviewBucket> buckets;   // non-empty buckets by index (count > 0 or busy > 0)

    // The next coarser level: buckets 2b and 2b + 1 of this one (bucketNs wide) as bucket b.
    // Counts, busy time and extent are exact; the key is that of the busier half.
    static std::vector<OverviewBucket> coarsen(const std::vector<OverviewBucket>& level, int64_t bucketNs);
};

struct RunOverview {
    static constexpr uint32_t kBuckets = 16384;   // grid size: ~8 buckets per pixel of a 2000 px timeline
    static constexpr uint8_t kFormat = 1;
    static constexpr int64_t kDefaultMemoryBudget = int64_t(4) << 30;   // computeRunOverview's, bytes
    int64_t originNs = 0;        // first activity start (relative to the run origin)
    int64_t bucketNs = 1;
    uint32_t bucketCount = 0;    // 0 for a run without activities
    int64_t activities = 0;      // activities of the run it was computed from
    std::vector<OverviewRow> rows;   // tracks by id, then lanes by (device, depth)

    bool operator==(const RunOverview&) const = default;
};

// Computes a run's overview from its stored activities and scope instances (a pass over them);
// with `lanes`, also the run's scope lanes (storage/scopelanes.h) from the same pass.
// A run whose pass would hold more than the memory budget (~100 bytes a scope instance) is
// computed in bounded memory instead: instances in blocks of ids (a pass over the activities
// each), lane items sorted in runs in a temporary file, the lanes' chunks spilled there too;
// same result. Throws StorageError on a damaged run or a temporary file that cannot be written.
RunOverview computeRunOverview(Database& db, int64_t runId, ScopeLaneSet* lanes = nullptr);
// The budget of computeRunOverview (process-wide; <= 0 restores the default, 4 GiB).
void setOverviewMemoryBudget(int64_t bytes);
int64_t overviewMemoryBudget();

// Replaces the run's stored overview (and with `lanes` its scope lanes, schema 6). In its own
// transaction, unless the caller holds one.
void storeRunOverview(Database& db, int64_t runId, const RunOverview& overview, const ScopeLaneSet* lanes = nullptr);

// The stored overview of a run; unset when it has none (a run being written, a file before
// schema version 5 opened read-only). Throws StorageError on a damaged blob.
std::optional<RunOverview> readRunOverview(const Database& db, int64_t runId);

// The blob of one row's buckets (varints; see docs/schema.md).
std::string encodeOverviewBuckets(const std::vector<OverviewBucket>& buckets);
std::vector<OverviewBucket> decodeOverviewBuckets(std::string_view blob, uint32_t bucketCount, int64_t bucketNs);

// For tests: called inside the overview's transaction just before it commits (a throw rolls
// it back, as a kill would); empty = none.
void setBeforeOverviewCommit(std::function<void()> hook);

}  // namespace wt
