#include "activityview.h"

#include "analysis/scopetree.h"
#include "storage/reader.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <unordered_map>

namespace wt {

ActivityColumns ActivityColumns::load(const Reader& reader, int64_t runId, const ScopeTree& tree)
{
    ActivityColumns out;
    std::unordered_map<int64_t, uint32_t> instanceIndex;
    const std::vector<ScopeInstance> instances = reader.scopeInstances(runId);
    for (const ScopeInstance& in : instances) {
        instanceIndex.emplace(in.id, uint32_t(out.m_instanceNode.size()));
        out.m_instanceNode.push_back(tree.indexOf(in.scopeId));
    }
    out.m_instanceParent.reserve(instances.size());
    for (const ScopeInstance& in : instances) {
        auto p = in.parentId != 0 ? instanceIndex.find(in.parentId) : instanceIndex.end();
        out.m_instanceParent.push_back(p == instanceIndex.end() ? kNoInstance : p->second);
    }
    std::unordered_map<int64_t, int32_t> deviceOf;
    for (const wt::Track& t : reader.tracks(runId))
        deviceOf.emplace(t.id, t.deviceId);
    std::unordered_map<int64_t, size_t> trackIndex;
    reader.forEachActivity(runId, [&](const Activity& a) {
        auto [it, added] = trackIndex.emplace(a.trackId, out.m_tracks.size());
        if (added) {
            out.m_tracks.emplace_back();
            auto d = deviceOf.find(a.trackId);
            out.m_tracks.back().deviceId = d == deviceOf.end() ? 0 : d->second;
        }
        Track& t = out.m_tracks[it->second];
        const int64_t dur = std::min<int64_t>(std::max<int64_t>(a.endNs - a.startNs, 0), UINT32_MAX);
        t.startNs.push_back(a.startNs);
        t.durationNs.push_back(uint32_t(dur));
        t.nameId.push_back(a.nameId);
        auto inst = a.scopeInstanceId != 0 ? instanceIndex.find(a.scopeInstanceId) : instanceIndex.end();
        t.instance.push_back(inst == instanceIndex.end() ? kNoInstance : inst->second);
        t.kind.push_back(uint8_t(a.kind));
        t.maxDurationNs = std::max(t.maxDurationNs, dur);
        return true;
    });
    // Each track comes sorted by start; a defensive check keeps the range searches valid.
    for (Track& t : out.m_tracks) {
        if (std::is_sorted(t.startNs.begin(), t.startNs.end()))
            continue;
        std::vector<size_t> order(t.startNs.size());
        std::iota(order.begin(), order.end(), size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.startNs[a] < t.startNs[b]; });
        auto permute = [&](auto& v) {
            auto copy = v;
            for (size_t i = 0; i < order.size(); ++i)
                v[i] = copy[order[i]];
        };
        permute(t.startNs);
        permute(t.durationNs);
        permute(t.nameId);
        permute(t.instance);
        permute(t.kind);
    }
    return out;
}

ActivityView ActivityColumns::view() const
{
    ActivityView v;
    v.instanceNode = m_instanceNode.data();
    v.instanceParent = m_instanceParent.data();
    v.instanceCount = m_instanceNode.size();
    for (const Track& t : m_tracks)
        v.tracks.push_back(TrackActivities{t.startNs.data(), t.durationNs.data(), t.nameId.data(), t.instance.data(),
                                           t.kind.data(), t.startNs.size(), t.maxDurationNs, t.deviceId});
    return v;
}

size_t ActivityColumns::activityCount() const
{
    size_t n = 0;
    for (const Track& t : m_tracks)
        n += t.startNs.size();
    return n;
}

}  // namespace wt
