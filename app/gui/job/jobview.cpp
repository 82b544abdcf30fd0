#include "jobview.h"

#include "analysis/jobtable.h"
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/widgets/viewlabels.h"
#include "render/tablewriter.h"
#include "render/textformat.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>

#include <stdexcept>

namespace wt::gui {

JobResult loadJob(const QString& input)
{
    JobResult r;
    r.input = input;
    const std::vector<std::string> files = jobInputs({input.toStdString()});
    r.job = openJob(files);
    if (r.job.ranks.empty())
        throw std::runtime_error("none of the " + std::to_string(files.size()) + " file(s) of " + input.toStdString() +
                                 " could be read" + (r.job.failures.empty() ? std::string() : ": " + r.job.failures.front().error));
    r.layers = jobLayersTable(r.job);
    return r;
}

JobLoader::JobLoader(QObject* parent) : AsyncJob(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::JobResult>>();
}

void JobLoader::start(const QString& input)
{
    AsyncJob::start<std::shared_ptr<const JobResult>>(
        [input](const JobControl&) { return std::make_shared<const JobResult>(loadJob(input)); },
        [this](std::shared_ptr<const JobResult> result) { emit loaded(std::move(result)); });
}

namespace {

QTableView* makeTableView(TableModel* model, const QString& name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setObjectName(name);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(false);   // a wide last column reads as a gap
    return view;
}

void showTextColumns(QTableView* view, const Table& t)
{
    for (size_t c = 0; c < t.columns.size(); ++c)
        view->setColumnHidden(int(c), !t.columns[c].inText);
    view->resizeColumnsToContents();
}

}  // namespace

JobView::JobView(QWidget* parent)
    : QWidget(parent), m_loader(new JobLoader(this)), m_header(new QLabel(this)), m_info(new QLabel(this)),
      m_messageLabel(new QLabel(this)), m_layerBox(new QComboBox(this)), m_openButton(new QPushButton(QStringLiteral("Open rank"), this)),
      m_exportButton(new QToolButton(this)), m_plot(new JobPlot(this)), m_tabs(new QTabWidget(this)), m_ranksModel(new TableModel(this)),
      m_ranksView(makeTableView(m_ranksModel, QStringLiteral("jobRanks"), this)), m_layersModel(new TableModel(this)),
      m_layersView(makeTableView(m_layersModel, QStringLiteral("jobLayers"), this))
{
    setObjectName(QStringLiteral("jobView"));
    styleViewTitle(m_header);
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    styleViewMessage(m_messageLabel);
    m_layerBox->setObjectName(QStringLiteral("jobLayer"));
    m_layerBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_layerBox->setToolTip(QStringLiteral("What the chart and the ranks table show per rank: the step kernel time, or one layer's time"));
    m_openButton->setObjectName(QStringLiteral("jobOpenRank"));
    m_openButton->setToolTip(QStringLiteral("Open the selected rank's timeline in the main window (its activities load then)"));
    m_openButton->setEnabled(false);
    m_exportButton->setText(QStringLiteral("Export"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_exportButton);
    menu->addAction(QStringLiteral("Job chart (PNG, SVG, PDF)..."), this, [this] { exportChartInteractive(); });
    menu->addAction(QStringLiteral("Ranks table (CSV)..."), this, [this] { exportCsvInteractive(false); });
    menu->addAction(QStringLiteral("Layers table (CSV)..."), this, [this] { exportCsvInteractive(true); });
    m_exportButton->setMenu(menu);
    addExportShortcut(this, [this] { exportChartInteractive(); });

    m_tabs->addTab(m_ranksView, QStringLiteral("Ranks"));
    m_tabs->addTab(m_layersView, QStringLiteral("Layers across ranks"));
    auto* tools = new QHBoxLayout;
    tools->addWidget(new QLabel(QStringLiteral("Per rank:"), this));
    tools->addWidget(m_layerBox);
    tools->addStretch(1);
    tools->addWidget(m_openButton);
    tools->addWidget(m_exportButton);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layOutView(this, m_header, m_info, tools, m_messageLabel, split);

    connect(m_loader, &JobLoader::loaded, this, &JobView::setResult);
    connect(m_loader, &AsyncJob::failed, this, [this](const QString& why) {
        m_result.reset();
        showMessage(why);
        m_info->clear();
        emit failed(why);
    });
    connect(m_layerBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!m_filling && i >= 0)
            setLayer(m_layerBox->itemData(i).toString());
    });
    connect(m_plot, &ChartPlot::itemClicked, this, [this](int row) { selectRow(row); });
    connect(m_plot, &JobPlot::barDoubleClicked, this, [this](int row) { openRow(row); });
    connect(m_ranksView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_plot->setHighlighted(selectedRow());
        m_openButton->setEnabled(selectedRow() >= 0);
    });
    connect(m_ranksView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { openRow(index.row()); });
    connect(m_openButton, &QPushButton::clicked, this, [this] { openRow(selectedRow()); });
}

void JobView::load(const QString& input)
{
    m_input = input;
    m_header->setText(QStringLiteral("Job: %1").arg(input));
    m_info->setText(QStringLiteral("Opening the rank files (their stored figures, no activity)..."));
    showMessage(QString());
    m_loader->start(input);
}

void JobView::showMessage(const QString& message)
{
    m_message = message;
    m_messageLabel->setText(message);
    m_messageLabel->setVisible(!message.isEmpty());
}

void JobView::setResult(std::shared_ptr<const JobResult> result)
{
    m_result = std::move(result);
    const JobSummary& job = m_result->job;
    QStringList lines;
    for (const JobFailure& f : job.failures)
        lines << QStringLiteral("left out: ") + QString::fromStdString(render::printable(f.error));
    showMessage(lines.join(QLatin1Char('\n')));

    // The layer chooser: the step, then every layer, largest mean first (the layers table's order).
    m_filling = true;
    m_layerBox->clear();
    m_layerBox->addItem(QStringLiteral("median step kernel time"), QString());
    for (size_t r = 0; r < m_result->layers.rows.size(); ++r) {
        const QString name = QString::fromStdString(textOf(m_result->layers.at(r, "layer")));
        m_layerBox->addItem(QStringLiteral("layer ") + name, name);
    }
    if (!m_layer.isEmpty() && !jobHasLayer(job, m_layer.toStdString()))
        m_layer.clear();
    m_layerBox->setCurrentIndex(std::max(0, m_layerBox->findData(m_layer)));
    m_filling = false;

    m_layersModel->setTable(m_result->layers);
    showTextColumns(m_layersView, m_result->layers);
    fill();
    emit ready();
}

void JobView::setLayer(const QString& layer)
{
    m_layer = layer;
    if (!m_result)
        return;
    m_filling = true;
    m_layerBox->setCurrentIndex(std::max(0, m_layerBox->findData(layer)));
    m_filling = false;
    fill();
}

void JobView::fill()
{
    const JobSummary& job = m_result->job;
    const std::optional<std::string> layer = m_layer.isEmpty() ? std::nullopt : std::optional<std::string>(m_layer.toStdString());
    const int keep = selectedRow();
    Table ranks = jobRanksTable(job, layer);
    // Stragglers bold; every row has its bar's colour.
    std::vector<bool> bold;
    std::vector<QColor> colors;
    size_t stragglers = 0;
    for (size_t r = 0; r < ranks.rows.size(); ++r) {
        const bool s = numberOf(ranks.at(r, "straggler")) > 0;
        bold.push_back(s);
        colors.push_back(s ? LayerPalette::slowerColor() : LayerPalette::seriesColor(0));   // the chart's bar colours
        stragglers += s ? 1 : 0;
    }
    const QString count = QStringLiteral("%1 rank%2").arg(job.ranks.size()).arg(job.ranks.size() == 1 ? QString() : QStringLiteral("s"));
    m_header->setText(QStringLiteral("Job: %1, %2, %3 straggler%4")
                          .arg(QFileInfo(m_result->input).fileName().isEmpty() ? m_result->input : QFileInfo(m_result->input).fileName(),
                               count)
                          .arg(stragglers)
                          .arg(stragglers == 1 ? QString() : QStringLiteral("s")));
    QStringList info;
    for (const std::string& n : ranks.notes)
        info << QString::fromStdString(n);
    info << QStringLiteral("Opened from the files' stored figures; double-click a rank (row or bar) to load its timeline.");
    m_info->setText(info.join(QLatin1Char('\n')));
    m_plot->setData(jobChartData(ranks, job.rule, layer, QStringLiteral("Job of %1").arg(count)));
    m_ranksModel->setTable(std::move(ranks), std::move(colors));
    m_ranksModel->setBoldRows(std::move(bold));
    showTextColumns(m_ranksView, m_ranksModel->table());
    selectRow(keep);
}

int JobView::selectedRow() const
{
    const QModelIndexList rows = m_ranksView->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void JobView::selectRow(int row)
{
    if (row < 0 || row >= m_ranksModel->rowCount()) {
        m_ranksView->clearSelection();
        return;
    }
    m_tabs->setCurrentWidget(m_ranksView);
    m_ranksView->selectRow(row);
    m_ranksView->scrollTo(m_ranksModel->index(row, 0));
}

QString JobView::fileOfRow(int row) const
{
    if (!m_result || row < 0 || size_t(row) >= m_result->job.ranks.size())
        return {};
    return QString::fromStdString(m_result->job.ranks[size_t(row)].file);   // the ranks table's rows are job.ranks in order
}

void JobView::openRow(int row)
{
    const QString file = fileOfRow(row);
    if (file.isEmpty())
        return;
    selectRow(row);
    emit openRank(file);
}

QString JobView::caption() const
{
    return m_result ? QStringLiteral("job %1").arg(m_result->input) : QString();
}

bool JobView::exportChart(const QString& path, QString* error, QSize size)
{
    if (!m_result) {
        if (error)
            *error = m_message.isEmpty() ? QStringLiteral("nothing to export") : m_message;
        return false;
    }
    ExportOptions o;
    o.title = QStringLiteral("Job");
    o.caption = caption();
    o.size = QSize(1200, 700);
    return exportChartOrCsv(plotPainter(m_plot), QString::fromStdString(render::csv(m_ranksModel->table())), path, o, size, error);
}

void JobView::exportChartInteractive()
{
    if (!m_result)
        return;
    wt::gui::exportChartInteractive(this, plotPainter(m_plot), QStringLiteral("job"), QSize(1200, 700), QStringLiteral("Job"), caption(),
                                    QString());
}

void JobView::exportCsvInteractive(bool layers)
{
    if (!m_result)
        return;
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"),
                                                      layers ? QStringLiteral("job-layers.csv") : QStringLiteral("job-ranks.csv"),
                                                      QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    const Table& t = layers ? m_result->layers : m_ranksModel->table();
    if (!writeTextFile(path, QString::fromStdString(render::csv(t)), &error))
        QMessageBox::warning(this, QStringLiteral("Export table"), error);
}

}  // namespace wt::gui
