// The breakdown side view: where the kernel time of the run (or of the range selected in the
// timeline) goes, as a pie or sorted bars plus a sortable, filterable table. Clicking a slice
// drills down (phase -> layer -> op -> kernel) and the breadcrumb goes back up; clicking a
// slice or a row marks every kernel of that group in the timeline (a group selection in the
// ViewState, drill-down filters included) and selects one of them, and a timeline selection
// highlights its group here. Listens to the ViewState like every other view. Every figure
// comes from analysis/ through the BreakdownSource; for a large run (more than
// asyncThreshold() activities) it is computed on a worker thread, the way runs load, and the
// charts keep the previous figures until the new ones arrive.
#pragma once

#include "breakdownmodel.h"
#include "breakdownplot.h"
#include "breakdownsource.h"

#include "app/gui/core/viewstate.h"

#include <QWidget>

#include <memory>

class QButtonGroup;
class QSplitter;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableView;
class QTimer;
template <class T> class QFutureWatcher;

namespace wt::gui {

class FlowLayout;

class BreakdownView : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownView(ViewState* state, QWidget* parent = nullptr);
    ~BreakdownView() override;

    // Uses a source directly (tests, report); normally one is loaded when the run changes.
    void setSource(std::shared_ptr<const BreakdownSource> source);
    const std::shared_ptr<const BreakdownSource>& source() const { return m_source; }

    const std::vector<BreakdownLevel>& levels() const { return m_levels; }
    const BreakdownResult& result() const { return m_model->result(); }
    // The layer-depth control (shown for imported runs): its value re-groups the run's layers
    // (breakdown and timeline colours) through ViewState::updateRun.
    QSpinBox* layerDepthBox() const { return m_layerDepth; }
    BreakdownModel* model() const { return m_model; }
    BreakdownProxyModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    QLineEdit* nameFilter() const { return m_filter; }
    BreakdownPlot* piePlot() const { return m_pie; }
    BreakdownPlot* barPlot() const { return m_bars; }
    BreakdownPlot* currentPlot() const;
    QSplitter* chartTableSplitter() const { return m_split; }
    FlowLayout* controlsLayout() const { return m_controls; }
    QString title() const;

    void setGroupBy(GroupBy groupBy);   // resets the drill-down
    void setThreshold(double fraction);
    double threshold() const;
    void setShowBars(bool bars);
    void setUseRange(bool range);
    bool usesRange() const;

    // Activities above which figures are computed off the GUI thread (tests lower it).
    void setAsyncThreshold(int64_t activities) { m_asyncThreshold = activities; }
    int64_t asyncThreshold() const { return m_asyncThreshold; }
    bool isComputing() const { return m_computing != nullptr; }
    // Blocks until figures being computed on the worker are shown (tests, export, report).
    void waitForResult();

    // Drills into a slice of the current chart; false when it cannot (bottom level, "other").
    bool drillInto(int slice);
    // Back to level `index` of the breadcrumb (0 = the top).
    void goUp(int index);
    // Selects a row (index into result().rows): table, chart highlight and the timeline (the
    // row's group, with the level's drill-down filters, as the ViewState's group selection).
    void selectRow(int row);
    // Selects a slice of a chart: a group as selectRow, "other" all of its groups at once.
    void selectSlice(BreakdownPlot* plot, int slice);
    // The selected rows as CSV (all rows when none is selected).
    QString selectedCsv() const;
    void copyCsv() const;

    void exportChart();       // dialog
    void exportTableCsv();    // file dialog
    void exportSummary();     // file dialog

signals:
    void updated();           // the numbers shown changed
    void sourceReady();       // a run's source finished loading
    void sourceFailed(const QString& message);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void onRunChanged();
    void onRunUpdated();   // a live run grew: same drill-down, new figures (no blank in between)
    void refresh();
    void show(BreakdownResult result);
    void showCharts(const BreakdownResult& result);   // pie and bars under the name filter
    void finishCompute(QFutureWatcher<BreakdownResult>* watcher, int generation);
    void updateCrumbs();
    void updateColumns();
    void syncFromTimeline();
    void showInTimeline(const std::vector<size_t>& rowIndices);
    void showPlotMenu(BreakdownPlot* plot, const QPoint& pos);
    void showTableMenu(const QPoint& pos);
    std::vector<size_t> selectedRows() const;
    int sliceOfRow(int row) const;

    ViewState* m_state;
    std::shared_ptr<const BreakdownSource> m_source;
    std::vector<BreakdownLevel> m_levels;
    BreakdownModel* m_model;
    BreakdownProxyModel* m_proxy;
    BreakdownPlot* m_pie;
    BreakdownPlot* m_bars;
    QStackedWidget* m_stack;
    QSplitter* m_split;               // chart and table: side by side when wide, else stacked
    FlowLayout* m_controls;
    QTableView* m_table;
    QComboBox* m_groupBy;
    QDoubleSpinBox* m_threshold;
    QSpinBox* m_layerDepth;   // imported runs: the layer depth (analysis withLayerDepth)
    void updateLayerDepthControl();
    QButtonGroup* m_chartKind;
    QCheckBox* m_range;
    QLabel* m_crumbs;
    QLineEdit* m_filter;
    QTimer* m_rangeTimer;
    QFutureWatcher<std::shared_ptr<const BreakdownSource>>* m_loading = nullptr;
    QFutureWatcher<BreakdownResult>* m_computing = nullptr;
    int m_generation = 0;                 // of refresh(): late results of older ones are dropped
    int m_computingGeneration = 0;        // the refresh m_computing belongs to
    int64_t m_asyncThreshold = 200000;
    QString m_loadError;
    bool m_groupChosen = false;   // the user picked a grouping in the chooser: runs keep it
    bool m_syncing = false;   // true while this view writes the ViewState selection
};

}  // namespace wt::gui
