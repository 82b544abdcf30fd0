// Rows of the timeline and the draw list of one frame. For each device: a header row, the
// scope lanes (one per depth: step > phase > layer > op, or NVTX/annotation nesting; levels
// below a collapsed depth are hidden), then one track per stream and the memory tracks.
// Everything here is widget-free so the benchmark and the tests use the exact code the
// widget paints from.
#pragma once

#include "drawlist.h"
#include "groupselection.h"
#include "hostrows.h"
#include "rundata.h"
#include "timemapping.h"

#include <QString>

#include <cmath>
#include <map>
#include <set>
#include <memory>
#include <vector>

namespace wt::gui {

// What the user picked: one activity of a track, or one scope instance.
struct Selection {
    enum Kind : uint8_t { None, Activity, Scope, ApiCall };
    Kind kind = None;
    uint32_t track = 0;      // Activity: index into RunData::tracks; ApiCall: into RunData::apiRows
    uint32_t index = 0;      // Activity: index in the track; Scope: instance index; ApiCall: in the row
    // Scope: picked on its host thread's lane (host time) rather than in a GPU lane; an
    // instance can be in both, and find counts and steps to each place it is shown.
    bool host = false;
    bool operator==(const Selection&) const = default;
};

// Adapters that present rows to foldRow.
struct TrackSequence {
    const RunData* run;
    const TrackData* track;
    size_t size() const { return track->size(); }
    int64_t start(size_t i) const { return track->startNs[i]; }
    int64_t end(size_t i) const { return track->endNs(i); }
    int64_t maxDuration() const { return track->maxDurationNs; }
    QRgb color(size_t i) const { return run->activityColor(*track, i); }
    const FoldIndex& foldIndex() const { return track->index; }
};

struct ApiSequence {
    const RunData* run;
    const ApiRowData* row;
    size_t size() const { return row->size(); }
    int64_t start(size_t i) const { return row->startNs[i]; }
    int64_t end(size_t i) const { return row->endNs(i); }
    int64_t maxDuration() const { return row->maxDurationNs; }
    QRgb color(size_t i) const { return run->apiColor(row->nameId[i]); }
    const FoldIndex& foldIndex() const { return row->index; }
};

struct LaneSequence {
    const RunData* run;
    const LaneData* lane;
    size_t size() const { return lane->items.size(); }
    int64_t start(size_t i) const { return run->instances.gpuStart(lane->items[i]); }
    int64_t end(size_t i) const { return run->instances.gpuEnd(lane->items[i]); }
    int64_t maxDuration() const { return lane->maxDurationNs; }
    QRgb color(size_t i) const { return run->instanceColor(lane->items[i]); }
    const FoldIndex& foldIndex() const { return lane->index; }
};

struct Row {
    enum Kind : uint8_t { DeviceHeader, Lane, Track, Api, HostHeader, ProcessHeader, ThreadHeader, HostLane };
    Kind kind = Track;
    int deviceIndex = 0;     // -1: the host (HostHeader, ProcessHeader, ThreadHeader, HostLane and Api rows)
    // Lane: index into RunData::lanes; Track: into RunData::tracks; Api: into RunData::apiRows;
    // ProcessHeader: into RunData::hostProcesses; ThreadHeader: into hostThreads; HostLane: into hostLanes
    int index = 0;
    int y = 0;               // top, in content coordinates (below the ruler)
    int height = 0;
    QString label;
    // A device's, the host's, a process's or a thread's header: painted bold, folds what is below.
    bool isHeader() const { return kind == DeviceHeader || kind == HostHeader || kind == ProcessHeader || kind == ThreadHeader; }
};

// The membership bits of a row's items in a group (or find) marking; null for a row that
// takes no part (headers, or a row kind the marking has none for).
inline const MemberBits* groupBits(const GroupMarks& g, const Row& row)
{
    const size_t i = size_t(row.index);
    switch (row.kind) {
    case Row::Lane: return i < g.lanes.size() ? &g.lanes[i] : nullptr;
    case Row::HostLane: return i < g.hostLanes.size() ? &g.hostLanes[i] : nullptr;
    case Row::Api: return i < g.apiRows.size() ? &g.apiRows[i] : nullptr;
    case Row::Track: return i < g.tracks.size() ? &g.tracks[i] : nullptr;
    default: return nullptr;
    }
}

// Which host processes and threads are folded to their header (indices into
// RunData::hostProcesses and hostThreads).
struct HostFolds {
    std::set<uint32_t> processes;
    std::set<uint32_t> threads;
    bool operator==(const HostFolds&) const = default;
};

class TimelineLayout {
public:
    static constexpr int kHeaderHeight = 20;
    static constexpr int kLaneHeight = 18;
    static constexpr int kTrackHeight = 22;
    static constexpr int kGap = 2;

    // Rows for a run; collapsedDepth[device] = deepest lane depth shown (absent = all).
    // Host rows (runs with host threads): a header per process and per thread, each folding
    // what is below it (`folds`), then the thread's range lanes on host time and its API rows.
    void build(const RunData& run, const std::map<int, int>& collapsedDepth, const HostFolds& folds = {});
    const std::vector<Row>& rows() const { return m_rows; }
    int contentHeight() const { return m_height; }
    int rowAt(int contentY) const;   // -1 when between or below rows

private:
    std::vector<Row> m_rows;
    int m_height = 0;
};

// A visible piece of a draw item after occlusion: what the paint pass fills. Items of a row
// share its height, so a later item hides an earlier one where they overlap (scope lanes of
// pipelined steps overlap a lot); flattening bounds the paint work by the plot width.
struct PaintSpan {
    int x0 = 0;            // pixel columns [x0, x1)
    int x1 = 0;
    uint32_t item = 0;     // index into the row's DrawItems
};

// Pixel columns [x0, x1) of a row where members of the group selection are painted.
struct MarkSpan {
    int x0 = 0;
    int x1 = 0;
};

// One frame's rectangles, row by row (same order as TimelineLayout::rows()).
struct DrawList {
    TimeMapping mapping;
    std::vector<std::vector<DrawItem>> rows;
    std::vector<std::vector<PaintSpan>> spans;
    // With a group selection: per row, whether the row takes part (its non-members are
    // dimmed) and the columns of its members, sorted and disjoint. A fold holding members
    // marks the columns where they are, not the whole fold.
    bool grouped = false;
    std::vector<uint8_t> groupedRows;
    std::vector<std::vector<MarkSpan>> marks;
    size_t itemCount() const;
    size_t spanCount() const;
    size_t markedColumns() const;
};

// Visible pieces of a row's items on a plot widthPx columns wide (later items on top).
void flattenRow(const std::vector<DrawItem>& items, int widthPx, std::vector<PaintSpan>& out);

// Prepares the draw list of a frame and marks the selection: the selected item, and for a
// selected scope every kernel (or fold holding one) inside it; with group marks, the columns
// of the group's members in every kernel track (and scope lane, when the group has a scope
// condition).
void buildDrawList(const RunData& run, const TimelineLayout& layout, const TimeMapping& mapping,
                   const Selection& selection, DrawList& out, const FoldOptions& options = {},
                   const GroupMarks* group = nullptr);

// The member columns of a row's paint spans (see DrawList::marks), appended to out.
template <class Seq>
void markRow(const Seq& s, const MemberBits& bits, const std::vector<DrawItem>& items,
             const std::vector<PaintSpan>& spans, const TimeMapping& m, std::vector<MarkSpan>& out)
{
    auto add = [&](int c0, int c1) {
        if (c1 <= c0)
            return;
        if (!out.empty() && c0 <= out.back().x1)
            out.back().x1 = std::max(out.back().x1, c1);
        else
            out.push_back(MarkSpan{c0, c1});
    };
    for (const PaintSpan& span : spans) {
        const DrawItem& d = items[span.item];
        const size_t lo = d.first, hi = size_t(d.first) + d.count;
        const size_t k = bits.count(lo, hi);
        if (k == 0)
            continue;
        if (k == d.count) {
            add(span.x0, span.x1);
            continue;
        }
        // A fold with members and others: visit members left to right, one per column (the
        // next one looked at starts right of the column just marked), so the work is bounded
        // by the span's width plus a word scan of the fold's bits. A member in a column next to
        // the span (shared with a neighbour painted on top) is marked on the span's edge, so
        // a fold holding members always shows it.
        const double from = m.timeAt(double(span.x0 - 1)) - double(s.maxDuration()) - 1;
        size_t i = bits.nextSet(seekStart(s, lo, hi, from), hi);
        while (i < hi) {
            const double xs = m.x(double(s.start(i)));
            const double xe = m.x(double(std::max(s.end(i), s.start(i) + 1)));
            const int first = int(std::floor(xs));
            if (first > span.x1)
                break;
            const int last = std::max(int(std::ceil(xe)), first + 1);   // exclusive
            if (last >= span.x0) {
                const int c0 = std::clamp(first, span.x0, span.x1 - 1);
                add(c0, std::clamp(last, c0 + 1, span.x1));
            }
            const size_t j = seekStart(s, i + 1, hi, m.timeAt(double(std::max(last, first + 1))));
            i = bits.nextSet(j, hi);
        }
    }
}

// Index (into the row's items) of the item painted at pixel x, else the nearest painted
// within slackPx, else -1.
int hitTest(const std::vector<PaintSpan>& spans, double x, double slackPx = 1.0);

}  // namespace wt::gui
