#include "rundata.h"

#include "layerpalette.h"
#include "timelinelayout.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"

#include <algorithm>
#include <climits>
#include <map>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wt::gui {

namespace {

struct ConfigHash {
    size_t operator()(const LaunchConfig& c) const
    {
        uint64_t h = 1469598103934665603ull;
        auto mix = [&h](int32_t v) { h = (h ^ uint32_t(v)) * 1099511628211ull; };
        for (int i = 0; i < 3; ++i) {
            mix(c.grid[i]);
            mix(c.block[i]);
        }
        mix(c.registers);
        mix(c.staticSmem);
        mix(c.dynamicSmem);
        return size_t(h);
    }
};

template <class V>
void shrink(V& v)
{
    if (v.capacity() > v.size() + v.size() / 16 + 16)
        v.shrink_to_fit();
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

}  // namespace

QString RunData::name(uint32_t stringId) const
{
    auto it = strings.find(stringId);
    return it == strings.end() ? QString() : qs(it->second);
}

QRgb RunData::activityColor(const TrackData& track, size_t i) const
{
    uint32_t inst = track.instance[i];
    if (inst != kNone)
        return instanceColor(inst);
    uint32_t n = track.nameId[i];
    return n < nameColors.size() ? nameColors[n] : LayerPalette::neutral();
}

uint32_t RunData::layerOf(const TrackData& track, size_t i) const
{
    uint32_t inst = track.instance[i];
    return inst == kNone ? 0 : nodes[instances.node[inst]].layerIndex;
}

QString RunData::scopePath(uint32_t instance) const
{
    QStringList parts;
    for (uint32_t i = instance; i != kNone && i < instances.size(); i = instances.parent[i])
        parts.prepend(nodes[instances.node[i]].name);
    return parts.join(QLatin1Char('/'));
}

bool RunData::isWithin(uint32_t instance, uint32_t ancestor) const
{
    for (uint32_t i = instance; i != kNone; i = instances.parent[i])
        if (i == ancestor)
            return true;
    return false;
}

int RunData::laneCount(int deviceIndex) const
{
    return int(std::count_if(lanes.begin(), lanes.end(), [&](const LaneData& l) { return l.deviceIndex == deviceIndex; }));
}

size_t RunData::memoryBytes() const
{
    size_t b = sizeof(*this);
    for (const TrackData& t : tracks)
        b += sizeof(t) + t.startNs.capacity() * 8 + t.durationNs.capacity() * 4 + t.nameId.capacity() * 4 +
             t.instance.capacity() * 4 + t.config.capacity() * 4 + t.bytes.capacity() * 8 + t.activityKind.capacity() +
             t.index.bytes();
    b += nodes.capacity() * sizeof(ScopeNodeData);
    b += instances.node.capacity() * 4 + instances.parent.capacity() * 4 + instances.gpuStartNs.capacity() * 8 +
         instances.gpuEndNs.capacity() * 8;
    for (const LaneData& l : lanes)
        b += sizeof(l) + l.items.capacity() * 4 + l.index.bytes();
    b += launchConfigs.capacity() * sizeof(LaunchConfig) + nameColors.capacity() * 4;
    for (const auto& [id, s] : strings)
        b += 48 + s.capacity();
    return b;
}

std::shared_ptr<RunData> loadRun(const std::string& path, int64_t runId, const LoadCallbacks& cb)
{
    Database db(path, OpenMode::ReadOnly);
    Reader reader(db);
    auto data = std::make_shared<RunData>();
    RunData& d = *data;
    d.filePath = QString::fromStdString(path);
    d.run = reader.run(runId);
    d.strings = reader.strings();

    // Devices and tracks: by device, kernel tracks by stream, memory tracks last.
    std::vector<Track> tracks = reader.tracks(runId);
    std::sort(tracks.begin(), tracks.end(), [](const Track& a, const Track& b) {
        return std::tie(a.deviceId, a.kind, a.stream, a.id) < std::tie(b.deviceId, b.kind, b.stream, b.id);
    });
    std::map<int32_t, QString> deviceNames;
    for (const DeviceInfo& dev : reader.devices(runId))
        deviceNames[dev.id] = qs(dev.name);
    for (const Track& t : tracks)
        deviceNames.try_emplace(t.deviceId, QString());
    for (const auto& [id, name] : deviceNames)
        d.devices.push_back(DeviceData{id, name.isEmpty() ? QStringLiteral("Device %1").arg(id) : name});
    std::unordered_map<int64_t, uint32_t> trackIndex;
    int64_t total = 0;
    for (const Track& t : tracks) {
        TrackData td;
        td.id = t.id;
        td.deviceId = t.deviceId;
        td.deviceIndex = int(std::distance(deviceNames.begin(), deviceNames.find(t.deviceId)));
        td.stream = t.stream;
        td.kind = t.kind;
        td.name = t.name.empty() ? (t.kind == TrackKind::Kernel ? QStringLiteral("Stream %1").arg(t.stream)
                                                                : QStringLiteral("Memory %1").arg(t.stream))
                                 : qs(t.name);
        size_t n = size_t(std::max<int64_t>(t.count, 0));
        td.startNs.reserve(n);
        td.durationNs.reserve(n);
        td.nameId.reserve(n);
        td.instance.reserve(n);
        if (t.kind == TrackKind::Kernel) {
            td.config.reserve(n);
        } else {
            td.bytes.reserve(n);
            td.activityKind.reserve(n);
        }
        total += t.count;
        trackIndex[t.id] = uint32_t(d.tracks.size());
        d.tracks.push_back(std::move(td));
    }

    // Scope tree: nodes by id, parents first.
    std::vector<ScopeNode> nodes = reader.scopes(runId);
    std::sort(nodes.begin(), nodes.end(), [](const ScopeNode& a, const ScopeNode& b) { return a.id < b.id; });
    std::unordered_map<int64_t, uint32_t> nodeIndex;
    for (const ScopeNode& n : nodes)
        nodeIndex[n.id] = uint32_t(nodeIndex.size());
    bool hasLayerLevel = false;
    for (const ScopeNode& n : nodes) {
        ScopeNodeData nd;
        nd.id = n.id;
        auto p = nodeIndex.find(n.parentId);
        nd.parent = n.parentId != 0 && p != nodeIndex.end() ? p->second : kNone;
        nd.name = d.name(n.nameId);
        nd.level = d.name(n.levelId);
        nd.depth = std::max(1, n.depth);
        hasLayerLevel |= nd.level == QLatin1String("layer");
        d.nodes.push_back(std::move(nd));
    }
    // Layer grouping: the ancestor-or-self at level "layer"; without one, the node itself.
    d.layerNames.push_back(QStringLiteral("(no scope)"));
    std::unordered_map<QString, uint32_t> layerIndex;
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        ScopeNodeData& nd = d.nodes[i];
        nd.layerNode = uint32_t(i);
        if (hasLayerLevel)
            for (uint32_t a = uint32_t(i); a != kNone; a = d.nodes[a].parent)
                if (d.nodes[a].level == QLatin1String("layer")) {
                    nd.layerNode = a;
                    break;
                }
        const QString& key = d.nodes[nd.layerNode].name;
        auto [it, inserted] = layerIndex.try_emplace(key, uint32_t(d.layerNames.size()));
        if (inserted)
            d.layerNames.push_back(key);
        nd.layerIndex = it->second;
        nd.color = LayerPalette::color(key.toStdString());
    }
    uint32_t maxString = 0;
    for (const auto& [id, s] : d.strings)
        maxString = std::max(maxString, id);
    d.nameColors.assign(size_t(maxString) + 1, LayerPalette::neutral());
    for (const auto& [id, s] : d.strings)
        d.nameColors[id] = LayerPalette::color(s);

    // Scope instances in id order; ids of one run are usually one contiguous range.
    int64_t firstInstance = 0;
    bool contiguous = true;
    std::unordered_map<int64_t, uint32_t> instanceIndex;
    {
        std::vector<ScopeInstance> inst = reader.scopeInstances(runId);
        // Reader::scopeInstances hands them out by id already; the check keeps this independent.
        auto byId = [](const ScopeInstance& a, const ScopeInstance& b) { return a.id < b.id; };
        if (!std::is_sorted(inst.begin(), inst.end(), byId))
            std::sort(inst.begin(), inst.end(), byId);
        if (!inst.empty()) {
            firstInstance = inst.front().id;
            contiguous = inst.back().id - firstInstance + 1 == int64_t(inst.size());
        }
        if (!contiguous)
            for (size_t i = 0; i < inst.size(); ++i)
                instanceIndex[inst[i].id] = uint32_t(i);
        auto indexOf = [&](int64_t id) -> uint32_t {
            if (id == 0 || inst.empty())
                return kNone;
            if (contiguous)
                return id >= firstInstance && id - firstInstance < int64_t(inst.size()) ? uint32_t(id - firstInstance) : kNone;
            auto it = instanceIndex.find(id);
            return it == instanceIndex.end() ? kNone : it->second;
        };
        InstanceData& in = d.instances;
        in.node.resize(inst.size());
        in.parent.resize(inst.size());
        in.gpuStartNs.assign(inst.size(), INT64_MAX);
        in.gpuEndNs.assign(inst.size(), INT64_MIN);
        for (size_t i = 0; i < inst.size(); ++i) {
            auto it = nodeIndex.find(inst[i].scopeId);
            if (it == nodeIndex.end())
                throw StorageError(path + ": scope instance " + std::to_string(inst[i].id) + " names an unknown scope");
            in.node[i] = it->second;
            uint32_t p = indexOf(inst[i].parentId);
            in.parent[i] = p < i ? p : kNone;   // parents come first; anything else is ignored
        }
        // Replace the lookup for the activity pass (the vector is released at the end of the block).
        if (contiguous)
            instanceIndex.clear();
        firstInstance = inst.empty() ? 0 : firstInstance;
    }
    const size_t instanceCount = d.instances.size();
    auto instanceOf = [&](int64_t id) -> uint32_t {
        if (id == 0 || instanceCount == 0)
            return kNone;
        if (contiguous)
            return id >= firstInstance && id - firstInstance < int64_t(instanceCount) ? uint32_t(id - firstInstance) : kNone;
        auto it = instanceIndex.find(id);
        return it == instanceIndex.end() ? kNone : it->second;
    };

    // Activities, track by track. Launch configs are interned: few distinct ones per run.
    const int nDevices = int(d.devices.size());
    std::vector<uint8_t> deviceMask(instanceCount, 0);
    std::unordered_map<LaunchConfig, uint32_t, ConfigHash> configIndex;
    std::vector<uint32_t> lastConfigOfName(d.nameColors.size(), kNone);   // cheap cache before hashing
    TrackData* cur = nullptr;
    int64_t curId = -1;
    uint8_t curBit = 1;
    int64_t done = 0;
    bool cancelled = false;
    d.spanStartNs = INT64_MAX;
    d.spanEndNs = INT64_MIN;
    if (cb.progress && !cb.progress(0, total))
        return nullptr;
    reader.forEachActivity(runId, [&](const Activity& a) {
        if (a.trackId != curId) {
            auto it = trackIndex.find(a.trackId);
            if (it == trackIndex.end())
                return true;   // a track the run list did not have (concurrent writer): skip
            curId = a.trackId;
            cur = &d.tracks[it->second];
            curBit = uint8_t(1u << std::min(cur->deviceIndex, 7));
        }
        TrackData& t = *cur;
        int64_t dur = std::max<int64_t>(a.endNs - a.startNs, 0);
        t.startNs.push_back(a.startNs);
        t.durationNs.push_back(uint32_t(std::min<int64_t>(dur, UINT32_MAX)));
        t.nameId.push_back(a.nameId);
        uint32_t inst = instanceOf(a.scopeInstanceId);
        t.instance.push_back(inst);
        t.maxDurationNs = std::max(t.maxDurationNs, std::min<int64_t>(dur, UINT32_MAX));
        d.spanStartNs = std::min(d.spanStartNs, a.startNs);
        d.spanEndNs = std::max(d.spanEndNs, a.startNs + dur);
        if (t.kind == TrackKind::Kernel) {
            uint32_t& slot = a.nameId < lastConfigOfName.size() ? lastConfigOfName[a.nameId] : lastConfigOfName[0];
            uint32_t ci = slot;
            if (ci == kNone || !(d.launchConfigs[ci] == a.config)) {
                auto [it, inserted] = configIndex.try_emplace(a.config, uint32_t(d.launchConfigs.size()));
                if (inserted)
                    d.launchConfigs.push_back(a.config);
                ci = slot = it->second;
            }
            t.config.push_back(ci);
            if (a.kind == ActivityKind::Kernel) {
                ++d.kernelCount;
                if (inst != kNone) {
                    d.instances.gpuStartNs[inst] = std::min(d.instances.gpuStartNs[inst], a.startNs);
                    d.instances.gpuEndNs[inst] = std::max(d.instances.gpuEndNs[inst], a.startNs + dur);
                    deviceMask[inst] |= curBit;
                }
            }
        } else {
            t.bytes.push_back(a.bytes);
            t.activityKind.push_back(uint8_t(a.kind));
        }
        ++done;
        if ((done & 0xffff) == 0 && cb.progress && !cb.progress(done, std::max(total, done))) {
            cancelled = true;
            return false;
        }
        return true;
    });
    if (cancelled)
        return nullptr;
    d.activityCount = done;
    if (d.spanStartNs > d.spanEndNs)
        d.spanStartNs = d.spanEndNs = 0;
    for (TrackData& t : d.tracks) {
        // A track is sorted by start as read; a defensive check keeps binary searches valid.
        if (!std::is_sorted(t.startNs.begin(), t.startNs.end())) {
            std::vector<uint32_t> order(t.size());
            for (uint32_t i = 0; i < order.size(); ++i)
                order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return t.startNs[a] < t.startNs[b]; });
            auto permute = [&](auto& v) {
                if (v.empty())
                    return;
                auto copy = v;
                for (size_t i = 0; i < order.size(); ++i)
                    v[i] = copy[order[i]];
            };
            permute(t.startNs);
            permute(t.durationNs);
            permute(t.nameId);
            permute(t.instance);
            permute(t.config);
            permute(t.bytes);
            permute(t.activityKind);
        }
        shrink(t.startNs);
        shrink(t.durationNs);
        shrink(t.nameId);
        shrink(t.instance);
        shrink(t.config);
        shrink(t.bytes);
        shrink(t.activityKind);
    }
    // Empty tracks say nothing on a timeline.
    d.tracks.erase(std::remove_if(d.tracks.begin(), d.tracks.end(), [](const TrackData& t) { return t.size() == 0; }),
                   d.tracks.end());
    for (TrackData& t : d.tracks)
        t.index.build(TrackSequence{&d, &t});

    // Spans go up the tree: children have larger ids than their parents.
    InstanceData& in = d.instances;
    for (size_t i = instanceCount; i-- > 0;) {
        uint32_t p = in.parent[i];
        if (p == kNone || !in.hasSpan(i))
            continue;
        in.gpuStartNs[p] = std::min(in.gpuStartNs[p], in.gpuStartNs[i]);
        in.gpuEndNs[p] = std::max(in.gpuEndNs[p], in.gpuEndNs[i]);
        deviceMask[p] |= deviceMask[i];
    }

    // Lanes: per device and depth, the instances that ran kernels there, sorted by GPU start.
    int maxDepth = 0;
    for (const ScopeNodeData& n : d.nodes)
        maxDepth = std::max(maxDepth, n.depth);
    for (int dev = 0; dev < nDevices; ++dev) {
        uint8_t bit = uint8_t(1u << std::min(dev, 7));
        std::vector<std::vector<std::pair<int64_t, uint32_t>>> byDepth(size_t(maxDepth) + 1);
        for (size_t i = 0; i < instanceCount; ++i)
            if ((deviceMask[i] & bit) && in.hasSpan(i))
                byDepth[size_t(d.nodes[in.node[i]].depth)].emplace_back(in.gpuStartNs[i], uint32_t(i));
        for (int depth = 1; depth <= maxDepth; ++depth) {
            auto& v = byDepth[size_t(depth)];
            if (v.empty())
                continue;
            if (!std::is_sorted(v.begin(), v.end()))
                std::sort(v.begin(), v.end());
            LaneData lane;
            lane.deviceIndex = dev;
            lane.depth = depth;
            lane.items.reserve(v.size());
            std::unordered_map<QString, int> levels;
            for (const auto& [start, idx] : v) {
                lane.items.push_back(idx);
                lane.maxDurationNs = std::max(lane.maxDurationNs, in.gpuEndNs[idx] - start);
                if (lane.items.size() <= 256)
                    ++levels[d.nodes[in.node[idx]].level];
            }
            int best = -1;
            for (const auto& [lvl, n] : levels)
                if (n > best) {
                    best = n;
                    lane.level = lvl;
                }
            v.clear();
            v.shrink_to_fit();
            d.lanes.push_back(std::move(lane));
            d.lanes.back().index.build(LaneSequence{&d, &d.lanes.back()});
        }
    }
    std::vector<uint8_t>().swap(deviceMask);
#if defined(__GLIBC__)
    // The load's transient buffers (SQLite rows, instance lists, sort keys) were freed into
    // glibc's heap, which keeps them resident; hand them back so a loaded run costs what its
    // arrays cost.
    malloc_trim(0);
#endif
    if (cb.progress)
        cb.progress(std::max(total, done), std::max(total, done));
    return data;
}

}  // namespace wt::gui
