#include "breakdownview.h"

#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "piechart.h"
#include "runsummary.h"

#include "app/gui/core/timeformat.h"
#include "app/gui/widgets/flowlayout.h"

#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QResizeEvent>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace wt::gui {

namespace {

QString plural(GroupBy g)
{
    switch (g) {
    case GroupBy::Layer: return QStringLiteral("layers");
    case GroupBy::Phase: return QStringLiteral("phases");
    case GroupBy::Op: return QStringLiteral("ops");
    case GroupBy::Kernel: return QStringLiteral("kernels");
    case GroupBy::Kind: return QStringLiteral("activity kinds");
    case GroupBy::Category: return QStringLiteral("kernel categories");
    case GroupBy::Scope: return QStringLiteral("scopes");
    }
    return {};
}

QString safeFileName(QString s)
{
    for (QChar& c : s)
        if (!c.isLetterOrNumber() && c != QLatin1Char('-') && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    return s.left(60);
}

}  // namespace

BreakdownView::BreakdownView(ViewState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_model(new BreakdownModel(this)), m_proxy(new BreakdownProxyModel(this)),
      m_rangeTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("breakdown"));
    m_levels.push_back(BreakdownLevel{});

    // Controls: grouping, "other" threshold, chart kind, range, export.
    m_groupBy = new QComboBox(this);
    for (GroupBy g : {GroupBy::Layer, GroupBy::Phase, GroupBy::Op, GroupBy::Kernel, GroupBy::Category, GroupBy::Kind})
        m_groupBy->addItem(QStringLiteral("by ") + groupByLabel(g), int(g));
    m_groupBy->setToolTip(QStringLiteral("What the kernel time is grouped by"));
    m_threshold = new QDoubleSpinBox(this);
    m_threshold->setRange(0, 50);
    m_threshold->setSingleStep(0.5);
    m_threshold->setDecimals(1);
    m_threshold->setValue(2.0);
    m_threshold->setPrefix(QStringLiteral("other < "));
    m_threshold->setSuffix(QStringLiteral(" %"));
    m_threshold->setToolTip(QStringLiteral("Pie slices below this share merge into \"other\""));
    m_layerDepth = new QSpinBox(this);
    m_layerDepth->setRange(1, 16);
    m_layerDepth->setPrefix(QStringLiteral("layer depth "));
    m_layerDepth->setToolTip(QStringLiteral("Which level of the imported trace's ranges is a layer (1 = the level below the steps)"));
    m_layerDepth->hide();
    auto* pieButton = new QToolButton(this);
    pieButton->setText(QStringLiteral("Pie"));
    pieButton->setCheckable(true);
    pieButton->setChecked(true);
    auto* barButton = new QToolButton(this);
    barButton->setText(QStringLiteral("Bars"));
    barButton->setCheckable(true);
    m_chartKind = new QButtonGroup(this);
    m_chartKind->addButton(pieButton, 0);
    m_chartKind->addButton(barButton, 1);
    m_range = new QCheckBox(QStringLiteral("Selected range"), this);
    m_range->setToolTip(QStringLiteral("Break down only the time range selected in the timeline (Shift-drag)"));
    m_range->setEnabled(false);
    auto* exportButton = new QToolButton(this);
    exportButton->setText(QStringLiteral("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(QStringLiteral("Chart (PNG, SVG, PDF)..."), this, &BreakdownView::exportChart);
    exportMenu->addAction(QStringLiteral("Table as CSV..."), this, &BreakdownView::exportTableCsv);
    exportMenu->addAction(QStringLiteral("Run summary as Markdown..."), this, &BreakdownView::exportSummary);
    exportButton->setMenu(exportMenu);

    // The controls wrap to a second row in a narrow panel (beside the timeline) rather than
    // being cut.
    m_controls = new FlowLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{m_groupBy, m_threshold, m_layerDepth, pieButton, barButton, m_range, exportButton})
        m_controls->addWidget(w);

    m_crumbs = new QLabel(this);
    m_crumbs->setTextFormat(Qt::RichText);
    m_crumbs->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    connect(m_crumbs, &QLabel::linkActivated, this, [this](const QString& link) { goUp(link.mid(1).toInt()); });

    m_pie = new BreakdownPlot(BreakdownPlot::Kind::Pie, this);
    m_bars = new BreakdownPlot(BreakdownPlot::Kind::Bars, this);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_pie);
    m_stack->addWidget(m_bars);
    m_stack->setMinimumHeight(260);
    for (BreakdownPlot* plot : {m_pie, m_bars}) {
        plot->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(plot, &QWidget::customContextMenuRequested, this, [this, plot](const QPoint& p) { showPlotMenu(plot, p); });
        connect(plot, &BreakdownPlot::sliceClicked, this, [this, plot](int slice) {
            selectSlice(plot, slice);
            drillInto(slice);
        });
    }

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(QStringLiteral("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterText(text);
        showCharts(m_model->result());   // the charts show what the table lists
        syncFromTimeline();
    });
    m_proxy->setSourceModel(m_model);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(BreakdownModel::TimeColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    // Long kernel and op names keep their start and end (the tooltip has the whole name); every
    // column can be resized, the name column takes what is left.
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(false);
    // The name column fits its names (120..280 px): a stretched one shrank to nothing when the
    // cost columns filled a table beside the chart.
    // Which of the table's columns show (again after every new breakdown: a reset forgets).
    connect(m_model, &QAbstractItemModel::modelReset, this, &BreakdownView::updateColumns);
    updateColumns();
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, &BreakdownView::showTableMenu);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& idx) {
        selectRow(idx.data(BreakdownModel::RowRole).toInt());
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& idx) {
        int slice = sliceOfRow(idx.data(BreakdownModel::RowRole).toInt());
        if (slice >= 0)
            drillInto(slice);
    });
    auto* copy = new QShortcut(QKeySequence::Copy, m_table, nullptr, nullptr, Qt::WidgetShortcut);
    connect(copy, &QShortcut::activated, this, &BreakdownView::copyCsv);

    auto* bottom = new QWidget(this);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(m_filter);
    bottomLayout->addWidget(m_table);
    auto* split = m_split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_stack);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    bottom->setMinimumHeight(8 * 20 + 60);   // the filter, the header and 8 rows (20 px each)

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(m_controls);
    layout->addWidget(m_crumbs);
    layout->addWidget(split, 1);

    connect(m_groupBy, &QComboBox::currentIndexChanged, this,
            [this](int) { setGroupBy(GroupBy(m_groupBy->currentData().toInt())); });
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this, [this](double) { refresh(); });
    connect(m_layerDepth, &QSpinBox::valueChanged, this, [this](int depth) {
        const auto& run = m_state->run();
        if (!run || !run->profile || run->profile->tree.layerDepth() == depth)
            return;
        // Layer filters of the old depth name other groups now: back to the top level.
        m_levels.resize(1);
        m_state->updateRun(withLayerDepth(*run, depth));
    });
    connect(m_chartKind, &QButtonGroup::idClicked, this, [this](int id) { m_stack->setCurrentIndex(id); });
    connect(m_range, &QCheckBox::toggled, this, [this](bool) { refresh(); });

    // A range selection being dragged changes many times a second: break it down when it rests.
    m_rangeTimer->setSingleShot(true);
    m_rangeTimer->setInterval(150);
    connect(m_rangeTimer, &QTimer::timeout, this, [this] {
        const bool has = m_state->hasRangeSelection();
        m_range->setEnabled(has);
        QSignalBlocker block(m_range);
        m_range->setChecked(has);   // a new range is what the user wants broken down
        refresh();
    });
    connect(m_state, &ViewState::runChanged, this, &BreakdownView::onRunChanged);
    connect(m_state, &ViewState::runUpdated, this, &BreakdownView::onRunUpdated);
    connect(m_state, &ViewState::rangeSelectionChanged, m_rangeTimer, qOverload<>(&QTimer::start));
    connect(m_state, &ViewState::selectionChanged, this, &BreakdownView::syncFromTimeline);
    updateCrumbs();
    if (m_state->run())
        onRunChanged();
}

BreakdownView::~BreakdownView()
{
    if (m_loading)
        m_loading->waitForFinished();
    if (m_computing)
        m_computing->waitForFinished();
}

void BreakdownView::onRunChanged()
{
    std::shared_ptr<const RunData> run = m_state->run();
    if (m_loading) {
        m_loading->disconnect(this);
        m_loading->waitForFinished();
        m_loading->deleteLater();
        m_loading = nullptr;
    }
    m_source.reset();
    ++m_generation;   // figures of the previous run still being computed are dropped
    m_model->setResult({});
    if (!run) {
        refresh();
        return;
    }
    // Reading the tree and the stored totals is short, but it is a query: keep it off the GUI thread.
    auto error = std::make_shared<QString>();
    m_loading = new QFutureWatcher<std::shared_ptr<const BreakdownSource>>(this);
    connect(m_loading, &QFutureWatcherBase::finished, this, [this, error] {
        auto source = m_loading->result();
        m_loading->deleteLater();
        m_loading = nullptr;
        if (!source) {
            m_loadError = *error;
            emit sourceFailed(*error);
            return;
        }
        setSource(source);
        emit sourceReady();
    });
    m_loading->setFuture(QtConcurrent::run([run, error]() -> std::shared_ptr<const BreakdownSource> {
        try {
            return BreakdownSource::load(run);
        } catch (const std::exception& e) {
            *error = QString::fromUtf8(e.what());
            return nullptr;
        }
    }));
}

void BreakdownView::onRunUpdated()
{
    std::shared_ptr<const RunData> run = m_state->run();
    if (m_loading || !m_source || !run) {
        onRunChanged();
        return;
    }
    // The profile came with the run (no file access) and the stats are over its stored totals:
    // short. The figures themselves go through refresh(), off the GUI thread for large runs.
    try {
        m_source = BreakdownSource::load(run);
    } catch (const std::exception& e) {
        m_source.reset();
        m_loadError = QString::fromUtf8(e.what());
        emit sourceFailed(m_loadError);
    }
    updateLayerDepthControl();
    refresh();
}

void BreakdownView::updateLayerDepthControl()
{
    const bool imported = m_source && m_source->run().backend == "import";
    m_layerDepth->setVisible(imported);
    if (imported) {
        QSignalBlocker block(m_layerDepth);
        m_layerDepth->setMaximum(std::max(1, m_source->tree().maxDepthBelowSteps()));
        m_layerDepth->setValue(m_source->tree().layerDepth());
    }
}

void BreakdownView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Below the timeline the view is wide and low: chart and table side by side; beside it,
    // narrow and tall: the table under the chart. Either way the table keeps 8 rows.
    const Qt::Orientation want = width() >= 2 * height() ? Qt::Horizontal : Qt::Vertical;
    if (m_split->orientation() != want) {
        m_split->setOrientation(want);
        const int extent = want == Qt::Horizontal ? m_split->width() : m_split->height();
        m_split->setSizes({extent * 55 / 100, extent * 45 / 100});   // the pie needs room for its labels
    }
}

void BreakdownView::setSource(std::shared_ptr<const BreakdownSource> source)
{
    // An imported trace opens on its kernel categories (issue 13: "which kind of kernel"
    // first); a capture on its layers. A grouping the user chose stays.
    const bool imported = source && source->run().backend == "import";
    const bool firstOfRun = !m_source || !source || m_source->run().id != source->run().id;
    m_source = std::move(source);
    m_levels.resize(1);
    if (firstOfRun && !m_groupChosen) {
        const GroupBy want = imported ? GroupBy::Category : GroupBy::Layer;
        if (m_levels.front().groupBy != want) {
            m_levels.assign(1, BreakdownLevel{want, {}});
            QSignalBlocker block(m_groupBy);
            m_groupBy->setCurrentIndex(m_groupBy->findData(int(want)));
        }
    }
    updateLayerDepthControl();
    refresh();
}

BreakdownPlot* BreakdownView::currentPlot() const
{
    return m_stack->currentIndex() == 1 ? m_bars : m_pie;
}

double BreakdownView::threshold() const
{
    return m_threshold->value() / 100.0;
}

void BreakdownView::setThreshold(double fraction)
{
    m_threshold->setValue(fraction * 100.0);
    refresh();
}

void BreakdownView::setShowBars(bool bars)
{
    m_chartKind->button(bars ? 1 : 0)->setChecked(true);
    m_stack->setCurrentIndex(bars ? 1 : 0);
}

void BreakdownView::setUseRange(bool range)
{
    m_range->setChecked(range && m_state->hasRangeSelection());
    refresh();
}

bool BreakdownView::usesRange() const
{
    return m_range->isChecked() && m_state->hasRangeSelection() && m_source && m_source->hasRanges();
}

void BreakdownView::setGroupBy(GroupBy groupBy)
{
    m_groupChosen = true;
    int i = m_groupBy->findData(int(groupBy));
    if (i >= 0 && i != m_groupBy->currentIndex()) {
        QSignalBlocker block(m_groupBy);
        m_groupBy->setCurrentIndex(i);
    }
    m_levels.assign(1, BreakdownLevel{groupBy, {}});
    refresh();
}

bool BreakdownView::drillInto(int slice)
{
    const BreakdownPlot* plot = currentPlot();
    if (slice < 0 || slice >= int(plot->slices().size()))
        return false;
    const PieSlice& s = plot->slices()[size_t(slice)];
    auto target = drillTarget(m_levels.back().groupBy);
    if (s.other || !target)
        return false;
    BreakdownLevel next;
    next.groupBy = *target;
    next.filters = m_levels.back().filters;
    next.filters.emplace_back(m_levels.back().groupBy, s.path);
    m_levels.push_back(std::move(next));
    refresh();
    return true;
}

void BreakdownView::goUp(int index)
{
    if (index < 0 || index >= int(m_levels.size()) - 1)
        return;
    m_levels.resize(size_t(index) + 1);
    refresh();
}

QString BreakdownView::title() const
{
    const BreakdownLevel& level = m_levels.back();
    QString t = QStringLiteral("Kernel time by ") + groupByLabel(level.groupBy);
    if (level.groupBy == GroupBy::Kind)
        t = QStringLiteral("Activity time by kind");
    for (const auto& [g, key] : level.filters)
        t += QStringLiteral(" \u203a ") + groupByLabel(g) + QLatin1Char(' ') + QString::fromStdString(key);
    if (usesRange())
        t += QStringLiteral("  (range %1 .. %2)")
                 .arg(formatDuration(m_state->rangeStartNs()), formatDuration(m_state->rangeEndNs()));   // from time 0
    if (!m_filter->text().isEmpty())
        t += QStringLiteral(" · name contains “%1”").arg(m_filter->text());
    return t;
}

void BreakdownView::refresh()
{
    ++m_generation;   // whatever a worker is computing is stale now
    if (!m_source) {
        m_model->setResult({});
        m_pie->setResult({}, threshold(), m_loadError.isEmpty() ? QStringLiteral("No run") : m_loadError);
        m_bars->setResult({}, threshold(), QString());
        updateCrumbs();
        emit updated();
        return;
    }
    const BreakdownLevel level = m_levels.back();
    const bool range = usesRange();
    const double t0 = range ? m_state->rangeStartNs() : 0, t1 = range ? m_state->rangeEndNs() : 0;
    auto job = [source = m_source, level, range, t0, t1] {
        if (!range)
            return source->compute(level);
        try {
            return source->computeRange(level, t0, t1);
        } catch (const std::exception& e) {
            // A range read from the file (over the memory cap) that failed: an empty range.
            qWarning("breakdown range: %s", e.what());
            BreakdownResult r;
            r.level = level;
            r.range = true;
            r.rangeStartNs = t0;
            r.rangeEndNs = t1;
            return r;
        }
    };
    // A range without the loaded run reads the file (over the memory cap): always on the worker.
    const bool fromFile = range && !m_source->runData();
    if (m_source->activityCount() <= m_asyncThreshold && !fromFile) {
        show(job());
        return;
    }
    // A large run: analysis runs on a worker; the result comes back through the event loop.
    updateCrumbs();
    auto* watcher = new QFutureWatcher<BreakdownResult>(this);
    m_computing = watcher;
    const int generation = m_computingGeneration = m_generation;
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] { finishCompute(watcher, generation); });
    watcher->setFuture(QtConcurrent::run(job));
}

void BreakdownView::finishCompute(QFutureWatcher<BreakdownResult>* watcher, int generation)
{
    if (m_computing == watcher)
        m_computing = nullptr;
    watcher->disconnect(this);
    watcher->deleteLater();
    if (generation == m_generation)
        show(watcher->result());
}

void BreakdownView::waitForResult()
{
    while (QFutureWatcher<BreakdownResult>* w = m_computing) {
        w->waitForFinished();
        finishCompute(w, m_computingGeneration);
    }
}

void BreakdownView::show(BreakdownResult r)
{
    showCharts(r);
    m_model->setResult(std::move(r));
    updateCrumbs();
    syncFromTimeline();
    emit updated();
}

void BreakdownView::showCharts(const BreakdownResult& r)
{
    const QString t = title();
    m_pie->setResult(r, threshold(), t, m_filter->text());
    m_bars->setResult(r, threshold(), t, m_filter->text());
}

void BreakdownView::updateColumns()
{
    // The name stands for the group (its path is the tooltip); the sum of bytes is CSV-only;
    // FLOPs and the rates show for runs with op features.
    m_table->setColumnHidden(BreakdownModel::PathColumn, true);
    m_table->setColumnHidden(BreakdownModel::BytesColumn, true);
    const bool cost = m_model->hasCost();
    for (int c : {BreakdownModel::FlopsColumn, BreakdownModel::FlopRateColumn, BreakdownModel::ByteRateColumn})
        m_table->setColumnHidden(c, !cost);
    m_table->resizeColumnToContents(BreakdownModel::NameColumn);
    m_table->setColumnWidth(BreakdownModel::NameColumn, std::clamp(m_table->columnWidth(BreakdownModel::NameColumn), 120, 280));
}

void BreakdownView::updateCrumbs()
{
    QStringList parts;
    for (size_t i = 0; i < m_levels.size(); ++i) {
        QString label = i == 0 ? QStringLiteral("All ") + plural(m_levels[0].groupBy)
                               : QString::fromStdString(m_levels[i].filters.back().second).toHtmlEscaped();
        parts << (i + 1 < m_levels.size() ? QStringLiteral("<a href=\"#%1\">%2</a>").arg(i).arg(label)
                                          : QStringLiteral("<b>%1</b>").arg(label));
    }
    m_crumbs->setText(parts.join(QStringLiteral(" &rsaquo; ")));
}

int BreakdownView::sliceOfRow(int row) const
{
    const auto& slices = currentPlot()->slices();
    for (size_t i = 0; i < slices.size(); ++i)
        for (size_t m : slices[i].members)
            if (int(m) == row)
                return int(i);
    return -1;
}

void BreakdownView::selectRow(int row)
{
    const auto& rows = result().rows;
    if (row < 0 || row >= int(rows.size()))
        return;
    // Table.
    QModelIndex src = m_model->index(row, 0);
    QModelIndex idx = m_proxy->mapFromSource(src);
    if (idx.isValid()) {
        m_table->selectionModel()->select(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(idx);
    }
    // Charts.
    for (BreakdownPlot* plot : {m_pie, m_bars}) {
        int slice = -1;
        for (size_t i = 0; i < plot->slices().size() && slice < 0; ++i)
            for (size_t m : plot->slices()[i].members)
                if (int(m) == row)
                    slice = int(i);
        plot->setHighlighted(slice);
    }
    // Timeline: every kernel of the group is marked, and one representative is selected
    // (the details panel shows it, F fits it).
    showInTimeline({size_t(row)});
}

void BreakdownView::selectSlice(BreakdownPlot* plot, int slice)
{
    if (slice < 0 || slice >= int(plot->slices().size()))
        return;
    const PieSlice& s = plot->slices()[size_t(slice)];
    if (!s.other) {
        selectRow(int(s.members.front()));
        return;
    }
    // "other": its groups together.
    for (BreakdownPlot* p : {m_pie, m_bars})
        p->setHighlighted(p == plot ? slice : -1);
    if (m_table->selectionModel())
        m_table->selectionModel()->clearSelection();
    showInTimeline(s.members);
}

void BreakdownView::showInTimeline(const std::vector<size_t>& rowIndices)
{
    const auto& rows = result().rows;
    if (!m_source || !m_state->run() || rowIndices.empty())
        return;
    std::vector<std::string> keys;
    for (size_t r : rowIndices)
        if (r < rows.size())
            keys.push_back(rows[r].path);
    if (keys.empty())
        return;
    m_syncing = true;
    m_state->setGroupSelection(m_source->groupSelection(m_levels.back(), keys));
    Selection sel = m_source->representative(m_levels.back(), keys.front(), m_state->viewStartNs(), m_state->viewEndNs());
    if (sel.kind != Selection::None)
        m_state->setSelection(sel);
    m_syncing = false;
}

void BreakdownView::syncFromTimeline()
{
    if (m_syncing || !m_source)
        return;
    std::string key = m_source->keyOfSelection(m_levels.back(), m_state->selection());
    const auto& rows = result().rows;
    int row = -1;
    for (size_t i = 0; i < rows.size() && !key.empty(); ++i)
        if (rows[i].path == key)
            row = int(i);
    for (BreakdownPlot* plot : {m_pie, m_bars}) {
        int slice = -1;
        for (size_t i = 0; i < plot->slices().size() && slice < 0 && row >= 0; ++i)
            for (size_t m : plot->slices()[i].members)
                if (int(m) == row)
                    slice = int(i);
        plot->setHighlighted(slice);
    }
    if (row >= 0) {
        QModelIndex idx = m_proxy->mapFromSource(m_model->index(row, 0));
        if (idx.isValid())
            m_table->selectionModel()->select(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    } else if (m_table->selectionModel()) {
        m_table->selectionModel()->clearSelection();
    }
}

std::vector<size_t> BreakdownView::selectedRows() const
{
    std::vector<size_t> out;
    const QModelIndexList sel = m_table->selectionModel() ? m_table->selectionModel()->selectedRows() : QModelIndexList();
    for (const QModelIndex& i : sel)
        out.push_back(size_t(i.data(BreakdownModel::RowRole).toInt()));
    if (out.empty())   // nothing selected: the rows shown, in the table's order
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            out.push_back(size_t(m_proxy->index(r, 0).data(BreakdownModel::RowRole).toInt()));
    std::sort(out.begin(), out.end());
    return out;
}

QString BreakdownView::selectedCsv() const
{
    return m_model->toCsv(selectedRows());
}

void BreakdownView::copyCsv() const
{
    QApplication::clipboard()->setText(selectedCsv());
}

void BreakdownView::showPlotMenu(BreakdownPlot* plot, const QPoint& pos)
{
    QMenu menu(this);
    int slice = plot->sliceAt(pos);
    if (slice >= 0) {
        const PieSlice& s = plot->slices()[size_t(slice)];
        menu.addAction(QStringLiteral("Show \"%1\" in the timeline").arg(s.label), this,
                       [this, plot, slice] { selectSlice(plot, slice); });
        if (!s.other) {
            if (drillTarget(m_levels.back().groupBy))
                menu.addAction(QStringLiteral("Drill into \"%1\"").arg(s.label), this, [this, slice] { drillInto(slice); });
        }
    }
    if (m_levels.size() > 1)
        menu.addAction(QStringLiteral("Up one level"), this, [this] { goUp(int(m_levels.size()) - 2); });
    menu.addSeparator();
    QAction* exp = menu.addAction(QStringLiteral("Export chart..."), this, &BreakdownView::exportChart);
    exp->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    menu.addAction(QStringLiteral("Copy image"), this, [plot] {
        QApplication::clipboard()->setPixmap(plot->toPixmap(plot->width(), plot->height(), 2.0));
    });
    menu.exec(plot->mapToGlobal(pos));
}

void BreakdownView::showTableMenu(const QPoint& pos)
{
    QMenu menu(this);
    QModelIndex idx = m_table->indexAt(pos);
    if (idx.isValid()) {
        int row = idx.data(BreakdownModel::RowRole).toInt();
        menu.addAction(QStringLiteral("Show in the timeline"), this, [this, row] { selectRow(row); });
        int slice = sliceOfRow(row);
        if (slice >= 0 && drillTarget(m_levels.back().groupBy) && !currentPlot()->slices()[size_t(slice)].other)
            menu.addAction(QStringLiteral("Drill down"), this, [this, slice] { drillInto(slice); });
        menu.addSeparator();
    }
    QAction* copy = menu.addAction(QStringLiteral("Copy as CSV"), this, &BreakdownView::copyCsv);
    copy->setShortcut(QKeySequence::Copy);
    menu.addAction(QStringLiteral("Export table as CSV..."), this, &BreakdownView::exportTableCsv);
    menu.exec(m_table->viewport()->mapToGlobal(pos));
}

void BreakdownView::exportChart()
{
    if (!m_source)
        return;
    BreakdownPlot* plot = currentPlot();
    QString name = safeFileName(QStringLiteral("%1-%2").arg(plot->kind() == BreakdownPlot::Kind::Pie ? QStringLiteral("pie")
                                                                                                    : QStringLiteral("bars"),
                                                             groupByLabel(m_levels.back().groupBy))) +
                   QStringLiteral(".png");
    exportChartInteractive(this, plotPainter(plot), name, QSize(1200, 800), title(), runCaption(m_source->run()),
                           m_source->runData()->filePath);
}

void BreakdownView::exportTableCsv()
{
    if (!m_source)
        return;
    QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"),
                                                QStringLiteral("breakdown-%1.csv").arg(groupByLabel(m_levels.back().groupBy)),
                                                QStringLiteral("CSV (*.csv)"));
    QString error;
    if (refuseInputOverwrite(this, QStringLiteral("Export table"), path, m_source->runData()->filePath))
        return;
    if (!path.isEmpty() && !writeTextFile(path, m_model->toCsv(), &error))
        QMessageBox::warning(this, QStringLiteral("Export table"), error);
}

void BreakdownView::exportSummary()
{
    if (!m_source)
        return;
    QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export run summary"),
                                                QStringLiteral("run-%1.md").arg(m_source->run().id),
                                                QStringLiteral("Markdown (*.md)"));
    QString error;
    if (refuseInputOverwrite(this, QStringLiteral("Export run summary"), path, m_source->runData()->filePath))
        return;
    if (!path.isEmpty() && !writeTextFile(path, runSummaryMarkdown(*m_source), &error))
        QMessageBox::warning(this, QStringLiteral("Export run summary"), error);
}

}  // namespace wt::gui
