// The scaling view of a sweep (`wheretime capture --sweep KEY=...`): analysis/sweep's table
// (loadSweep, from stored totals, on a worker thread) as two charts: the layer time per step and
// the layer's share of the step against the swept value, one line per layer (on a grid with
// variant, one line per variant of the chosen layer). A sweep chooser (the file's sweeps), a
// layer chooser, log axes, and under the charts the sweep table itself (analysis/sweeptable.h:
// every point's time, share, step, and with a predicted twin its time and error). Clicking a
// point emits runClicked (the main window opens that run); hovering shows its row. Both charts
// export to PNG, SVG, PDF, and CSV: the writer's CSV of the table, `wheretime sweep --csv`.
// With a predicted twin, the held-out error of its predictor (analysis/heldouterror.h, computed
// on the worker thread): a line beside the chosen layer and its table under the sweep table,
// the table `wheretime sweep` prints; a chooser picks the hold-out (workload, preset, variant, run).
#pragma once

#include "scalingplot.h"

#include "analysis/heldouterror.h"

#include "app/gui/core/asyncjob.h"

#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSplitter;
class QTableView;
class QToolButton;

namespace wt::gui {

class TableModel;

struct ScalingResult {
    QString file;
    std::vector<SweepInfo> sweeps;   // every sweep of the file (the chooser)
    SweepTable table;
    std::optional<SweepTable> predicted;   // the measured sweep's predicted twin (dashed lines)
    // With a twin: how far off its predictor was on runs it had not seen (none: heldOutWhy says why).
    std::optional<HeldOutError> heldOut;
    QString heldOutWhy;
};

// Loads a sweep on a worker thread (an AsyncJob; id empty: the newest measured one) with its
// predicted twin (analysis predictedTwin), if any; loaded or failed (one line).
class ScalingLoader : public AsyncJob {
    Q_OBJECT
public:
    explicit ScalingLoader(QObject* parent = nullptr);
    void start(const QString& file, const QString& sweepId, std::optional<HoldOut> holdOut = std::nullopt);

signals:
    void loaded(std::shared_ptr<const wt::gui::ScalingResult> result);
};

// Reads the sweep's table and, with a twin, the held-out error (holdOut none: the widest the
// runs allow) (throws SweepError, StorageError with one line).
ScalingResult loadScaling(const QString& file, const QString& sweepId, std::optional<HoldOut> holdOut = std::nullopt);

class ScalingView : public QWidget {
    Q_OBJECT
public:
    explicit ScalingView(QWidget* parent = nullptr);

    void load(const QString& file, const QString& sweepId = {});
    // Reloads the sweep with the held-out error of another hold-out.
    void setHoldOut(HoldOut holdOut);
    void setResult(std::shared_ptr<const ScalingResult> result);
    ScalingLoader* loader() const { return m_loader; }
    bool hasTable() const { return m_result != nullptr; }
    const SweepTable& table() const { return m_result->table; }
    QString file() const { return m_file; }
    QString message() const { return m_message; }

    // "" = every layer (the default of a one-key sweep); a grid with variant starts at softmax.
    void setLayer(const QString& layer);
    QString layer() const { return m_layer; }
    void setLogAxes(bool log);
    ScalingPlot* timePlot() const { return m_time; }
    ScalingPlot* sharePlot() const { return m_share; }
    QComboBox* layerChooser() const { return m_layerBox; }
    QCheckBox* logBox() const { return m_logBox; }
    QString title() const;
    QString caption() const;
    // size valid: the picture's size, caption included (the report's chart size), else 1200 wide
    // with 640 for the chart; pngScale:
    // pixels per logical px of a PNG.
    bool exportChart(ScalingPlot::Kind kind, const QString& path, QString* error = nullptr, QSize size = {},
                     double pngScale = 1.0);
    // The sweep table behind the charts (the chosen layer's rows, or every layer's): the
    // writer's CSV, the same bytes as `wheretime sweep FILE [--layer L] --csv`.
    QString chartCsv() const;
    // The export dialog for a chart (Ctrl+E: the chart clicked last, the time chart until
    // then); the written path, empty when cancelled or nothing is shown.
    QString exportChartInteractive(ScalingPlot::Kind kind);
    QString exportCurrentChart() { return exportChartInteractive(m_lastKind); }
    // The table under the charts (the same table).
    TableModel* tableModel() const { return m_model; }
    QTableView* tableView() const { return m_tableView; }
    // The held-out error (nullptr: none): the table under the sweep table (heldOutErrorTable of
    // the chosen layer), the line that quotes its rows, and the hold-out chooser.
    const HeldOutError* heldOut() const { return m_result && m_result->heldOut ? &*m_result->heldOut : nullptr; }
    TableModel* heldOutModel() const { return m_heldOutModel; }
    QLabel* heldOutLabel() const { return m_heldOutLabel; }
    QComboBox* holdOutChooser() const { return m_holdOutBox; }

signals:
    void ready();
    void failed(const QString& message);
    // A point was clicked: that run of the sweep's file.
    void runClicked(const QString& file, qint64 runId);

private:
    void refresh();
    void refreshHeldOut();
    void onPoint(ScalingPlot* plot, int line, int point);
    void exportCsvInteractive();
    QSize exportSize() const;

    ScalingLoader* m_loader;
    QString m_file;
    QString m_message;
    ScalingPlot::Kind m_lastKind = ScalingPlot::Kind::Time;
    std::shared_ptr<const ScalingResult> m_result;
    QString m_layer;
    QLabel* m_header;
    QLabel* m_info;
    QLabel* m_messageLabel;
    QComboBox* m_sweepBox;
    QComboBox* m_layerBox;
    QCheckBox* m_logBox;
    QToolButton* m_exportButton;
    QWidget* m_charts;
    ScalingPlot* m_time;
    ScalingPlot* m_share;
    TableModel* m_model;
    QTableView* m_tableView;
    std::optional<HoldOut> m_holdOut;   // none: the widest
    QComboBox* m_holdOutBox;
    QLabel* m_heldOutLabel;
    TableModel* m_heldOutModel;
    QTableView* m_heldOutView;
    QWidget* m_heldOutPane;
    QSplitter* m_split = nullptr;
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::ScalingResult>)
