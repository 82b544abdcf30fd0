#include "rooflineview.h"

#include "app/gui/core/tablemodel.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/widgets/viewlabels.h"
#include "render/tablewriter.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>

#include <stdexcept>

namespace wt::gui {

RooflineResult loadRoofline(const QString& file, int64_t runId, const QString& device)
{
    RooflineResult r;
    r.file = file;
    Database db(file.toStdString(), OpenMode::ReadOnly);
    for (const StoredCostModel& m : CostModelStore(db).list("device")) {
        std::string why;
        if (auto d = deviceFromJson(m.body, &why))
            r.devices.push_back(*d);
    }
    const size_t calibrations = r.devices.size();
    for (const DeviceSpec& d : deviceTable())
        r.devices.push_back(d);
    const std::string wanted = device.toStdString();
    r.device = -1;
    for (size_t i = 0; i < r.devices.size(); ++i)
        if (wanted.empty() ? (calibrations > 0 || r.devices[i].name == "h200") : r.devices[i].name == wanted) {
            r.device = int(i);
            break;
        }
    if (r.device < 0)
        throw std::runtime_error("unknown device '" + wanted + "' (not in the table, and the file holds no calibration of that name)");
    Reader reader(db);
    const RunSamples samples = loadRunSamples(reader, runId);
    if (samples.launches.empty())
        throw std::runtime_error("run " + std::to_string(runId) +
                                 " has no op features (imports and older files store none): the roofline needs a capture of a bundled workload");
    r.run = samples.run;
    r.steps = samples.steps;
    r.ops = rooflineOps(samples, r.devices[size_t(r.device)]);
    r.table = rooflineTable(r.ops, r.devices[size_t(r.device)]);
    return r;
}

RooflineLoader::RooflineLoader(QObject* parent) : AsyncJob(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::RooflineResult>>();
}

void RooflineLoader::start(const QString& file, int64_t runId, const QString& device)
{
    AsyncJob::start<std::shared_ptr<const RooflineResult>>(
        [file, runId, device](const JobControl&) { return std::make_shared<const RooflineResult>(loadRoofline(file, runId, device)); },
        [this](std::shared_ptr<const RooflineResult> result) { emit loaded(std::move(result)); });
}

RooflineView::RooflineView(QWidget* parent)
    : QWidget(parent), m_loader(new RooflineLoader(this)), m_header(new QLabel(this)), m_info(new QLabel(this)),
      m_messageLabel(new QLabel(this)), m_deviceBox(new QComboBox(this)), m_exportButton(new QToolButton(this)),
      m_plot(new RooflinePlot(this)), m_model(new TableModel(this)), m_tableView(new QTableView(this))
{
    setObjectName(QStringLiteral("rooflineView"));
    styleViewTitle(m_header);
    m_info->setWordWrap(true);
    styleViewMessage(m_messageLabel);
    m_deviceBox->setObjectName(QStringLiteral("rooflineDevice"));
    m_deviceBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_deviceBox->setToolTip(QStringLiteral("The device whose limits bound the ops: a calibration of this file (wheretime calibrate) or the device table"));
    m_exportButton->setText(QStringLiteral("Export"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_exportButton);
    menu->addAction(QStringLiteral("Roofline chart (PNG, SVG, PDF)..."), this, [this] { exportChartInteractive(); });
    menu->addAction(QStringLiteral("Roofline table (CSV)..."), this, [this] { exportCsvInteractive(); });
    m_exportButton->setMenu(menu);
    addExportShortcut(this, [this] { exportChartInteractive(); });

    m_tableView->setModel(m_model);
    m_tableView->setObjectName(QStringLiteral("rooflineTable"));
    m_tableView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tableView->setAlternatingRowColors(true);
    m_tableView->verticalHeader()->hide();
    m_tableView->horizontalHeader()->setStretchLastSection(true);

    auto* tools = new QHBoxLayout;
    tools->addWidget(new QLabel(QStringLiteral("Device:"), this));
    tools->addWidget(m_deviceBox);
    tools->addStretch(1);
    tools->addWidget(m_exportButton);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    split->addWidget(m_tableView);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layOutView(this, m_header, m_info, tools, m_messageLabel, split);

    connect(m_loader, &RooflineLoader::loaded, this, &RooflineView::setResult);
    connect(m_loader, &AsyncJob::failed, this, [this](const QString& why) {
        showMessage(why);
        emit failed(why);
    });
    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (m_filling || i < 0 || m_file.isEmpty())
            return;
        load(m_file, m_runId, m_deviceBox->itemData(i).toString());
    });
    connect(m_plot, &ChartPlot::itemClicked, this, [this](int row) { selectRow(row); });
    connect(m_tableView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { m_plot->setHighlighted(selectedRow()); });
}

void RooflineView::load(const QString& file, int64_t runId, const QString& device)
{
    m_file = file;
    m_runId = runId;
    m_header->setText(QStringLiteral("Roofline of run %1").arg(runId));
    m_info->setText(QStringLiteral("Loading..."));
    m_loader->start(file, runId, device);
}

void RooflineView::showMessage(const QString& message)
{
    m_message = message;
    m_messageLabel->setText(message);
    m_messageLabel->setVisible(!message.isEmpty());
    if (!message.isEmpty())
        m_info->clear();
}

void RooflineView::setResult(std::shared_ptr<const RooflineResult> result)
{
    m_result = std::move(result);
    showMessage(QString());
    const RooflineResult& r = *m_result;
    const DeviceSpec& device = r.devices[size_t(r.device)];
    m_filling = true;
    m_deviceBox->clear();
    for (const DeviceSpec& d : r.devices)
        m_deviceBox->addItem(QString::fromStdString(d.name + (d.title.empty() ? "" : ": " + d.title)), QString::fromStdString(d.name));
    m_deviceBox->setCurrentIndex(r.device);
    m_filling = false;

    m_header->setText(QStringLiteral("Roofline of run %1: %2").arg(r.run.id).arg(QString::fromStdString(r.run.name)));
    const Table rates = rooflineDeviceTable(device);
    QStringList parts;
    for (size_t c = 2; c < rates.columns.size(); ++c)
        if (!isNone(rates.rows[0][c]))
            parts << QString::fromStdString(rates.columns[c].title + " " + render::cellText(rates.columns[c], rates.rows[0][c]));
    size_t drawn = 0;
    const std::vector<RooflinePoint> points = rooflinePoints(r.ops);
    drawn = points.size();
    m_info->setText(QStringLiteral("%1 on %2, %3 steps. Against %4 (%5). Per step; bound = max(FLOPs / peak, bytes / bandwidth, "
                                   "exps / exp rate) + launches x launch cost; x bound = time / bound. %6 of %7 ops have FLOPs "
                                   "and bytes and are drawn; the table lists all.")
                        .arg(QString::fromStdString(r.run.workload + " " + r.run.variant), QString::fromStdString(r.run.device))
                        .arg(r.steps)
                        .arg(QString::fromStdString(device.name), parts.join(QStringLiteral(", ")))
                        .arg(drawn)
                        .arg(r.ops.size()));
    m_plot->setData(device, points, QStringLiteral("Roofline: %1 %2 on %3").arg(QString::fromStdString(r.run.workload),
                                                                                   QString::fromStdString(r.run.variant),
                                                                                   QString::fromStdString(device.name)),
                    QString::fromStdString(r.run.name));
    m_model->setTable(r.table);
    // The text table's columns, as `wheretime roofline` prints them (the rest is in the CSV).
    for (size_t c = 0; c < r.table.columns.size(); ++c)
        m_tableView->setColumnHidden(int(c), !r.table.columns[c].inText);
    m_tableView->resizeColumnsToContents();
    emit ready();
}

int RooflineView::selectedRow() const
{
    const QModelIndexList rows = m_tableView->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void RooflineView::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_tableView->clearSelection();
        return;
    }
    m_tableView->selectRow(row);
    m_tableView->scrollTo(m_model->index(row, 0));
}

QString RooflineView::caption() const
{
    return m_result ? runCaption(m_result->run) : QString();
}

bool RooflineView::exportChart(const QString& path, QString* error, QSize size)
{
    if (!m_result) {
        if (error)
            *error = m_message.isEmpty() ? QStringLiteral("nothing to export") : m_message;
        return false;
    }
    ExportOptions o;
    o.title = QStringLiteral("Roofline");
    o.caption = caption();
    o.size = QSize(1200, 800);
    return exportChartOrCsv(plotPainter(m_plot), QString::fromStdString(render::csv(m_result->table)), path, o, size, error);
}

void RooflineView::exportChartInteractive()
{
    if (!m_result)
        return;
    wt::gui::exportChartInteractive(this, plotPainter(m_plot), QStringLiteral("roofline"), QSize(1200, 800), QStringLiteral("Roofline"),
                                    caption(), m_file);
}

void RooflineView::exportCsvInteractive()
{
    if (!m_result)
        return;
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"), QStringLiteral("roofline.csv"), QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty() || refuseInputOverwrite(this, QStringLiteral("Export table"), path, m_file))
        return;
    QString error;
    if (!exportChart(path, &error))
        QMessageBox::warning(this, QStringLiteral("Export table"), error);
}

}  // namespace wt::gui
