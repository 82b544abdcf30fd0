#include "analysis/rankstats.h"

#include "storage/reader.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

namespace wt {

bool isStepNode(const ScopeTree& tree, uint32_t position)
{
    if (position >= tree.nodes().size())
        return false;
    const ScopeNode& n = tree.nodes()[position];
    if (tree.hasLevel("step"))
        return tree.level(n.id) == "step";
    const std::string& name = tree.name(n.id);
    return n.depth == 1 && name.rfind("ProfilerStep#", 0) == 0;
}

std::vector<RankStats> computeRankStats(const ActivityView& view, const std::vector<int32_t>& trackDevice,
                                        const std::vector<uint32_t>& instanceParent, const ScopeTree& tree,
                                        const std::vector<DeviceInfo>& devices)
{
    // The outermost step instance above each instance (kNoInstance: none), memoized.
    const size_t ni = view.instanceCount;
    constexpr uint32_t kUnset = kNoInstance - 1;
    std::vector<uint32_t> stepOf(ni, kUnset);
    std::vector<char> stepNode(tree.nodes().size(), 0);
    for (uint32_t p = 0; p < stepNode.size(); ++p)
        stepNode[p] = isStepNode(tree, p) ? 1 : 0;
    std::vector<uint32_t> chain;
    auto resolve = [&](uint32_t i) {
        chain.clear();
        uint32_t found = kNoInstance;
        uint32_t j = i;
        while (j < ni && chain.size() <= ni) {
            if (stepOf[j] != kUnset) {
                found = stepOf[j];
                break;
            }
            chain.push_back(j);
            j = j < instanceParent.size() ? instanceParent[j] : kNoInstance;
        }
        // Walk back down: the outermost step wins, so a step node found higher up stays.
        for (size_t k = chain.size(); k-- > 0;) {
            const uint32_t c = chain[k];
            const uint32_t node = view.instanceNode[c];
            if (found == kNoInstance && node < stepNode.size() && stepNode[node])
                found = c;
            stepOf[c] = found;
        }
        return stepOf[i];
    };

    struct Span {
        int64_t startNs = INT64_MAX, endNs = INT64_MIN;
    };
    std::map<int32_t, std::unordered_map<uint32_t, Span>> perDevice;   // device -> step instance -> span
    std::map<int32_t, int64_t> kernelTime, kernelCount;
    for (size_t k = 0; k < view.tracks.size() && k < trackDevice.size(); ++k) {
        const TrackActivities& t = view.tracks[k];
        auto& steps = perDevice[trackDevice[k]];
        int64_t& time = kernelTime[trackDevice[k]];
        int64_t& count = kernelCount[trackDevice[k]];
        for (size_t i = 0; i < t.size; ++i) {
            if (t.kindAt(i) != ActivityKind::Kernel)
                continue;
            time = saturatingAdd(time, int64_t(t.durationNs[i]));
            ++count;
            const uint32_t inst = t.instance[i];
            if (inst >= ni)
                continue;
            const uint32_t s = stepOf[inst] != kUnset ? stepOf[inst] : resolve(inst);
            if (s == kNoInstance)
                continue;
            Span& span = steps[s];
            span.startNs = std::min(span.startNs, t.startNs[i]);
            span.endNs = std::max(span.endNs, t.startNs[i] + int64_t(t.durationNs[i]));
        }
    }

    std::vector<RankStats> out;
    for (const DeviceInfo& d : devices) {
        RankStats r;
        r.deviceId = d.id;
        r.device = d.name;
        r.kernelTimeNs = kernelTime.count(d.id) ? kernelTime[d.id] : 0;
        r.kernels = kernelCount.count(d.id) ? kernelCount[d.id] : 0;
        if (r.kernels == 0)
            continue;   // a device of the trace's properties that ran nothing is no rank
        auto it = perDevice.find(d.id);
        if (it != perDevice.end() && !it->second.empty()) {
            // Steps in time order; a name shared by several steps (captures: "step") gets its ordinal.
            std::vector<std::pair<uint32_t, Span>> steps(it->second.begin(), it->second.end());
            std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
                return a.second.startNs != b.second.startNs ? a.second.startNs < b.second.startNs : a.first < b.first;
            });
            std::map<uint32_t, int> perNode;
            for (const auto& [inst, span] : steps)
                ++perNode[view.instanceNode[inst]];
            std::map<uint32_t, int> ordinal;
            int64_t total = 0;
            for (const auto& [inst, span] : steps) {
                const uint32_t node = view.instanceNode[inst];
                const int nth = ++ordinal[node];
                const int64_t ns = span.endNs - span.startNs;
                total = saturatingAdd(total, ns);
                if (r.slowestStep.empty() || ns > r.slowestStepNs) {
                    r.slowestStepNs = ns;
                    r.slowestStep = tree.name(tree.nodes()[node].id);
                    if (perNode[node] > 1)
                        r.slowestStep += " #" + std::to_string(nth);
                }
            }
            r.steps = int64_t(steps.size());
            r.meanStepNs = total / r.steps;
        }
        out.push_back(std::move(r));
    }
    size_t withSteps = 0, slowest = 0;
    for (size_t i = 0; i < out.size(); ++i)
        if (out[i].steps > 0) {
            if (withSteps == 0 || out[i].meanStepNs > out[slowest].meanStepNs)
                slowest = i;
            ++withSteps;
        }
    if (withSteps > 1)
        out[slowest].straggler = true;
    return out;
}

std::vector<RankStats> computeRankStats(const Reader& reader, int64_t runId, const ScopeTree& tree)
{
    const std::vector<ScopeInstance> instances = reader.scopeInstances(runId);
    std::unordered_map<int64_t, uint32_t> indexOf;
    std::vector<uint32_t> instanceNode(instances.size());
    for (size_t i = 0; i < instances.size(); ++i) {
        indexOf[instances[i].id] = uint32_t(i);
        instanceNode[i] = tree.indexOf(instances[i].scopeId);
    }
    std::vector<uint32_t> parent(instances.size(), kNoInstance);
    for (size_t i = 0; i < instances.size(); ++i) {
        auto it = indexOf.find(instances[i].parentId);
        if (instances[i].parentId != 0 && it != indexOf.end())
            parent[i] = it->second;
    }
    // Kernel columns per track, in reader.tracks() order (the figures need no sorting).
    struct Columns {
        std::vector<int64_t> startNs;
        std::vector<uint32_t> durationNs, nameId, instance;
    };
    const std::vector<Track> tracks = reader.tracks(runId);
    std::unordered_map<int64_t, size_t> trackIndex;
    std::vector<Columns> columns(tracks.size());
    std::vector<int32_t> trackDevice;
    for (size_t k = 0; k < tracks.size(); ++k) {
        trackIndex[tracks[k].id] = k;
        trackDevice.push_back(tracks[k].deviceId);
    }
    reader.forEachActivity(runId, [&](const Activity& a) {
        auto t = trackIndex.find(a.trackId);
        if (a.kind != ActivityKind::Kernel || t == trackIndex.end())
            return true;
        Columns& c = columns[t->second];
        c.startNs.push_back(a.startNs);
        c.durationNs.push_back(uint32_t(std::clamp<int64_t>(a.endNs - a.startNs, 0, UINT32_MAX)));
        c.nameId.push_back(a.nameId);
        auto in = a.scopeInstanceId != 0 ? indexOf.find(a.scopeInstanceId) : indexOf.end();
        c.instance.push_back(in == indexOf.end() ? kNoInstance : in->second);
        return true;
    });
    ActivityView view;
    view.instanceNode = instanceNode.data();
    view.instanceCount = instanceNode.size();
    for (const Columns& c : columns) {
        TrackActivities t;
        t.startNs = c.startNs.data();
        t.durationNs = c.durationNs.data();
        t.nameId = c.nameId.data();
        t.instance = c.instance.data();
        t.size = c.startNs.size();
        view.tracks.push_back(t);
    }
    return computeRankStats(view, trackDevice, parent, tree, reader.devices(runId));
}

}  // namespace wt
