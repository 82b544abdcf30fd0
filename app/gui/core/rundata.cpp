#include "rundata.h"

#include "app/gui/core/readsnapshot.h"

#include "layerpalette.h"
#include "analysis/compare.h"
#include "analysis/grouping.h"
#include "apirows.h"
#include "hostrows.h"
#include "timelinelayout.h"
#include "storage/activitychunk.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/scopelanes.h"
#include "storage/storageerror.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>

// Under ASan the heap is the sanitizer's and glibc's malloc was never initialized: a first
// malloc_trim would initialize it on this worker thread, as if it were the main thread, and two
// loaders doing so at once attached two threads to glibc's main arena that counted one (glibc
// aborted at the second one's exit: "a->attached_threads > 0", tst_compareview in CI).
#if defined(__SANITIZE_ADDRESS__)
#define WT_SANITIZED_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define WT_SANITIZED_HEAP 1
#endif
#endif
#ifndef WT_SANITIZED_HEAP
#define WT_SANITIZED_HEAP 0
#endif
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

// Threads a load decodes chunks on (Reader's bulk reads): SQLite steps on one of them.
const int kLoadThreads = int(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

}  // namespace

void InstanceSpans::assign(const std::vector<int64_t>& startNs, const std::vector<int64_t>& endNs)
{
    assign(startNs.data(), endNs.data(), std::min(startNs.size(), endNs.size()));
}

void InstanceSpans::assign(const int64_t* startNs, const int64_t* endNs, size_t n, int threads)
{
    *this = InstanceSpans();
    const size_t blocks = (n + kBlock - 1) / kBlock;
    m_base.assign(blocks, 0);
    m_offset.resize(n);
    m_length.resize(n);
    const size_t farLimit = n / 64 + 1024;
    // Blocks are independent: each part of them is encoded on its own thread with its own list
    // of far instances (in index order), and the lists are joined in part order.
    const size_t parts = std::clamp<size_t>(size_t(std::max(threads, 1)), 1, std::max<size_t>(blocks, 1));
    std::vector<std::vector<Far>> farOf(parts);
    std::atomic<size_t> farCount{0};
    auto encode = [&](size_t part) {
        std::vector<Far>& fars = farOf[part];
        std::vector<int64_t> sample;
        const size_t b0 = blocks * part / parts, b1 = blocks * (part + 1) / parts;
        for (size_t b = b0; b < b1; ++b) {
            if (farCount.load(std::memory_order_relaxed) > farLimit)
                return;   // plain arrays instead: no point encoding the rest
            const size_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
            // The base: the median of a few starts of the block, so that one early or late
            // instance (kept aside) does not push the others out of the +-2^31 ns window.
            sample.clear();
            for (size_t i = lo; i < hi; i += std::max<size_t>(1, (hi - lo) / 8))
                if (startNs[i] <= endNs[i])
                    sample.push_back(startNs[i]);
            if (!sample.empty()) {
                std::nth_element(sample.begin(), sample.begin() + ptrdiff_t(sample.size() / 2), sample.end());
                m_base[b] = sample[sample.size() / 2];
            }
            const int64_t base = m_base[b];
            const size_t farBefore = fars.size();
            for (size_t i = lo; i < hi; ++i) {
                const int64_t s = startNs[i], e = endNs[i];
                if (s > e) {
                    m_offset[i] = kNoSpan;
                    m_length[i] = 0;
                    continue;
                }
                // Times lie within +-2^61 ns (storage refuses others): the differences fit.
                const int64_t off = s - base;
                const uint64_t len = uint64_t(e - s);
                const bool isFar = off < -kBias || off >= int64_t(kFar) - kBias, isLong = len >= kLong;
                m_offset[i] = isFar ? kFar : uint32_t(off + kBias);
                m_length[i] = isLong ? kLong : uint32_t(len);
                if (isFar || isLong)
                    fars.push_back(Far{uint32_t(i), s, e});
            }
            if (fars.size() > farBefore)
                farCount.fetch_add(fars.size() - farBefore, std::memory_order_relaxed);
        }
    };
    if (parts > 1) {
        std::vector<std::thread> pool;
        std::exception_ptr failed;
        std::mutex failedMutex;
        for (size_t p = 1; p < parts; ++p)
            pool.emplace_back([&, p] {
                try {
                    encode(p);
                } catch (...) {
                    std::lock_guard<std::mutex> lock(failedMutex);
                    failed = std::current_exception();
                }
            });
        try {
            encode(0);
        } catch (...) {
            std::lock_guard<std::mutex> lock(failedMutex);
            failed = std::current_exception();
        }
        for (std::thread& t : pool)
            t.join();
        if (failed)
            std::rethrow_exception(failed);
    } else {
        encode(0);
    }
    if (farCount.load() <= farLimit) {
        if (parts == 1) {
            m_far = std::move(farOf[0]);
        } else {
            m_far.reserve(farCount.load());
            for (const std::vector<Far>& f : farOf)
                m_far.insert(m_far.end(), f.begin(), f.end());
        }
        return;
    }
    // Many far instances (ids not in time order): plain arrays, no table to search.
    m_base = {};
    m_offset = {};
    m_length = {};
    m_far = {};
    m_wideStart.resize(n);
    m_wideEnd.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const bool has = startNs[i] <= endNs[i];
        m_wideStart[i] = has ? startNs[i] : INT64_MAX;
        m_wideEnd[i] = has ? endNs[i] : INT64_MIN;
    }
}

const InstanceSpans::Far& InstanceSpans::far(size_t i) const
{
    auto it = std::lower_bound(m_far.begin(), m_far.end(), i, [](const Far& f, size_t x) { return f.index < x; });
    return *it;   // present: assign() put every kFar and kLong instance there
}

size_t InstanceSpans::bytes() const
{
    return m_base.capacity() * 8 + m_offset.capacity() * 4 + m_length.capacity() * 4 + m_far.capacity() * sizeof(Far) +
           m_wideStart.capacity() * 8 + m_wideEnd.capacity() * 8;
}

QString RunData::name(uint32_t stringId) const
{
    auto it = strings().find(stringId);
    return it == strings().end() ? QString() : qs(it->second);
}

ActivityView RunData::activities() const
{
    ActivityView v;
    v.instanceNode = instances.node.data();
    v.instanceParent = instances.parent.data();   // kNone is kNoInstance
    v.instanceCount = instances.size();
    v.tracks.reserve(tracks.size());
    for (const TrackData& t : tracks)
        v.tracks.push_back(TrackActivities{t.startNs.view(), t.durationNs.data(), t.nameId.data(), t.instance.data(),
                                           t.kind == TrackKind::Kernel ? nullptr : t.activityKind.data(), t.size(),
                                           t.maxDurationNs, t.deviceId});
    return v;
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
    if (instance >= instances.size())
        return {};
    return qs(profile->tree.path(nodes[instances.node[instance]].id));
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

RunData::Cost RunData::costUnder(uint32_t instance) const
{
    Cost c;
    int gemms = 0;
    auto add = [&](const LaunchCost& l) {
        c.flops += l.flops;
        c.bytes += l.bytes;
        if (l.kind == ActivityKind::Kernel) {
            c.kernelFlops += l.flops;
            c.kernelBytes += l.bytes;
        }
        ++c.launches;
        if (l.m > 0) {
            ++gemms;
            c.m = l.m;
            c.n = l.n;
            c.k = l.k;
        }
    };
    if (instance == kNone) {
        for (const LaunchCost& l : profile->launchCosts)
            add(l);
    } else if (instance < instances.size()) {
        // Instances come in id order, parents first: the subtree lies at or after the instance
        // (the pairs are sorted by instance). Captures hold at most a few 100k launches.
        auto it = std::lower_bound(instanceLaunches.begin(), instanceLaunches.end(), std::make_pair(instance, 0u));
        for (; it != instanceLaunches.end(); ++it)
            if (it->first == instance || isWithin(it->first, instance))
                add(profile->launchCosts[it->second]);
    }
    if (gemms != 1)
        c.m = c.n = c.k = 0;
    return c;
}

size_t RunData::memoryBytes() const
{
    size_t b = sizeof(*this);
    for (const TrackData& t : tracks)
        b += sizeof(t) + t.startNs.bytes() + t.durationNs.capacity() * 4 + t.nameId.capacity() * 4 +
             t.instance.capacity() * 4 + t.config.capacity() * 2 + t.bytes.capacity() * 8 + t.activityKind.capacity() +
             t.launch.capacity() * 4 + t.index.bytes();
    for (const ApiRowData& r : apiRows)
        b += sizeof(r) + r.startNs.capacity() * 8 + r.durationNs.capacity() * 4 + r.nameId.capacity() * 4 +
             r.correlationId.capacity() * 8 + r.index.bytes();
    b += apiRowStart.capacity() * 4;
    b += nodes.capacity() * sizeof(ScopeNodeData);
    b += instances.node.capacity() * 4 + instances.parent.capacity() * 4 + instances.spans.bytes();
    for (const LaneData& l : lanes)
        b += sizeof(l) + l.items.capacity() * 4 + l.index.bytes();
    for (const HostLaneData& l : hostLanes)
        b += sizeof(l) + l.items.capacity() * 4 + l.startNs.capacity() * 8 + l.durationNs.capacity() * 4 + l.index.bytes();
    b += hostLaneOf.capacity() * 4 + hostPosOf.capacity() * 4;
    b += instanceIds.capacity() * 8;   // a skeleton's ids when they have holes
    b += storedLaneFigures.capacity() * sizeof(ScopeLane);
    b += launchConfigs.capacity() * sizeof(LaunchConfig) + nameColors.capacity() * 4 + instanceLaunches.capacity() * 8;
    for (const auto& [id, s] : strings())
        b += 48 + s.capacity();
    return b;
}

LayerPalette layerPalette(const ScopeTree& tree)
{
    std::vector<std::string> layers;
    for (const ScopeNode& n : tree.nodes())
        if (layerScope(tree, n.id))
            layers.push_back(layerKey(tree, n.id));
    return LayerPalette(layers);
}

std::unordered_map<int64_t, uint32_t> assignScopeNodes(RunData& d, const ScopeTree& tree)
{
    std::unordered_map<int64_t, uint32_t> nodeIndex;
    for (const ScopeNode& n : tree.nodes())
        nodeIndex[n.id] = uint32_t(nodeIndex.size());
    for (const ScopeNode& n : tree.nodes()) {
        ScopeNodeData nd;
        nd.id = n.id;
        auto p = nodeIndex.find(n.parentId);
        nd.parent = n.parentId != 0 && p != nodeIndex.end() ? p->second : kNone;
        nd.name = d.name(n.nameId);
        nd.level = d.name(n.levelId);
        nd.depth = std::max(1, n.depth);
        d.nodes.push_back(std::move(nd));
    }
    assignLayers(d, tree);
    uint32_t maxString = 0;
    for (const auto& [id, s] : d.strings())
        maxString = std::max(maxString, id);
    d.nameColors.assign(size_t(maxString) + 1, LayerPalette::neutral());
    for (const auto& [id, s] : d.strings())
        d.nameColors[id] = LayerPalette::hashColor(s);
    return nodeIndex;
}

// Layer grouping: analysis's layer rule (wt::layerKey), the one the breakdowns use, so the
// timeline's layers are the pie's. A node without a layer (a step or phase above the layers)
// keeps the color of its own name.
void assignLayers(RunData& d, const ScopeTree& tree)
{
    d.layerNames.clear();
    d.layerNames.push_back(QString::fromLatin1(kNoScope));
    std::unordered_map<std::string, uint32_t> layerIndex;
    std::vector<std::string> keys(d.nodes.size());
    for (size_t i = 0; i < d.nodes.size(); ++i)
        keys[i] = layerKey(tree, d.nodes[i].id);
    d.palette = layerPalette(tree);   // one colour per layer of the run
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        ScopeNodeData& nd = d.nodes[i];
        const int64_t layer = layerScope(tree, nd.id);
        const uint32_t layerNode = layer ? tree.indexOf(layer) : kNone;
        nd.layerNode = layerNode != kNone ? layerNode : uint32_t(i);
        const std::string& key = keys[i];
        auto [it, inserted] = layerIndex.try_emplace(key, uint32_t(d.layerNames.size()));
        if (inserted)
            d.layerNames.push_back(qs(key));
        nd.layerIndex = it->second;
        nd.color = layerNode != kNone ? d.palette.color(key) : LayerPalette::hashColor(tree.name(nd.id));
    }
}

std::shared_ptr<RunData> loadRun(const std::string& path, int64_t runId, const LoadCallbacks& cb)
{
    Database db(path, OpenMode::ReadOnly);
    // One read snapshot for the whole load: a live capture commits while this reads, and the
    // summary, tree, totals and activities must all be those of one commit.
    ReadSnapshot snapshot(db);
    Reader reader(db);
    const int threads = cb.threads > 0 ? cb.threads : kLoadThreads;
    auto data = std::make_shared<RunData>();
    RunData& d = *data;
    const bool keep = cb.keepActivities;
    d.skeleton = !keep;
    d.filePath = QString::fromStdString(path);
    // Description, scope tree, strings and stored totals: the one read of them per run.
    d.profile = RunProfile::load(reader, runId);
    d.run = d.profile->run;
    const ScopeTree& tree = d.profile->tree;
    d.stepCount = countSteps(reader, runId, tree);

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
        size_t n = keep ? size_t(std::max<int64_t>(t.count, 0)) : 0;
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

    // Scope tree: the profile's nodes (by id, parents first), so node i is tree position i.
    const std::vector<ScopeNode>& nodes = tree.nodes();
    const std::unordered_map<int64_t, uint32_t> nodeIndex = assignScopeNodes(d, tree);

    // Scope instances in id order. A run's ids are dense (Reader::forEachScopeInstanceBlock):
    // each decoded chunk is written straight into the arrays at id - first id, on both cores,
    // without a vector of all instances (48 bytes each) in between.
    int64_t firstInstance = 0;
    bool contiguous = true;
    std::unordered_map<int64_t, uint32_t> instanceIndex;
    std::vector<HostInstance> hostItems;   // instances recorded on a host thread (imports, schema 4)
    // The instances' GPU spans while the activities load (InstanceSpans keeps them compact),
    // the devices they ran on (bit per device index, mod 8) and the track (index, mod 256) of
    // their first kernel: instances grouped by it are mostly already in GPU start order, which
    // makes sorting the lanes a merge (see below). Left uninitialized here and set by the
    // threads that place the instances, so that their first touch (page faults: ~18 bytes an
    // instance, 1.6 GB at 100M kernels) is shared by those threads.
    std::unique_ptr<int64_t[]> gpuStart, gpuEnd;
    std::unique_ptr<uint8_t[]> deviceMask, firstTrack;
    // A finished run of schema 6 has its lanes stored (storage/scopelanes.h): the spans and the
    // lanes' order are read instead of computed from the kernels (no devices or first tracks).
    std::optional<std::vector<ScopeLane>> storedLanes;
    if (keep)
        storedLanes = readScopeLanes(db, runId);
    auto clearSpan = [&](size_t i) {
        gpuStart[i] = INT64_MAX;
        gpuEnd[i] = INT64_MIN;
        if (!storedLanes) {
            deviceMask[i] = 0;
            firstTrack[i] = 0;
        }
    };
    {
        InstanceData& in = d.instances;
        // Scope ids of a file are small and dense: a table beats hashing millions of lookups.
        const int64_t firstNode = nodes.empty() ? 0 : nodes.front().id;
        const int64_t nodeRange = nodes.empty() ? 0 : nodes.back().id - firstNode + 1;
        std::vector<uint32_t> nodeTable;
        if (nodeRange > 0 && nodeRange <= int64_t(nodes.size()) * 4 + 4096) {
            nodeTable.assign(size_t(nodeRange), kNone);
            for (const auto& [id, index] : nodeIndex)
                nodeTable[size_t(id - firstNode)] = index;
        }
        auto nodeOf = [&](const ScopeInstance& si) {
            const int64_t scope = si.scopeId;
            uint32_t node = kNone;
            if (!nodeTable.empty()) {
                if (scope >= firstNode && scope - firstNode < nodeRange)
                    node = nodeTable[size_t(scope - firstNode)];
            } else if (auto it = nodeIndex.find(scope); it != nodeIndex.end()) {
                node = it->second;
            }
            if (node == kNone)
                throw StorageError(path + ": scope instance " + std::to_string(si.id) + " names an unknown scope");
            return node;
        };
        size_t count = 0;
        std::mutex hostMutex;
        reader.forEachScopeInstanceBlock(
            runId,
            [&](const Reader::InstanceLayout& l) {
                contiguous = l.dense;
                firstInstance = l.firstId;
                count = l.count;
                if (count >= kNone)
                    throw StorageError(path + ": run " + std::to_string(runId) + " has " + std::to_string(count) +
                                       " scope instances; the timeline holds at most " + std::to_string(kNone - 1));
                in.node.resize(count);
                in.parent.resize(count);
                gpuStart.reset(new int64_t[count]);
                gpuEnd.reset(new int64_t[count]);
                if (!storedLanes) {
                    deviceMask.reset(new uint8_t[count]);
                    firstTrack.reset(new uint8_t[count]);
                }
            },
            [&](const ScopeInstance* rows, size_t n) {
                std::vector<HostInstance> host;
                if (contiguous) {
                    // Parents have smaller ids (checked by the reader): index = id - first.
                    for (size_t k = 0; k < n; ++k) {
                        const ScopeInstance& si = rows[k];
                        const size_t i = size_t(si.id - firstInstance);
                        in.node[i] = nodeOf(si);
                        in.parent[i] = si.parentId >= firstInstance ? uint32_t(si.parentId - firstInstance) : kNone;
                        clearSpan(i);
                        if (si.threadId != 0)
                            host.push_back(HostInstance{uint32_t(i), si.threadId, si.startNs, si.endNs});
                    }
                } else {
                    // One block, sorted by id, with holes: positions through a map.
                    for (size_t i = 0; i < n; ++i)
                        instanceIndex[rows[i].id] = uint32_t(i);
                    if (!keep)
                        for (size_t i = 0; i < n; ++i)
                            d.instanceIds.push_back(rows[i].id);
                    for (size_t i = 0; i < n; ++i) {
                        const ScopeInstance& si = rows[i];
                        in.node[i] = nodeOf(si);
                        auto p = si.parentId == 0 ? instanceIndex.end() : instanceIndex.find(si.parentId);
                        in.parent[i] = p != instanceIndex.end() && p->second < i ? p->second : kNone;
                        clearSpan(i);
                        if (si.threadId != 0)
                            host.push_back(HostInstance{uint32_t(i), si.threadId, si.startNs, si.endNs});
                    }
                }
                if (!host.empty()) {
                    std::lock_guard<std::mutex> lock(hostMutex);
                    hostItems.insert(hostItems.end(), host.begin(), host.end());
                }
            },
            threads);
        if (count == 0)
            firstInstance = 0;
        d.firstInstanceId = firstInstance;
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

    // The stored lanes are read on a thread (and connection) of their own while the activities
    // load: each item's span into the instance's slot, its index into its lane. Items come in
    // lane order (GPU start, then id, so index); a damaged set is refused.
    std::vector<std::vector<uint32_t>> storedItems;
    std::exception_ptr laneFailed;
    std::atomic<bool> laneStop{false};
    struct LaneThread {
        std::thread t;
        std::atomic<bool>* stop;
        ~LaneThread()
        {
            if (t.joinable()) {
                *stop = true;
                t.join();
            }
        }
    } laneReader{{}, &laneStop};
    if (storedLanes) {
        storedItems.resize(storedLanes->size());
        laneReader.t = std::thread([&] {
            try {
                auto damaged = [&](const char* why) {
                    throw StorageError(path + ": run " + std::to_string(runId) + " is damaged (stored scope lanes: " + why + ")");
                };
                Database ldb(path, OpenMode::ReadOnly);
                ReadSnapshot laneSnapshot(ldb);
                for (size_t l = 0; l < storedItems.size(); ++l)
                    storedItems[l].reserve(size_t(std::min<int64_t>((*storedLanes)[l].items, int64_t(instanceCount))));
                forEachScopeLaneChunk(ldb, runId, [&](uint32_t lane, const ScopeLaneItem* items, size_t n) {
                    if (lane >= storedItems.size())
                        damaged("lane out of range");
                    std::vector<uint32_t>& v = storedItems[lane];
                    for (size_t k = 0; k < n; ++k) {
                        const uint32_t i = instanceOf(items[k].instanceId);
                        if (i == kNone)
                            damaged("unknown instance");
                        if (!v.empty()) {
                            const uint32_t p = v.back();
                            if (items[k].startNs < gpuStart[p] || (items[k].startNs == gpuStart[p] && i <= p))
                                damaged("out of order");
                        }
                        gpuStart[i] = items[k].startNs;
                        gpuEnd[i] = items[k].endNs;
                        v.push_back(i);
                    }
                    return !laneStop.load(std::memory_order_relaxed);
                });
                for (size_t l = 0; l < storedItems.size() && !laneStop; ++l)
                    if (int64_t(storedItems[l].size()) != (*storedLanes)[l].items)
                        damaged("count");
            } catch (...) {
                laneFailed = std::current_exception();
            }
        });
    }

    // Op features by instance (the details panel's FLOPs and rates of a kernel or scope).
    for (size_t j = 0; j < d.profile->launchCosts.size(); ++j) {
        const uint32_t i = instanceOf(d.profile->launchCosts[j].scopeInstanceId);
        if (i != kNone)
            d.instanceLaunches.emplace_back(i, uint32_t(j));
    }
    std::sort(d.instanceLaunches.begin(), d.instanceLaunches.end());

    // Host threads' API calls (the CPU rows) and their correlation ids, joined to the
    // activities below.
    ApiCallIndex apiIndex;
    if (keep)   // a skeleton's windows have no CPU rows
        apiIndex.load(reader, runId, d);
    // The host threads: their processes, their ranges as lanes on host time, their API rows.
    if (keep)
        loadHostRows(reader.hostThreads(runId), hostItems, d);
    std::vector<HostInstance>().swap(hostItems);
    std::vector<size_t> launchHint(d.tracks.size(), 0);

    // Activities, track by track. Launch configs are interned: few distinct ones per run.
    const int nDevices = int(d.devices.size());
    // Launch configs by database id, interned so equal ones share an index (few per run).
    std::unordered_map<LaunchConfig, uint32_t, ConfigHash> configIndex;
    std::unordered_map<int64_t, uint32_t> configOfId;
    int64_t lastConfigId = -1;
    uint16_t lastConfig = 0;
    int64_t done = 0;
    bool cancelled = false;
    std::vector<int64_t> trackCount(d.tracks.size(), 0);   // activities read per track
    d.spanStartNs = INT64_MAX;
    d.spanEndNs = INT64_MIN;
    if (cb.progress && !cb.progress(0, total))
        return nullptr;
    // Blocks of decoded rows (a chunk each): one call per ~2k activities, written straight
    // into the arrays (the per-activity callback with its Activity copy cost ~60 ns a row).
    // Each block is filled in two parts: every column of the track (start, duration, name,
    // scope instance, launch config, bytes, kind, launching call) and the track's and run's
    // extent on the decoding thread as soon as it is decoded (Reader's `prepare`, one thread,
    // in order), and here the instances' GPU spans, first tracks and devices from the same
    // rows; no array is written by both. Launch configs are loaded before the decoding thread
    // reads them (Reader loads them on first use).
    if (total > 0)
        reader.launchConfig(1);
    auto prepare = [&](const Track& track, const StoredActivity* rows, size_t count) {
        auto found = trackIndex.find(track.id);
        if (found == trackIndex.end())
            return;
        TrackData& t = d.tracks[found->second];
        const bool kernels = t.kind == TrackKind::Kernel;
        if (!keep) {
            // A skeleton (a run over the memory cap): the activities are not kept, only the
            // track's and the run's extent; the instances' spans come from the block callback.
            int64_t spanStart = d.spanStartNs, spanEnd = d.spanEndNs, maxDuration = t.maxDurationNs;
            for (size_t k = 0; k < count; ++k) {
                const StoredActivity& a = rows[k];
                const int64_t dur = std::min<int64_t>(std::max<int64_t>(a.durationNs, 0), UINT32_MAX);
                maxDuration = std::max(maxDuration, dur);
                spanStart = std::min(spanStart, a.startNs);
                spanEnd = std::max(spanEnd, a.startNs + std::max<int64_t>(a.durationNs, 0));
            }
            d.spanStartNs = spanStart;
            d.spanEndNs = spanEnd;
            t.maxDurationNs = maxDuration;
            return;
        }
        const size_t base = t.durationNs.size();
        t.durationNs.resize(base + count);
        t.nameId.resize(base + count);
        t.instance.resize(base + count);
        if (!apiIndex.empty())
            t.launch.resize(base + count);
        if (kernels) {
            t.config.resize(base + count);
        } else {
            t.bytes.resize(base + count);
            t.activityKind.resize(base + count);
        }
        size_t& hint = launchHint[found->second];
        int64_t spanStart = d.spanStartNs, spanEnd = d.spanEndNs, maxDuration = t.maxDurationNs;
        for (size_t k = 0; k < count; ++k) {
            const StoredActivity& a = rows[k];
            const size_t i = base + k;
            const int64_t dur = std::min<int64_t>(std::max<int64_t>(a.durationNs, 0), UINT32_MAX);
            t.startNs.push_back(a.startNs);
            t.durationNs[i] = uint32_t(dur);
            t.nameId[i] = a.nameId;
            t.instance[i] = instanceOf(a.scopeInstanceId);
            maxDuration = std::max(maxDuration, dur);
            spanStart = std::min(spanStart, a.startNs);
            spanEnd = std::max(spanEnd, a.startNs + std::max<int64_t>(a.durationNs, 0));
            if (!t.launch.empty())
                t.launch[i] = apiIndex.find(a.correlationId, hint);
            if (!kernels) {
                t.bytes[i] = a.bytes;
                t.activityKind[i] = a.kind;
                continue;
            }
            if (a.configId != lastConfigId) {
                auto [it, fresh] = configOfId.try_emplace(a.configId, 0);
                if (fresh) {
                    const LaunchConfig& c = reader.launchConfig(a.configId);
                    auto [ci, inserted] = configIndex.try_emplace(c, uint32_t(d.launchConfigs.size()));
                    if (inserted) {
                        if (d.launchConfigs.size() >= kMaxLaunchConfigs)
                            throw StorageError(path + ": run " + std::to_string(runId) + " has more than " +
                                               std::to_string(kMaxLaunchConfigs) +
                                               " distinct launch configurations; the timeline holds at most that many");
                        d.launchConfigs.push_back(c);
                    }
                    it->second = ci->second;
                }
                lastConfigId = a.configId;
                lastConfig = uint16_t(it->second);
            }
            t.config[i] = lastConfig;
        }
        d.spanStartNs = spanStart;
        d.spanEndNs = spanEnd;
        t.maxDurationNs = maxDuration;
    };
    reader.forEachActivityBlock(runId, [&](const Track& track, const StoredActivity* rows, size_t count) {
        auto found = trackIndex.find(track.id);
        if (found == trackIndex.end())
            return true;   // a track the run list did not have (concurrent writer): skip
        const TrackData& t = d.tracks[found->second];   // only its fixed fields: `prepare` fills the columns
        trackCount[found->second] += int64_t(count);
        if (t.kind == TrackKind::Kernel && storedLanes) {
            for (size_t k = 0; k < count; ++k)
                d.kernelCount += ActivityKind(rows[k].kind) == ActivityKind::Kernel;
        } else if (t.kind == TrackKind::Kernel) {
            const uint8_t bit = uint8_t(1u << std::min(t.deviceIndex, 7));
            const uint8_t trackByte = uint8_t(found->second);
            for (size_t k = 0; k < count; ++k) {
                const StoredActivity& a = rows[k];
                if (ActivityKind(a.kind) != ActivityKind::Kernel)
                    continue;
                ++d.kernelCount;
                const uint32_t inst = instanceOf(a.scopeInstanceId);
                if (inst == kNone)
                    continue;
                if (a.startNs < gpuStart[inst]) {
                    gpuStart[inst] = a.startNs;
                    firstTrack[inst] = trackByte;
                }
                gpuEnd[inst] = std::max(gpuEnd[inst], a.startNs + std::max<int64_t>(a.durationNs, 0));
                deviceMask[inst] |= bit;
            }
        }
        const int64_t before = done;
        done += int64_t(count);
        if ((before >> 16) != (done >> 16) && cb.progress && !cb.progress(done, std::max(total, done))) {
            cancelled = true;
            return false;
        }
        return true;
    }, threads, prepare);
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
            std::vector<int64_t> starts(order.size());
            for (size_t i = 0; i < order.size(); ++i)
                starts[i] = t.startNs[order[i]];
            t.startNs.assign(starts);   // compact again when the sorted starts fit
            permute(t.durationNs);
            permute(t.nameId);
            permute(t.instance);
            permute(t.config);
            permute(t.bytes);
            permute(t.activityKind);
            permute(t.launch);
        }
        t.startNs.shrink();
        shrink(t.durationNs);
        shrink(t.nameId);
        shrink(t.instance);
        shrink(t.config);
        shrink(t.bytes);
        shrink(t.activityKind);
        shrink(t.launch);
    }
    // Empty tracks say nothing on a timeline.
    {
        size_t w = 0;
        for (size_t k = 0; k < d.tracks.size(); ++k)
            if (trackCount[k] > 0) {
                if (w != k)
                    d.tracks[w] = std::move(d.tracks[k]);
                ++w;
            }
        d.tracks.resize(w);
    }
    // FoldIndex buckets of ~64 items (0.9 B an item instead of 1.8 at 32; frames read a few
    // more starts per search). The tracks' indexes are built on a second thread while this one
    // does the spans and lanes: they read only the tracks, the nodes and the instances' nodes,
    // all final now.
    struct Joiner {
        std::thread t;
        ~Joiner()
        {
            if (t.joinable())
                t.join();
        }
    } foldTracks;
    auto buildTrackIndexes = [&d] {
        for (TrackData& t : d.tracks)
            t.index.build(TrackSequence{&d, &t}, kFoldBucket);
    };
    if (threads > 1)
        foldTracks.t = std::thread(buildTrackIndexes);
    else
        buildTrackIndexes();

    InstanceData& in = d.instances;
    if (storedLanes) {
        // The stored lanes (schema 6) give the spans and the lanes' order: no pass up the tree,
        // no grouping or merging. Their reader filled the spans while the activities loaded.
        laneReader.t.join();
        if (laneFailed)
            std::rethrow_exception(laneFailed);
        in.spans.assign(gpuStart.get(), gpuEnd.get(), instanceCount, threads);
        gpuStart.reset();
        gpuEnd.reset();
        std::map<int32_t, int> deviceIndexOf;
        for (size_t k = 0; k < d.devices.size(); ++k)
            deviceIndexOf[d.devices[k].id] = int(k);
        for (size_t l = 0; l < storedLanes->size(); ++l) {
            const ScopeLane& f = (*storedLanes)[l];
            auto dev = deviceIndexOf.find(f.deviceId);
            if (dev == deviceIndexOf.end() || storedItems[l].empty())
                continue;
            LaneData lane;
            lane.deviceIndex = dev->second;
            lane.depth = f.depth;
            lane.level = qs(f.level);
            lane.items = std::move(storedItems[l]);
            lane.maxDurationNs = f.maxDurationNs;
            d.lanes.push_back(std::move(lane));
        }
        // Fold indexes: the largest lane on a thread of its own beside the others.
        size_t largest = 0;
        for (size_t l = 0; l < d.lanes.size(); ++l)
            if (d.lanes[l].items.size() > d.lanes[largest].items.size())
                largest = l;
        std::thread big;
        if (threads > 1 && !d.lanes.empty())
            big = std::thread([&d, largest] { d.lanes[largest].index.build(LaneSequence{&d, &d.lanes[largest]}, kFoldBucket); });
        for (size_t l = 0; l < d.lanes.size(); ++l)
            if (l != largest || !big.joinable())
                d.lanes[l].index.build(LaneSequence{&d, &d.lanes[l]}, kFoldBucket);
        if (big.joinable())
            big.join();
    } else {
        // Spans go up the tree: children have larger ids than their parents.
        for (size_t i = instanceCount; i-- > 0;) {
            uint32_t p = in.parent[i];
            if (p == kNone || gpuStart[i] > gpuEnd[i])
                continue;
            if (gpuStart[i] < gpuStart[p]) {
                gpuStart[p] = gpuStart[i];
                firstTrack[p] = firstTrack[i];
            }
            gpuEnd[p] = std::max(gpuEnd[p], gpuEnd[i]);
            deviceMask[p] |= deviceMask[i];
        }
        in.spans.assign(gpuStart.get(), gpuEnd.get(), instanceCount, threads);
        gpuStart.reset();
        gpuEnd.reset();

        // Lanes: per device and depth, the instances that ran kernels there, sorted by GPU start.
        int maxDepth = 0;
        for (const ScopeNodeData& n : d.nodes)
            maxDepth = std::max(maxDepth, n.depth);
        // One job per (device, depth): its instances grouped by first track, to be merged (below).
        using LaneItems = std::vector<uint32_t, NoFillAllocator<uint32_t>>;   // every element placed below
        struct LaneJob {
            int dev = 0, depth = 0;
            std::vector<uint32_t> offsets;    // group g is v[offsets[g], offsets[g + 1])
            LaneItems v;
        };
        std::vector<LaneJob> laneJobs;
        for (int dev = 0; dev < nDevices; ++dev) {
            const uint8_t bit = uint8_t(1u << std::min(dev, 7));
            // Per depth: the instances grouped by first track (counting sort, stable), each group
            // sorted by (GPU start, index) -- usually already -- then merged. Same order as sorting
            // all of them, at a fraction of the cost (8.4M op instances: ~0.5 s to sort). The
            // instances are counted and placed in `parts` ranges of indices on as many threads:
            // a group holds part 0's members, then part 1's, ..., each in index order, so the
            // result is the one-thread result.
            const size_t parts = threads > 1 && instanceCount >= (size_t(1) << 16) ? size_t(std::min(threads, 4)) : 1;
            std::vector<uint16_t, NoFillAllocator<uint16_t>> depthOf(instanceCount);   // 0 = not in a lane of this device
            // Per part and depth: 257 counts by first track (+1), empty when the part has none.
            std::vector<std::vector<std::vector<uint32_t>>> partCount(parts, std::vector<std::vector<uint32_t>>(size_t(maxDepth) + 1));
            auto inParts = [&](auto&& body) {
                if (parts == 1) {
                    body(size_t(0));
                    return;
                }
                std::vector<std::thread> pool;
                std::exception_ptr failed;
                std::mutex failedMutex;
                auto guarded = [&](size_t p) {
                    try {
                        body(p);
                    } catch (...) {
                        std::lock_guard<std::mutex> lock(failedMutex);
                        failed = std::current_exception();
                    }
                };
                for (size_t p = 1; p < parts; ++p)
                    pool.emplace_back(guarded, p);
                guarded(0);
                for (std::thread& t : pool)
                    t.join();
                if (failed)
                    std::rethrow_exception(failed);
            };
            auto partRange = [&](size_t p) { return std::pair<size_t, size_t>(instanceCount * p / parts, instanceCount * (p + 1) / parts); };
            inParts([&](size_t p) {
                auto& counts = partCount[p];
                const auto [lo, hi] = partRange(p);
                for (size_t i = lo; i < hi; ++i) {
                    uint16_t depth = 0;
                    if ((deviceMask[i] & bit) && in.hasSpan(i)) {
                        depth = uint16_t(std::min(d.nodes[in.node[i]].depth, 65535));
                        auto& c = counts[depth];
                        if (c.empty())
                            c.assign(257, 0);
                        ++c[size_t(firstTrack[i]) + 1];
                    }
                    depthOf[i] = depth;
                }
            });
            // Instance indices only (4 bytes; the GPU start is read when compared): a vector of
            // (start, index) pairs cost 16 bytes an instance at the load's peak.
            std::vector<std::vector<uint32_t>> groupCount(size_t(maxDepth) + 1);   // group offsets per depth
            std::vector<LaneItems> byDepth(size_t(maxDepth) + 1);
            std::vector<std::vector<std::vector<uint32_t>>> fill(parts, std::vector<std::vector<uint32_t>>(size_t(maxDepth) + 1));
            for (size_t depth = 1; depth <= size_t(maxDepth); ++depth) {
                bool any = false;
                for (size_t p = 0; p < parts; ++p)
                    any |= !partCount[p][depth].empty();
                if (!any)
                    continue;
                // Group g starts at offsets[g]; part p's members of it after those of parts < p.
                // partCount holds counts shifted by one (c[track + 1]): group g's count is c[g + 1].
                auto& offsets = groupCount[depth];
                offsets.assign(257, 0);
                std::vector<uint32_t> size(256, 0);
                for (size_t p = 0; p < parts; ++p)
                    if (!partCount[p][depth].empty())
                        for (size_t g = 0; g < 256; ++g)
                            size[g] += partCount[p][depth][g + 1];
                for (size_t g = 0; g < 256; ++g)
                    offsets[g + 1] = offsets[g] + size[g];
                byDepth[depth].resize(offsets.back());
                std::vector<uint32_t> at(offsets.begin(), offsets.end() - 1);
                for (size_t p = 0; p < parts; ++p) {
                    fill[p][depth] = at;
                    if (!partCount[p][depth].empty())
                        for (size_t g = 0; g < 256; ++g)
                            at[g] += partCount[p][depth][g + 1];
                }
            }
            inParts([&](size_t p) {
                auto& f = fill[p];
                const auto [lo, hi] = partRange(p);
                for (size_t i = lo; i < hi; ++i)
                    if (const uint16_t depth = depthOf[i])
                        byDepth[depth][f[depth][firstTrack[i]]++] = uint32_t(i);
            });
            decltype(depthOf)().swap(depthOf);
            for (int depth = 1; depth <= maxDepth; ++depth)
                if (!groupCount[size_t(depth)].empty())
                    laneJobs.push_back(LaneJob{dev, depth, std::move(groupCount[size_t(depth)]), std::move(byDepth[size_t(depth)])});
        }
        deviceMask.reset();
        firstTrack.reset();
        // The lanes are independent once grouped: each is merged and gets its fold index on one
        // of two threads, the largest first (an op lane holds most instances).
        std::vector<LaneData> built(laneJobs.size());
        auto buildLane = [&](size_t j) {
            LaneJob& job = laneJobs[j];
            auto keyOf = [&in](uint32_t idx) { return std::pair<int64_t, uint32_t>(in.gpuStart(idx), idx); };
            const auto& offsets = job.offsets;
            auto& v = job.v;
            LaneData& lane = built[j];
            lane.deviceIndex = job.dev;
            lane.depth = job.depth;
            // Each group sorted by key (usually already).
            for (size_t g = 0; g + 1 < offsets.size(); ++g) {
                auto b = v.begin() + ptrdiff_t(offsets[g]), e = v.begin() + ptrdiff_t(offsets[g + 1]);
                auto byKey = [&](uint32_t x, uint32_t y) { return keyOf(x) < keyOf(y); };
                if (!std::is_sorted(b, e, byKey))
                    std::sort(b, e, byKey);
            }
            // Merges the groups' ranges [pos, end) into out: a small binary heap of group heads, the
            // head's key inline. Returns the longest span merged.
            struct Head {
                std::pair<int64_t, uint32_t> key;
                size_t pos, end;
            };
            auto merge = [&](std::vector<Head> heap, uint32_t* out) {
                int64_t longest = 0;
                auto siftDown = [&heap](size_t k) {
                    const size_t n = heap.size();
                    const Head h = heap[k];
                    for (;;) {
                        size_t c = 2 * k + 1;
                        if (c >= n)
                            break;
                        if (c + 1 < n && heap[c + 1].key < heap[c].key)
                            ++c;
                        if (!(heap[c].key < h.key))
                            break;
                        heap[k] = heap[c];
                        k = c;
                    }
                    heap[k] = h;
                };
                for (size_t k = heap.size() / 2 + 1; k-- > 0;)
                    if (k < heap.size())
                        siftDown(k);
                while (!heap.empty()) {
                    Head& top = heap.front();
                    const auto [start, idx] = top.key;
                    *out++ = idx;
                    longest = std::max(longest, in.gpuEnd(idx) - start);
                    if (++top.pos < top.end) {
                        top.key = keyOf(v[top.pos]);
                    } else {
                        top = heap.back();
                        heap.pop_back();
                        if (heap.empty())
                            break;
                    }
                    siftDown(0);
                }
                return longest;
            };
            // A large lane (the op lane holds most instances) is merged in two halves on two
            // threads: the keys below a pivot, then the rest (keys are unique: the index breaks
            // ties), so the halves end to end are the whole merge.
            lane.items.resize(v.size());
            std::vector<Head> low, high;
            size_t largest = 0;
            for (size_t g = 0; g + 1 < offsets.size(); ++g)
                if (offsets[g + 1] - offsets[g] > offsets[largest + 1] - offsets[largest])
                    largest = g;
            const bool split = threads > 1 && v.size() >= (size_t(1) << 16);   // a thread costs ~0.1 ms
            const std::pair<int64_t, uint32_t> pivot =
                split ? keyOf(v[(size_t(offsets[largest]) + offsets[largest + 1]) / 2]) : std::pair<int64_t, uint32_t>{};
            size_t lowCount = 0;
            for (size_t g = 0; g + 1 < offsets.size(); ++g) {
                size_t cut = offsets[g + 1];
                if (split)
                    cut = size_t(std::partition_point(v.begin() + ptrdiff_t(offsets[g]), v.begin() + ptrdiff_t(offsets[g + 1]),
                                                      [&](uint32_t x) { return keyOf(x) < pivot; }) -
                                 v.begin());
                if (cut > offsets[g])
                    low.push_back(Head{keyOf(v[offsets[g]]), offsets[g], cut});
                if (cut < offsets[g + 1])
                    high.push_back(Head{keyOf(v[cut]), cut, offsets[g + 1]});
                lowCount += cut - offsets[g];
            }
            if (split) {
                int64_t highLongest = 0;
                std::exception_ptr failed;
                std::thread upper([&] {
                    try {
                        highLongest = merge(std::move(high), lane.items.data() + lowCount);
                    } catch (...) {
                        failed = std::current_exception();
                    }
                });
                int64_t lowLongest = 0;
                try {
                    lowLongest = merge(std::move(low), lane.items.data());
                } catch (...) {
                    upper.join();
                    throw;
                }
                upper.join();
                if (failed)
                    std::rethrow_exception(failed);
                lane.maxDurationNs = std::max(lowLongest, highLongest);
            } else {
                lane.maxDurationNs = merge(std::move(low), lane.items.data());
            }
            LaneItems().swap(v);
            // The lane's level: the most common of its first items' (ties: the first in name order).
            std::map<QString, int> levels;
            for (size_t k = 0; k < std::min<size_t>(lane.items.size(), 256); ++k)
                ++levels[d.nodes[in.node[lane.items[k]]].level];
            int best = -1;
            for (const auto& [lvl, n] : levels)
                if (n > best) {
                    best = n;
                    lane.level = lvl;
                }
            lane.index.build(LaneSequence{&d, &lane}, kFoldBucket);
        };
        {
            std::vector<size_t> jobOrder(laneJobs.size());
            for (size_t j = 0; j < jobOrder.size(); ++j)
                jobOrder[j] = j;
            std::stable_sort(jobOrder.begin(), jobOrder.end(),
                             [&](size_t a, size_t b) { return laneJobs[a].v.size() > laneJobs[b].v.size(); });
            std::atomic<size_t> next{0};
            std::exception_ptr failed;
            auto worker = [&] {
                try {
                    for (size_t k; (k = next.fetch_add(1)) < jobOrder.size();)
                        buildLane(jobOrder[k]);
                } catch (...) {
                    failed = std::current_exception();
                    next = jobOrder.size();
                }
            };
            if (threads > 1 && laneJobs.size() > 1) {
                std::exception_ptr mine;
                std::thread helper(worker);
                try {
                    for (size_t k; (k = next.fetch_add(1)) < jobOrder.size();)
                        buildLane(jobOrder[k]);
                } catch (...) {
                    mine = std::current_exception();
                    next = jobOrder.size();
                }
                helper.join();
                if (mine)
                    std::rethrow_exception(mine);
            } else {
                worker();
            }
            if (failed)
                std::rethrow_exception(failed);
        }
        for (LaneData& lane : built)
            d.lanes.push_back(std::move(lane));
    }
    if (foldTracks.t.joinable())
        foldTracks.t.join();
#if defined(__GLIBC__) && !WT_SANITIZED_HEAP
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

namespace wt::gui {

std::shared_ptr<RunData> withLayerDepth(const RunData& run, int depth)
{
    auto d = std::make_shared<RunData>(run);
    d->profile = wt::withLayerDepth(*run.profile, depth);
    assignLayers(*d, d->profile->tree);
    return d;
}

}  // namespace wt::gui
