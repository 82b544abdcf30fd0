#include "variantsview.h"

#include "analysis/variantstable.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/core/timeformat.h"
#include "app/gui/widgets/viewlabels.h"
#include "render/tablewriter.h"

#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>

#include <algorithm>
#include <exception>

namespace wt::gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

const char* kindFileName(VariantsPlot::Kind k)
{
    switch (k) {
    case VariantsPlot::Kind::LayerTime: return "variants-layer";
    case VariantsPlot::Kind::Ops: return "variants-ops";
    case VariantsPlot::Kind::Share: return "variants-share";
    case VariantsPlot::Kind::StepTime: return "variants-step";
    }
    return "variants";
}

constexpr VariantsPlot::Kind kKinds[] = {VariantsPlot::Kind::LayerTime, VariantsPlot::Kind::Ops, VariantsPlot::Kind::Share,
                                         VariantsPlot::Kind::StepTime};

}  // namespace

QString variantsChartFileName(VariantsPlot::Kind kind)
{
    return QLatin1String(kindFileName(kind));
}

VariantsView::VariantsView(QWidget* parent)
    : QWidget(parent), m_loader(new CompareLoader(this)), m_header(new QLabel(this)), m_runsLabel(new QLabel(this)),
      m_messageLabel(new QLabel(this)), m_layerBox(new QComboBox(this)), m_baselineBox(new QComboBox(this)),
      m_exportButton(new QToolButton(this)), m_charts(new QWidget(this)), m_model(new TableModel(this)), m_grid(new QTableView(this))
{
    addExportShortcut(this, [this] { exportCurrentChart(); });   // this window's chart (a window of its own)
    setObjectName(QStringLiteral("variantsView"));
    styleViewTitle(m_header);
    m_header->setObjectName(QStringLiteral("variantsTitle"));
    m_runsLabel->setWordWrap(true);
    m_runsLabel->setTextFormat(Qt::RichText);
    m_messageLabel->setObjectName(QStringLiteral("variantsMessage"));
    styleViewMessage(m_messageLabel);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_layerBox->setToolTip(QStringLiteral("The layer compared (its forward, backward, ops and share)"));
    m_layerBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_baselineBox->setToolTip(QStringLiteral("The run the speedups are against"));
    m_baselineBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_exportButton->setText(QStringLiteral("Export"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_exportButton);
    for (VariantsPlot::Kind k : kKinds) {
        const QString what = k == VariantsPlot::Kind::LayerTime ? QStringLiteral("Forward / backward chart")
                             : k == VariantsPlot::Kind::Ops     ? QStringLiteral("Ops chart")
                             : k == VariantsPlot::Kind::Share   ? QStringLiteral("Share chart")
                                                                : QStringLiteral("Step time chart");
        menu->addAction(what + QStringLiteral(" (PNG, SVG, PDF)..."), this, [this, k] { exportChartInteractive(k); });
    }
    menu->addSeparator();
    menu->addAction(QStringLiteral("Variants table (CSV)..."), this, [this] { exportCsvInteractive(VariantsPlot::Kind::LayerTime); });
    menu->addAction(QStringLiteral("Ops table (CSV)..."), this, [this] { exportCsvInteractive(VariantsPlot::Kind::Ops); });
    m_exportButton->setMenu(menu);

    auto* grid = new QGridLayout(m_charts);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    for (int i = 0; i < 4; ++i) {
        m_plots[i] = new VariantsPlot(kKinds[i], m_charts);
        m_plots[i]->setObjectName(QLatin1String(kindFileName(kKinds[i])));
        m_plots[i]->setMinimumSize(300, 220);
        m_plots[i]->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(m_plots[i], &QWidget::customContextMenuRequested, this, [this, k = kKinds[i]](const QPoint&) { exportChartInteractive(k); });
        connect(m_plots[i], &QCustomPlot::mousePress, this, [this, k = kKinds[i]] { m_lastKind = k; });
        grid->addWidget(m_plots[i], i / 2, i % 2);
    }
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);

    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(m_model);
    sorted->setSortRole(TableModel::SortRole);
    m_grid->setModel(sorted);
    m_grid->setSortingEnabled(true);
    m_grid->sortByColumn(-1, Qt::AscendingOrder);   // the runs' order until a header is clicked
    m_grid->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grid->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_grid->verticalHeader()->hide();
    m_grid->horizontalHeader()->setStretchLastSection(true);
    m_grid->setAlternatingRowColors(true);
    m_grid->setObjectName(QStringLiteral("variantsTable"));

    auto* tools = new QHBoxLayout;
    tools->addWidget(new QLabel(QStringLiteral("Layer:"), this));
    tools->addWidget(m_layerBox);
    tools->addSpacing(12);
    tools->addWidget(new QLabel(QStringLiteral("Baseline:"), this));
    tools->addWidget(m_baselineBox);
    tools->addStretch(1);
    tools->addWidget(m_exportButton);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_charts);
    split->addWidget(m_grid);
    split->setStretchFactor(0, 5);
    split->setStretchFactor(1, 1);
    layOutView(this, m_header, m_runsLabel, tools, m_messageLabel, split);

    connect(m_loader, &CompareLoader::loaded, this, [this](std::shared_ptr<const CompareRuns> runs) { setRuns(std::move(runs)); });
    connect(m_loader, &CompareLoader::failed, this, [this](const QString& message) {
        showMessage(message);
        emit failed(message);
    });
    connect(m_layerBox, &QComboBox::activated, this, [this](int i) { setLayer(m_layerBox->itemText(i)); });
    connect(m_baselineBox, &QComboBox::activated, this, [this](int i) { setBaseline(m_baselineBox->itemText(i)); });
    m_header->setText(QStringLiteral("Variants"));
    m_runsLabel->setText(QStringLiteral("Select a run in the run browser and choose Compare variants (Ctrl+Shift+V)."));
}

void VariantsView::load(std::vector<CompareSelector> runs)
{
    m_selectors = runs;
    m_runsLabel->setText(QStringLiteral("Loading %1 runs...").arg(runs.size()));
    m_loader->start(std::move(runs));
}

void VariantsView::setRuns(std::shared_ptr<const CompareRuns> runs)
{
    m_runs = std::move(runs);
    if (m_selectors.size() != m_runs->size()) {
        m_selectors.clear();
        for (const auto& r : *m_runs)
            m_selectors.push_back({q(r->file), r->info.id});
    }
    // The layers the runs have (by layer, per step where they have steps): the layer chooser.
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : *m_runs)
        ptrs.push_back(r.get());
    QStringList layers;
    try {
        CompareOptions co;
        co.groupBy = GroupBy::Layer;
        for (const CompareGroup& g : compareRuns(ptrs, co).groups)
            layers << q(g.path);
    } catch (const std::exception&) {
        // computeVariants below says what is wrong with these runs.
    }
    layers.sort();
    m_layerBox->clear();
    m_layerBox->addItems(layers);
    if (!layers.contains(layer()) && !layers.isEmpty() && !layers.contains(QStringLiteral("softmax")))
        m_options.layer = layers.first().toStdString();
    m_layerBox->setCurrentText(layer());
    recompute();
    if (m_hasTable)
        emit ready();
    else
        emit failed(m_message);
}

void VariantsView::setLayer(const QString& layer)
{
    m_options.layer = layer.toStdString();
    recompute();
}

void VariantsView::setBaseline(const QString& value)
{
    m_options.baseline = value.toStdString();
    recompute();
}

QString VariantsView::message() const
{
    return m_message;
}

VariantsPlot* VariantsView::plot(VariantsPlot::Kind kind) const
{
    return m_plots[int(kind)];
}

void VariantsView::showMessage(const QString& message)
{
    m_message = message;
    m_messageLabel->setText(message);
    m_messageLabel->setVisible(!message.isEmpty());
    m_charts->setVisible(message.isEmpty());
    m_grid->setVisible(message.isEmpty());
    m_exportButton->setEnabled(message.isEmpty());
}

QString VariantsView::title() const
{
    if (!m_hasTable)
        return QStringLiteral("Variants");
    const RunInfo& first = m_table.rows.front().info;
    const QString setting = m_table.setting.empty() ? QStringLiteral("nothing (the runs agree in every setting)") : q(m_table.setting);
    QString layer = q(m_table.layer);
    if (!layer.isEmpty())
        layer[0] = layer[0].toUpper();
    return QStringLiteral("%1 layer by %2: %3%4, %5 runs")
        .arg(layer, setting, q(first.workload), first.preset.empty() ? QString() : QStringLiteral(" ") + q(first.preset))
        .arg(m_table.rows.size());
}

void VariantsView::recompute()
{
    if (!m_runs)
        return;
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : *m_runs)
        ptrs.push_back(r.get());
    QStringList lines;
    for (size_t i = 0; i < m_runs->size(); ++i) {
        const CompareRun& r = *(*m_runs)[i];
        lines << QStringLiteral("%1 <span style=\"color:#666\">(%2)</span>").arg(runCaption(r.info).toHtmlEscaped(), q(r.file).toHtmlEscaped());
    }
    m_runsLabel->setText(lines.join(QStringLiteral("<br>")));
    try {
        m_table = computeVariants(ptrs, m_options);
        m_hasTable = true;
    } catch (const std::exception& e) {
        m_hasTable = false;
        m_table = {};
        m_header->setText(QStringLiteral("Variants: cannot show these %1 runs side by side").arg(m_runs->size()));
        showMessage(QString::fromUtf8(e.what()));
        return;
    }
    showMessage({});
    m_header->setText(title());
    // The baseline chooser: the differing setting's values, the baseline selected.
    m_baselineBox->clear();
    for (const VariantRow& r : m_table.rows)
        m_baselineBox->addItem(q(r.value));
    m_baselineBox->setCurrentIndex(int(m_table.baseline));
    const VariantsChartData data = variantsChartData(m_table);
    for (VariantsPlot* p : m_plots)
        p->setData(data);
    QString notes;
    for (const std::string& n : m_table.notes)
        notes += q(n) + QLatin1Char('\n');
    if (!notes.isEmpty())
        m_runsLabel->setText(m_runsLabel->text() + QStringLiteral("<br><i>") + notes.trimmed().toHtmlEscaped() + QStringLiteral("</i>"));

    // The table under the charts: the variants table's text columns as the CLI prints them
    // (the writer's cell text), sortable by the raw values.
    const Table table = variantsTable(m_table);
    m_model->setTable(table);
    for (int c = 0; c < int(table.columns.size()); ++c)
        m_grid->setColumnHidden(c, !table.columns[size_t(c)].inText);
    m_grid->resizeColumnsToContents();
    // Every row visible, the charts get the rest.
    int h = m_grid->horizontalHeader()->height() + 2 * m_grid->frameWidth() + 2;
    for (int i = 0; i < m_model->rowCount(); ++i)
        h += m_grid->rowHeight(i);
    m_grid->setMinimumHeight(std::min(h, 260));
    m_grid->setMaximumHeight(h);
}

QString VariantsView::caption() const
{
    if (!m_hasTable)
        return {};
    QStringList lines;
    const QString setting = q(m_table.setting.empty() ? std::string("variant") : m_table.setting);
    for (const VariantRow& r : m_table.rows)
        lines << QStringLiteral("%1 %2: %3").arg(setting, q(r.value), runCaption(r.info));
    lines << QStringLiteral("layer %1 \u00b7 %2 \u00b7 baseline %3")
                 .arg(q(m_table.layer), variantsPerLabel(m_table), q(m_table.rows[m_table.baseline].value));
    return lines.join(QLatin1Char('\n'));
}

bool VariantsView::exportChart(VariantsPlot::Kind kind, const QString& path, QString* error, int chartWidth, double pngScale)
{
    if (!m_hasTable) {
        if (error)
            *error = m_message.isEmpty() ? QStringLiteral("nothing to export") : m_message;
        return false;
    }
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        return writeTextFile(path, chartCsv(kind), error);
    std::optional<ExportFormat> fmt = exportFormatOf(path);
    if (!fmt) {
        if (error)
            *error = QStringLiteral("%1: use .png, .svg, .pdf or .csv").arg(path);
        return false;
    }
    VariantsPlot* p = plot(kind);
    ExportOptions o;
    o.title = p->title();
    o.caption = caption();
    o.size = QSize(chartWidth > 0 ? chartWidth : 1200, p->preferredHeight() + captionHeight(o.caption));
    o.scale = pngScale > 0 ? pngScale : 1.0;
    return wt::gui::exportChart(plotPainter(p), path, *fmt, o, error);
}

QString VariantsView::chartCsv(VariantsPlot::Kind kind) const
{
    if (!m_hasTable)
        return {};
    // The writer's CSV of the table the chart draws: `wheretime variants --csv [--ops]` byte for byte.
    return QString::fromStdString(render::csv(kind == VariantsPlot::Kind::Ops ? variantOpsTable(m_table) : variantsTable(m_table)));
}

QString VariantsView::exportChartInteractive(VariantsPlot::Kind kind)
{
    if (!m_hasTable)
        return {};
    VariantsPlot* p = plot(kind);
    const QString cap = caption();
    return wt::gui::exportChartInteractive(this, plotPainter(p), QLatin1String(kindFileName(kind)) + QStringLiteral(".png"),
                                           QSize(1200, p->preferredHeight() + captionHeight(cap)), p->title(), cap,
                                           m_selectors.empty() ? QString() : m_selectors.front().file);
}

void VariantsView::exportCsvInteractive(VariantsPlot::Kind kind)
{
    if (!m_hasTable)
        return;
    const QString name = kind == VariantsPlot::Kind::Ops ? QStringLiteral("variants-ops.csv") : QStringLiteral("variants.csv");
    QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"), name, QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty() || (!m_selectors.empty() && refuseInputOverwrite(this, QStringLiteral("Export table"), path, m_selectors.front().file)))
        return;
    QString error;
    if (!exportChart(kind, path, &error))
        QMessageBox::warning(this, QStringLiteral("wheretime"), error);
}

}  // namespace wt::gui
