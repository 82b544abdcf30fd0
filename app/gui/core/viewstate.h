// The one source of truth that every view of a run listens to: the loaded run, the visible
// time range, the selected kernel or scope, the group selection (a breakdown slice or row:
// many kernels at once, with their membership computed once here), and the selected time range. The timeline writes
// it; other views (issue 7's breakdown) read it and may write the selection back.
#pragma once

#include "groupselection.h"
#include "rundata.h"
#include "timelinelayout.h"

#include <QObject>

#include <memory>

namespace wt::gui {

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

    const std::shared_ptr<const RunData>& run() const { return m_run; }
    void setRun(std::shared_ptr<const RunData> run);
    // A newer load of the same run (a live capture that grew): unlike setRun, the view keeps
    // its visible range (or keeps showing the whole run when it showed all of it), its
    // selection (found again in the new arrays, cleared when gone), its group selection (marks
    // recomputed) and its range selection. Emits runUpdated, then what changed.
    void updateRun(std::shared_ptr<const RunData> run);

    double viewStartNs() const { return m_viewStart; }
    double viewEndNs() const { return m_viewEnd; }
    void setViewRange(double t0, double t1);

    const Selection& selection() const { return m_selection; }
    void setSelection(const Selection& selection);

    // The group selection and its membership (null when there is none). Setting a group
    // computes the marks once (tens of ms on 10M activities); setting the same group again
    // does nothing. A new run clears it.
    const GroupSelection& groupSelection() const { return m_group; }
    const std::shared_ptr<const GroupMarks>& groupMarks() const { return m_groupMarks; }
    void setGroupSelection(GroupSelection group);
    void clearGroupSelection();

    bool hasRangeSelection() const { return m_hasRange; }
    double rangeStartNs() const { return m_rangeStart; }
    double rangeEndNs() const { return m_rangeEnd; }
    void setRangeSelection(double t0, double t1);
    void clearRangeSelection();

signals:
    void runChanged();
    void runUpdated();   // updateRun: same run, more data
    void viewRangeChanged(double t0, double t1);
    void selectionChanged();
    void groupSelectionChanged();
    void rangeSelectionChanged();

private:
    std::shared_ptr<const RunData> m_run;
    double m_viewStart = 0;
    double m_viewEnd = 0;
    Selection m_selection;
    GroupSelection m_group;
    std::shared_ptr<const GroupMarks> m_groupMarks;
    bool m_hasRange = false;
    double m_rangeStart = 0;
    double m_rangeEnd = 0;
};

}  // namespace wt::gui
