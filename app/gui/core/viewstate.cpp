#include "viewstate.h"

#include <utility>

namespace wt::gui {

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
