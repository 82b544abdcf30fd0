// The details panel's histogram: for the selected kernel (or memory operation) the durations
// of every instance of its name (kind, for memory operations), for a selected scope those of
// its group's scope instances by GPU span (a step: the steps; a layer: the layer's instances
// under every phase and step, the layer rule; a phase or an op likewise; any other scope: the
// instances of its path). Computed by analysis/histogram.h on a worker (an AsyncJob), drawn by
// HistogramPlot with the selected instance's bin marked; a click on a bin marks that bin's
// instances on the timeline (a group selection limited to the bin's durations, the breakdown
// slices' marking), a second click clears it; the slowest instances (histogramSlowestTable)
// are a list whose entries select and centre each instance. Listens to the ViewState.
#pragma once

#include "analysis/histogram.h"
#include "app/gui/core/viewstate.h"

#include <QWidget>

#include <memory>

class QLabel;
class QTableView;

namespace wt::gui {

class AsyncJob;
class HistogramPlot;
class TableModel;

class HistogramView : public QWidget {
    Q_OBJECT
public:
    explicit HistogramView(ViewState* state, QWidget* parent = nullptr);

    HistogramPlot* plot() const { return m_plot; }
    QTableView* slowestView() const { return m_slowest; }
    TableModel* slowestModel() const { return m_slowestModel; }
    QLabel* title() const { return m_title; }
    // The histogram shown (null: none yet, or nothing selected).
    const Histogram* histogram() const { return m_result ? &m_result->histogram : nullptr; }
    bool hasGroup() const { return m_hasGroup; }   // a kernel or scope is selected
    // Blocks until the histogram of the current selection is there (tests, screenshots).
    void waitForHistogram();
    // What a click on bin `bin` does (marks its instances; the same bin again clears them).
    void chooseBin(int bin);
    // What a click on row `row` of the slowest list does (select and centre it).
    void jumpToSlowest(int row);

signals:
    void histogramReady();
    // Whether there is a group to show (a kernel or scope selected): the details panel shows
    // the view only then, so an unselected panel keeps its height for the run's fields.
    void hasGroupChanged(bool hasGroup);

private:
    struct Result {
        Histogram histogram;
        std::shared_ptr<const RunData> run;
        QString label;                  // "kernel sgemm_nt"
    };
    void refresh();
    void showResult(std::shared_ptr<const Result> result);
    void markSelected();
    // The group of the current selection; false when none (nothing, an API call).
    bool groupOfSelection(HistogramGroup& group, QString& label) const;

    ViewState* m_state;
    QLabel* m_title;
    HistogramPlot* m_plot;
    QLabel* m_slowestTitle;
    QTableView* m_slowest;
    TableModel* m_slowestModel;
    AsyncJob* m_job;
    std::shared_ptr<const Result> m_result;
    HistogramGroup m_group;             // of m_result, or of the job in flight
    bool m_hasGroup = false;
    const RunData* m_groupRun = nullptr;
};

}  // namespace wt::gui
