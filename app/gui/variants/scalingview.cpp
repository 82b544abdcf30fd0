#include "scalingview.h"

#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/widgets/viewlabels.h"

#include "storage/database.h"
#include "storage/reader.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <exception>

namespace wt::gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

const QString kAllLayers = QStringLiteral("(every layer)");

}  // namespace

ScalingResult loadScaling(const QString& file, const QString& sweepId, std::optional<HoldOut> holdOut)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    ScalingResult r;
    r.file = file;
    r.sweeps = listSweeps(reader);
    r.table = loadSweep(reader, sweepId.toStdString(), {}, file.toStdString());
    if (auto twin = predictedTwin(r.sweeps, r.table.sweep)) {
        r.predicted = loadSweep(reader, twin->id, {}, file.toStdString());
        // What `wheretime sweep` prints after its table: the same analysis call.
        HeldOutErrorOptions o = heldOutOptionsFor(db, reader, r.predicted->sweep);
        o.holdOut = holdOut;
        try {
            r.heldOut = computeHeldOutError(loadEvaluationInput(db, file.toStdString()), o);
        } catch (const std::exception& e) {   // too few runs, one group, a damaged calibration
            r.heldOutWhy = q(e.what());
        }
    }
    return r;
}

ScalingLoader::ScalingLoader(QObject* parent) : AsyncJob(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::ScalingResult>>();
}

void ScalingLoader::start(const QString& file, const QString& sweepId, std::optional<HoldOut> holdOut)
{
    AsyncJob::start<std::shared_ptr<const ScalingResult>>(
        [file, sweepId, holdOut](const JobControl&) { return std::make_shared<const ScalingResult>(loadScaling(file, sweepId, holdOut)); },
        [this](std::shared_ptr<const ScalingResult> result) { emit loaded(std::move(result)); });
}

ScalingView::ScalingView(QWidget* parent)
    : QWidget(parent), m_loader(new ScalingLoader(this)), m_header(new QLabel(this)), m_info(new QLabel(this)),
      m_messageLabel(new QLabel(this)), m_sweepBox(new QComboBox(this)), m_layerBox(new QComboBox(this)),
      m_logBox(new QCheckBox(QStringLiteral("Log axes"), this)), m_exportButton(new QToolButton(this)), m_charts(new QWidget(this)),
      m_time(new ScalingPlot(ScalingPlot::Kind::Time, m_charts)), m_share(new ScalingPlot(ScalingPlot::Kind::Share, m_charts)),
      m_model(new TableModel(this)), m_tableView(new QTableView(this)), m_holdOutBox(new QComboBox(this)),
      m_heldOutLabel(new QLabel(this)), m_heldOutModel(new TableModel(this)), m_heldOutView(new QTableView(this)),
      m_heldOutPane(new QWidget(this))
{
    setObjectName(QStringLiteral("scalingView"));
    styleViewTitle(m_header);
    m_info->setWordWrap(true);
    styleViewMessage(m_messageLabel);
    m_sweepBox->setToolTip(QStringLiteral("The sweeps of this file"));
    m_sweepBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_layerBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_layerBox->setToolTip(QStringLiteral("One line per layer, or the lines of one layer (one per variant on a grid)"));
    m_logBox->setToolTip(QStringLiteral("Logarithmic x (numeric values) and y axes"));
    m_exportButton->setText(QStringLiteral("Export"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_exportButton);
    menu->addAction(QStringLiteral("Layer time chart (PNG, SVG, PDF)..."), this, [this] { exportChartInteractive(ScalingPlot::Kind::Time); });
    menu->addAction(QStringLiteral("Layer share chart (PNG, SVG, PDF)..."), this, [this] { exportChartInteractive(ScalingPlot::Kind::Share); });
    menu->addSeparator();
    menu->addAction(QStringLiteral("Sweep table (CSV)..."), this, [this] { exportCsvInteractive(); });
    m_exportButton->setMenu(menu);
    addExportShortcut(this, [this] { exportCurrentChart(); });   // this window's chart (a window of its own)
    connect(m_time, &QCustomPlot::mousePress, this, [this] { m_lastKind = ScalingPlot::Kind::Time; });
    connect(m_share, &QCustomPlot::mousePress, this, [this] { m_lastKind = ScalingPlot::Kind::Share; });
    m_time->setObjectName(QStringLiteral("scalingTime"));
    m_share->setObjectName(QStringLiteral("scalingShare"));

    auto* charts = new QHBoxLayout(m_charts);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addWidget(m_time, 1);
    charts->addWidget(m_share, 1);
    auto* tools = new QHBoxLayout;
    tools->addWidget(new QLabel(QStringLiteral("Sweep:"), this));
    tools->addWidget(m_sweepBox);
    tools->addSpacing(12);
    tools->addWidget(new QLabel(QStringLiteral("Layer:"), this));
    tools->addWidget(m_layerBox);
    tools->addSpacing(12);
    tools->addWidget(m_logBox);
    tools->addStretch(1);
    tools->addWidget(m_exportButton);
    // The table under the charts: the sweep table's rows (what the CSV export writes), its
    // text columns as the CLI prints them, sortable by the raw values.
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(m_model);
    sorted->setSortRole(TableModel::SortRole);
    m_tableView->setModel(sorted);
    m_tableView->setObjectName(QStringLiteral("scalingTable"));
    m_tableView->setSortingEnabled(true);
    m_tableView->sortByColumn(-1, Qt::AscendingOrder);   // the table's order until a header is clicked
    m_tableView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->setAlternatingRowColors(true);
    m_tableView->verticalHeader()->hide();
    m_tableView->horizontalHeader()->setStretchLastSection(true);
    // The held-out error under the sweep table: its line (the chosen layer's rows) and its table.
    m_holdOutBox->setObjectName(QStringLiteral("holdOutChooser"));
    m_holdOutBox->setToolTip(QStringLiteral("Which runs the predictor is refitted without: every run of one workload, preset, variant, or each run"));
    m_heldOutLabel->setObjectName(QStringLiteral("heldOutLabel"));
    m_heldOutLabel->setWordWrap(true);
    m_heldOutLabel->setTextFormat(Qt::PlainText);
    m_heldOutView->setObjectName(QStringLiteral("heldOutTable"));
    m_heldOutView->setModel(m_heldOutModel);
    m_heldOutView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_heldOutView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_heldOutView->verticalHeader()->hide();
    m_heldOutView->horizontalHeader()->setStretchLastSection(false);
    auto* paneLayout = new QVBoxLayout(m_heldOutPane);
    paneLayout->setContentsMargins(0, 0, 0, 0);
    auto* paneTools = new QHBoxLayout;
    paneTools->addWidget(new QLabel(QStringLiteral("Held-out error, held out by:"), m_heldOutPane));
    paneTools->addWidget(m_holdOutBox);
    paneTools->addStretch(1);
    paneLayout->addLayout(paneTools);
    paneLayout->addWidget(m_heldOutLabel);
    paneLayout->addWidget(m_heldOutView, 1);
    m_heldOutPane->hide();
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_charts);
    split->addWidget(m_tableView);
    split->addWidget(m_heldOutPane);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 1);
    m_split = split;
    layOutView(this, m_header, m_info, tools, m_messageLabel, split);

    connect(m_loader, &ScalingLoader::loaded, this, [this](std::shared_ptr<const ScalingResult> r) { setResult(std::move(r)); });
    connect(m_loader, &ScalingLoader::failed, this, [this](const QString& message) {
        m_message = message;
        m_messageLabel->setText(message);
        m_messageLabel->show();
        m_split->hide();
        emit failed(message);
    });
    connect(m_sweepBox, &QComboBox::activated, this, [this](int i) {
        const QString id = m_sweepBox->itemData(i).toString();
        if (m_result && id != q(m_result->table.sweep.id))
            load(m_file, id);
    });
    connect(m_layerBox, &QComboBox::activated, this, [this](int i) {
        setLayer(m_layerBox->itemText(i) == kAllLayers ? QString() : m_layerBox->itemText(i));
    });
    connect(m_logBox, &QCheckBox::toggled, this, &ScalingView::setLogAxes);
    connect(m_holdOutBox, &QComboBox::activated, this, [this](int i) {
        if (auto h = parseHoldOut(m_holdOutBox->itemData(i).toString().toStdString()))
            setHoldOut(*h);
    });
    connect(m_time, &ScalingPlot::pointClicked, this, [this](int l, int p) { onPoint(m_time, l, p); });
    connect(m_share, &ScalingPlot::pointClicked, this, [this](int l, int p) { onPoint(m_share, l, p); });
    m_header->setText(QStringLiteral("Scaling"));
    m_info->setText(QStringLiteral("Capture a sweep (wheretime capture --sweep hidden=256,512,1024) and open it from the run browser."));
}

void ScalingView::load(const QString& file, const QString& sweepId)
{
    m_file = file;
    m_info->setText(QStringLiteral("Loading the sweep..."));
    m_loader->start(file, sweepId, m_holdOut);
}

void ScalingView::setHoldOut(HoldOut holdOut)
{
    m_holdOut = holdOut;
    if (!m_result)
        return;
    // One fit per group: seconds for leave-one-run-out of a large file; no stale figures meanwhile.
    m_heldOutModel->setTable(Table {});
    m_heldOutLabel->setText(QStringLiteral("Computing the held-out error (held out by %1: one fit per group)...").arg(q(holdOutName(holdOut))));
    load(m_file, q(m_result->table.sweep.id));
}

void ScalingView::setResult(std::shared_ptr<const ScalingResult> result)
{
    const bool sameSweep = m_result && result && m_result->table.sweep.id == result->table.sweep.id;
    m_result = std::move(result);
    m_file = m_result->file;
    m_message.clear();
    m_messageLabel->hide();
    m_split->show();
    const SweepTable& t = m_result->table;
    m_sweepBox->clear();
    for (const SweepInfo& s : m_result->sweeps) {
        QString label = QStringLiteral("%1: %2%3 (%4 runs)")
                            .arg(q(s.id), q(s.key), s.key2.empty() ? QString() : QStringLiteral(" x ") + q(s.key2))
                            .arg(s.runIds.size());
        m_sweepBox->addItem(label, q(s.id));
        if (s.id == t.sweep.id)
            m_sweepBox->setCurrentIndex(m_sweepBox->count() - 1);
    }
    m_layerBox->clear();
    m_layerBox->addItem(kAllLayers);
    for (const std::string& l : t.layers)
        m_layerBox->addItem(q(l));
    // A grid's lines multiply by its second key: start at one layer (softmax when there is one).
    if (!sameSweep) {
        m_layer.clear();
        if (!t.groupKey.empty() && !t.layers.empty())
            m_layer = std::find(t.layers.begin(), t.layers.end(), "softmax") != t.layers.end() ? QStringLiteral("softmax") : q(t.layers.front());
    }
    m_layerBox->setCurrentText(m_layer.isEmpty() ? kAllLayers : m_layer);
    m_header->setText(title());
    QString info = QStringLiteral("%1 \u00b7 %2 %3 \u00b7 %4 runs \u00b7 started %5")
                       .arg(m_file, q(t.sweep.workload), q(t.sweep.preset))
                       .arg(t.sweep.runIds.size())
                       .arg(q(t.sweep.startedAt));
    for (const std::string& n : t.notes)
        info += QStringLiteral("\n") + q(n);
    m_info->setText(info);
    m_holdOutBox->clear();
    if (m_result->heldOut) {
        for (HoldOut h : m_result->heldOut->possible) {
            m_holdOutBox->addItem(q(holdOutName(h)), q(holdOutName(h)));
            if (h == m_result->heldOut->holdOut)
                m_holdOutBox->setCurrentIndex(m_holdOutBox->count() - 1);
        }
    }
    m_heldOutPane->setVisible(m_result->predicted.has_value());
    refresh();
    emit ready();
}

QString ScalingView::title() const
{
    if (!m_result)
        return QStringLiteral("Scaling");
    const SweepTable& t = m_result->table;
    return QStringLiteral("Scaling with %1%2: sweep %3")
        .arg(q(t.xKey), t.groupKey.empty() ? QString() : QStringLiteral(" (one line per %1)").arg(q(t.groupKey)), q(t.sweep.id));
}

void ScalingView::setLayer(const QString& layer)
{
    m_layer = layer;
    m_layerBox->setCurrentText(layer.isEmpty() ? kAllLayers : layer);
    refresh();
}

void ScalingView::setLogAxes(bool log)
{
    if (m_logBox->isChecked() != log)
        m_logBox->setChecked(log);   // comes back here through toggled
    m_time->setLogAxes(log);
    m_share->setLogAxes(log);
}

void ScalingView::refresh()
{
    if (!m_result)
        return;
    const ScalingChartData d = scalingChartData(m_result->table, m_file, m_layer, m_result->predicted ? &*m_result->predicted : nullptr);
    m_time->setData(d);
    m_share->setData(d);
    // The rows in the colour of their line (predicted rows in their measured line's).
    std::vector<QColor> colors(d.table.rows.size());
    for (const ScalingLine& l : d.lines)
        for (const ScalingPoint& p : l.points)
            colors[size_t(p.row)] = l.color;
    m_model->setTable(d.table, std::move(colors));
    for (int c = 0; c < int(d.table.columns.size()); ++c)
        m_tableView->setColumnHidden(c, !d.table.columns[size_t(c)].inText);
    m_tableView->resizeColumnsToContents();
    refreshHeldOut();
}

// The held-out table of the chosen layer and the line that quotes it: every figure read from
// the table's cells as the writer renders them (the model's display text), none recomputed.
void ScalingView::refreshHeldOut()
{
    if (!m_result->heldOut) {
        m_heldOutModel->setTable(Table {});
        m_heldOutLabel->setText(m_result->predicted ? QStringLiteral("No held-out error: %1").arg(m_result->heldOutWhy) : QString());
        return;
    }
    const Table t = heldOutErrorTable(*m_result->heldOut, m_layer.toStdString(), m_result->table.sweep.runIds);
    m_heldOutModel->setTable(t);
    for (int c = 0; c < int(t.columns.size()); ++c)
        m_heldOutView->setColumnHidden(c, !t.columns[size_t(c)].inText);
    m_heldOutView->resizeColumnsToContents();
    auto cell = [&](size_t row, const char* id) {
        return m_heldOutModel->data(m_heldOutModel->index(int(row), int(t.column(id))), Qt::DisplayRole).toString();
    };
    QStringList parts;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const std::string of = std::get<std::string>(t.rows[r][t.column(kHeldOutErrorOfColumn)]);
        const QString what = of == "layer" ? q(std::get<std::string>(t.rows[r][t.column(kHeldOutLayerColumn)])) : q(of);
        if (of == "layer" && m_layer.isEmpty())
            continue;   // every layer: the table lists them; the line quotes the summary rows
        parts << QStringLiteral("%1 %2 (mean error %3; roofline %4)")
                     .arg(what, cell(r, kHeldOutMapeModelColumn), cell(r, kHeldOutBiasColumn), cell(r, kHeldOutMapeRooflineColumn));
    }
    const HeldOutError& e = *m_result->heldOut;
    m_heldOutLabel->setText(QStringLiteral("Predictor %1 on runs it had not seen (held out by %2, %3 refitted without each of %4 groups), MAPE of the time per step: %5")
                                .arg(q(e.predictor.empty() ? std::string("(none)") : e.predictor), q(holdOutName(e.holdOut)),
                                     q(predictorKindName(e.model)))
                                .arg(e.evaluation.groups.size())
                                .arg(parts.join(QStringLiteral(" \u00b7 "))));
}

void ScalingView::onPoint(ScalingPlot* plot, int line, int point)
{
    ScalingPlot* other = plot == m_time ? m_share : m_time;
    other->setSelectedPoint({line, point});
    emit runClicked(m_file, plot->chart().lines[size_t(line)].points[size_t(point)].runId);
}

QString ScalingView::caption() const
{
    if (!m_result)
        return {};
    const SweepTable& t = m_result->table;
    QStringList vals;
    for (const std::string& v : t.xValues)
        vals << q(v);
    return QStringLiteral("sweep %1 of %2 %3 (%4 runs, started %5) in %6\n%7 = %8%9 \u00b7 kernel time per step (mean of the steps)")
        .arg(q(t.sweep.id), q(t.sweep.workload), q(t.sweep.preset))
        .arg(t.sweep.runIds.size())
        .arg(q(t.sweep.startedAt), m_file, q(t.xKey), vals.join(QStringLiteral(", ")),
             t.groupKey.empty() ? QString() : QStringLiteral(" \u00b7 one line per %1").arg(q(t.groupKey))) +
        (m_result->predicted ? QStringLiteral("\ndashed: predicted (sweep %1, %2 runs, backend model)")
                                   .arg(q(m_result->predicted->sweep.id))
                                   .arg(m_result->predicted->sweep.runIds.size())
                             : QString());
}

bool ScalingView::exportChart(ScalingPlot::Kind kind, const QString& path, QString* error, QSize size, double pngScale)
{
    if (!m_result) {
        if (error)
            *error = m_message.isEmpty() ? QStringLiteral("nothing to export") : m_message;
        return false;
    }
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        return writeTextFile(path, chartCsv(), error);
    std::optional<ExportFormat> fmt = exportFormatOf(path);
    if (!fmt) {
        if (error)
            *error = QStringLiteral("%1: use .png, .svg, .pdf or .csv").arg(path);
        return false;
    }
    ScalingPlot* p = kind == ScalingPlot::Kind::Time ? m_time : m_share;
    ExportOptions o;
    o.title = p->title();
    o.caption = caption();
    o.size = size.isValid() && !size.isEmpty() ? size : exportSize();
    o.scale = pngScale > 0 ? pngScale : 1.0;
    return wt::gui::exportChart(plotPainter(p), path, *fmt, o, error);
}

QString ScalingView::chartCsv() const
{
    if (!m_result)
        return {};
    return m_model->toCsv();   // the writer's CSV of the sweep table: `wheretime sweep --csv` byte for byte
}

QSize ScalingView::exportSize() const
{
    return QSize(1200, 640 + captionHeight(caption()));
}

QString ScalingView::exportChartInteractive(ScalingPlot::Kind kind)
{
    if (!m_result)
        return {};
    ScalingPlot* p = kind == ScalingPlot::Kind::Time ? m_time : m_share;
    const QString name = kind == ScalingPlot::Kind::Time ? QStringLiteral("scaling-time.png") : QStringLiteral("scaling-share.png");
    return wt::gui::exportChartInteractive(this, plotPainter(p), name, exportSize(), p->title(), caption(), m_file);
}

void ScalingView::exportCsvInteractive()
{
    if (!m_result)
        return;
    QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"), QStringLiteral("scaling.csv"), QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty() || refuseInputOverwrite(this, QStringLiteral("Export table"), path, m_file))
        return;
    QString error;
    if (!exportChart(ScalingPlot::Kind::Time, path, &error))
        QMessageBox::warning(this, QStringLiteral("wheretime"), error);
}

}  // namespace wt::gui
