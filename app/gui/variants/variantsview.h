// The variants view: N runs of one workload that differ in one setting (the softmax variant, or
// a size), side by side (analysis/variants: computeVariants over the runs' stored totals). Four
// charts: the layer's forward and backward time per step per variant with speedup labels
// against the baseline, the layer's ops stacked per variant, the layer's share of the step, and
// the step time. The title names the setting that differs; a layer chooser (default softmax) and
// a baseline chooser (default adaptive) recompute. Runs that differ in two or more settings
// show analysis's refusal (naming each setting) instead of charts. Under the charts, the
// variants table (analysis/variantstable.h). Every chart exports to PNG, SVG, PDF (with a
// caption naming the runs) and CSV: the writer's CSV of the variants table (the ops chart: of
// the op table), `wheretime variants --csv [--ops]`. Runs load on a worker (CompareLoader).
#pragma once

#include "variantsplot.h"

#include "app/gui/compare/compareloader.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTableView;
class QToolButton;

namespace wt::gui {

class TableModel;

// "variants-layer", "variants-ops", "variants-share", "variants-step": export and report file names.
QString variantsChartFileName(VariantsPlot::Kind kind);

class VariantsView : public QWidget {
    Q_OBJECT
public:
    explicit VariantsView(QWidget* parent = nullptr);

    // Loads the runs on a worker; ready() or failed() follows.
    void load(std::vector<CompareSelector> runs);
    // Shows already loaded runs.
    void setRuns(std::shared_ptr<const CompareRuns> runs);
    CompareLoader* loader() const { return m_loader; }
    const std::vector<CompareSelector>& selectors() const { return m_selectors; }

    // Recompute for another layer / baseline value (the choosers call these).
    void setLayer(const QString& layer);
    void setBaseline(const QString& value);
    QString layer() const { return QString::fromStdString(m_options.layer); }
    QString baseline() const { return QString::fromStdString(m_options.baseline); }

    bool hasTable() const { return m_hasTable; }
    const VariantsTable& table() const { return m_table; }
    QString title() const;          // "Softmax layer by variant: gcn tiny, 4 runs"
    QString message() const;        // the refusal or load error; empty when the charts show
    VariantsPlot* plot(VariantsPlot::Kind kind) const;
    QComboBox* layerChooser() const { return m_layerBox; }
    QComboBox* baselineChooser() const { return m_baselineBox; }

    // The runs, one per line, and how they were compared; under every export.
    QString caption() const;
    // chartWidth > 0: that width (the report's chart size) instead of 1200; pngScale: pixels per
    // logical px of a PNG.
    bool exportChart(VariantsPlot::Kind kind, const QString& path, QString* error = nullptr, int chartWidth = 0,
                     double pngScale = 1.0);
    // The writer's CSV of the chart's table: the variants table (one row per run), for Ops the
    // op table (one row per op); raw ns and fractions.
    QString chartCsv(VariantsPlot::Kind kind) const;
    // The export dialog for a chart (Ctrl+E: the chart clicked last); the written path, empty
    // when cancelled or nothing is shown.
    QString exportChartInteractive(VariantsPlot::Kind kind);
    QString exportCurrentChart() { return exportChartInteractive(m_lastKind); }
    // The table under the charts (the variants table).
    TableModel* tableModel() const { return m_model; }

signals:
    void ready();
    void failed(const QString& message);

private:
    void recompute();
    void showMessage(const QString& message);
    void exportCsvInteractive(VariantsPlot::Kind kind);   // the chart's table (a file dialog)

    CompareLoader* m_loader;
    std::vector<CompareSelector> m_selectors;
    std::shared_ptr<const CompareRuns> m_runs;
    VariantsOptions m_options;
    VariantsTable m_table;
    bool m_hasTable = false;
    QString m_message;

    QLabel* m_header;
    QLabel* m_runsLabel;
    QLabel* m_messageLabel;
    QComboBox* m_layerBox;
    QComboBox* m_baselineBox;
    QToolButton* m_exportButton;
    QWidget* m_charts;
    VariantsPlot* m_plots[4];
    VariantsPlot::Kind m_lastKind = VariantsPlot::Kind::LayerTime;   // Ctrl+E's chart: the one clicked last
    TableModel* m_model;
    QTableView* m_grid;
};

}  // namespace wt::gui
