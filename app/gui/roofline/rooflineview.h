// The roofline view of a capture: analysis/rooflinetable's table of the run's ops against a
// device (loadRoofline, on a worker thread: the op features a capture stores), as a log-log
// roofline chart (RooflinePlot) above the table itself (what `wheretime roofline` prints, the
// CSV export writes). A device chooser: the calibrations stored in the file (this CPU, from
// `wheretime calibrate`) and the device table (h200, ...). A point click selects its table
// row, a row selects its point. Exports: the chart (PNG, SVG, PDF) and the table (CSV).
#pragma once

#include "rooflineplot.h"

#include "analysis/costmodel.h"
#include "analysis/rooflinetable.h"
#include "app/gui/core/asyncjob.h"
#include "storage/types.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTableView;
class QToolButton;

namespace wt::gui {

class TableModel;

struct RooflineResult {
    QString file;
    RunInfo run;
    int64_t steps = 0;
    std::vector<DeviceSpec> devices;   // the file's calibrations, then the device table
    int device = 0;                    // the one priced against
    std::vector<RooflineOp> ops;
    Table table;                       // rooflineTable(ops, devices[device]): no folding
};

// Reads the run's op features and prices them on `device` (empty: the file's first calibration,
// else h200). Throws with one line: a bad file, a run without op features, an unknown device.
RooflineResult loadRoofline(const QString& file, int64_t runId, const QString& device = {});

class RooflineLoader : public AsyncJob {
    Q_OBJECT
public:
    explicit RooflineLoader(QObject* parent = nullptr);
    void start(const QString& file, int64_t runId, const QString& device);

signals:
    void loaded(std::shared_ptr<const wt::gui::RooflineResult> result);
};

class RooflineView : public QWidget {
    Q_OBJECT
public:
    explicit RooflineView(QWidget* parent = nullptr);

    void load(const QString& file, int64_t runId, const QString& device = {});
    void setResult(std::shared_ptr<const RooflineResult> result);
    RooflineLoader* loader() const { return m_loader; }
    const RooflineResult* result() const { return m_result.get(); }
    RooflinePlot* plot() const { return m_plot; }
    QTableView* tableView() const { return m_tableView; }
    TableModel* model() const { return m_model; }
    QString message() const { return m_message; }
    // The table row shown selected (-1 = none), in the table's own order.
    int selectedRow() const;
    void selectRow(int row);
    bool exportChart(const QString& path, QString* error = nullptr, QSize size = {});

signals:
    void ready();
    void failed(const QString& message);

private:
    void showMessage(const QString& message);
    void exportChartInteractive();
    void exportCsvInteractive();
    QString caption() const;

    RooflineLoader* m_loader;
    QLabel* m_header;
    QLabel* m_info;
    QLabel* m_messageLabel;
    QComboBox* m_deviceBox;
    QToolButton* m_exportButton;
    RooflinePlot* m_plot;
    TableModel* m_model;
    QTableView* m_tableView;
    std::shared_ptr<const RooflineResult> m_result;
    QString m_file;
    int64_t m_runId = 0;
    QString m_message;
    bool m_filling = false;
};

}  // namespace wt::gui
