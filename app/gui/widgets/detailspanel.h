// Fields of the selected kernel or scope (what the device has: launch configuration on a GPU,
// none on the CPU; the device of a run of several), the run summary (analysis/summarytable:
// runSummaryTable) and, for a selected time range, the range summary (rangeSummaryTable); for a
// run of several devices (the ranks of a job) the per-rank table (analysis/rankstats: each
// rank's mean step time and slowest step), the histogram of the selection's group with its
// slowest instances (HistogramView), and per device the time on the GPU
// (analysis/gputime: busy, idle, compute, communication and memory, overlapped and exposed;
// docs/definitions.md) with a small stacked bar. Every figure comes as an analysis table
// through TableModel (the writer's cell text; the CSV export is the CLI's bytes), and the
// device, step and rank figures (RunFigures) are computed on a worker (an AsyncJob) once the
// run is there, never on the GUI thread; until they come those tables are hidden. Listens to
// the ViewState.
#pragma once

#include "app/gui/core/runfigures.h"
#include "app/gui/core/viewstate.h"

#include <QRgb>
#include <QStyledItemDelegate>
#include <QWidget>

#include <cstdint>
#include <vector>

class QSplitter;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace wt::gui {

class AsyncJob;
class HistogramView;
class TableModel;
class DeviceBarDelegate;

// One part of a device's stacked bar: its label, time and colour.
struct DeviceBarSegment {
    QString label;
    int64_t ns = 0;
    QRgb color = 0;
};

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(ViewState* state, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }
    // The histogram of the selected kernel's or scope's group (widgets/histogramview.h).
    HistogramView* histogramView() const { return m_histogram; }
    // The run summary (one row: runSummaryTable) and the selected range's summary
    // (rangeSummaryTable; no rows without a range selection): the tables the tree shows.
    TableModel* runModel() const { return m_runModel; }
    TableModel* rangeModel() const { return m_rangeModel; }
    // Per rank (analysis ranksTable; shown for two or more ranks): the text columns of
    // `stats --group-by device`, the straggler bold.
    QTableView* ranksTable() const { return m_ranks; }
    TableModel* ranksModel() const { return m_ranksModel; }
    // Time on the GPU per device (analysis devicesTable, `stats --group-by step`'s device
    // lines): its text columns; the device column carries the stacked bar (deviceBar).
    QTableView* devicesTable() const { return m_devices; }
    TableModel* devicesModel() const { return m_devicesModel; }
    // The bar of device row `row` (deviceBarSegments: compute, overlapped communication,
    // exposed communication, exposed memory, idle; they sum to the span).
    std::vector<DeviceBarSegment> deviceBar(int row) const;

    // The device, step and rank figures of the run shown (null while they are computed).
    const std::shared_ptr<const RunFigures>& figures() const { return m_figures; }
    // Blocks until the figures of the current run are there (tests, screenshots).
    void waitForFigures();

    // The writer's CSV of the run summary / the range summary (`wheretime stats F --summary
    // [--range T0:T1] --csv`, byte for byte).
    QString runCsv() const;
    QString rangeCsv() const;

signals:
    void figuresReady();

private:
    void startFigures();
    void refresh();
    void refreshRanks();
    void refreshDevices();
    void contextMenu(const QPoint& pos);
    // Shows a table that the splitter laid out while it was hidden (the figures come later).
    void showInSplitter(QWidget* table);

    ViewState* m_state;
    QTreeWidget* m_tree;
    HistogramView* m_histogram;
    QSplitter* m_split;
    QTableView* m_ranks;
    QTableView* m_devices;
    TableModel* m_runModel;
    TableModel* m_rangeModel;
    TableModel* m_ranksModel;
    TableModel* m_devicesModel;
    DeviceBarDelegate* m_barDelegate;
    AsyncJob* m_figuresJob;
    std::shared_ptr<const RunFigures> m_figures;
    QTreeWidgetItem* m_runItem = nullptr;
    QTreeWidgetItem* m_rangeItem = nullptr;
};

// Paints a device's stacked bar under the device's name (the name column of the devices
// table), the bar's parts in its tooltip.
class DeviceBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void setBars(std::vector<std::vector<DeviceBarSegment>> bars) { m_bars = std::move(bars); }
    const std::vector<std::vector<DeviceBarSegment>>& bars() const { return m_bars; }
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option, const QModelIndex& index) override;

private:
    std::vector<std::vector<DeviceBarSegment>> m_bars;
};

}  // namespace wt::gui
