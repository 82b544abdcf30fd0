// The CPU side of a loaded run: its stored API calls (storage's api_call_chunks: captures'
// CUPTI runtime calls, Kineto's cuda_runtime events, Nsight's CUPTI_ACTIVITY_KIND_RUNTIME) as
// rows per host thread and nesting level (RunData::apiRows), and the join of activities to
// the call that launched them by correlation id (TrackData::launch), done while the
// activities load so it costs one lookup per activity (usually O(1): a track's correlation
// ids mostly rise with its starts).
#pragma once

#include "rundata.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace wt {
class Reader;
}

namespace wt::gui {

class ApiCallIndex {
public:
    // Reads the run's API calls into run.apiRows / apiRowStart and indexes their correlation ids.
    void load(const Reader& reader, int64_t runId, RunData& run);
    bool empty() const { return m_byCorrelation.empty(); }
    // The call (index in row order) with this correlation id, else kNone. `hint` is the
    // caller's position from the last lookup (one per track).
    uint32_t find(int64_t correlationId, size_t& hint) const;

private:
    std::vector<std::pair<int64_t, uint32_t>> m_byCorrelation;   // sorted by correlation id
};

}  // namespace wt::gui
