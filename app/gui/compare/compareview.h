// The compare view: runs matched by structure (analysis/compare), shown as grouped bars per
// layer (runs side by side), the delta chart (OTHER - BASE, sorted by the size of the change)
// and the table of matched groups plus those found in some runs only. Clicking a layer (a bar,
// a delta bar or a table row, double-click) drills into its ops; clicking an op (or "Kernel
// diff") shows the kernel-level diff of the layer (or op): added, removed, changed, swapped,
// moved; a clicked row's group shows BASE's and OTHER's histograms overlaid, per step
// (CompareHistogram). The breadcrumb goes back up. Runs load on a worker (CompareLoader). Every chart and
// table exports (PNG/SVG/PDF, CSV) with a caption naming the runs and how they were compared.
#pragma once

#include "compareloader.h"
#include "comparemodel.h"
#include "compareplot.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QToolButton;

namespace wt::gui {

class CompareHistogram;

enum class ExportFormat;

class CompareView : public QWidget {
    Q_OBJECT
public:
    enum class Level { Groups, Ops, Kernels };

    explicit CompareView(QWidget* parent = nullptr);

    // Loads the runs on a worker; ready() or failed() follows.
    void load(std::vector<CompareSelector> runs);
    // Shows already loaded runs (BASE first, at least two).
    void setRuns(std::shared_ptr<const CompareRuns> runs);
    const std::shared_ptr<const CompareRuns>& runs() const { return m_runs; }
    CompareLoader* loader() const { return m_loader; }
    const std::vector<CompareSelector>& selectors() const { return m_selectors; }

    Level level() const { return m_level; }
    const std::string& layer() const { return m_layer; }
    const std::string& op() const { return m_op; }
    // The top level: by layer (by kernel name when a run has no scopes).
    void showGroups();
    // A layer's ops; false when the layer is unknown or the top level is not by layer.
    bool drillIntoLayer(const std::string& layer);
    // The kernel diff of the current layer, or of one op of it.
    bool showKernelDiff(const std::string& op = {});
    void up();

    const Comparison& comparison() const { return m_model->comparison(); }
    const KernelDiff& kernelDiff() const { return m_diffModel->diff(); }
    CompareModel* model() const { return m_model; }
    KernelDiffModel* diffModel() const { return m_diffModel; }
    QTableView* table() const { return m_table; }
    // BASE's and OTHER's histogram of the clicked row's group, per step (comparehistogram.h).
    CompareHistogram* histogram() const { return m_histogram; }
    // Ctrl+E: the export dialog for the chart clicked last (the grouped bars until then);
    // returns the written path, empty when cancelled.
    QString exportCurrentChart();
    QString exportPlotInteractive(ComparePlot* plot);
    ComparePlot* barsPlot() const { return m_bars; }
    ComparePlot* deltaPlot() const { return m_delta; }
    QString breadcrumbText() const;
    QString summaryText() const;

    // "BASE: <run caption>\nOTHER: <run caption>\n<per step ...> · <level>".
    QString caption() const;
    bool exportBars(const QString& path, QString* error = nullptr);
    bool exportDelta(const QString& path, QString* error = nullptr);
    bool exportTableCsv(const QString& path, QString* error = nullptr);

signals:
    void ready();
    void failed(const QString& message);
    // A layer picked in the view (empty: none): the synchronized timelines highlight it.
    void layerSelected(const QString& layer);
    void timelinesRequested();

private:
    void refresh();
    void onRowClicked(int row);      // a chart row or table row (source order)
    void onRowActivated(int row);
    void selectRow(int row);
    void exportMenu();
    bool exportPlot(ComparePlot* plot, const QString& path, QString* error);
    QSize exportSize(const ComparePlot* plot) const;   // logical px, caption included

    CompareLoader* m_loader;
    std::vector<CompareSelector> m_selectors;
    std::shared_ptr<const CompareRuns> m_runs;
    Level m_level = Level::Groups;
    std::string m_layer, m_op;
    bool m_topIsLayer = false;

    QLabel* m_header;
    QLabel* m_breadcrumb;
    QLabel* m_summary;
    QPushButton* m_upButton;
    QPushButton* m_diffButton;
    QPushButton* m_timelinesButton;
    QToolButton* m_exportButton;
    ComparePlot* m_bars;
    ComparePlot* m_delta;
    ComparePlot* m_lastPlot = nullptr;
    QTableView* m_table;
    CompareHistogram* m_histogram;
    CompareModel* m_model;
    KernelDiffModel* m_diffModel;
    QSortFilterProxyModel* m_proxy;
};

}  // namespace wt::gui
