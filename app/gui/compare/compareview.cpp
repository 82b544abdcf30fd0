#include "compareview.h"

#include "comparehistogram.h"

#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
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

QString q(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), m_loader(new CompareLoader(this)), m_header(new QLabel(this)), m_breadcrumb(new QLabel(this)),
      m_summary(new QLabel(this)), m_upButton(new QPushButton(QStringLiteral("Up"), this)),
      m_diffButton(new QPushButton(QStringLiteral("Kernel diff"), this)),
      m_timelinesButton(new QPushButton(QStringLiteral("Timelines"), this)), m_exportButton(new QToolButton(this)),
      m_bars(new ComparePlot(ComparePlot::Kind::Bars, this)), m_delta(new ComparePlot(ComparePlot::Kind::Delta, this)),
      m_table(new QTableView(this)), m_histogram(new CompareHistogram(this)), m_model(new CompareModel(this)), m_diffModel(new KernelDiffModel(this)),
      m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("compareView"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_breadcrumb->setTextFormat(Qt::RichText);
    m_breadcrumb->setObjectName(QStringLiteral("compareBreadcrumb"));
    m_summary->setWordWrap(true);
    m_upButton->setToolTip(QStringLiteral("Back to the level above (Backspace)"));
    m_upButton->setShortcut(QKeySequence(Qt::Key_Backspace));
    m_diffButton->setToolTip(QStringLiteral("Kernel-level diff of this layer: kernels added, removed, changed, swapped, moved"));
    m_timelinesButton->setToolTip(QStringLiteral("BASE and OTHER timelines, synchronized (zoom and pan together)"));
    m_exportButton->setText(QStringLiteral("Export"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_exportButton);
    menu->addAction(QStringLiteral("Grouped bars (PNG, SVG, PDF)..."), this, [this] { exportPlotInteractive(m_bars); });
    menu->addAction(QStringLiteral("Delta chart (PNG, SVG, PDF)..."), this, [this] { exportPlotInteractive(m_delta); });
    menu->addAction(QStringLiteral("Table (CSV)..."), this, [this] {
        QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"), QStringLiteral("compare.csv"),
                                                    QStringLiteral("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportTableCsv(path, &error))
            QMessageBox::warning(this, QStringLiteral("wheretime"), error);
    });
    m_exportButton->setMenu(menu);

    m_proxy->setSortRole(TableModel::SortRole);
    m_proxy->setSourceModel(m_model);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(false);
    m_table->setTextElideMode(Qt::ElideMiddle);   // long names keep start and end (tooltip: whole name)
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setObjectName(QStringLiteral("compareTable"));

    auto* tools = new QHBoxLayout;
    tools->addWidget(m_breadcrumb, 1);
    tools->addWidget(m_upButton);
    tools->addWidget(m_diffButton);
    tools->addWidget(m_timelinesButton);
    tools->addWidget(m_exportButton);
    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->addWidget(m_bars);
    charts->addWidget(m_delta);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(charts);
    split->addWidget(m_table);
    split->addWidget(m_histogram);
    // Charts get most of the height; the table scrolls.
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 1);
    split->setSizes({600, 280, 170});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addLayout(tools);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_loader, &CompareLoader::loaded, this, [this](std::shared_ptr<const CompareRuns> runs) { setRuns(std::move(runs)); });
    connect(m_loader, &CompareLoader::failed, this, [this](const QString& message) {
        m_summary->setText(message);
        emit failed(message);
    });
    // Ctrl+E exports the chart clicked last (the bars until then).
    for (ComparePlot* p : {m_bars, m_delta})
        connect(p, &QCustomPlot::mousePress, this, [this, p] { m_lastPlot = p; });
    connect(m_bars, &ComparePlot::rowClicked, this, [this](int row) { onRowActivated(m_bars->chart().rows[size_t(row)].source); });
    connect(m_delta, &ComparePlot::rowClicked, this, [this](int row) { onRowActivated(m_delta->chart().rows[size_t(row)].source); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        onRowClicked(m_proxy->mapToSource(index).row());
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        onRowActivated(m_proxy->mapToSource(index).row());
    });
    connect(m_breadcrumb, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("top"))
            showGroups();
        else if (link == QLatin1String("layer"))
            drillIntoLayer(m_layer);
    });
    connect(m_upButton, &QPushButton::clicked, this, &CompareView::up);
    connect(m_diffButton, &QPushButton::clicked, this, [this] { showKernelDiff(); });
    connect(m_timelinesButton, &QPushButton::clicked, this, &CompareView::timelinesRequested);
    m_summary->setText(QStringLiteral("Select two or more runs in the run browser and choose Compare (Ctrl+D)."));
}

void CompareView::load(std::vector<CompareSelector> runs)
{
    m_selectors = runs;
    m_summary->setText(QStringLiteral("Loading %1 runs...").arg(runs.size()));
    m_loader->start(std::move(runs));
}

void CompareView::setRuns(std::shared_ptr<const CompareRuns> runs)
{
    m_runs = std::move(runs);
    m_histogram->clear();
    if (m_selectors.size() != m_runs->size()) {
        m_selectors.clear();
        for (const auto& r : *m_runs)
            m_selectors.push_back({q(r->file), r->info.id});
    }
    QStringList lines;
    for (size_t i = 0; i < m_runs->size(); ++i) {
        const CompareRun& r = *(*m_runs)[i];
        lines << QStringLiteral("<span style=\"color:%1\">\u25a0</span> <b>%2</b>: %3 <span style=\"color:#666\">(%4)</span>")
                     .arg(runColor(i).name(), runTag(i, m_runs->size()), runCaption(r.info).toHtmlEscaped(),
                          q(r.file).toHtmlEscaped());
    }
    m_header->setText(lines.join(QStringLiteral("<br>")));
    m_timelinesButton->setEnabled(m_runs->size() >= 2);
    showGroups();
    emit ready();
}

void CompareView::showGroups()
{
    m_level = Level::Groups;
    m_layer.clear();
    m_op.clear();
    refresh();
}

bool CompareView::drillIntoLayer(const std::string& layer)
{
    if (!m_runs || !m_topIsLayer)
        return false;
    m_level = Level::Ops;
    m_layer = layer;
    m_op.clear();
    refresh();
    return true;
}

bool CompareView::showKernelDiff(const std::string& op)
{
    if (!m_runs || m_layer.empty())
        return false;
    m_level = Level::Kernels;
    m_op = op;
    refresh();
    return true;
}

void CompareView::up()
{
    if (m_level == Level::Kernels)
        drillIntoLayer(m_layer);
    else if (m_level == Level::Ops)
        showGroups();
}

void CompareView::refresh()
{
    if (!m_runs || m_runs->size() < 2)
        return;
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : *m_runs)
        ptrs.push_back(r.get());
    QString notes;
    try {
        if (m_level == Level::Kernels) {
            KernelDiffOptions o;
            o.filters = {{GroupBy::Layer, m_layer}};
            if (!m_op.empty())
                o.filters.push_back({GroupBy::Op, m_op});
            KernelDiff d = diffKernels(*ptrs[0], *ptrs[1], o);
            if (m_runs->size() > 2)
                notes += QStringLiteral("kernel diff of BASE and run #2 only\n");
            const QString title = QStringLiteral("Kernel diff of layer %1%2").arg(q(m_layer), m_op.empty() ? QString() : QStringLiteral(" > op ") + q(m_op));
            m_bars->setData(chartData(d, title, ComparePlot::kMaxRows));
            m_delta->setData(chartData(d, title + QStringLiteral(": change"), ComparePlot::kMaxRows));
            m_diffModel->setDiff(std::move(d));
            m_proxy->setSourceModel(m_diffModel);
        } else {
            CompareOptions o;
            if (m_level == Level::Ops) {
                o.groupBy = GroupBy::Op;
                o.filters = {{GroupBy::Layer, m_layer}};
            }
            Comparison c = compareRuns(ptrs, o);
            if (m_level == Level::Groups)
                m_topIsLayer = c.groupBy == GroupBy::Layer;
            const QString title = m_level == Level::Ops ? QStringLiteral("Kernel time by op in layer %1").arg(q(m_layer))
                                                        : QStringLiteral("Kernel time by %1").arg(q(toString(c.groupBy)));
            m_bars->setData(chartData(c, title, ComparePlot::kMaxRows));
            m_delta->setData(chartData(c, title + QStringLiteral(": change"), ComparePlot::kMaxRows));
            m_model->setComparison(std::move(c));
            m_proxy->setSourceModel(m_model);
        }
        // The table's notes say how it was compared (and, for a kernel diff, the totals and the
        // rows by change); its CSV-only columns (raw ids, names apart) stay hidden.
        const Table& table = static_cast<TableModel*>(m_proxy->sourceModel())->table();
        for (const std::string& n : table.notes)
            notes += q(n) + QLatin1Char('\n');
        for (size_t c = 0; c < table.columns.size(); ++c)
            m_table->setColumnHidden(int(c), !table.columns[c].inText);
    } catch (const std::exception& e) {
        m_summary->setText(QString::fromUtf8(e.what()));
        emit failed(QString::fromUtf8(e.what()));
        return;
    }
    m_table->resizeColumnsToContents();
    m_upButton->setEnabled(m_level != Level::Groups);
    m_diffButton->setEnabled(m_level == Level::Ops);
    QString crumb = m_level == Level::Groups ? QStringLiteral("<b>%1</b>").arg(q(toString(comparison().groupBy)) + QLatin1Char('s'))
                                             : QStringLiteral("<a href=\"top\">layers</a>");
    if (m_level == Level::Ops)
        crumb += QStringLiteral(" \u203a <b>%1</b> (ops)").arg(q(m_layer).toHtmlEscaped());
    if (m_level == Level::Kernels)
        crumb += QStringLiteral(" \u203a <a href=\"layer\">%1</a> \u203a <b>%2kernels</b>")
                     .arg(q(m_layer).toHtmlEscaped(), m_op.empty() ? QString() : q(m_op).toHtmlEscaped() + QStringLiteral(" \u203a "));
    m_breadcrumb->setText(crumb);
    QString summary = notes.trimmed();
    // The headline: is the change of the total real? (The table's verdict column says it per group.)
    if (m_level != Level::Kernels)
        for (size_t run = 1; run < m_model->runCount(); ++run)
            summary += QStringLiteral("\nTotal: ") + m_model->noiseText(int(m_model->comparison().groups.size()), run);
    if (m_level == Level::Groups && m_topIsLayer) {
        summary += QStringLiteral("\nClick a layer (a bar or a row) to see its ops.");
    } else if (m_level == Level::Ops) {
        summary += QStringLiteral("\nClick an op for the kernel diff of that op, or Kernel diff for the whole layer.");
    }
    m_summary->setText(summary.trimmed());
    emit layerSelected(q(m_layer));
}

void CompareView::selectRow(int row)
{
    // Highlight in both charts (when the row is on them) and the table.
    auto chartRow = [row](ComparePlot* p) {
        for (size_t i = 0; i < p->chart().rows.size(); ++i)
            if (p->chart().rows[i].source == row)
                return int(i);
        return -1;
    };
    m_bars->setHighlighted(chartRow(m_bars));
    m_delta->setHighlighted(chartRow(m_delta));
    QAbstractItemModel* src = m_proxy->sourceModel();
    if (row >= 0 && row < src->rowCount())
        m_table->selectRow(m_proxy->mapFromSource(src->index(row, 0)).row());
}

void CompareView::onRowClicked(int row)
{
    selectRow(row);
    // The overlay of the row's group (groups and ops levels; a kernel diff's rows are no group).
    if (m_level != Level::Kernels && row >= 0 && size_t(row) < comparison().groups.size()) {
        const Comparison& c = comparison();
        HistogramGroup g;
        g.level.groupBy = c.groupBy;
        g.level.depth = c.depth;
        g.level.filters = c.filters;
        g.key = c.groups[size_t(row)].path;
        m_histogram->setGroup(m_selectors, g, q(std::string(toString(c.groupBy)) + " " + c.groups[size_t(row)].name));
    }
    if (m_level == Level::Groups && m_topIsLayer && row >= 0 && size_t(row) < comparison().groups.size())
        emit layerSelected(q(comparison().groups[size_t(row)].path));
}

void CompareView::onRowActivated(int row)
{
    if (m_level == Level::Groups && m_topIsLayer && row >= 0 && size_t(row) < comparison().groups.size()) {
        drillIntoLayer(comparison().groups[size_t(row)].path);
        return;
    }
    if (m_level == Level::Ops && row >= 0 && size_t(row) < comparison().groups.size()) {
        showKernelDiff(comparison().groups[size_t(row)].name);
        return;
    }
    selectRow(row);
}

QString CompareView::breadcrumbText() const
{
    QString t = m_breadcrumb->text();
    t.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return t.replace(QStringLiteral("&gt;"), QStringLiteral(">")).replace(QStringLiteral("&amp;"), QStringLiteral("&"));
}

QString CompareView::summaryText() const
{
    return m_summary->text();
}

QString CompareView::caption() const
{
    if (!m_runs)
        return {};
    QStringList lines;
    for (size_t i = 0; i < m_runs->size(); ++i)
        lines << runTag(i, m_runs->size()) + QStringLiteral(": ") + runCaption((*m_runs)[i]->info);
    QString how = m_level == Level::Kernels ? perLabel(kernelDiff().per, {kernelDiff().base, kernelDiff().other})
                                            : perLabel(comparison().per, comparison().runs);
    if (!m_layer.empty())
        how += QStringLiteral(" \u00b7 layer ") + q(m_layer) + (m_op.empty() ? QString() : QStringLiteral(" > op ") + q(m_op));
    lines << how;
    return lines.join(QLatin1Char('\n'));
}

QSize CompareView::exportSize(const ComparePlot* plot) const
{
    return QSize(1200, plot->preferredHeight() + captionHeight(caption()));
}

QString CompareView::exportCurrentChart()
{
    return exportPlotInteractive(m_lastPlot ? m_lastPlot : m_bars);
}

QString CompareView::exportPlotInteractive(ComparePlot* plot)
{
    if (!m_runs)
        return {};
    const QString name = plot == m_bars ? QStringLiteral("compare-bars.png") : QStringLiteral("compare-delta.png");
    return exportChartInteractive(this, plotPainter(plot), name, exportSize(plot), plot->chart().title, caption(),
                                  m_selectors.empty() ? QString() : m_selectors.front().file);
}

bool CompareView::exportPlot(ComparePlot* plot, const QString& path, QString* error)
{
    std::optional<ExportFormat> fmt = exportFormatOf(path);
    if (!fmt) {
        if (error)
            *error = QStringLiteral("%1: use .png, .svg or .pdf").arg(path);
        return false;
    }
    ExportOptions o;
    o.title = plot->chart().title;
    o.caption = caption();
    o.size = exportSize(plot);
    return exportChart(plotPainter(plot), path, *fmt, o, error);
}

bool CompareView::exportBars(const QString& path, QString* error)
{
    return exportPlot(m_bars, path, error);
}

bool CompareView::exportDelta(const QString& path, QString* error)
{
    return exportPlot(m_delta, path, error);
}

bool CompareView::exportTableCsv(const QString& path, QString* error)
{
    return writeTextFile(path, m_level == Level::Kernels ? m_diffModel->toCsv() : m_model->toCsv(), error);
}

}  // namespace wt::gui
