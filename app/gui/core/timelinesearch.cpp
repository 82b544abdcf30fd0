#include "timelinesearch.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wt::gui {

namespace {

// The rows a search steps through: tracks 0..T-1, lanes T..T+L-1, then API rows, then host
// lanes.
struct SearchRows {
    const RunData& run;
    const GroupMarks& marks;
    size_t lanesAt() const { return run.tracks.size(); }
    size_t apiAt() const { return run.tracks.size() + marks.lanes.size(); }
    size_t hostAt() const { return apiAt() + marks.apiRows.size(); }
    size_t count() const { return hostAt() + marks.hostLanes.size(); }
    bool isLane(size_t g) const { return g >= lanesAt() && g < apiAt(); }
    bool isApi(size_t g) const { return g >= apiAt() && g < hostAt(); }
    bool isHost(size_t g) const { return g >= hostAt(); }
    const MemberBits& bits(size_t g) const
    {
        return isHost(g) ? marks.hostLanes[g - hostAt()]
               : isApi(g) ? marks.apiRows[g - apiAt()]
               : isLane(g) ? marks.lanes[g - lanesAt()]
                           : marks.tracks[g];
    }
    size_t size(size_t g) const { return bits(g).size(); }
    int64_t start(size_t g, size_t i) const
    {
        if (isHost(g))
            return run.hostLanes[g - hostAt()].startNs[i];
        if (isApi(g))
            return run.apiRows[g - apiAt()].startNs[i];
        if (isLane(g))
            return run.instances.gpuStart(run.lanes[g - lanesAt()].items[i]);
        return run.tracks[g].startNs[i];
    }
    // First index whose start is >= t (strict: > t).
    size_t lowerBound(size_t g, int64_t t, bool strict) const
    {
        size_t lo = 0, hi = size(g);
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            const int64_t s = start(g, mid);
            if (strict ? s <= t : s < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    Selection selection(size_t g, size_t i) const
    {
        Selection s;
        if (isHost(g)) {
            s.kind = Selection::Scope;
            s.index = run.hostLanes[g - hostAt()].items[i];
            s.host = true;
        } else if (isApi(g)) {
            s.kind = Selection::ApiCall;
            s.track = uint32_t(g - apiAt());
            s.index = uint32_t(i);
        } else if (isLane(g)) {
            s.kind = Selection::Scope;
            s.index = run.lanes[g - run.tracks.size()].items[i];
        } else {
            s.kind = Selection::Activity;
            s.track = uint32_t(g);
            s.index = uint32_t(i);
        }
        return s;
    }
};

struct Key {
    int64_t start = 0;
    int64_t row = -1;    // -1: before every row (a position in time only)
    int64_t index = -1;
    auto operator<=>(const Key&) const = default;
};

// The key of a selection in search order; false when it is not on a row.
bool keyOf(const SearchRows& rows, const Selection& sel, Key& key)
{
    const RunData& run = rows.run;
    if (sel.kind == Selection::Activity && sel.track < run.tracks.size() && sel.index < run.tracks[sel.track].size()) {
        key = {run.tracks[sel.track].startNs[sel.index], int64_t(sel.track), int64_t(sel.index)};
        return true;
    }
    if (sel.kind == Selection::ApiCall && sel.track < rows.marks.apiRows.size() && sel.index < run.apiRows[sel.track].size()) {
        key = {run.apiRows[sel.track].startNs[sel.index], int64_t(rows.apiAt() + sel.track), int64_t(sel.index)};
        return true;
    }
    if (sel.kind == Selection::Scope && sel.host) {
        if (sel.index >= run.hostLaneOf.size() || run.hostLaneOf[sel.index] >= rows.marks.hostLanes.size())
            return false;
        const uint32_t l = run.hostLaneOf[sel.index], k = run.hostPosOf[sel.index];
        key = {run.hostLanes[l].startNs[k], int64_t(rows.hostAt() + l), int64_t(k)};
        return true;
    }
    if (sel.kind == Selection::Scope && sel.index < run.instances.size() && run.instances.hasSpan(sel.index)) {
        const int64_t t = run.instances.gpuStart(sel.index);
        for (size_t l = 0; l < rows.marks.lanes.size() && l < run.lanes.size(); ++l) {
            const size_t g = run.tracks.size() + l;
            for (size_t k = rows.lowerBound(g, t, false); k < rows.size(g) && rows.start(g, k) == t; ++k)
                if (run.lanes[l].items[k] == sel.index) {
                    key = {t, int64_t(g), int64_t(k)};
                    return true;
                }
        }
    }
    return false;
}

}  // namespace

SearchResult searchRun(const RunData& run, const QString& text, bool regex)
{
    SearchResult out;
    out.text = text;
    out.regex = regex;
    auto marks = std::make_shared<GroupMarks>();
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid())
            out.error = re.errorString();
    }
    const bool none = text.isEmpty() || !out.error.isEmpty();
    auto matches = [&](const QString& name) { return regex ? re.match(name).hasMatch() : name.contains(text, Qt::CaseInsensitive); };
    // Each distinct name once.
    uint32_t maxId = 0;
    for (const auto& [id, s] : run.strings())
        maxId = std::max(maxId, id);
    std::vector<uint8_t> nameOk(size_t(maxId) + 1, 0);
    if (!none)
        for (const auto& [id, s] : run.strings())
            nameOk[id] = matches(QString::fromStdString(s));
    std::vector<uint8_t> nodeOk(run.nodes.size(), 0);
    if (!none)
        for (size_t n = 0; n < run.nodes.size(); ++n)
            nodeOk[n] = matches(run.nodes[n].name);
    marks->tracks.resize(run.tracks.size());
    for (size_t t = 0; t < run.tracks.size(); ++t) {
        const TrackData& track = run.tracks[t];
        const uint32_t* ids = track.nameId.data();
        marks->tracks[t].build(track.size(), [&](size_t i) { return !none && ids[i] < nameOk.size() && nameOk[ids[i]]; });
        out.activityMatches += int64_t(marks->tracks[t].count());
    }
    marks->instances.build(run.instances.size(), [&](size_t i) { return nodeOk[run.instances.node[i]] != 0; });
    marks->lanes.resize(run.lanes.size());
    for (size_t l = 0; l < run.lanes.size(); ++l) {
        const LaneData& lane = run.lanes[l];
        marks->lanes[l].build(lane.items.size(), [&](size_t k) { return nodeOk[run.instances.node[lane.items[k]]] != 0; });
        out.scopeMatches += int64_t(marks->lanes[l].count());
    }
    marks->apiRows.resize(run.apiRows.size());
    for (size_t a = 0; a < run.apiRows.size(); ++a) {
        const uint32_t* ids = run.apiRows[a].nameId.data();
        marks->apiRows[a].build(run.apiRows[a].size(), [&](size_t i) { return !none && ids[i] < nameOk.size() && nameOk[ids[i]]; });
        out.apiMatches += int64_t(marks->apiRows[a].count());
    }
    marks->hostLanes.resize(run.hostLanes.size());
    for (size_t h = 0; h < run.hostLanes.size(); ++h) {
        const HostLaneData& lane = run.hostLanes[h];
        marks->hostLanes[h].build(lane.size(), [&](size_t k) { return nodeOk[run.instances.node[lane.items[k]]] != 0; });
        out.hostMatches += int64_t(marks->hostLanes[h].count());
    }
    marks->activityCount = out.activityMatches;
    marks->instanceCount = int64_t(marks->instances.count());
    out.marks = std::move(marks);
    return out;
}

Selection stepMatch(const RunData& run, const SearchResult& result, const Selection& from, double fromNs, bool forward)
{
    if (!result.marks || result.count() == 0)
        return {};
    const SearchRows rows{run, *result.marks};
    Key cur;
    if (!keyOf(rows, from, cur))
        cur = {int64_t(std::llround(fromNs)), -1, -1};
    auto search = [&](const Key& c) {
        bool found = false;
        Key best;
        for (size_t g = 0; g < rows.count(); ++g) {
            const MemberBits& bits = rows.bits(g);
            const int64_t row = int64_t(g);
            size_t j;
            if (forward) {
                const size_t i0 = row < c.row ? rows.lowerBound(g, c.start, true)
                                  : row == c.row ? size_t(c.index + 1)
                                                 : rows.lowerBound(g, c.start, false);
                j = bits.nextSet(i0, bits.size());
                if (j >= bits.size())
                    continue;
            } else {
                const size_t i1 = row < c.row ? rows.lowerBound(g, c.start, true)
                                  : row == c.row ? size_t(c.index)
                                                 : rows.lowerBound(g, c.start, false);
                j = bits.prevSet(i1);
                if (j == MemberBits::npos)
                    continue;
            }
            const Key k{rows.start(g, j), row, int64_t(j)};
            if (!found || (forward ? k < best : best < k)) {
                best = k;
                found = true;
            }
        }
        return found ? rows.selection(size_t(best.row), size_t(best.index)) : Selection{};
    };
    Selection s = search(cur);
    if (s.kind == Selection::None)   // past the last (first) match: wrap around
        s = search(forward ? Key{std::numeric_limits<int64_t>::min(), -1, -1} : Key{std::numeric_limits<int64_t>::max(), -1, -1});
    return s;
}

int64_t matchOrdinal(const RunData& run, const SearchResult& result, const Selection& selection)
{
    if (!result.marks)
        return 0;
    const SearchRows rows{run, *result.marks};
    Key cur;
    if (!keyOf(rows, selection, cur) || !rows.bits(size_t(cur.row)).test(size_t(cur.index)))
        return 0;
    int64_t before = 0;
    for (size_t g = 0; g < rows.count(); ++g) {
        const int64_t row = int64_t(g);
        const size_t end = row < cur.row ? rows.lowerBound(g, cur.start, true)
                           : row == cur.row ? size_t(cur.index)
                                            : rows.lowerBound(g, cur.start, false);
        before += int64_t(rows.bits(g).count(0, end));
    }
    return before + 1;
}

bool selectionSpan(const RunData& run, const Selection& sel, int64_t& startNs, int64_t& endNs)
{
    if (sel.kind == Selection::Activity && sel.track < run.tracks.size() && sel.index < run.tracks[sel.track].size()) {
        startNs = run.tracks[sel.track].startNs[sel.index];
        endNs = run.tracks[sel.track].endNs(sel.index);
        return true;
    }
    if (sel.kind == Selection::ApiCall && sel.track < run.apiRows.size() && sel.index < run.apiRows[sel.track].size()) {
        startNs = run.apiRows[sel.track].startNs[sel.index];
        endNs = run.apiRows[sel.track].endNs(sel.index);
        return true;
    }
    if (sel.kind == Selection::Scope && sel.host) {
        if (sel.index >= run.hostLaneOf.size() || run.hostLaneOf[sel.index] == kNone)
            return false;
        const HostLaneData& lane = run.hostLanes[run.hostLaneOf[sel.index]];
        startNs = lane.startNs[run.hostPosOf[sel.index]];
        endNs = lane.endNs(run.hostPosOf[sel.index]);
        return true;
    }
    if (sel.kind == Selection::Scope && sel.index < run.instances.size() && run.instances.hasSpan(sel.index)) {
        startNs = run.instances.gpuStart(sel.index);
        endNs = run.instances.gpuEnd(sel.index);
        return true;
    }
    return false;
}

}  // namespace wt::gui
