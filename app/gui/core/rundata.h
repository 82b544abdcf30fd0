// One run in memory, shaped for the timeline: per-track structure-of-arrays activity lists
// sorted by start (18 bytes per kernel, plus ~1 for the FoldIndex of the draw list), the
// scope tree with a stable color per layer, and the scope instances with their GPU spans (first
// kernel start to last kernel end, children included; 8 bytes each, InstanceSpans), grouped
// into lanes per (device, depth)
// sorted by GPU start. The run's analysis profile (description, scope tree, strings, stored
// totals: read once, here) comes with it, and activities() hands the arrays to analysis/ as
// an ActivityView, so every figure a view shows is computed there. A node's layer is
// analysis's layer rule (wt::layerKey). Immutable once loaded, so views on any thread can
// share one std::shared_ptr<const RunData>.
#pragma once

#include "layerpalette.h"

#include "drawlist.h"
#include "analysis/activitystarts.h"
#include "analysis/activityview.h"
#include "analysis/runprofile.h"
#include "storage/scopelanes.h"
#include "storage/types.h"

#include <QRgb>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wt::gui {

inline constexpr uint32_t kNone = 0xffffffffu;
static_assert(kNone == wt::kNoInstance && kNone == wt::ScopeTree::kNoNode, "one 'none' index for the GUI and analysis/");

struct TrackData {
    int64_t id = 0;
    int32_t deviceId = 0;
    int deviceIndex = 0;                  // position in RunData::devices
    int64_t stream = 0;
    TrackKind kind = TrackKind::Kernel;
    QString name;
    // One entry per activity, sorted by start.
    ActivityStarts startNs;               // ns relative to the run origin; 4 bytes each (compact) unless sparse
    std::vector<uint32_t> durationNs;     // saturated at 2^32-1 ns (4.29 s)
    std::vector<uint32_t> nameId;         // interned string id
    std::vector<uint32_t> instance;       // innermost scope instance (index), kNone = no scope
    // Kernel tracks: index into RunData::launchConfigs (distinct configurations; a run with more
    // than kMaxLaunchConfigs is refused by loadRun).
    std::vector<uint16_t> config;
    std::vector<int64_t> bytes;           // memory tracks only: bytes moved or set
    std::vector<uint8_t> activityKind;    // memory tracks only: ActivityKind
    // The API call that launched each activity (by correlation id): an index into the run's
    // API calls in row order (RunData::apiCallAt), kNone = not found; empty when the run has none.
    std::vector<uint32_t> launch;
    int64_t maxDurationNs = 0;            // longest activity: bounds window searches
    FoldIndex index;                      // over the activities: the frame's searches and folds (built at load)

    size_t size() const { return startNs.size(); }
    int64_t endNs(size_t i) const { return startNs[i] + int64_t(durationNs[i]); }
};

// Node i is position i of the profile's ScopeTree (nodes sorted by id).
// The compact activity record of the timeline, by column: 18 bytes per kernel (start as a
// 32-bit block offset, duration, name, scope instance, launch config); docs/performance.md's
// memory figures depend on it.
template <class V>
constexpr size_t kElem = sizeof(typename V::value_type);
static_assert(sizeof(uint32_t) /* ActivityStarts, compact */ + kElem<decltype(TrackData::durationNs)> +
                      kElem<decltype(TrackData::nameId)> + kElem<decltype(TrackData::instance)> +
                      kElem<decltype(TrackData::config)> ==
                  18,
              "a kernel activity takes 18 bytes in RunData");
inline constexpr size_t kMaxLaunchConfigs = 65535;   // distinct launch configurations a loaded run holds
inline constexpr size_t kFoldBucket = 64;            // items per FoldIndex bucket of tracks and lanes

struct ScopeNodeData {
    int64_t id = 0;
    uint32_t parent = kNone;              // index into RunData::nodes
    QString name;
    QString level;                        // step, phase, layer, op, nvtx, annotation
    int depth = 1;                        // 1 = top level
    uint32_t layerNode = kNone;           // the node naming its layer (wt::layerScope), else itself
    uint32_t layerIndex = 0;              // index into RunData::layerNames: wt::layerKey of the node
    QRgb color = 0;                       // the layer's color (from its name; own name when none)
};

// An allocator whose resize(n) leaves new elements of trivial types uninitialized instead of
// zero-filling them: for arrays the loader writes in full anyway, on the threads that fill
// them (which then take the first-touch page faults, instead of one thread's memset).
template <class T>
struct NoFillAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = NoFillAllocator<U>;
    };
    NoFillAllocator() = default;
    template <class U>
    NoFillAllocator(const NoFillAllocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) { ::new (static_cast<void*>(p)) U; }
    template <class U, class... A>
    void construct(U* p, A&&... a) { ::new (static_cast<void*>(p)) U(std::forward<A>(a)...); }
};

// The GPU spans of a run's scope instances (first kernel start to last kernel end under each,
// children included), 8 bytes an instance instead of two int64: the start as a 32-bit offset
// (+-2^31 ns) from a base per block of kBlock instances (ids are given in host order, so a
// block's GPU starts lie within milliseconds) and the length as 32 bits. Starts outside their
// block's window and lengths of 2^32-1 ns or more (steps of a long run) are kept exactly in a
// sorted side table; a run with many of them keeps plain int64 arrays.
class InstanceSpans {
public:
    static constexpr size_t kBlock = 4096;
    // startNs[i] > endNs[i] (INT64_MAX, INT64_MIN) = no span. threads > 1: the blocks are
    // encoded on that many threads (the same result for any count).
    void assign(const std::vector<int64_t>& startNs, const std::vector<int64_t>& endNs);
    void assign(const int64_t* startNs, const int64_t* endNs, size_t n, int threads = 1);
    // Inline: lanes' sorts, fold indexes and frames read them per item.
    int64_t start(size_t i) const         // INT64_MAX = none
    {
        if (!m_wideStart.empty())
            return m_wideStart[i];
        const uint32_t o = m_offset[i];
        if (o < kFar) [[likely]]
            return m_base[i / kBlock] + int64_t(o) - kBias;
        return o == kNoSpan ? INT64_MAX : far(i).startNs;
    }
    int64_t end(size_t i) const           // INT64_MIN = none
    {
        if (!m_wideEnd.empty())
            return m_wideEnd[i];
        const uint32_t o = m_offset[i], l = m_length[i];
        if (o < kFar && l != kLong) [[likely]]
            return m_base[i / kBlock] + int64_t(o) - kBias + int64_t(l);
        return o == kNoSpan ? INT64_MIN : far(i).endNs;
    }
    bool has(size_t i) const { return m_wideStart.empty() ? m_offset[i] != kNoSpan : m_wideStart[i] <= m_wideEnd[i]; }
    size_t size() const { return m_wideStart.empty() ? m_offset.size() : m_wideStart.size(); }
    bool compact() const { return m_wideStart.empty(); }
    size_t exceptions() const { return m_far.size(); }
    size_t bytes() const;

private:
    static constexpr uint32_t kNoSpan = UINT32_MAX, kFar = UINT32_MAX - 1, kLong = UINT32_MAX;
    static constexpr int64_t kBias = int64_t(1) << 31;
    std::vector<int64_t> m_base;          // per block: the median of a few of its starts
    std::vector<uint32_t, NoFillAllocator<uint32_t>> m_offset;   // start - base + kBias, kNoSpan, kFar (start in m_far)
    std::vector<uint32_t, NoFillAllocator<uint32_t>> m_length;   // end - start, kLong (end in m_far)
    // Exact values of the instances marked kFar or kLong, sorted by index.
    struct Far {
        uint32_t index;
        int64_t startNs, endNs;
    };
    std::vector<Far> m_far;
    std::vector<int64_t> m_wideStart, m_wideEnd;   // instead of the above when too many are far
    const Far& far(size_t i) const;
};

// Scope instances in id order (parents before children).
struct InstanceData {
    std::vector<uint32_t> node;           // index into RunData::nodes
    std::vector<uint32_t> parent;         // index, kNone = top level
    InstanceSpans spans;                  // GPU spans
    size_t size() const { return node.size(); }
    int64_t gpuStart(size_t i) const { return spans.start(i); }   // first kernel start under it, INT64_MAX = none
    int64_t gpuEnd(size_t i) const { return spans.end(i); }       // last kernel end under it, INT64_MIN = none
    bool hasSpan(size_t i) const { return spans.has(i); }
};

// The instances of one depth that ran kernels on one device, sorted by GPU start.
struct LaneData {
    int deviceIndex = 0;
    int depth = 1;
    QString level;                        // level name of the lane's nodes (most common)
    std::vector<uint32_t> items;          // instance indices
    int64_t maxDurationNs = 0;
    FoldIndex index;                      // over the items' GPU spans (built at load)
};

// The API calls (CUDA runtime and driver calls) of one host thread at one nesting level (0:
// outermost; a driver call inside a runtime call is level 1), sorted by start: a CPU row of
// the timeline, above the GPU rows. Times on the run's clock like the activities.
struct ApiRowData {
    int64_t threadId = 0;
    int level = 0;
    std::vector<int64_t> startNs;
    std::vector<uint32_t> durationNs;     // saturated at 2^32-1 ns
    std::vector<uint32_t> nameId;
    std::vector<int64_t> correlationId;
    int64_t maxDurationNs = 0;
    FoldIndex index;
    size_t size() const { return startNs.size(); }
    int64_t endNs(size_t i) const { return startNs[i] + int64_t(durationNs[i]); }
};

// The CPU side of an import (schema version 4's host threads): per process its threads, per
// thread its ranges (Kineto's CPU ops and annotations, Nsight's NVTX ranges) on host time as
// lanes by nesting depth on that thread (1 = outermost), and its API call rows.
struct HostLaneData {
    uint32_t thread = 0;                  // index into RunData::hostThreads
    int depth = 1;                        // nesting on the thread, 1 = outermost
    QString level;                        // level names of the lane's nodes, most common first ("op", "annotation / op")
    std::vector<uint32_t> items;          // instance indices, sorted by host start
    std::vector<int64_t> startNs;         // host start (as recorded), parallel to items
    std::vector<uint32_t> durationNs;     // saturated at 2^32-1 ns
    int64_t maxDurationNs = 0;
    FoldIndex index;
    size_t size() const { return items.size(); }
    int64_t endNs(size_t i) const { return startNs[i] + int64_t(durationNs[i]); }
};

struct HostThreadData {
    int64_t id = 0;                       // HostThread::id (0: a thread known only from API calls)
    int64_t pid = 0;
    int64_t tid = 0;
    QString name;                         // the trace's thread name, else "thread TID"
    uint32_t process = 0;                 // index into RunData::hostProcesses
    std::vector<uint32_t> lanes;          // RunData::hostLanes, by depth
    std::vector<uint32_t> apiRows;        // RunData::apiRows of this thread, by level
};

struct HostProcessData {
    int64_t pid = 0;
    QString name;                         // the trace's process name, else "process PID"
    std::vector<uint32_t> threads;        // RunData::hostThreads, by tid
};

struct DeviceData {
    int32_t id = 0;
    QString name;
};

class RunData {
public:
    QString filePath;
    RunInfo run;
    std::shared_ptr<const RunProfile> profile;   // tree, strings, stored totals (analysis/)
    std::vector<DeviceData> devices;
    std::vector<TrackData> tracks;        // by device, kernel tracks by stream, then memory
    std::vector<ScopeNodeData> nodes;
    InstanceData instances;
    std::vector<LaneData> lanes;          // by device, then depth
    std::vector<LaunchConfig> launchConfigs;
    std::vector<ApiRowData> apiRows;      // by thread id, then level
    std::vector<uint32_t> apiRowStart;    // index of each row's first call in row order; back() = all calls
    // Host threads (empty for runs without them: predicted runs, files before schema version 4).
    std::vector<HostProcessData> hostProcesses;   // by pid
    std::vector<HostThreadData> hostThreads;      // by (pid, tid)
    std::vector<HostLaneData> hostLanes;          // by thread, then depth
    // Per instance (when the run has host lanes): its host lane and position there, kNone = none.
    std::vector<uint32_t> hostLaneOf, hostPosOf;
    std::vector<QString> layerNames;      // layerIndex -> layer key; 0 = "(no scope)"
    LayerPalette palette;                 // the layers' colours, one each; every view of the run asks it
    std::vector<QRgb> nameColors;         // by string id: colors of kernels without a scope
    // Op features (captures of bundled workloads): (instance index, index into
    // profile->launchCosts) for every launch with a known instance, sorted by instance.
    std::vector<std::pair<uint32_t, uint32_t>> instanceLaunches;
    int64_t spanStartNs = 0;              // first activity start
    int64_t spanEndNs = 0;                // last activity end
    int64_t kernelCount = 0;
    int64_t activityCount = 0;
    int64_t stepCount = 0;                // wt::countSteps: steps finished (so far, while being captured)
    // Drawn from the stored level-of-detail summary (loadOverviewRun): each track's and lane's
    // items are buckets of the summary, not activities or instances; the timeline draws it
    // until the loaded run replaces it, and nothing in it can be selected.
    bool overviewOnly = false;
    // The windowed detail of a run over the memory cap (windowedrun.h): activities and scope
    // lanes are exact in [detailStartNs, detailEndNs) (an empty range: nowhere), the summary's
    // buckets elsewhere; detailLanes false: the lanes are all summary. Also overviewOnly.
    bool windowed = false;
    bool detailLanes = false;
    int64_t detailStartNs = 0, detailEndNs = 0;
    // A skeleton (loadRun with keepActivities = false): instances, spans and lanes of the whole
    // run, tracks without activities; the windows take their scope lanes from it. Instance
    // index of scope instance id x: x - firstInstanceId, or its position in instanceIds when
    // the run's ids have holes (then instanceIds lists them in order).
    bool skeleton = false;
    int64_t firstInstanceId = 0;
    std::vector<int64_t> instanceIds;
    // A skeleton of a file with stored scope lanes (schema 6, loadStoredSkeleton): no instances
    // or lanes in memory, only the lanes' figures; each window reads its lanes' items from the
    // file, so memory stays bounded by the cap at any run size.
    bool storedLanes = false;
    std::vector<ScopeLane> storedLaneFigures;   // by device id, then depth

    const Strings& strings() const { return profile->strings; }
    QString name(uint32_t stringId) const;
    // The activities as analysis/ reads them (a view over the arrays above).
    ActivityView activities() const;
    QRgb activityColor(const TrackData& track, size_t i) const;
    QRgb apiColor(uint32_t nameId) const;                        // launches, copies, synchronizations, others
    // An API call's row and position from its index in row order (TrackData::launch).
    std::pair<uint32_t, uint32_t> apiCallAt(uint32_t call) const;
    // The activities an API call launched (track, index), found by a pass over TrackData::launch.
    std::vector<std::pair<uint32_t, uint32_t>> launchedBy(uint32_t row, uint32_t index) const;
    QRgb instanceColor(uint32_t instance) const { return nodes[instances.node[instance]].color; }
    uint32_t layerOf(const TrackData& track, size_t i) const;   // layerIndex, 0 = no scope
    QString scopePath(uint32_t instance) const;                 // "step/forward/decoder.3/ffn_up" (storage's ScopePaths)
    bool isWithin(uint32_t instance, uint32_t ancestor) const;  // ancestor-or-self
    // FLOPs, bytes and launches of the op features under an instance (ancestor-or-self), or of
    // the whole run (kNone); launches == 0 when the run has no features there.
    struct Cost {
        double flops = 0, bytes = 0;
        // Of the launches that ran as kernels: what the achieved rates divide by kernel time
        // (docs/definitions.md); memcpy and memset launches have their own activities.
        double kernelFlops = 0, kernelBytes = 0;
        int64_t launches = 0;
        int64_t m = 0, n = 0, k = 0;      // the GEMM shape when exactly one launch is a GEMM
    };
    Cost costUnder(uint32_t instance) const;
    // Bytes held by the arrays above (capacity, not size): the resident cost of a run.
    size_t memoryBytes() const;
    // Number of lanes a device has.
    int laneCount(int deviceIndex) const;
};

struct LoadCallbacks {
    // done and total count activities; returning false cancels the load.
    std::function<bool(int64_t done, int64_t total)> progress;
    // Threads the load decodes and fills on (0: the cores, at most 4); the loaded run is the
    // same for any count.
    int threads = 0;
    // false: a skeleton (RunData::skeleton): the activities are read once for the instances'
    // spans and lanes, and not kept (a run over the memory cap, windowedrun.h).
    bool keepActivities = true;
};

// The palette of a run's layers (analysis's layer rule over the tree at its layer depth): what
// RunData::palette holds, for a headless view without a RunData.
LayerPalette layerPalette(const ScopeTree& tree);

// Loads run `runId` of the file. Returns nullptr when cancelled; throws wt::StorageError with a
// one-line reason on bad files. Opens its own read-only connection, so it may run on any thread,
// and reads in one snapshot, so a run being written loads as of one of its commits.
std::shared_ptr<RunData> loadRun(const std::string& path, int64_t runId, const LoadCallbacks& callbacks = {});

// The nodes' layers, layer indices and colours from the tree (loadRun and loadOverviewRun).
void assignLayers(RunData& run, const ScopeTree& tree);
// run.nodes from the tree (by id, parents first: node i is tree position i), their layers
// (assignLayers) and the names' colours; returns scope id -> node index (loadRun and
// loadOverviewRun). The run's strings must be loaded.
std::unordered_map<int64_t, uint32_t> assignScopeNodes(RunData& run, const ScopeTree& tree);

// A copy of a loaded run with another layer depth (analysis withLayerDepth): its profile and
// its nodes' layers and layer colours follow the layer rule at that depth (the GUI's
// layer-depth control for imported runs). Copies the activity arrays.
std::shared_ptr<RunData> withLayerDepth(const RunData& run, int depth);

}  // namespace wt::gui
