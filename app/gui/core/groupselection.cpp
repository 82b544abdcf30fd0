#include "groupselection.h"

#include <algorithm>

namespace wt::gui {

bool GroupSelection::matches(ActivityKind kind, uint32_t node, uint32_t nameId) const
{
    if (!(kinds >> uint8_t(kind) & 1))
        return false;
    if (!anyScope && !(node == kNone ? noScope : node < nodes.size() && nodes[node]))
        return false;
    return anyName || std::binary_search(nameIds.begin(), nameIds.end(), nameId);
}

size_t GroupMarks::bytes() const
{
    size_t b = instances.bytes();
    for (const MemberBits& t : tracks)
        b += t.bytes();
    for (const MemberBits& l : lanes)
        b += l.bytes();
    for (const MemberBits& a : apiRows)
        b += a.bytes();
    for (const MemberBits& h : hostLanes)
        b += h.bytes();
    return b;
}

std::shared_ptr<const GroupMarks> GroupMarks::compute(const RunData& run, const GroupSelection& group)
{
    auto out = std::make_shared<GroupMarks>();
    // Resolve the scope condition per instance and the name condition per name id once, so an
    // activity costs two byte reads.
    std::vector<uint8_t> instanceOk;
    const InstanceData& in = run.instances;
    if (!group.anyScope) {
        out->instances.build(in.size(), [&](size_t i) {
            const uint32_t n = in.node[i];
            if (!(n < group.nodes.size() && group.nodes[n] != 0))
                return false;
            if (!group.scopeSpans)
                return true;
            return in.hasSpan(i) && in.gpuEnd(i) - in.gpuStart(i) >= group.minDurationNs &&
                   in.gpuEnd(i) - in.gpuStart(i) < group.maxDurationNs;
        });
        out->instanceCount = int64_t(out->instances.count());
        instanceOk.resize(in.size());
        for (size_t i = 0; i < instanceOk.size(); ++i)
            instanceOk[i] = out->instances.test(i);
        if (group.scopeSpans)   // activities under a member instance: parents come before children
            for (size_t i = 0; i < instanceOk.size(); ++i)
                if (!instanceOk[i] && in.parent[i] < i && instanceOk[in.parent[i]])
                    instanceOk[i] = 1;
        out->lanes.resize(run.lanes.size());
        for (size_t l = 0; l < run.lanes.size(); ++l) {
            const LaneData& lane = run.lanes[l];
            out->lanes[l].build(lane.items.size(), [&](size_t k) { return out->instances.test(lane.items[k]); });
        }
    }
    std::vector<uint8_t> nameOk;
    if (!group.anyName && !group.nameIds.empty()) {
        nameOk.assign(size_t(group.nameIds.back()) + 1, 0);
        for (uint32_t id : group.nameIds)
            nameOk[id] = 1;
    }
    const bool limitActivities = group.limitsDuration() && !group.scopeSpans;
    out->tracks.resize(run.tracks.size());
    for (size_t t = 0; t < run.tracks.size(); ++t) {
        const TrackData& track = run.tracks[t];
        const bool memory = track.kind != TrackKind::Kernel;
        if (!memory && !(group.kinds & (1u << uint8_t(ActivityKind::Kernel)))) {
            out->tracks[t].build(track.size(), [](size_t) { return false; });
            continue;
        }
        out->tracks[t].build(track.size(), [&](size_t i) {
            if (memory && !(group.kinds >> track.activityKind[i] & 1))
                return false;
            if (!group.anyScope) {
                const uint32_t inst = track.instance[i];
                if (inst == kNone ? !group.noScope : !instanceOk[inst])
                    return false;
            }
            if (!group.anyName) {
                const uint32_t id = track.nameId[i];
                if (id >= nameOk.size() || !nameOk[id])
                    return false;
            }
            if (limitActivities && (int64_t(track.durationNs[i]) < group.minDurationNs || int64_t(track.durationNs[i]) >= group.maxDurationNs))
                return false;
            return true;
        });
        out->activityCount += int64_t(out->tracks[t].count());
    }
    return out;
}

}  // namespace wt::gui
