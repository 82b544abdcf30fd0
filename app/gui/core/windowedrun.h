// The timeline's detail under a memory cap (issue 29 item 3): a run whose activities would not
// fit loads only the visible window's detail, through the chunk index (activity chunks by
// track and time), and draws the stored summary (overviewrun.h) everywhere else. A window is a
// RunData of its own (RunData::windowed): the summary's buckets outside [t0, t1), the
// activities overlapping it, and -- once the run's skeleton is there (loadRun with
// keepActivities = false: the scope instances' spans and lanes, read in one pass that keeps no
// activity) -- the scope lanes' instances overlapping it. Its tracks and lanes are indexed on
// the grids the fully loaded run's FoldIndex would have, so every view inside the window with a
// margin of a few pixels gets the same draw list as the fully loaded run (tst_windoweddetail).
// A file with stored scope lanes (schema 6) needs no skeleton pass: loadStoredSkeleton holds
// only the lanes' figures and each window reads its lanes' items and their instances from the
// file, so memory stays bounded by the cap at any run size (tst_storedlanewindows).
// A run that fits loads whole as before, the visible window's chunks first.
#pragma once

#include "rundata.h"

#include <QString>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt::gui {

inline constexpr int64_t kDefaultDetailCapBytes = int64_t(4) << 30;   // the setting's default: 4 GiB
// Resident bytes of a fully loaded run per activity (docs/performance.md: 41-42 B a kernel, the
// API calls' rows aside): a run whose activities times this exceed the cap is not loaded whole.
inline constexpr int64_t kLoadedBytesPerActivity = 44;
// What a window costs per activity at its peak, while it is built: the decoded rows (an
// Activity, ~100 B), the row's items before they become columns (40 B), its columns (22 B) and
// the scope instances of its lanes (about one per kernel, 16 B with their lane entry); held
// afterwards: about 40 B.
inline constexpr int64_t kWindowBytesPerActivity = 160;

// Activities one window may hold under a cap, the skeleton's bytes counted against it (half
// of what is left: a window is built while the previous one is still drawn); at least a
// sixteenth of the cap, so windows still load when the skeleton alone nears the cap.
inline int64_t windowBudget(int64_t capBytes, int64_t skeletonBytes)
{
    const int64_t left = std::max(capBytes - skeletonBytes, capBytes / 8);
    return left / 2 / kWindowBytesPerActivity;
}

// "4G", "512M", "64k", "100000" (bytes; K/M/G/T are powers of 1024, an optional trailing B or
// iB). nullopt for anything else, or for 0 and below.
std::optional<int64_t> parseByteSize(const QString& text);
QString formatByteSize(int64_t bytes);

// The chunk index of a run's activity tracks: per track its chunks' time ranges and counts,
// and the grid of the FoldIndex a full load would build (count, first and last start). Read
// once when a run opens (one row per chunk, no blob but the last chunks').
class DetailIndex {
public:
    // Opens its own read-only connection (any thread). Throws StorageError.
    static DetailIndex load(const std::string& path, int64_t runId);

    struct Chunk {
        int64_t startNs = 0, endNs = 0;
        int64_t count = 0;
    };
    struct TrackChunks {
        int64_t trackId = 0;
        int64_t count = 0;                // activities on the track (sum of its chunks)
        int64_t firstStartNs = 0, lastStartNs = 0;
        std::vector<Chunk> chunks;        // by start
    };
    int64_t activities() const { return m_activities; }
    // About how many activities overlap [t0, t1): the chunks inside it, and of those at its
    // edges the share of their time range inside it (what a window of that range holds).
    int64_t countIn(int64_t t0, int64_t t1) const;
    const TrackChunks* track(int64_t trackId) const;
    // The grid of the track's FoldIndex in the fully loaded run.
    FoldIndex::Grid trackGrid(int64_t trackId) const;
    // Whether the run loads whole under `capBytes`.
    bool fits(int64_t capBytes) const { return m_activities <= capBytes / kLoadedBytesPerActivity; }

    // The range to load for the visible window [v0, v1) on a plot widthPx wide: the window
    // widened on each side by the largest of 1, 1/2, 1/4, 1/8 window widths that fits `budget`
    // activities, else by kMarginPx (the folds at the window's edges need that much); nullopt
    // when even that does not fit (the summary stays).
    static constexpr int kMarginPx = 32;
    std::optional<std::pair<int64_t, int64_t>> chooseRange(double v0, double v1, int widthPx, int64_t budget) const;

private:
    std::vector<TrackChunks> m_tracks;
    std::unordered_map<int64_t, size_t> m_byId;
    int64_t m_activities = 0;
};

// The skeleton of a run over the cap from its stored scope lanes (schema 6): the overview's
// devices, tracks and nodes and the lanes' figures, nothing per instance (its bytes do not grow
// with the run); windows built on it read their lanes' items from the file. nullptr when the
// run has no stored lanes (a file before schema 6 opened read-only: loadRun's skeleton pass
// over the activities instead). Opens its own read-only connection. Throws StorageError.
std::shared_ptr<RunData> loadStoredSkeleton(const std::string& path, int64_t runId, const RunData& overview);

// The window [t0, t1) of a run: `overview` (loadOverviewRun, required) outside it, the
// activities overlapping it, and with `skeleton` the exact scope lanes there (without: the
// summary's lanes). Opens its own read-only connection (any thread). Throws StorageError.
std::shared_ptr<RunData> loadDetailWindow(const std::string& path, int64_t runId, const RunData& overview,
                                          const RunData* skeleton, const DetailIndex& index, int64_t t0, int64_t t1);

// The activities that overlap [t0, t1) and nothing else (no summary, no lanes): what a time
// range's breakdown reads on a run over the cap (only that range's chunks); its activities()
// are the fully loaded run's clipped to the range's chunks, so analysis's range figures agree.
std::shared_ptr<RunData> loadRangeRun(const std::string& path, int64_t runId, const RunData& overview, int64_t t0,
                                      int64_t t1);

}  // namespace wt::gui
