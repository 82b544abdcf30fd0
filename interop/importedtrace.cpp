#include "importedtrace.h"

#include "importerror.h"

#include "storage/isotime.h"
#include "storage/utf8.h"
#include "storage/writer.h"

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <thread>
#include <tuple>
#include <exception>
#include <unordered_map>
#include <unordered_set>

namespace wt::interop {

std::string cutName(std::string_view text)
{
    if (text.size() <= kMaxNameBytes)
        return std::string(text);
    // The marker counts against the limit, and its length depends on the number of bytes
    // dropped, which depends on where the cut falls: try each digit count until one fits (the
    // first that does keeps the most). A cut name is then never cut again (export + import
    // keep it byte for byte).
    for (size_t digits = 1;; ++digits) {
        size_t keep = kMaxNameBytes - (sizeof kCutMarkerPrefix - 1) - digits - (sizeof kCutMarkerSuffix - 1);
        // Never split a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
        while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80)
            --keep;
        std::string dropped = std::to_string(text.size() - keep);
        if (dropped.size() <= digits)
            return std::string(text.substr(0, keep)) + kCutMarkerPrefix + dropped + kCutMarkerSuffix;
    }
}

std::string storedName(std::string_view text)
{
    return utf8::isValid(text) ? cutName(text) : cutName(utf8::repaired(text));
}

uint32_t StringTable::intern(std::string_view text)
{
    const bool valid = utf8::isValid(text);
    const std::string repaired = valid ? std::string() : utf8::repaired(text);
    const std::string_view clean = valid ? text : std::string_view(repaired);
    std::string key = cutName(clean);
    auto it = m_index.find(key);
    if (it != m_index.end())
        return it->second;
    if (clean.size() > kMaxNameBytes)
        ++m_cut;
    if (!valid)
        ++m_repaired;
    uint32_t id = uint32_t(m_values.size());
    m_values.push_back(std::move(key));
    m_index.emplace(m_values.back(), id);
    return id;
}

namespace {

using Ranges = std::vector<ImportedTrace::Range>;

// Ranges of one thread (or one GPU lane) sorted by start, for "innermost open at t" lookups.
struct Lane {
    std::vector<int64_t> index;     // into ranges, sorted by (start, end desc)
    std::vector<int64_t> starts;    // parallel to index
};

// Nesting within one lane: a range's parent is the innermost earlier range that still contains
// it. Properly nested input (push/pop, X events of one thread) gives the exact tree; ranges that
// overlap without nesting become siblings instead of being dropped.
void nest(Ranges& ranges, const std::vector<int64_t>& sorted)
{
    std::vector<int64_t> stack;
    for (int64_t i : sorted) {
        auto& r = ranges[size_t(i)];
        while (!stack.empty() && ranges[size_t(stack.back())].endNs <= r.startNs)
            stack.pop_back();
        int64_t parent = -1;
        for (size_t k = stack.size(); k-- > 0;)
            if (ranges[size_t(stack[k])].endNs >= r.endNs) {
                parent = stack[k];
                break;
            }
        if (!r.parentGiven)
            r.parent = parent;
        stack.push_back(i);
    }
}

int64_t innermost(const Ranges& ranges, const Lane& lane, int64_t t)
{
    auto it = std::upper_bound(lane.starts.begin(), lane.starts.end(), t);
    if (it == lane.starts.begin())
        return -1;
    int64_t i = lane.index[size_t(it - lane.starts.begin() - 1)];
    int guard = 0;
    while (i >= 0 && guard++ < 100000) {
        const auto& r = ranges[size_t(i)];
        if (r.startNs <= t && t <= r.endNs)
            return i;
        i = r.parent;
    }
    return -1;
}

// Lanes, nesting, attribution and the order scopes are written in: everything that needs no
// writer, so it can run beside the writer's inserts.
struct Prepared {
    std::map<std::pair<bool, int64_t>, Lane> lanes;
    std::vector<size_t> order;     // ranges, parents before children
    int64_t attributed = 0;
};

void prepare(ImportedTrace& t, Prepared& p)
{
    Ranges& ranges = t.ranges;
    const size_t nr = ranges.size();

    if (t.resolved) {
        for (const auto& a : t.activities)
            if (a.range >= 0 && size_t(a.range) < nr)
                ++p.attributed;
    }
    // 1. Lanes and nesting.
    auto& lanes = p.lanes;
    // Counted first, so each lane's index is allocated once (3M ranges of a 2 GB trace).
    if (!t.resolved) {
        std::map<std::pair<bool, int64_t>, size_t> counts;
        std::pair<bool, int64_t> lastKey{false, 0};
        size_t* last = nullptr;
        for (size_t i = 0; i < nr; ++i) {
            std::pair<bool, int64_t> key{ranges[i].onGpu, ranges[i].thread};
            if (!last || key != lastKey) {   // ranges of one thread come in runs
                last = &counts[key];
                lastKey = key;
            }
            ++*last;
        }
        for (const auto& [key, n] : counts)
            lanes[key].index.reserve(n);
        Lane* lane = nullptr;
        for (size_t i = 0; i < nr; ++i) {
            std::pair<bool, int64_t> key{ranges[i].onGpu, ranges[i].thread};
            if (!lane || key != lastKey) {
                lane = &lanes[key];
                lastKey = key;
            }
            lane->index.push_back(int64_t(i));
        }
    }
    struct LaneKey {   // (start, end descending, index): the ranges' fields beside the index,
        int64_t start, end, index;   // so the sort reads no range
        bool operator<(const LaneKey& o) const { return std::tie(start, o.end, index) < std::tie(o.start, end, o.index); }
    };
    std::vector<LaneKey> keys;
    for (auto& [key, lane] : lanes) {
        keys.clear();
        keys.reserve(lane.index.size());
        for (int64_t i : lane.index)
            keys.push_back({ranges[size_t(i)].startNs, ranges[size_t(i)].endNs, i});
        // A thread's ranges mostly come in start order already: then only the check runs.
        if (!std::is_sorted(keys.begin(), keys.end())) {
            std::sort(keys.begin(), keys.end());
            for (size_t k = 0; k < keys.size(); ++k)
                lane.index[k] = keys[k].index;
        }
        nest(ranges, lane.index);
        lane.starts.reserve(lane.index.size());
        for (int64_t i : lane.index)
            lane.starts.push_back(ranges[size_t(i)].startNs);
    }

    // 2. Attribution: the innermost host range open on the launching thread when the API call
    // that launched the activity began; else the innermost GPU annotation around its start.
    // (correlation id, call) sorted; the first call of an id wins. A sorted array, not a hash
    // map: 16 bytes a call instead of ~40 (2M calls of a 2 GB Kineto trace).
    std::vector<std::pair<int64_t, size_t>> callByCorrelation;
    callByCorrelation.reserve(t.resolved ? 0 : t.calls.size());
    for (size_t i = 0; i < t.calls.size() && !t.resolved; ++i)
        if (t.calls[i].correlationId != 0)
            callByCorrelation.emplace_back(t.calls[i].correlationId, i);
    if (!std::is_sorted(callByCorrelation.begin(), callByCorrelation.end()))   // ids mostly grow in file order
        std::sort(callByCorrelation.begin(), callByCorrelation.end());
    for (auto& a : t.activities) {
        if (t.resolved)
            break;
        if (a.range >= 0 && size_t(a.range) < nr) {
            ++p.attributed;
            continue;
        }
        a.range = -1;
        if (nr == 0)
            continue;
        if (a.correlationId != 0) {
            auto c = std::lower_bound(callByCorrelation.begin(), callByCorrelation.end(), std::pair<int64_t, size_t>(a.correlationId, 0));
            if (c != callByCorrelation.end() && c->first == a.correlationId) {
                const auto& call = t.calls[c->second];
                auto lane = lanes.find({false, call.thread});
                if (lane != lanes.end())
                    a.range = innermost(ranges, lane->second, call.startNs);
            }
        }
        if (a.range < 0) {
            auto lane = lanes.find({true, ImportedTrace::gpuLane(a.device, a.stream)});
            if (lane != lanes.end())
                a.range = innermost(ranges, lane->second, a.startNs);
        }
        if (a.range >= 0)
            ++p.attributed;
    }

    // The lanes served the attribution only: free them before the order below and the
    // writer's own per-instance arrays grow.
    std::vector<std::pair<int64_t, size_t>>().swap(callByCorrelation);
    lanes.clear();

    // 3. Scope order, parents before children: by start, then depth.
    std::vector<int32_t> depth(nr, -1);
    std::vector<size_t> chain;
    for (size_t i = 0; i < nr; ++i) {
        chain.clear();
        size_t j = i;
        int32_t base = 0;
        while (chain.size() <= nr) {
            if (depth[j] >= 0) {
                base = depth[j];
                break;
            }
            chain.push_back(j);
            int64_t parent = ranges[j].parent;
            if (parent < 0 || size_t(parent) >= nr)
                break;
            j = size_t(parent);
        }
        for (size_t k = chain.size(); k-- > 0;)
            if (depth[chain[k]] < 0)
                depth[chain[k]] = ++base;
    }
    // Sorted as (start, depth, index) records: no range or depth is read during the sort.
    struct OrderKey {
        int64_t start;
        int64_t depth;
        size_t index;
        bool operator<(const OrderKey& o) const { return std::tie(start, depth, index) < std::tie(o.start, o.depth, o.index); }
    };
    {
        std::vector<OrderKey> order(nr);
        for (size_t i = 0; i < nr; ++i)
            order[i] = {ranges[i].startNs, depth[i], i};
        std::vector<int32_t>().swap(depth);
        std::sort(order.begin(), order.end());
        p.order.resize(nr);
        for (size_t i = 0; i < nr; ++i)
            p.order[i] = order[i].index;
    }
}

}  // namespace

void resolveRanges(ImportedTrace& t)
{
    if (t.resolved)
        return;
    Prepared p;
    prepare(t, p);
    for (auto& r : t.ranges)
        r.parentGiven = true;
    t.resolved = true;
}

namespace {

struct PairHash {
    size_t operator()(const std::pair<int64_t, uint32_t>& k) const
    {
        return std::hash<int64_t>()(k.first * 0x9E3779B97F4A7C15ll ^ int64_t(k.second));
    }
};

}  // namespace

namespace {

// Every time within ±kMaxTimeNs, the whole trace within a span of kMaxTimeNs, and the clock
// base plus the first time in range: then no difference or sum below can overflow. Checked
// before anything is written; the error names the first event out of range.
void checkTimes(const ImportedTrace& t, const std::string& file)
{
    auto bad = [](int64_t v) { return v < -kMaxTimeNs || v > kMaxTimeNs; };
    auto refuse = [&](const char* kind, uint32_t name, int64_t v) {
        std::string n = t.strings.at(name).substr(0, 60);
        throw ImportError(file, std::string(kind) + " '" + n + "': time " + std::to_string(v) + " ns is out of range (beyond " +
                                    std::to_string(kMaxTimeNs) + " ns, about 146 years)");
    };
    for (const auto& a : t.activities)
        for (int64_t v : {a.startNs, a.endNs})
            if (bad(v))
                refuse(a.kind == ActivityKind::Kernel ? "kernel" : a.kind == ActivityKind::Memcpy ? "memcpy" : "memset", a.name, v);
    for (const auto& c : t.calls)
        for (int64_t v : {c.startNs, c.endNs})
            if (bad(v))
                refuse("API call", c.name, v);
    for (const auto& r : t.ranges)
        for (int64_t v : {r.startNs, r.endNs})
            if (bad(v))
                refuse("range", r.name, v);
    if (bad(t.clockBaseNs))
        throw ImportError(file, "clock base " + std::to_string(t.clockBaseNs) + " ns is out of range");
}

}  // namespace

WriteResult writeTrace(Writer& w, ImportedTrace& t, RunInfo info)
{
    auto bad = [](int64_t v) { return v < -kMaxTimeNs || v > kMaxTimeNs; };
    Ranges& ranges = t.ranges;
    const size_t nr = ranges.size();
    checkTimes(t, info.sourceFile);

    // Origin: the earliest time of anything written.
    int64_t origin = INT64_MAX, last = INT64_MIN;
    auto see = [&](int64_t s, int64_t e) {
        origin = std::min(origin, s);
        last = std::max(last, e);
    };
    for (const auto& a : t.activities)
        see(a.startNs, a.endNs);
    for (const auto& c : t.calls)
        see(c.startNs, c.endNs);
    for (const auto& r : ranges)
        see(r.startNs, r.endNs);
    if (origin == INT64_MAX)
        origin = last = 0;
    // A wheretime export says where its time 0 is: keep it, so the run's times come back as they
    // were (its first activity is not moved to 0).
    if (t.zeroAtClockBase && origin > 0)
        origin = 0;
    if (last - origin > kMaxTimeNs)
        throw ImportError(info.sourceFile, "the events span " + std::to_string(last - origin) + " ns, from " + std::to_string(origin) + " to " +
                                               std::to_string(last) + " ns: more than about 146 years, out of range");
    if (bad(t.clockBaseNs + origin) || bad(t.clockBaseNs + last))
        throw ImportError(info.sourceFile, "the clock base " + std::to_string(t.clockBaseNs) + " ns puts the events at " +
                                               std::to_string(t.clockBaseNs + origin) + " to " + std::to_string(t.clockBaseNs + last) +
                                               " ns, out of range (beyond " + std::to_string(kMaxTimeNs) + " ns)");

    // Devices.
    std::vector<DeviceInfo> devices = t.devices;
    WriteResult result;
    {
        std::vector<int32_t> seen;
        for (const auto& d : devices)
            seen.push_back(d.id);
        std::vector<int32_t> used;   // only devices that ran something count for the summary line
        for (const auto& a : t.activities) {
            if (std::find(seen.begin(), seen.end(), a.device) == seen.end()) {
                seen.push_back(a.device);
                devices.push_back(DeviceInfo{a.device, "GPU " + std::to_string(a.device), "{}"});
            }
            if (std::find(used.begin(), used.end(), a.device) == used.end())
                used.push_back(a.device);
        }
        std::sort(devices.begin(), devices.end(), [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });
        result.devices = int(used.size());
    }

    // Nesting and attribution run on a second thread (large traces) while this one writes the
    // run header and the API calls, which touch neither ranges nor activities.
    Prepared prepared;
    std::exception_ptr prepareError;
    auto runPrepare = [&] {
        try {
            prepare(t, prepared);
        } catch (...) {
            prepareError = std::current_exception();
        }
    };
    struct JoinOnExit {
        std::thread thread;
        ~JoinOnExit()
        {
            if (thread.joinable())
                thread.join();
        }
    } helper;
    if (nr + t.activities.size() >= 20000)
        helper.thread = std::thread(runPrepare);

    info.workload = t.format;
    info.backend = "import";
    info.originNs = t.clockBaseNs + origin;
    info.durationNs = last - origin;
    if (info.startedAt.empty())
        info.startedAt = t.startedAt;
    if (info.startedAt.empty() && t.epochClock && info.originNs > 946684800000000000LL && info.originNs < 4102444800000000000LL)
        info.startedAt = isoUtc(info.originNs);
    for (const auto& d : devices)
        if (info.device.empty() || d.id == 0)
            info.device = d.name;
    if (!devices.empty())
        info.devicePropertiesJson = devices.front().propertiesJson;
    result.runId = w.beginRun(info);

    for (const auto& d : devices)
        w.addDevice(d);
    for (const auto& [k, v] : t.metadata)
        w.setMetadata(k, v);
    if (t.strings.cutCount() > 0)
        w.setMetadata("import.names_cut", std::to_string(t.strings.cutCount()));
    if (t.strings.repairedCount() > 0)
        w.setMetadata("import.names_invalid_utf8", std::to_string(t.strings.repairedCount()));

    std::vector<uint32_t> nameIds(t.strings.size(), 0);
    auto name = [&](uint32_t local) {
        uint32_t& id = nameIds[local];
        if (id == 0)
            id = w.intern(t.strings.at(local));
        return id;
    };
    // In start order (Kineto lists calls by thread, not by time): the chunks then hold small
    // time deltas and readers get them sorted without sorting.
    {
        // (start, index) pairs: the order of a stable sort by start, without reading calls.
        std::vector<std::pair<int64_t, size_t>> byStart(t.calls.size());
        for (size_t i = 0; i < t.calls.size(); ++i)
            byStart[i] = {t.calls[i].startNs, i};
        if (!std::is_sorted(byStart.begin(), byStart.end()))
            std::sort(byStart.begin(), byStart.end());
        for (const auto& [start, i] : byStart) {
            const auto& c = t.calls[i];
            w.addApiCall(ApiCall{c.startNs - origin, std::max(c.startNs, c.endNs) - origin, c.osThread, name(c.name), c.correlationId});
        }
    }

    if (helper.thread.joinable())
        helper.thread.join();
    else
        runPrepare();
    if (prepareError)
        std::rethrow_exception(prepareError);
    result.attributed = prepared.attributed;

    // Host threads: one per thread key of a host range or call, ids in (pid, tid) order.
    std::unordered_map<int64_t, int64_t> threadOf;   // key -> HostThread::id
    {
        std::map<int64_t, int64_t> osTid;   // key -> a call's OS thread id (keys without thread info)
        std::unordered_set<int64_t> keys;
        for (const auto& r : ranges)
            if (!r.onGpu)
                keys.insert(r.thread);
        for (const auto& c : t.calls) {
            keys.insert(c.thread);
            osTid.emplace(c.thread, c.osThread);
        }
        std::vector<std::tuple<int64_t, int64_t, int64_t>> order;   // (pid, tid, key)
        for (int64_t k : keys) {
            auto it = t.threads.find(k);
            if (it != t.threads.end())
                order.emplace_back(it->second.pid, it->second.tid, k);
            else
                order.emplace_back(0, osTid.count(k) ? osTid[k] : k, k);
        }
        std::sort(order.begin(), order.end());
        for (const auto& [pid, tid, key] : order) {
            HostThread h;
            h.id = int64_t(threadOf.size()) + 1;
            h.pid = pid;
            h.tid = tid;
            if (auto it = t.threads.find(key); it != t.threads.end()) {
                h.name = storedName(it->second.name);
                h.processName = storedName(it->second.processName);
            }
            w.addHostThread(h);
            threadOf.emplace(key, h.id);
        }
        result.hostThreads = int64_t(order.size());
        t.counts.hostThreads = result.hostThreads;
    }

    // Scopes: the writer keeps (parent, name) -> node too, but by std::string key; most ranges
    // repeat a known node, found here by the names' local ids.
    std::unordered_map<std::pair<int64_t, uint32_t>, int64_t, PairHash> nodes;
    std::vector<int64_t> instanceOf(nr, 0), nodeOf(nr, 0);
    w.reserveScopeInstances(nr);
    for (size_t i : prepared.order) {
        const auto& r = ranges[i];
        int64_t parentNode = 0, parentInstance = 0;
        if (r.parent >= 0 && size_t(r.parent) < nr && instanceOf[size_t(r.parent)] != 0) {
            parentNode = nodeOf[size_t(r.parent)];
            parentInstance = instanceOf[size_t(r.parent)];
        }
        auto [it, added] = nodes.try_emplace({parentNode, r.name}, 0);
        if (added)
            it->second = w.addScope(parentNode, t.strings.at(r.name), t.strings.at(r.level));
        nodeOf[i] = it->second;
        const int64_t thread = r.onGpu ? 0 : threadOf[r.thread];
        result.hostRanges += thread != 0;
        instanceOf[i] = w.addScopeInstance(nodeOf[i], parentInstance, r.startNs - origin, std::max(r.startNs, r.endNs) - origin, thread);
    }

    // Activities.
    std::map<std::tuple<int32_t, int64_t, TrackKind>, int64_t> tracks;
    for (const auto& a : t.activities) {
        TrackKind kind = a.kind == ActivityKind::Kernel ? TrackKind::Kernel : TrackKind::Memory;
        auto key = std::make_tuple(a.device, a.stream, kind);
        auto it = tracks.find(key);
        if (it == tracks.end())
            it = tracks.emplace(key, w.addTrack(a.device, a.stream, kind)).first;
        Activity out;
        out.startNs = a.startNs - origin;
        out.endNs = std::max(a.startNs, a.endNs) - origin;
        out.trackId = it->second;
        out.kind = a.kind;
        out.nameId = name(a.name);
        out.scopeInstanceId = a.range >= 0 ? instanceOf[size_t(a.range)] : 0;
        out.correlationId = a.correlationId;
        out.config = a.config;
        out.bytes = a.bytes;
        w.addActivity(out);
        if (a.kind == ActivityKind::Kernel)
            ++result.kernels;
    }

    w.finishRun(RunStatus::Complete, last - origin);
    return result;
}

}  // namespace wt::interop
