// The activities of a run as analysis reads them: per track, columns sorted by start (a view
// over arrays someone else owns: the GUI's RunData, or ActivityColumns here for the CLI and
// tests). Range totals and distributions walk these; the stored totals cover whole runs.
#pragma once

#include "activitystarts.h"
#include "storage/types.h"

#include <cstdint>
#include <vector>

namespace wt {

class Reader;
class ScopeTree;

inline constexpr uint32_t kNoInstance = 0xffffffffu;

struct TrackActivities {
    ActivityStarts::View startNs;          // ns relative to the run origin, sorted (compact or plain)
    const uint32_t* durationNs = nullptr;  // saturated at 2^32-1 ns (4.29 s)
    const uint32_t* nameId = nullptr;
    const uint32_t* instance = nullptr;    // scope instance index, kNoInstance = no scope
    const uint8_t* kind = nullptr;         // ActivityKind per activity; nullptr: all kernels
    size_t size = 0;
    int64_t maxDurationNs = 0;             // longest activity: bounds range searches
    int32_t deviceId = 0;                  // the track's device (DeviceInfo::id)

    ActivityKind kindAt(size_t i) const { return kind ? ActivityKind(kind[i]) : ActivityKind::Kernel; }
};

struct ActivityView {
    std::vector<TrackActivities> tracks;
    const uint32_t* instanceNode = nullptr;   // scope instance index -> ScopeTree position
    // Scope instance index -> enclosing instance index (kNoInstance at the top); nullptr when
    // the owner does not keep it (then steps cannot be found: gputime.h).
    const uint32_t* instanceParent = nullptr;
    size_t instanceCount = 0;

    // The ScopeTree position of an activity's scope, ScopeTree::kNoNode when none.
    uint32_t nodeOf(const TrackActivities& t, size_t i) const
    {
        const uint32_t inst = t.instance[i];
        return inst < instanceCount ? instanceNode[inst] : 0xffffffffu;
    }
};

// Owned columns of every activity of a run, read through Reader::forEachActivity.
class ActivityColumns {
public:
    static ActivityColumns load(const Reader& reader, int64_t runId, const ScopeTree& tree);
    ActivityView view() const;
    size_t activityCount() const;

private:
    struct Track {
        std::vector<int64_t> startNs;
        std::vector<uint32_t> durationNs, nameId, instance;
        std::vector<uint8_t> kind;
        int64_t maxDurationNs = 0;
        int32_t deviceId = 0;
    };
    std::vector<Track> m_tracks;
    std::vector<uint32_t> m_instanceNode;
    std::vector<uint32_t> m_instanceParent;
};

}  // namespace wt
