#include "viewstate.h"

#include <algorithm>
#include <utility>

namespace wt::gui {

namespace {

// The selection of `from` in `to` (two loads of one run): an activity by track id, start and
// name; a scope instance as the k-th instance of its scope node (executions of one scope path
// do not overlap, so the k-th stays the k-th as instances land). None when it is gone.
Selection remapSelection(const Selection& sel, const RunData& from, const RunData& to)
{
    if (sel.kind == Selection::Activity && sel.track < from.tracks.size() && sel.index < from.tracks[sel.track].size()) {
        const TrackData& old = from.tracks[sel.track];
        const int64_t start = old.startNs[sel.index];
        const uint32_t name = old.nameId[sel.index];
        for (size_t t = 0; t < to.tracks.size(); ++t) {
            const TrackData& track = to.tracks[t];
            if (track.id != old.id)
                continue;
            auto it = std::lower_bound(track.startNs.begin(), track.startNs.end(), start);
            for (; it != track.startNs.end() && *it == start; ++it) {
                const size_t i = size_t(it - track.startNs.begin());
                if (track.nameId[i] == name)
                    return Selection{Selection::Activity, uint32_t(t), uint32_t(i)};
            }
            break;
        }
        return {};
    }
    if (sel.kind == Selection::Scope && sel.index < from.instances.size()) {
        const uint32_t node = from.instances.node[sel.index];
        if (node >= from.nodes.size() || node >= to.nodes.size() || to.nodes[node].id != from.nodes[node].id)
            return {};
        size_t k = 0;
        for (size_t i = 0; i < sel.index; ++i)
            k += from.instances.node[i] == node ? 1 : 0;
        for (size_t i = 0; i < to.instances.size(); ++i)
            if (to.instances.node[i] == node && k-- == 0)
                return Selection{Selection::Scope, 0, uint32_t(i)};
        return {};
    }
    return {};
}

}  // namespace

void ViewState::setRun(std::shared_ptr<const RunData> run)
{
    m_run = std::move(run);
    m_selection = {};
    m_group = {};
    m_groupMarks.reset();
    m_hasRange = false;
    m_viewStart = m_run ? double(m_run->spanStartNs) : 0;
    m_viewEnd = m_run ? double(m_run->spanEndNs) : 0;
    emit runChanged();
    emit selectionChanged();
    emit groupSelectionChanged();
    emit rangeSelectionChanged();
    emit viewRangeChanged(m_viewStart, m_viewEnd);
}

void ViewState::updateRun(std::shared_ptr<const RunData> run)
{
    if (!m_run || !run || run->run.id != m_run->run.id || run->filePath != m_run->filePath) {
        setRun(std::move(run));
        return;
    }
    std::shared_ptr<const RunData> old = std::move(m_run);
    m_run = std::move(run);
    const Selection selection = remapSelection(m_selection, *old, *m_run);
    const bool selectionMoved = !(selection == m_selection);
    m_selection = selection;
    // Node i is the tree's node i in both loads (nodes by id; a run only adds nodes), so the
    // group's node flags carry over; nodes new in this load are not members.
    if (m_group.nodes.size() > m_run->nodes.size())
        m_group.nodes.resize(m_run->nodes.size());
    if (m_groupMarks)
        m_groupMarks = GroupMarks::compute(*m_run, m_group);
    // A view that showed the whole run follows it as it grows; a zoomed one stays put.
    // (With a nanosecond of slack: the timeline's mapping rounds the range it was given.)
    const double slackNs = std::max(1.0, 1e-6 * double(old->spanEndNs - old->spanStartNs));
    const bool wasAll = m_viewStart <= double(old->spanStartNs) + slackNs && m_viewEnd >= double(old->spanEndNs) - slackNs;
    emit runUpdated();
    if (selectionMoved)
        emit selectionChanged();
    if (m_groupMarks)
        emit groupSelectionChanged();
    if (old->activityCount == 0)
        setViewRange(double(m_run->spanStartNs), double(m_run->spanEndNs));
    else if (wasAll)
        setViewRange(m_viewStart + double(m_run->spanStartNs - old->spanStartNs),
                     m_viewEnd + double(m_run->spanEndNs - old->spanEndNs));
}

void ViewState::setViewRange(double t0, double t1)
{
    if (t0 == m_viewStart && t1 == m_viewEnd)
        return;
    m_viewStart = t0;
    m_viewEnd = t1;
    emit viewRangeChanged(t0, t1);
}

void ViewState::setSelection(const Selection& selection)
{
    if (selection == m_selection)
        return;
    m_selection = selection;
    emit selectionChanged();
}

void ViewState::setGroupSelection(GroupSelection group)
{
    if (group.isEmpty()) {
        clearGroupSelection();
        return;
    }
    if (m_groupMarks && group == m_group)
        return;
    m_group = std::move(group);
    m_groupMarks = m_run ? GroupMarks::compute(*m_run, m_group) : nullptr;
    emit groupSelectionChanged();
}

void ViewState::clearGroupSelection()
{
    if (m_group.isEmpty() && !m_groupMarks)
        return;
    m_group = {};
    m_groupMarks.reset();
    emit groupSelectionChanged();
}

void ViewState::setRangeSelection(double t0, double t1)
{
    if (t1 < t0)
        std::swap(t0, t1);
    if (m_hasRange && t0 == m_rangeStart && t1 == m_rangeEnd)
        return;
    m_hasRange = true;
    m_rangeStart = t0;
    m_rangeEnd = t1;
    emit rangeSelectionChanged();
}

void ViewState::clearRangeSelection()
{
    if (!m_hasRange)
        return;
    m_hasRange = false;
    emit rangeSelectionChanged();
}

}  // namespace wt::gui
