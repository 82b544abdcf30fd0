#include "timelinelayout.h"

#include "analysis/grouping.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace wt::gui {

void TimelineLayout::build(const RunData& run, const std::map<int, int>& collapsedDepth, const HostFolds& folds)
{
    m_rows.clear();
    int y = 0;
    auto add = [&](Row r, int h) {
        r.y = y;
        r.height = h;
        y += h + kGap;
        m_rows.push_back(std::move(r));
    };
    // Lane labels name the level of the lane's scopes, from analysis (laneLabels: "step",
    // "NVTX depth 2", "op depth 3"), so no two depths read the same and the CLI agrees.
    const std::vector<std::string> labels = run.profile ? laneLabels(run.profile->tree) : std::vector<std::string>{};
    auto laneLabelOf = [&](const LaneData& lane) {
        if (lane.depth >= 1 && size_t(lane.depth) <= labels.size())
            return QString::fromStdString(labels[size_t(lane.depth) - 1]);
        return lane.level.isEmpty() ? QStringLiteral("depth %1").arg(lane.depth)
                                    : QStringLiteral("%1 depth %2").arg(lane.level).arg(lane.depth);
    };
    // The host first (as in Nsight Systems and Perfetto): a header, then per thread its API
    // calls, one row per nesting level; the header folds them all (collapsedDepth[-1] < 0).
    // A run with host threads (imports) has a header per process and per thread, and the
    // thread's ranges on host time above its API calls.
    if (!run.apiRows.empty() || !run.hostThreads.empty()) {
        Row header;
        header.kind = Row::HostHeader;
        header.deviceIndex = -1;
        int64_t threads = int64_t(run.hostThreads.size());
        if (run.hostThreads.empty())
            for (size_t i = 0; i < run.apiRows.size(); ++i)
                threads += i == 0 || run.apiRows[i].threadId != run.apiRows[i - 1].threadId;
        const int64_t processes = int64_t(run.hostProcesses.size());
        header.label = processes > 1
                           ? QStringLiteral("CPU: %1 processes, %2 thread%3").arg(processes).arg(threads).arg(threads == 1 ? QString() : QStringLiteral("s"))
                           : QStringLiteral("CPU (%1 thread%2)").arg(threads).arg(threads == 1 ? QString() : QStringLiteral("s"));
        add(header, kHeaderHeight);
        auto c = collapsedDepth.find(-1);
        const bool hostShown = c == collapsedDepth.end() || c->second >= 0;
        auto apiRow = [&](size_t i, const QString& label) {
            Row r;
            r.kind = Row::Api;
            r.deviceIndex = -1;
            r.index = int(i);
            r.label = label;
            add(r, kLaneHeight);
        };
        if (hostShown && run.hostThreads.empty()) {
            for (size_t i = 0; i < run.apiRows.size(); ++i) {
                const ApiRowData& a = run.apiRows[i];
                apiRow(i, a.level == 0 ? QStringLiteral("thread %1").arg(a.threadId)
                                       : QStringLiteral("thread %1 \u00b7 nested %2").arg(a.threadId).arg(a.level));
            }
        } else if (hostShown) {
            for (size_t p = 0; p < run.hostProcesses.size(); ++p) {
                const HostProcessData& process = run.hostProcesses[p];
                Row ph;
                ph.kind = Row::ProcessHeader;
                ph.deviceIndex = -1;
                ph.index = int(p);
                ph.label = hostProcessLabel(process);
                add(ph, kHeaderHeight);
                if (folds.processes.count(uint32_t(p)))
                    continue;
                for (uint32_t t : process.threads) {
                    const HostThreadData& thread = run.hostThreads[t];
                    if (thread.lanes.empty() && thread.apiRows.empty())
                        continue;
                    Row th;
                    th.kind = Row::ThreadHeader;
                    th.deviceIndex = -1;
                    th.index = int(t);
                    th.label = hostThreadLabel(thread);
                    add(th, kHeaderHeight);
                    if (folds.threads.count(t))
                        continue;
                    for (uint32_t l : thread.lanes) {
                        Row r;
                        r.kind = Row::HostLane;
                        r.deviceIndex = -1;
                        r.index = int(l);
                        r.label = hostLaneLabel(run.hostLanes[l]);
                        add(r, kLaneHeight);
                    }
                    for (uint32_t a : thread.apiRows)
                        apiRow(a, hostApiLabel(run.apiRows[a]));
                }
            }
        }
    }
    for (int dev = 0; dev < int(run.devices.size()); ++dev) {
        bool any = std::any_of(run.tracks.begin(), run.tracks.end(), [&](const TrackData& t) { return t.deviceIndex == dev; });
        if (!any)
            continue;
        Row header;
        header.kind = Row::DeviceHeader;
        header.deviceIndex = dev;
        header.label = run.devices[size_t(dev)].name;
        add(header, kHeaderHeight);
        auto c = collapsedDepth.find(dev);
        int shown = c == collapsedDepth.end() ? INT32_MAX : c->second;
        if (shown < 0)
            continue;   // the whole device (a rank of a job) is collapsed to its header
        for (size_t l = 0; l < run.lanes.size(); ++l) {
            const LaneData& lane = run.lanes[l];
            if (lane.deviceIndex != dev || lane.depth > shown)
                continue;
            Row r;
            r.kind = Row::Lane;
            r.deviceIndex = dev;
            r.index = int(l);
            r.label = laneLabelOf(lane);
            add(r, kLaneHeight);
        }
        for (size_t t = 0; t < run.tracks.size(); ++t) {
            const TrackData& track = run.tracks[t];
            if (track.deviceIndex != dev)
                continue;
            Row r;
            r.kind = Row::Track;
            r.deviceIndex = dev;
            r.index = int(t);
            r.label = track.name;
            add(r, kTrackHeight);
        }
    }
    m_height = y;
}

int TimelineLayout::rowAt(int contentY) const
{
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), contentY, [](int v, const Row& r) { return v < r.y; });
    if (it == m_rows.begin())
        return -1;
    --it;
    return contentY < it->y + it->height ? int(it - m_rows.begin()) : -1;
}

size_t DrawList::itemCount() const
{
    size_t n = 0;
    for (const auto& r : rows)
        n += r.size();
    return n;
}

size_t DrawList::markedColumns() const
{
    size_t n = 0;
    for (const auto& r : marks)
        for (const MarkSpan& s : r)
            n += size_t(s.x1 - s.x0);
    return n;
}

size_t DrawList::spanCount() const
{
    size_t n = 0;
    for (const auto& r : spans)
        n += r.size();
    return n;
}

void flattenRow(const std::vector<DrawItem>& items, int widthPx, std::vector<PaintSpan>& out)
{
    out.clear();
    if (items.empty() || widthPx <= 0)
        return;
    // Topmost first; `next` skips columns already owned (path-halving union-find), so each
    // column is written once whatever the overlap.
    thread_local std::vector<int32_t> owner, next;
    owner.assign(size_t(widthPx), -1);
    next.resize(size_t(widthPx) + 1);
    for (int c = 0; c <= widthPx; ++c)
        next[size_t(c)] = c;
    auto find = [&](int c) {
        while (next[size_t(c)] != c) {
            next[size_t(c)] = next[size_t(next[size_t(c)])];
            c = next[size_t(c)];
        }
        return c;
    };
    for (size_t k = items.size(); k-- > 0;) {
        const DrawItem& d = items[k];
        int c0 = std::clamp(int(std::floor(d.x0)), 0, widthPx);
        int c1 = std::clamp(int(std::ceil(d.x1)), 0, widthPx);
        if (c1 <= c0 && c0 < widthPx && d.x1 > 0)
            c1 = c0 + 1;
        for (int c = find(c0); c < c1; c = find(c)) {
            owner[size_t(c)] = int32_t(k);
            next[size_t(c)] = c + 1;
        }
    }
    for (int c = 0; c < widthPx;) {
        int32_t o = owner[size_t(c)];
        int e = c + 1;
        while (e < widthPx && owner[size_t(e)] == o)
            ++e;
        if (o >= 0)
            out.push_back(PaintSpan{c, e, uint32_t(o)});
        c = e;
    }
}

void buildDrawList(const RunData& run, const TimelineLayout& layout, const TimeMapping& mapping,
                   const Selection& sel, DrawList& out, const FoldOptions& options, const GroupMarks* group)
{
    out.mapping = mapping;
    const auto& rows = layout.rows();
    out.rows.resize(rows.size());
    out.spans.resize(rows.size());
    out.grouped = group != nullptr;
    out.groupedRows.assign(rows.size(), 0);
    out.marks.resize(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
        std::vector<DrawItem>& items = out.rows[r];
        items.clear();
        const Row& row = rows[r];
        if (row.kind == Row::Lane) {
            const LaneData& lane = run.lanes[size_t(row.index)];
            foldRow(LaneSequence{&run, &lane}, mapping, options, items);
            if (sel.kind == Selection::Scope)
                for (DrawItem& d : items)
                    if (d.count == 1 && lane.items[d.first] == sel.index)
                        d.flags |= DrawItem::Selected;
        } else if (row.kind == Row::HostLane) {
            const HostLaneData& lane = run.hostLanes[size_t(row.index)];
            foldRow(HostLaneSequence{&run, &lane}, mapping, options, items);
            if (sel.kind == Selection::Scope)
                for (DrawItem& d : items)
                    if (d.count == 1 && lane.items[d.first] == sel.index)
                        d.flags |= DrawItem::Selected;
        } else if (row.kind == Row::Api) {
            const ApiRowData& api = run.apiRows[size_t(row.index)];
            foldRow(ApiSequence{&run, &api}, mapping, options, items);
            if (sel.kind == Selection::ApiCall && sel.track == uint32_t(row.index)) {
                int k = findItem(items, sel.index);
                if (k >= 0)
                    items[size_t(k)].flags |= DrawItem::Selected;
            }
        } else if (row.kind == Row::Track) {
            const TrackData& track = run.tracks[size_t(row.index)];
            foldRow(TrackSequence{&run, &track}, mapping, options, items);
            if (sel.kind == Selection::Activity && sel.track == uint32_t(row.index)) {
                int k = findItem(items, sel.index);
                if (k >= 0)
                    items[size_t(k)].flags |= DrawItem::Selected;
            } else if (sel.kind == Selection::Scope) {
                // Kernels inside the selected scope: check every member of small folds, the
                // ends of large ones (a scope's kernels are contiguous in time on a stream).
                for (DrawItem& d : items) {
                    auto in = [&](uint32_t i) { return run.isWithin(track.instance[i], sel.index); };
                    bool hit = false;
                    if (d.count <= 16) {
                        for (uint32_t i = d.first; i < d.first + d.count && !hit; ++i)
                            hit = in(i);
                    } else {
                        hit = in(d.first) || in(d.first + d.count - 1) || in(d.first + d.count / 2);
                    }
                    if (hit)
                        d.flags |= DrawItem::Highlighted;
                }
            }
        }
        flattenRow(items, mapping.widthPx(), out.spans[r]);
        out.marks[r].clear();
        if (!group)
            continue;
        if (row.kind == Row::Lane && group->marksLanes()) {
            const LaneData& lane = run.lanes[size_t(row.index)];
            out.groupedRows[r] = 1;
            markRow(LaneSequence{&run, &lane}, group->lanes[size_t(row.index)], items, out.spans[r], mapping, out.marks[r]);
        } else if (row.kind == Row::HostLane && size_t(row.index) < group->hostLanes.size()) {
            const HostLaneData& lane = run.hostLanes[size_t(row.index)];
            out.groupedRows[r] = 1;
            markRow(HostLaneSequence{&run, &lane}, group->hostLanes[size_t(row.index)], items, out.spans[r], mapping, out.marks[r]);
        } else if (row.kind == Row::Api && size_t(row.index) < group->apiRows.size()) {
            const ApiRowData& api = run.apiRows[size_t(row.index)];
            out.groupedRows[r] = 1;
            markRow(ApiSequence{&run, &api}, group->apiRows[size_t(row.index)], items, out.spans[r], mapping, out.marks[r]);
        } else if (row.kind == Row::Track && size_t(row.index) < group->tracks.size()) {
            const TrackData& track = run.tracks[size_t(row.index)];
            out.groupedRows[r] = 1;
            markRow(TrackSequence{&run, &track}, group->tracks[size_t(row.index)], items, out.spans[r], mapping, out.marks[r]);
        }
    }
}

int hitTest(const std::vector<PaintSpan>& spans, double x, double slackPx)
{
    // Spans are sorted and disjoint: binary search, then look at the neighbours.
    auto it = std::upper_bound(spans.begin(), spans.end(), x, [](double v, const PaintSpan& s) { return v < s.x0; });
    int best = -1;
    double bestDist = slackPx + 1e-9;
    for (auto c : {it - 1, it}) {
        if (c < spans.begin() || c >= spans.end())
            continue;
        double dist = x < c->x0 ? c->x0 - x : x >= c->x1 ? x - c->x1 + 1e-9 : 0;
        if (dist == 0)
            return int(c->item);
        if (dist < bestDist) {
            bestDist = dist;
            best = int(c->item);
        }
    }
    return best;
}

}  // namespace wt::gui
