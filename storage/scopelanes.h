// The stored scope lanes of a run (schema version 6, tables scope_lane_sets, scope_lanes and
// scope_lane_chunks): per lane of the timeline -- the scope instances of one depth that ran
// kernels on one device -- its instances in lane order (GPU start, then id) with their GPU
// spans (first kernel start to last kernel end under each, children included), in chunks of
// kChunkItems with each chunk's first start and last end. What the GUI's skeleton of a run
// over its memory cap needed a pass over every activity for: with it a window of the run
// reads only the lane chunks that meet the window, and a full load reads the spans and the
// lanes' order instead of computing them.
//
// Computed in the same pass as the level-of-detail summary (computeRunOverview) and stored in
// the summary's transaction: by the Writer when it finishes a run, and for finished runs that
// lack them (older files, recovered runs) by the pass of storage/summarybackfill.h, outside the
// open. A run without a scope_lane_sets row has none (yet): readers fall back on computing the
// spans from the activities.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

class Database;

struct ScopeLane {
    int32_t deviceId = 0;
    int32_t depth = 1;                // the scopes' depth, 1 = top level
    int64_t items = 0;                // instances in the lane
    int64_t firstStartNs = 0;         // first and last item's GPU start
    int64_t lastStartNs = 0;
    int64_t maxDurationNs = 0;        // longest span (end - start)
    std::string level;                // the most common level of its first 256 items (ties: the first by name)
    bool operator==(const ScopeLane&) const = default;
};

struct ScopeLaneItem {
    int64_t instanceId = 0;
    int64_t startNs = 0;              // GPU span, ns relative to the run origin; end >= start
    int64_t endNs = 0;
    bool operator==(const ScopeLaneItem&) const = default;
};

struct ScopeLaneChunk {
    uint32_t lane = 0;                // index into ScopeLaneSet::lanes
    int64_t startNs = 0;              // its first item's start
    int64_t endNs = 0;                // the latest max(end, start + 1) of its items
    int64_t count = 0;
    std::string data;                 // encodeScopeLaneItems (empty when spilled: ScopeLaneSet::chunkData)
    int64_t spillOffset = -1;         // where a spilled chunk's data is in the set's spill file
    int64_t spillBytes = 0;
};

// Lanes ordered by (device, depth); chunks by lane, then start.
struct ScopeLaneSet {
    static constexpr uint8_t kFormat = 1;
    static constexpr size_t kChunkItems = 4096;
    std::vector<ScopeLane> lanes;
    std::vector<ScopeLaneChunk> chunks;

    // Appends a lane from its items, sorted by (start, id); fills its figures but `level`.
    void addLane(int32_t deviceId, int32_t depth, const std::vector<ScopeLaneItem>& items, std::string level);
    // The same, item by item (a lane larger than memory): beginLane, appendItem in lane order,
    // endLane. A lane without items is not added. addLane is these.
    void beginLane(int32_t deviceId, int32_t depth);
    void appendItem(const ScopeLaneItem& item);
    void endLane(std::string level);
    // From now on encoded chunks go to an unnamed temporary file (deleted when the last copy of
    // the set goes), not memory: what the set holds is then ~40 bytes per 4096 items.
    void spillToFile();
    // A chunk's encoded items, from memory or the spill file. Throws StorageError on a failed read.
    std::string chunkData(size_t chunk) const;
    size_t bytes() const;

private:
    void flushChunk();
    std::vector<ScopeLaneItem> m_pending;   // the chunk being filled
    ScopeLane m_lane;
    std::shared_ptr<std::FILE> m_spill;
    int64_t m_spillEnd = 0;
};

std::string encodeScopeLaneItems(const ScopeLaneItem* items, size_t n, int64_t chunkStartNs);
// Appends the chunk's items to `out`. Throws StorageError on a damaged blob.
void decodeScopeLaneItems(std::string_view blob, int64_t chunkStartNs, int64_t count, std::vector<ScopeLaneItem>& out);

// Replaces the run's stored lanes inside the caller's transaction (storeRunOverview's).
void storeScopeLanes(Database& db, int64_t runId, const ScopeLaneSet& lanes);
// Whether the file has the tables (schema version 6).
bool hasScopeLaneTables(const Database& db);

// The run's lanes (no items); unset when it has none stored. Throws StorageError on damage.
std::optional<std::vector<ScopeLane>> readScopeLanes(const Database& db, int64_t runId);
// The items of lane `lane` (an index into readScopeLanes) whose span meets [t0, t1) (an item
// lasts at least 1 ns), in lane order, appended to `out`; reads only the chunks that meet it.
void readScopeLaneItems(const Database& db, int64_t runId, uint32_t lane, int64_t t0, int64_t t1,
                        std::vector<ScopeLaneItem>& out);
// Every chunk of the run's lanes, in lane order: fn(lane, items, count); false stops.
void forEachScopeLaneChunk(const Database& db, int64_t runId,
                           const std::function<bool(uint32_t lane, const ScopeLaneItem* items, size_t n)>& fn);

}  // namespace wt
