// The job view (issue 29 item 5): a directory of rank files (one `wheretime import RANK -o
// rank-N.wt` per rank, made wherever each rank ran) opened as one job from their stored figures,
// no activity loaded (analysis/jobsummary's openJob, on a worker): what `wheretime job DIR`
// prints. The ranks table (jobRanksTable; with a layer chosen, that layer's columns too) and the
// layers table (jobLayersTable), under a chart of each rank's median step kernel time (or the
// chosen layer's time per step) with the stragglers marked and the straggler rule's median and
// threshold drawn. A rank's detail loads only when the user opens it: a double click on its row or
// bar, or Open rank, emits openRank(file) (JobActions opens it in the main window). Files that
// could not be read are named, one line each; the rest of the job opens.
#pragma once

#include "jobplot.h"

#include "analysis/jobsummary.h"
#include "analysis/table.h"
#include "app/gui/core/asyncjob.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <string>

class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableView;
class QToolButton;

namespace wt::gui {

class TableModel;

struct JobResult {
    QString input;        // the directory (or file) as given
    JobSummary job;
    Table layers;         // jobLayersTable(job)
};

// Opens the job of `input` (a directory of .wt files, or one .wt file). Throws with one line:
// not a readable directory, no .wt files in it, none of its files readable.
JobResult loadJob(const QString& input);

class JobLoader : public AsyncJob {
    Q_OBJECT
public:
    explicit JobLoader(QObject* parent = nullptr);
    void start(const QString& input);

signals:
    void loaded(std::shared_ptr<const wt::gui::JobResult> result);
};

class JobView : public QWidget {
    Q_OBJECT
public:
    explicit JobView(QWidget* parent = nullptr);

    void load(const QString& input);
    void setResult(std::shared_ptr<const JobResult> result);
    // The layer whose time per rank the chart and the ranks table show (empty: the step).
    void setLayer(const QString& layer);
    QString layer() const { return m_layer; }

    JobLoader* loader() const { return m_loader; }
    const JobResult* result() const { return m_result.get(); }
    JobPlot* plot() const { return m_plot; }
    QTableView* ranksView() const { return m_ranksView; }
    QTableView* layersView() const { return m_layersView; }
    TableModel* ranksModel() const { return m_ranksModel; }
    TableModel* layersModel() const { return m_layersModel; }
    QComboBox* layerBox() const { return m_layerBox; }
    QString message() const { return m_message; }
    // The selected rank's row of the ranks table (-1 = none), in the table's own order.
    int selectedRow() const;
    void selectRow(int row);
    // The file of a row of the ranks table.
    QString fileOfRow(int row) const;
    // PNG, SVG, PDF: the chart; CSV: the ranks table (what `wheretime job DIR --csv` writes).
    bool exportChart(const QString& path, QString* error = nullptr, QSize size = {});

signals:
    void ready();
    void failed(const QString& message);
    void openRank(const QString& file);

private:
    void showMessage(const QString& message);
    void fill();
    void openRow(int row);
    void exportChartInteractive();
    void exportCsvInteractive(bool layers);
    QString caption() const;

    JobLoader* m_loader;
    QLabel* m_header;
    QLabel* m_info;
    QLabel* m_messageLabel;
    QComboBox* m_layerBox;
    QPushButton* m_openButton;
    QToolButton* m_exportButton;
    JobPlot* m_plot;
    QTabWidget* m_tabs;
    TableModel* m_ranksModel;
    QTableView* m_ranksView;
    TableModel* m_layersModel;
    QTableView* m_layersView;
    std::shared_ptr<const JobResult> m_result;
    QString m_input;
    QString m_layer;
    QString m_message;
    bool m_filling = false;
};

}  // namespace wt::gui
