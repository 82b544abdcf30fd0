#include "overviewrun.h"

#include "app/gui/core/readsnapshot.h"

#include "analysis/runprofile.h"
#include "timelinelayout.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/runoverview.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

namespace wt::gui {

std::shared_ptr<RunData> loadOverviewRun(const std::string& path, int64_t runId)
{
    Database db(path, OpenMode::ReadOnly);
    ReadSnapshot snapshot(db);
    Reader reader(db);
    std::optional<RunOverview> ov = reader.overview(runId);
    if (!ov)
        return nullptr;
    auto data = std::make_shared<RunData>();
    RunData& d = *data;
    d.overviewOnly = true;
    d.filePath = QString::fromStdString(path);
    // The profile without the op features (their read needs every instance): names, tree and
    // stored totals are small at any run size.
    auto profile = std::make_shared<RunProfile>();
    profile->run = reader.run(runId);
    profile->devices = reader.devices(runId);
    profile->strings = reader.strings();
    profile->tree = ScopeTree(reader.scopes(runId), profile->strings);
    applyRunSettings(profile->tree, reader.metadata(runId));
    profile->totals = reader.totals(runId);
    d.profile = profile;
    d.run = profile->run;
    const ScopeTree& tree = profile->tree;

    // Devices and tracks as loadRun orders them: by device, kernel tracks by stream, memory last.
    std::vector<Track> tracks = reader.tracks(runId);
    std::sort(tracks.begin(), tracks.end(), [](const Track& a, const Track& b) {
        return std::tie(a.deviceId, a.kind, a.stream, a.id) < std::tie(b.deviceId, b.kind, b.stream, b.id);
    });
    std::map<int32_t, QString> deviceNames;
    for (const DeviceInfo& dev : profile->devices)
        deviceNames[dev.id] = QString::fromStdString(dev.name);
    for (const Track& t : tracks)
        deviceNames.try_emplace(t.deviceId, QString());
    for (const auto& [id, name] : deviceNames)
        d.devices.push_back(DeviceData{id, name.isEmpty() ? QStringLiteral("Device %1").arg(id) : name});
    auto deviceIndex = [&](int32_t id) { return int(std::distance(deviceNames.begin(), deviceNames.find(id))); };

    const std::unordered_map<int64_t, uint32_t> nodeIndex = assignScopeNodes(d, tree);

    // Pseudo-instances carry the buckets' colours: one per scope used by a track's buckets, one
    // per lane bucket (with its extent as the GPU span).
    InstanceData& in = d.instances;
    std::vector<int64_t> spanStart, spanEnd;   // compacted into in.spans once all are known
    auto addInstance = [&](int64_t scopeId, int64_t start, int64_t end) -> uint32_t {
        auto n = nodeIndex.find(scopeId);
        if (n == nodeIndex.end())
            return kNone;
        in.node.push_back(n->second);
        in.parent.push_back(kNone);
        spanStart.push_back(start);
        spanEnd.push_back(end);
        return uint32_t(in.node.size() - 1);
    };
    std::unordered_map<int64_t, uint32_t> scopeInstance;
    std::map<int64_t, const OverviewRow*> trackRows;
    for (const OverviewRow& r : ov->rows)
        if (r.kind == OverviewRow::Kind::Track)
            trackRows[r.trackId] = &r;
    d.spanStartNs = INT64_MAX;
    d.spanEndNs = INT64_MIN;
    auto bucketStart = [&](const OverviewBucket& b) { return ov->originNs + int64_t(b.index) * ov->bucketNs; };
    for (const Track& t : tracks) {
        auto row = trackRows.find(t.id);
        if (row == trackRows.end() || row->second->items == 0)
            continue;   // empty tracks say nothing on a timeline
        TrackData td;
        td.id = t.id;
        td.deviceId = t.deviceId;
        td.deviceIndex = deviceIndex(t.deviceId);
        td.stream = t.stream;
        td.kind = t.kind;
        td.name = t.name.empty() ? (t.kind == TrackKind::Kernel ? QStringLiteral("Stream %1").arg(t.stream)
                                                                : QStringLiteral("Memory %1").arg(t.stream))
                                 : QString::fromStdString(t.name);
        for (const OverviewBucket& b : row->second->buckets) {
            if (b.busyNs == 0)
                continue;
            const int64_t start = bucketStart(b) + b.coverStartNs, dur = b.coverEndNs - b.coverStartNs;
            td.startNs.push_back(start);
            td.durationNs.push_back(uint32_t(std::min<int64_t>(dur, UINT32_MAX)));
            uint32_t inst = kNone, name = 0;
            if (b.key > 0) {
                auto [it, fresh] = scopeInstance.try_emplace(b.key, kNone);
                if (fresh)
                    it->second = addInstance(b.key, INT64_MAX, INT64_MIN);
                inst = it->second;
            } else if (b.key < 0) {
                name = uint32_t(-(b.key + 1));
            }
            td.nameId.push_back(name);
            td.instance.push_back(inst);
            td.maxDurationNs = std::max(td.maxDurationNs, dur);
            d.spanStartNs = std::min(d.spanStartNs, start);
            d.spanEndNs = std::max(d.spanEndNs, start + dur);
        }
        if (t.kind == TrackKind::Kernel) {
            td.config.assign(td.size(), 0);
        } else {
            td.bytes.assign(td.size(), 0);
            td.activityKind.assign(td.size(), uint8_t(ActivityKind::Memcpy));
        }
        d.activityCount += row->second->items;
        d.tracks.push_back(std::move(td));
    }
    d.kernelCount = d.run.kernels;
    d.launchConfigs.push_back(LaunchConfig{});
    if (d.spanStartNs > d.spanEndNs)
        d.spanStartNs = d.spanEndNs = 0;
    for (TrackData& t : d.tracks)
        t.index.build(TrackSequence{&d, &t});

    // Lanes by device, then depth (the summary's order), named by their nodes' most common level.
    for (const OverviewRow& r : ov->rows) {
        if (r.kind != OverviewRow::Kind::Lane || r.items == 0 || !deviceNames.count(r.deviceId))
            continue;
        LaneData lane;
        lane.deviceIndex = deviceIndex(r.deviceId);
        lane.depth = r.depth;
        std::unordered_map<QString, int> levels;
        for (const OverviewBucket& b : r.buckets) {
            if (b.busyNs == 0)
                continue;
            const int64_t start = bucketStart(b) + b.coverStartNs, end = bucketStart(b) + b.coverEndNs;
            const uint32_t i = addInstance(b.key, start, end);
            if (i == kNone)
                continue;
            lane.items.push_back(i);
            lane.maxDurationNs = std::max(lane.maxDurationNs, end - start);
            if (lane.items.size() <= 256)
                ++levels[d.nodes[in.node[i]].level];
        }
        int best = -1;
        for (const auto& [lvl, n] : levels)
            if (n > best) {
                best = n;
                lane.level = lvl;
            }
        d.lanes.push_back(std::move(lane));
    }
    std::stable_sort(d.lanes.begin(), d.lanes.end(), [](const LaneData& a, const LaneData& b) {
        return std::tie(a.deviceIndex, a.depth) < std::tie(b.deviceIndex, b.depth);
    });
    in.spans.assign(spanStart, spanEnd);
    for (LaneData& lane : d.lanes)
        lane.index.build(LaneSequence{&d, &lane});
    return data;
}

}  // namespace wt::gui
