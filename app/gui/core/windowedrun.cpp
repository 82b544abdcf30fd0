#include "windowedrun.h"

#include "app/gui/core/readsnapshot.h"

#include "timelinelayout.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/scopelanes.h"
#include "storage/statement.h"
#include "storage/storageerror.h"

#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <map>
#include <climits>
#include <cmath>

namespace wt::gui {

std::optional<int64_t> parseByteSize(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([kKmMgGtT]?)(?:i?[bB])?\\s*$"));
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    double v = m.captured(1).toDouble();
    const QString unit = m.captured(2).toUpper();
    const int shift = unit == QLatin1String("K") ? 10 : unit == QLatin1String("M") ? 20 : unit == QLatin1String("G") ? 30
                    : unit == QLatin1String("T")   ? 40
                                                   : 0;
    v = std::ldexp(v, shift);
    if (!(v >= 1) || v > 9.0e18)
        return std::nullopt;
    return int64_t(v);
}

QString formatByteSize(int64_t bytes)
{
    const double b = double(bytes);
    if (b >= double(int64_t(1) << 30))
        return QString::number(b / double(int64_t(1) << 30), 'g', 3) + QStringLiteral(" GiB");
    if (b >= double(1 << 20))
        return QString::number(b / double(1 << 20), 'g', 3) + QStringLiteral(" MiB");
    if (b >= 1024)
        return QString::number(b / 1024, 'g', 3) + QStringLiteral(" KiB");
    return QString::number(bytes) + QStringLiteral(" B");
}

DetailIndex DetailIndex::load(const std::string& path, int64_t runId)
{
    Database db(path, OpenMode::ReadOnly);
    ReadSnapshot snapshot(db);
    Reader reader(db);
    DetailIndex x;
    for (const Track& t : reader.tracks(runId)) {
        TrackChunks tc;
        tc.trackId = t.id;
        x.m_byId[t.id] = x.m_tracks.size();
        x.m_tracks.push_back(std::move(tc));
    }
    Statement s(db.handle(), "SELECT c.track_id, c.start_ns, c.end_ns, c.count FROM activity_chunks c "
                             "JOIN tracks t ON t.id = c.track_id WHERE t.run_id=?1");
    s.bind(1, runId);
    while (s.step()) {
        auto it = x.m_byId.find(s.int64(0));
        if (it == x.m_byId.end())
            continue;
        TrackChunks& tc = x.m_tracks[it->second];
        tc.chunks.push_back(Chunk{s.int64(1), s.int64(2), s.int64(3)});
    }
    for (TrackChunks& tc : x.m_tracks) {
        std::sort(tc.chunks.begin(), tc.chunks.end(), [](const Chunk& a, const Chunk& b) { return a.startNs < b.startNs; });
        for (const Chunk& c : tc.chunks)
            tc.count += c.count;
        x.m_activities += tc.count;
        if (tc.chunks.empty())
            continue;
        // A chunk's start is its first activity's: the track's first start is the first chunk's;
        // its last start lies in the chunks that reach the last chunk's start.
        tc.firstStartNs = tc.chunks.front().startNs;
        const int64_t lastChunk = tc.chunks.back().startNs;
        tc.lastStartNs = lastChunk;
        for (const Activity& a : reader.activities(tc.trackId, lastChunk, INT64_MAX))
            tc.lastStartNs = std::max(tc.lastStartNs, a.startNs);
    }
    return x;
}

const DetailIndex::TrackChunks* DetailIndex::track(int64_t trackId) const
{
    auto it = m_byId.find(trackId);
    return it == m_byId.end() ? nullptr : &m_tracks[it->second];
}

FoldIndex::Grid DetailIndex::trackGrid(int64_t trackId) const
{
    const TrackChunks* t = track(trackId);
    if (!t || t->count <= 0)
        return {};
    return FoldIndex::gridFor(size_t(t->count), t->firstStartNs, t->lastStartNs, kFoldBucket);
}

int64_t DetailIndex::countIn(int64_t t0, int64_t t1) const
{
    int64_t n = 0;
    for (const TrackChunks& t : m_tracks)
        for (const Chunk& c : t.chunks) {
            if (c.startNs >= t1)
                break;
            if (c.endNs < t0)
                continue;
            // The part of the chunk inside the range, its activities taken as evenly spread.
            const double len = double(c.endNs - c.startNs);
            const double in = double(std::min(c.endNs, t1)) - double(std::max(c.startNs, t0));
            n += len <= 0 ? c.count : int64_t(std::ceil(double(c.count) * std::clamp(in / len, 0.0, 1.0)));
        }
    return n;
}

std::optional<std::pair<int64_t, int64_t>> DetailIndex::chooseRange(double v0, double v1, int widthPx, int64_t budget) const
{
    if (!(v1 > v0) || widthPx <= 0)
        return std::nullopt;
    const double w = v1 - v0;
    const double margin = std::max(1.0, w / widthPx * kMarginPx);
    auto clampNs = [](double t) { return int64_t(std::clamp(t, -9.0e18, 9.0e18)); };
    // The widest margin that fits, from one window width down to an eighth: panning then
    // stays inside the loaded window for a while.
    for (double f = 1.0; f >= 0.125 && f * w > margin; f /= 2) {
        const int64_t wideLo = clampNs(std::floor(v0 - f * w)), wideHi = clampNs(std::ceil(v1 + f * w));
        if (countIn(wideLo, wideHi) <= budget)
            return std::pair(wideLo, wideHi);
    }
    const int64_t lo = clampNs(std::floor(v0 - margin)), hi = clampNs(std::ceil(v1 + margin));
    if (countIn(lo, hi) <= budget)
        return std::pair(lo, hi);
    return std::nullopt;
}

namespace {

// The key of a launch configuration (windows intern their own: few per window).
std::array<int32_t, 9> configKey(const LaunchConfig& c)
{
    return {c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.registers, c.staticSmem, c.dynamicSmem};
}

// One row's items before they become columns: a summary bucket or an activity.
struct Item {
    int64_t startNs = 0;
    int64_t durationNs = 0;
    uint32_t nameId = 0;
    uint32_t instance = kNone;
    uint16_t config = 0;
    uint8_t kind = 0;
    int64_t bytes = 0;
};

// The summary's items of a row outside [t0, t1), clipped to it, on the grid only (starts
// outside the grid would fall outside the index's buckets).
bool keepOutside(int64_t& start, int64_t& end, int64_t t0, int64_t t1)
{
    if (start < t0) {
        end = std::min(end, t0);
        return end > start;
    }
    if (end <= t1)
        return false;
    start = std::max(start, t1);
    return end > start;
}

bool onGrid(const FoldIndex::Grid& g, int64_t start)
{
    return g.buckets > 0 && start >= g.originNs && start - g.originNs < int64_t(g.buckets) * g.bucketNs;
}

// What every run built from another (a window, the stored skeleton) takes from it unchanged: the
// run, its tree, names and colours, its extent and counts.
void copyRunHeader(const RunData& from, RunData& d)
{
    d.filePath = from.filePath;
    d.run = from.run;
    d.profile = from.profile;
    d.devices = from.devices;
    d.nodes = from.nodes;
    d.layerNames = from.layerNames;
    d.palette = from.palette;
    d.nameColors = from.nameColors;
    d.spanStartNs = from.spanStartNs;
    d.spanEndNs = from.spanEndNs;
    d.kernelCount = from.kernelCount;
    d.activityCount = from.activityCount;
    d.stepCount = from.stepCount;
}

std::shared_ptr<RunData> buildWindow(const std::string& path, int64_t runId, const RunData& overview,
                                     const RunData* skeleton, const DetailIndex* index, int64_t t0, int64_t t1,
                                     bool summary)
{
    Database db(path, OpenMode::ReadOnly);
    ReadSnapshot snapshot(db);
    Reader reader(db);
    const RunData& base = skeleton ? *skeleton : overview;
    auto data = std::make_shared<RunData>();
    RunData& d = *data;
    copyRunHeader(base, d);
    d.overviewOnly = true;
    d.windowed = true;
    d.detailLanes = skeleton != nullptr;
    d.detailStartNs = t0;
    d.detailEndNs = t1;
    d.launchConfigs.push_back(LaunchConfig{});

    // Instances: the summary's pseudo-instances first (same indices as in the overview), then
    // the real ones of the window in the skeleton's order.
    std::vector<uint32_t> node, parent;
    std::vector<int64_t> spanStart, spanEnd;
    if (summary) {
        const InstanceData& oi = overview.instances;
        node = oi.node;
        parent = oi.parent;
        spanStart.resize(oi.size());
        spanEnd.resize(oi.size());
        for (size_t i = 0; i < oi.size(); ++i) {
            spanStart[i] = oi.gpuStart(i);
            spanEnd[i] = oi.gpuEnd(i);
        }
    }
    const uint32_t pseudo = uint32_t(node.size());

    // The window's activities, per track of the base (the tracks a full load keeps).
    std::vector<std::vector<Activity>> rows(base.tracks.size());
    std::vector<int64_t> ids;   // scope instance ids of the activities (no skeleton)
    for (size_t k = 0; k < base.tracks.size(); ++k) {
        rows[k] = reader.activities(base.tracks[k].id, t0, t1);
        if (!skeleton)
            for (const Activity& a : rows[k])
                if (a.scopeInstanceId != 0)
                    ids.push_back(a.scopeInstanceId);
    }

    // Real instances: by skeleton index (lanes, activities and their ancestors) or by id.
    std::vector<uint32_t> real;   // skeleton indices, sorted
    std::unordered_map<int64_t, uint32_t> byId;   // no skeleton: scope instance id -> index
    auto skeletonIndex = [&](int64_t id) -> uint32_t {
        if (id == 0 || !skeleton)
            return kNone;
        const size_t n = skeleton->instances.size();
        if (skeleton->instanceIds.empty())
            return id >= skeleton->firstInstanceId && id - skeleton->firstInstanceId < int64_t(n)
                       ? uint32_t(id - skeleton->firstInstanceId)
                       : kNone;
        auto it = std::lower_bound(skeleton->instanceIds.begin(), skeleton->instanceIds.end(), id);
        return it != skeleton->instanceIds.end() && *it == id ? uint32_t(it - skeleton->instanceIds.begin()) : kNone;
    };
    // Per skeleton lane: its items overlapping [t0, t1), as skeleton indices.
    std::vector<std::vector<uint32_t>> laneReal;
    // Stored lanes (schema 6): per lane its items overlapping [t0, t1) read from the file, and
    // the window's instances by id (index = pseudo + position in storedIds).
    const bool stored = skeleton && skeleton->storedLanes;
    std::vector<std::vector<ScopeLaneItem>> laneStored;
    std::vector<int64_t> storedIds;
    if (stored) {
        const std::vector<ScopeLane>& figures = skeleton->storedLaneFigures;
        laneStored.resize(figures.size());
        std::unordered_map<int64_t, std::pair<int64_t, int64_t>> spanOf;
        for (size_t l = 0; l < figures.size(); ++l) {
            readScopeLaneItems(db, runId, uint32_t(l), t0, t1, laneStored[l]);
            for (const ScopeLaneItem& it : laneStored[l]) {
                storedIds.push_back(it.instanceId);
                spanOf.try_emplace(it.instanceId, it.startNs, it.endNs);
            }
        }
        for (const auto& r : rows)
            for (const Activity& a : r)
                if (a.scopeInstanceId != 0)
                    storedIds.push_back(a.scopeInstanceId);
        // The instances and all their ancestors (a lane item's are lane items of the window
        // too; a memory copy's scope may not be), read from the instance chunks that hold them:
        // ids a long way apart (a step's and its last op's) are read as separate ranges.
        std::map<int64_t, ScopeInstance> found;
        std::vector<int64_t> want = storedIds;
        while (!want.empty()) {
            std::sort(want.begin(), want.end());
            want.erase(std::unique(want.begin(), want.end()), want.end());
            std::vector<int64_t> next;
            for (size_t a = 0; a < want.size();) {
                size_t b = a + 1;
                while (b < want.size() && want[b] - want[b - 1] <= 65536)
                    ++b;
                for (const ScopeInstance& si : reader.scopeInstancesBetween(runId, want[a], want[b - 1]))
                    if (std::binary_search(want.begin() + ptrdiff_t(a), want.begin() + ptrdiff_t(b), si.id) &&
                        found.try_emplace(si.id, si).second && si.parentId != 0 && !found.count(si.parentId))
                        next.push_back(si.parentId);
                a = b;
            }
            next.erase(std::remove_if(next.begin(), next.end(), [&](int64_t id) { return found.count(id) > 0; }), next.end());
            want = std::move(next);
        }
        const std::vector<ScopeNode>& tree = d.profile->tree.nodes();
        storedIds.clear();
        for (const auto& [id, si] : found) {
            auto n = std::lower_bound(tree.begin(), tree.end(), si.scopeId, [](const ScopeNode& a, int64_t v) { return a.id < v; });
            if (n == tree.end() || n->id != si.scopeId)
                continue;
            storedIds.push_back(id);
            node.push_back(uint32_t(n - tree.begin()));
            parent.push_back(kNone);   // set below, once every index is known
            // Instances in no lane item of the window (a copy's scope whose kernels ran
            // elsewhere) have no span here: nothing in the window draws one.
            auto sp = spanOf.find(id);
            spanStart.push_back(sp == spanOf.end() ? INT64_MAX : sp->second.first);
            spanEnd.push_back(sp == spanOf.end() ? INT64_MIN : sp->second.second);
        }
        for (size_t k = 0; k < storedIds.size(); ++k) {
            const int64_t p = found[storedIds[k]].parentId;
            auto it = p == 0 ? storedIds.end() : std::lower_bound(storedIds.begin(), storedIds.end(), p);
            parent[pseudo + k] = it != storedIds.end() && *it == p ? pseudo + uint32_t(it - storedIds.begin()) : kNone;
        }
    } else if (skeleton) {
        laneReal.resize(skeleton->lanes.size());
        for (size_t l = 0; l < skeleton->lanes.size(); ++l) {
            const LaneData& lane = skeleton->lanes[l];
            LaneSequence seq{skeleton, &lane};
            size_t i = seekStart(seq, 0, seq.size(), double(t0) - double(lane.maxDurationNs) - 1);
            const size_t hi = seekStart(seq, i, seq.size(), double(t1));
            for (; i < hi; ++i)
                if (std::max(seq.end(i), seq.start(i) + 1) > t0) {
                    laneReal[l].push_back(lane.items[i]);
                    real.push_back(lane.items[i]);
                }
        }
        for (const auto& r : rows)
            for (const Activity& a : r)
                if (uint32_t i = skeletonIndex(a.scopeInstanceId); i != kNone)
                    real.push_back(i);
        const size_t direct = real.size();
        for (size_t k = 0; k < direct; ++k)
            for (uint32_t p = skeleton->instances.parent[real[k]]; p != kNone; p = skeleton->instances.parent[p])
                real.push_back(p);
        std::sort(real.begin(), real.end());
        real.erase(std::unique(real.begin(), real.end()), real.end());
        const InstanceData& si = skeleton->instances;
        for (uint32_t i : real) {
            node.push_back(si.node[i]);
            parent.push_back(kNone);   // set below, once every index is known
            spanStart.push_back(si.gpuStart(i));
            spanEnd.push_back(si.gpuEnd(i));
        }
    } else if (!ids.empty()) {
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        // Node of a scope id: the tree's nodes are by id, node i is position i.
        const std::vector<ScopeNode>& tree = d.profile->tree.nodes();
        std::vector<ScopeInstance> found = reader.scopeInstancesBetween(runId, ids.front(), ids.back());
        for (const ScopeInstance& si : found) {
            if (!std::binary_search(ids.begin(), ids.end(), si.id))
                continue;
            auto n = std::lower_bound(tree.begin(), tree.end(), si.scopeId,
                                      [](const ScopeNode& a, int64_t id) { return a.id < id; });
            if (n == tree.end() || n->id != si.scopeId)
                continue;
            byId[si.id] = uint32_t(node.size());
            node.push_back(uint32_t(n - tree.begin()));
            parent.push_back(kNone);
            spanStart.push_back(INT64_MAX);
            spanEnd.push_back(INT64_MIN);
        }
    }
    auto localOf = [&](uint32_t skel) -> uint32_t {
        auto it = std::lower_bound(real.begin(), real.end(), skel);
        return it != real.end() && *it == skel ? pseudo + uint32_t(it - real.begin()) : kNone;
    };
    if (skeleton && !stored)
        for (size_t k = 0; k < real.size(); ++k) {
            const uint32_t p = skeleton->instances.parent[real[k]];
            parent[pseudo + k] = p == kNone ? kNone : localOf(p);
        }
    auto instanceOf = [&](int64_t id) -> uint32_t {
        if (id == 0)
            return kNone;
        if (stored) {
            auto it = std::lower_bound(storedIds.begin(), storedIds.end(), id);
            return it != storedIds.end() && *it == id ? pseudo + uint32_t(it - storedIds.begin()) : kNone;
        }
        if (skeleton) {
            const uint32_t s = skeletonIndex(id);
            return s == kNone ? kNone : localOf(s);
        }
        auto it = byId.find(id);
        return it == byId.end() ? kNone : it->second;
    };

    // Tracks: summary before t0, the activities, summary after t1, by start.
    std::map<std::array<int32_t, 9>, uint32_t> configIndex;
    std::unordered_map<int64_t, const TrackData*> overviewTrack;
    for (const TrackData& t : overview.tracks)
        overviewTrack[t.id] = &t;
    std::vector<FoldIndex::Grid> trackGrids;
    for (size_t k = 0; k < base.tracks.size(); ++k) {
        const TrackData& bt = base.tracks[k];
        TrackData t;
        t.id = bt.id;
        t.deviceId = bt.deviceId;
        t.deviceIndex = bt.deviceIndex;
        t.stream = bt.stream;
        t.kind = bt.kind;
        t.name = bt.name;
        const FoldIndex::Grid grid = index ? index->trackGrid(bt.id) : FoldIndex::Grid{};
        std::vector<Item> items;
        auto it = overviewTrack.find(bt.id);
        if (summary && it != overviewTrack.end()) {
            const TrackData& ot = *it->second;
            for (size_t i = 0; i < ot.size(); ++i) {
                int64_t s = ot.startNs[i], e = ot.endNs(i);
                if (keepOutside(s, e, t0, t1) && (!index || onGrid(grid, s)))
                    items.push_back(Item{s, e - s, ot.nameId[i], ot.instance[i], 0, uint8_t(ActivityKind::Memcpy), 0});
            }
        }
        const size_t before = items.size();
        for (const Activity& a : rows[k]) {
            Item x;
            x.startNs = a.startNs;
            x.durationNs = std::max<int64_t>(a.endNs - a.startNs, 0);
            x.nameId = a.nameId;
            x.instance = instanceOf(a.scopeInstanceId);
            x.kind = uint8_t(a.kind);
            x.bytes = a.bytes;
            if (bt.kind == TrackKind::Kernel) {
                auto [ci, fresh] = configIndex.try_emplace(configKey(a.config), uint32_t(d.launchConfigs.size()));
                if (fresh) {
                    if (d.launchConfigs.size() >= kMaxLaunchConfigs)
                        throw StorageError(path + ": run " + std::to_string(runId) + " has more than " +
                                           std::to_string(kMaxLaunchConfigs) + " distinct launch configurations in one window");
                    d.launchConfigs.push_back(a.config);
                }
                x.config = uint16_t(ci->second);
            }
            items.push_back(x);
        }
        // The summary's items after the window go after the activities, so equal starts keep
        // the activities' order; then one stable sort by start (summary items before t0 come
        // first, and activities that started before t0 move among them).
        std::inplace_merge(items.begin(), items.begin() + ptrdiff_t(before), items.end(),
                           [](const Item& a, const Item& b) { return a.startNs < b.startNs; });
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.startNs < b.startNs; });
        const size_t n = items.size();
        t.startNs.reserve(n);   // ActivityStarts: built in order by push_back (the items are sorted)
        t.durationNs.resize(n);
        t.nameId.resize(n);
        t.instance.resize(n);
        if (bt.kind == TrackKind::Kernel) {
            t.config.resize(n);
        } else {
            t.bytes.resize(n);
            t.activityKind.resize(n);
        }
        for (size_t i = 0; i < n; ++i) {
            const Item& x = items[i];
            t.startNs.push_back(x.startNs);
            t.durationNs[i] = uint32_t(std::min<int64_t>(x.durationNs, UINT32_MAX));
            t.nameId[i] = x.nameId;
            t.instance[i] = x.instance;
            if (bt.kind == TrackKind::Kernel) {
                t.config[i] = x.config;
            } else {
                t.bytes[i] = x.bytes;
                t.activityKind[i] = x.kind;
            }
            t.maxDurationNs = std::max<int64_t>(t.maxDurationNs, std::min<int64_t>(x.durationNs, UINT32_MAX));
        }
        trackGrids.push_back(grid);
        d.tracks.push_back(std::move(t));
        std::vector<Activity>().swap(rows[k]);
    }
    std::vector<std::vector<Activity>>().swap(rows);

    // Lanes: exact from the skeleton inside the window, the summary's outside; without a
    // skeleton, the summary's lanes.
    std::vector<FoldIndex::Grid> laneGrids;
    if (summary && !skeleton) {
        d.lanes = overview.lanes;
    } else {
        std::map<std::pair<int, int>, const LaneData*> overviewLane;
        if (summary)
            for (const LaneData& l : overview.lanes)
                overviewLane[{l.deviceIndex, l.depth}] = &l;
        struct LaneItem {
            int64_t start;
            uint32_t index;
        };
        // One window lane: the summary's buckets outside the window (each its own
        // pseudo-instance), the detail's instances inside it (addDetail), in the full lane's order
        // (by GPU start, then index: id order, as stored and as the skeleton keeps it).
        auto addLane = [&](LaneData lane, const FoldIndex::Grid& grid, const auto& addDetail) {
            std::vector<LaneItem> items;
            if (auto o = overviewLane.find({lane.deviceIndex, lane.depth}); o != overviewLane.end())
                for (uint32_t i : o->second->items) {
                    int64_t s = spanStart[i], e = spanEnd[i];
                    if (keepOutside(s, e, t0, t1) && onGrid(grid, s)) {
                        spanStart[i] = s;
                        spanEnd[i] = e;
                        items.push_back(LaneItem{s, i});
                    }
                }
            addDetail(items);
            std::sort(items.begin(), items.end(), [](const LaneItem& a, const LaneItem& b) {
                return a.start != b.start ? a.start < b.start : a.index < b.index;
            });
            lane.items.reserve(items.size());
            for (const LaneItem& x : items) {
                lane.items.push_back(x.index);
                lane.maxDurationNs = std::max(lane.maxDurationNs, spanEnd[x.index] - x.start);
            }
            laneGrids.push_back(grid);
            d.lanes.push_back(std::move(lane));
        };
        if (stored) {
            std::map<int32_t, int> deviceIndex;
            for (size_t k = 0; k < d.devices.size(); ++k)
                deviceIndex[d.devices[k].id] = int(k);
            const std::vector<ScopeLane>& figures = skeleton->storedLaneFigures;
            for (size_t l = 0; l < figures.size(); ++l) {
                const ScopeLane& f = figures[l];
                auto dev = deviceIndex.find(f.deviceId);
                if (dev == deviceIndex.end())
                    continue;
                LaneData lane;
                lane.deviceIndex = dev->second;
                lane.depth = f.depth;
                lane.level = QString::fromStdString(f.level);
                // The full lane's fold grid, from its stored figures (what its FoldIndex::build takes).
                addLane(std::move(lane), FoldIndex::gridFor(size_t(f.items), f.firstStartNs, f.lastStartNs, kFoldBucket),
                        [&](std::vector<LaneItem>& items) {
                            for (const ScopeLaneItem& it : laneStored[l])
                                if (const uint32_t local = instanceOf(it.instanceId); local != kNone)
                                    items.push_back(LaneItem{it.startNs, local});
                        });
            }
        } else if (skeleton) {
            for (size_t l = 0; l < skeleton->lanes.size(); ++l) {
                const LaneData& sl = skeleton->lanes[l];
                LaneData lane;
                lane.deviceIndex = sl.deviceIndex;
                lane.depth = sl.depth;
                lane.level = sl.level;
                addLane(std::move(lane), sl.index.grid(), [&](std::vector<LaneItem>& items) {
                    for (uint32_t si : laneReal[l])
                        items.push_back(LaneItem{skeleton->instances.gpuStart(si), localOf(si)});
                });
            }
        }
    }
    d.instances.node = std::move(node);
    d.instances.parent = std::move(parent);
    d.instances.spans.assign(spanStart, spanEnd);

    for (size_t k = 0; k < d.tracks.size(); ++k) {
        TrackData& t = d.tracks[k];
        if (trackGrids[k].buckets > 0)
            t.index.buildOnGrid(TrackSequence{&d, &t}, trackGrids[k]);
        else
            t.index.build(TrackSequence{&d, &t}, kFoldBucket);
    }
    // The skeleton's lanes on their grids (the overview's lanes came with their indexes).
    for (size_t l = 0; l < laneGrids.size(); ++l) {
        LaneData& lane = d.lanes[l];
        if (laneGrids[l].buckets > 0)
            lane.index.buildOnGrid(LaneSequence{&d, &lane}, laneGrids[l]);
        else
            lane.index.build(LaneSequence{&d, &lane}, kFoldBucket);
    }
    return data;
}

}  // namespace

std::shared_ptr<RunData> loadStoredSkeleton(const std::string& path, int64_t runId, const RunData& overview)
{
    Database db(path, OpenMode::ReadOnly);
    ReadSnapshot snapshot(db);
    std::optional<std::vector<ScopeLane>> lanes = readScopeLanes(db, runId);
    if (!lanes)
        return nullptr;
    auto data = std::make_shared<RunData>();
    RunData& d = *data;
    copyRunHeader(overview, d);
    for (const TrackData& ot : overview.tracks) {   // the tracks a full load keeps, without items
        TrackData t;
        t.id = ot.id;
        t.deviceId = ot.deviceId;
        t.deviceIndex = ot.deviceIndex;
        t.stream = ot.stream;
        t.kind = ot.kind;
        t.name = ot.name;
        d.tracks.push_back(std::move(t));
    }
    d.launchConfigs.push_back(LaunchConfig{});
    d.skeleton = true;
    d.storedLanes = true;
    d.storedLaneFigures = std::move(*lanes);
    return data;
}

std::shared_ptr<RunData> loadDetailWindow(const std::string& path, int64_t runId, const RunData& overview,
                                          const RunData* skeleton, const DetailIndex& index, int64_t t0, int64_t t1)
{
    return buildWindow(path, runId, overview, skeleton, &index, t0, t1, true);
}

std::shared_ptr<RunData> loadRangeRun(const std::string& path, int64_t runId, const RunData& overview, int64_t t0,
                                      int64_t t1)
{
    auto d = buildWindow(path, runId, overview, nullptr, nullptr, t0, t1, false);
    d->overviewOnly = false;
    d->windowed = false;
    return d;
}

}  // namespace wt::gui
