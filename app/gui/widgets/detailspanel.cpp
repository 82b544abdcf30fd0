#include "detailspanel.h"

#include "histogramview.h"

#include "app/gui/core/asyncjob.h"
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/rangesummary.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/core/timeformat.h"
#include "analysis/activitystats.h"
#include "analysis/breakdown.h"
#include "render/textformat.h"
#include "analysis/gputime.h"
#include "analysis/gputimetable.h"
#include "analysis/rankstats.h"
#include "analysis/summarytable.h"
#include "render/tablewriter.h"

#include <QApplication>
#include <QCoreApplication>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QHelpEvent>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace wt::gui {

namespace {

QIcon swatch(QRgb color)
{
    QPixmap pm(12, 12);
    pm.fill(QColor::fromRgb(color));
    return QIcon(pm);
}

QString quantity(double value, const char* unit)
{
    return QString::fromStdString(wt::formatQuantity(value, unit));
}

QString cell(const TableModel* model, int row, std::string_view id)
{
    const int c = model->columnOf(id);
    return c < 0 || row >= model->rowCount() ? QString() : model->data(model->index(row, c)).toString();
}

// A table view over a TableModel: the table's text columns (the CLI's), raw ids for the rest.
void setUpTableView(QTableView* view, TableModel* model)
{
    view->setModel(model);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->verticalHeader()->hide();
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setTextElideMode(Qt::ElideMiddle);
    view->setWordWrap(false);
}

void showTextColumns(QTableView* view, const TableModel* model)
{
    for (int c = 0; c < model->columnCount(); ++c)
        view->setColumnHidden(c, !model->table().columns[size_t(c)].inText);
    view->resizeColumnsToContents();
}

bool saveCsv(QWidget* parent, const TableModel* model, const QString& suggested)
{
    const QString path = QFileDialog::getSaveFileName(parent, QStringLiteral("Export CSV"), suggested, QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty())
        return false;
    QFile f(path);
    const std::string bytes = render::csv(model->table());
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size())) {
        QMessageBox::warning(parent, QStringLiteral("Export CSV"), QStringLiteral("Cannot write %1: %2").arg(path, f.errorString()));
        return false;
    }
    return true;
}

}  // namespace

DetailsPanel::DetailsPanel(ViewState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_tree(new QTreeWidget(this)), m_histogram(new HistogramView(state, this)), m_split(new QSplitter(Qt::Vertical, this)), m_ranks(new QTableView(this)),
      m_devices(new QTableView(this)), m_runModel(new TableModel(this)), m_rangeModel(new TableModel(this)),
      m_ranksModel(new TableModel(this)), m_devicesModel(new TableModel(this)), m_barDelegate(new DeviceBarDelegate(this)),
      m_figuresJob(new AsyncJob(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_split->addWidget(m_tree);
    m_split->addWidget(m_histogram);
    m_histogram->hide();   // until a kernel or scope is selected
    connect(m_histogram, &HistogramView::hasGroupChanged, this, [this](bool has) {
        if (has)
            showInSplitter(m_histogram);
        else
            m_histogram->hide();
    });
    if (m_histogram->hasGroup())
        showInSplitter(m_histogram);
    m_split->addWidget(m_devices);
    m_split->addWidget(m_ranks);
    m_split->setChildrenCollapsible(false);
    layout->addWidget(m_split);
    m_devices->setObjectName(QStringLiteral("devicesTable"));
    setUpTableView(m_devices, m_devicesModel);
    m_devices->setToolTip(QStringLiteral("Per device, first activity start to last activity end: busy = some kernel or memory operation "
                                         "running, idle = nothing; compute = kernels that are neither communication nor memory; "
                                         "communication = NCCL/collective kernels; memory = memcpy, memset and memory kernels; "
                                         "overlapped = while a compute kernel ran; exposed communication = the rest; exposed memory = "
                                         "while neither compute nor communication ran. Bar under the device: compute, overlapped "
                                         "communication, exposed communication, exposed memory, idle (docs/definitions.md)."));

    m_ranks->setObjectName(QStringLiteral("ranksTable"));
    setUpTableView(m_ranks, m_ranksModel);
    m_ranks->horizontalHeader()->setStretchLastSection(true);
    m_ranks->setToolTip(QStringLiteral("Each rank's steps: a step's time is its GPU span on that rank (first kernel start to last kernel end "
                                       "under it). Bold: the rank with the largest mean step (the straggler)."));
    m_ranks->hide();
    connect(m_state, &ViewState::runChanged, this, &DetailsPanel::startFigures);
    connect(m_state, &ViewState::runUpdated, this, &DetailsPanel::startFigures);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({QStringLiteral("Field"), QStringLiteral("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setRootIsDecorated(true);
    m_tree->setTextElideMode(Qt::ElideMiddle);   // long kernel names keep start and end (tooltip: whole name)
    m_tree->setUniformRowHeights(true);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, &DetailsPanel::contextMenu);
    connect(m_state, &ViewState::selectionChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::rangeSelectionChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::runChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::runUpdated, this, &DetailsPanel::refresh);
    startFigures();
    refresh();
}

void DetailsPanel::startFigures()
{
    m_figures = nullptr;
    refreshDevices();
    refreshRanks();
    const std::shared_ptr<const RunData> run = m_state->run();
    if (!run) {
        m_figuresJob->cancel();
        return;
    }
    // A pass over every activity (seconds for millions): on a worker; a newer run drops it.
    m_figuresJob->start<std::shared_ptr<const RunFigures>>(
        [run](const JobControl&) { return computeRunFigures(*run); },
        [this, run](std::shared_ptr<const RunFigures> figures) {
            if (run != m_state->run())
                return;
            m_figures = std::move(figures);
            refreshDevices();
            refreshRanks();
            refresh();
            emit figuresReady();
        });
}

void DetailsPanel::showInSplitter(QWidget* table)
{
    if (!table->isHidden())
        return;
    table->show();
    // A widget shown after the splitter's layout gets no height: give the tree half and the
    // visible tables the rest.
    QList<int> sizes = m_split->sizes();
    int total = 0, tables = 0;
    for (int i = 0; i < sizes.size(); ++i) {
        total += sizes[i];
        tables += i > 0 && !m_split->widget(i)->isHidden();
    }
    if (total <= 0 || tables == 0)
        return;
    for (int i = 0; i < sizes.size(); ++i)
        sizes[i] = i == 0 ? total / 2 : (m_split->widget(i)->isHidden() ? 0 : total / 2 / tables);
    m_split->setSizes(sizes);
}

void DetailsPanel::waitForFigures()
{
    for (int i = 0; i < 1000 && m_figuresJob->isRunning(); ++i) {
        m_figuresJob->wait();
        QCoreApplication::processEvents();
    }
}

QString DetailsPanel::runCsv() const
{
    return m_runModel->toCsv();
}

QString DetailsPanel::rangeCsv() const
{
    return m_rangeModel->toCsv();
}

std::vector<DeviceBarSegment> DetailsPanel::deviceBar(int row) const
{
    const auto& bars = m_barDelegate->bars();
    return row >= 0 && size_t(row) < bars.size() ? bars[size_t(row)] : std::vector<DeviceBarSegment>{};
}

void DetailsPanel::contextMenu(const QPoint& pos)
{
    QMenu menu(this);
    if (m_runModel->rowCount() > 0) {
        menu.addAction(QStringLiteral("Copy run summary as CSV"), this, [this] { QApplication::clipboard()->setText(runCsv()); });
        menu.addAction(QStringLiteral("Export run summary CSV..."), this, [this] { saveCsv(this, m_runModel, QStringLiteral("run.csv")); });
    }
    if (m_rangeModel->rowCount() > 0) {
        menu.addSeparator();
        menu.addAction(QStringLiteral("Copy range summary as CSV"), this, [this] { QApplication::clipboard()->setText(rangeCsv()); });
        menu.addAction(QStringLiteral("Export range summary CSV..."), this, [this] { saveCsv(this, m_rangeModel, QStringLiteral("range.csv")); });
    }
    if (!menu.isEmpty())
        menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

void DeviceBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const size_t row = size_t(index.row());
    if (row >= m_bars.size()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    constexpr int kBar = 7;
    QStyleOptionViewItem text = option;
    text.rect.setBottom(option.rect.bottom() - kBar);
    QStyledItemDelegate::paint(painter, text, index);
    const QRectF r = QRectF(option.rect.left() + 3, option.rect.bottom() - kBar + 1, option.rect.width() - 6, kBar - 2);
    int64_t total = 0;
    for (const DeviceBarSegment& s : m_bars[row])
        total += s.ns;
    if (total <= 0 || r.width() <= 0)
        return;
    painter->save();
    double x = r.left();
    for (const DeviceBarSegment& s : m_bars[row]) {
        const double w = r.width() * double(s.ns) / double(total);
        painter->fillRect(QRectF(x, r.top(), w, r.height()), QColor::fromRgb(s.color));
        x += w;
    }
    painter->setPen(option.palette.color(QPalette::Mid));
    painter->drawRect(r);
    painter->restore();
}

QSize DeviceBarDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QSize s = QStyledItemDelegate::sizeHint(option, index);
    return {std::max(s.width(), 140), s.height() + 8};
}

bool DeviceBarDelegate::helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option, const QModelIndex& index)
{
    const size_t row = size_t(index.row());
    if (event->type() != QEvent::ToolTip || row >= m_bars.size())
        return QStyledItemDelegate::helpEvent(event, view, option, index);
    QStringList tip{index.data().toString()};
    int64_t total = 0;
    for (const DeviceBarSegment& s : m_bars[row])
        total += s.ns;
    for (const DeviceBarSegment& s : m_bars[row])
        tip << QStringLiteral("%1: %2 (%3%)")
                   .arg(s.label, formatDuration(double(s.ns)))
                   .arg(total > 0 ? 100.0 * double(s.ns) / double(total) : 0.0, 0, 'f', 1);
    QToolTip::showText(event->globalPos(), tip.join(QLatin1Char('\n')), view);
    return true;
}

void DetailsPanel::refreshDevices()
{
    const auto& run = m_state->run();
    if (!run || !m_figures || m_figures->devices.empty()) {
        m_devicesModel->setTable({});
        m_barDelegate->setBars({});
        m_devices->hide();
        return;
    }
    // compute, overlapped communication, exposed communication, exposed memory, idle
    std::vector<std::vector<DeviceBarSegment>> bars;
    for (const DeviceTime& d : m_figures->devices) {
        std::vector<DeviceBarSegment> segments;
        int k = 0;
        for (const BarSegment& b : deviceBarSegments(d.time))
            segments.push_back({QString::fromLatin1(b.label), b.ns, LayerPalette::deviceTimeColor(k++)});
        bars.push_back(std::move(segments));
    }
    m_barDelegate->setBars(std::move(bars));
    // The figures were computed on the worker (RunFigures); this only adapts.
    m_devicesModel->setTable(wt::devicesTable(m_figures->devices));
    for (int c = 0; c < m_devicesModel->columnCount(); ++c)
        m_devices->setItemDelegateForColumn(c, nullptr);
    m_devices->setItemDelegateForColumn(m_devicesModel->columnOf("name"), m_barDelegate);   // the bar under the name
    showTextColumns(m_devices, m_devicesModel);
    m_devices->resizeRowsToContents();
    showInSplitter(m_devices);
}

void DetailsPanel::refreshRanks()
{
    const auto& run = m_state->run();
    if (!run || !m_figures || m_figures->ranks.size() < 2) {
        m_ranksModel->setTable({});
        m_ranks->hide();
        return;
    }
    const Table table = wt::ranksTable(m_figures->ranks);
    std::vector<bool> bold;
    for (const std::vector<Cell>& row : table.rows)
        bold.push_back(numberOf(row[size_t(RankColumn::Straggler)]) != 0);
    m_ranksModel->setTable(table);
    m_ranksModel->setBoldRows(std::move(bold));
    showTextColumns(m_ranks, m_ranksModel);
    m_ranks->resizeRowsToContents();
    showInSplitter(m_ranks);
}

void DetailsPanel::refresh()
{
    m_tree->clear();
    m_runItem = m_rangeItem = nullptr;
    const auto& run = m_state->run();
    if (!run) {
        m_runModel->setTable({});
        m_rangeModel->setTable({});
        return;
    }
    auto add = [this](QTreeWidgetItem* parent, const QString& k, const QString& v) {
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
        item->setText(0, k);
        item->setText(1, v);
        item->setToolTip(0, k);
        item->setToolTip(1, v);
        return item;
    };
    // Op features (captures of bundled workloads): what the work was, and the rates achieved:
    // its kernel launches' FLOPs and bytes over the summed kernel time (analysis achievedPerS,
    // the division of the breakdown table's FLOP/s and B/s; docs/definitions.md).
    auto addCost = [&](QTreeWidgetItem* top, const RunData::Cost& c, int64_t kernelTimeNs, const QString& what) {
        if (c.launches == 0)
            return;
        auto* item = add(top, QStringLiteral("work (%1)").arg(what), QStringLiteral("%1, %2 read + written")
                                                                          .arg(quantity(c.flops, "FLOP"), quantity(c.bytes, "B")));
        if (c.m > 0)
            add(item, QStringLiteral("GEMM shape"), QStringLiteral("m %1, n %2, k %3").arg(c.m).arg(c.n).arg(c.k));
        if (c.bytes > 0)
            add(item, QStringLiteral("arithmetic intensity"), QStringLiteral("%1 FLOP/B").arg(c.flops / c.bytes, 0, 'f', 2));
        if (kernelTimeNs > 0)
            add(item, QStringLiteral("achieved"), QStringLiteral("%1, %2 over %3 kernel time")
                                                      .arg(quantity(wt::achievedPerS(c.kernelFlops, kernelTimeNs), "FLOP/s"),
                                                           quantity(wt::achievedPerS(c.kernelBytes, kernelTimeNs), "B/s"),
                                                           formatDuration(double(kernelTimeNs))));
    };
    // A CPU capture's "kernels" are timed ops: no launch configuration, and no GPU to name.
    auto cpuDevice = [&](int deviceIndex) {
        return deviceIndex >= 0 && size_t(deviceIndex) < run->devices.size() ? isCpuDevice(run->devices[size_t(deviceIndex)].name.toStdString())
                                                                              : isCpuDevice(run->run.device);
    };
    const bool cpuRun = isCpuDevice(run->run.device);
    const Selection& sel = m_state->selection();
    if (sel.kind == Selection::Activity && sel.track < run->tracks.size()) {
        const TrackData& t = run->tracks[sel.track];
        size_t i = sel.index;
        auto* top = add(nullptr, t.kind == TrackKind::Kernel ? QStringLiteral("Kernel") : QStringLiteral("Memory"),
                        run->name(t.nameId[i]));
        if (size_t(t.deviceIndex) < run->devices.size())
            add(top, QStringLiteral("device"), run->devices[size_t(t.deviceIndex)].name);
        add(top, QStringLiteral("track"), run->devices.size() > 1 && size_t(t.deviceIndex) < run->devices.size()
                                              ? run->devices[size_t(t.deviceIndex)].name + QStringLiteral(" / ") + t.name
                                              : t.name);
        add(top, QStringLiteral("scope"), t.instance[i] == kNone ? QStringLiteral("(none)") : run->scopePath(t.instance[i]));
        add(top, QStringLiteral("start"), formatDuration(double(t.startNs[i])));   // from the run's time 0 (docs/schema.md)
        add(top, QStringLiteral("duration"), formatDuration(double(t.durationNs[i])));
        if (!t.launch.empty() && t.launch[i] != kNone) {
            // Its launching API call (by correlation id) and the launch latency (docs/definitions.md).
            const auto [row, k] = run->apiCallAt(t.launch[i]);
            const ApiRowData& api = run->apiRows[row];
            add(top, QStringLiteral("launched by"), QStringLiteral("%1 (thread %2)").arg(run->name(api.nameId[k])).arg(api.threadId));
            add(top, QStringLiteral("launch latency"), formatDuration(double(t.startNs[i] - api.startNs[k])));
        }
        if (t.kind == TrackKind::Kernel) {
            if (!cpuDevice(t.deviceIndex)) {
                const LaunchConfig& c = run->launchConfigs[t.config[i]];
                add(top, QStringLiteral("grid"), QStringLiteral("%1 x %2 x %3").arg(c.grid[0]).arg(c.grid[1]).arg(c.grid[2]));
                add(top, QStringLiteral("block"), QStringLiteral("%1 x %2 x %3").arg(c.block[0]).arg(c.block[1]).arg(c.block[2]));
                add(top, QStringLiteral("registers"), QString::number(c.registers));
                add(top, QStringLiteral("static shared memory"), QStringLiteral("%1 B").arg(c.staticSmem));
                add(top, QStringLiteral("dynamic shared memory"), QStringLiteral("%1 B").arg(c.dynamicSmem));
            }
            if (t.instance[i] != kNone) {
                // The op's launches over the op's kernel time (one launch: usually this kernel).
                const RunData::Cost cost = run->costUnder(t.instance[i]);
                const bool single = cost.launches == 1;
                addCost(top, cost, wt::kernelTimeUnder(run->activities(), t.instance[i]),
                        single ? QStringLiteral("this launch") : QStringLiteral("its op, %1 launches").arg(cost.launches));
            }
        } else {
            add(top, QStringLiteral("kind"), QString::fromUtf8(toString(ActivityKind(t.activityKind[i])).data()));
            add(top, QStringLiteral("bytes"), QString::number(t.bytes[i]));
        }
        top->setIcon(0, swatch(run->activityColor(t, i)));
    } else if (sel.kind == Selection::ApiCall && sel.track < run->apiRows.size() && sel.index < run->apiRows[sel.track].size()) {
        const ApiRowData& api = run->apiRows[sel.track];
        const size_t i = sel.index;
        auto* top = add(nullptr, QStringLiteral("API call"), run->name(api.nameId[i]));
        add(top, QStringLiteral("thread"), QString::number(api.threadId));
        add(top, QStringLiteral("start"), formatDuration(double(api.startNs[i])));
        add(top, QStringLiteral("duration"), formatDuration(double(api.durationNs[i])));
        add(top, QStringLiteral("correlation id"), QString::number(api.correlationId[i]));
        const auto launched = run->launchedBy(sel.track, sel.index);
        add(top, QStringLiteral("launched"), QString::number(launched.size()));
        if (!launched.empty()) {
            const TrackData& t = run->tracks[launched.front().first];
            add(top, QStringLiteral("launch latency"), formatDuration(double(t.startNs[launched.front().second] - api.startNs[i])));
        }
        top->setIcon(0, swatch(run->apiColor(api.nameId[i])));
    } else if (sel.kind == Selection::Scope && sel.index < run->instances.size()) {
        const InstanceData& in = run->instances;
        const ScopeNodeData& n = run->nodes[in.node[sel.index]];
        auto* top = add(nullptr, QStringLiteral("Scope"), n.name);
        add(top, QStringLiteral("level"), n.level);
        add(top, QStringLiteral("path"), run->scopePath(sel.index));
        if (in.hasSpan(sel.index)) {
            // First kernel start to last kernel end under the instance, on the device that ran them.
            const QString dev = cpuRun ? QString() : QStringLiteral("GPU ");
            add(top, dev + QStringLiteral("start"), formatDuration(double(in.gpuStart(sel.index))));
            add(top, dev + QStringLiteral("span"), formatDuration(double(in.gpuEnd(sel.index) - in.gpuStart(sel.index))));
        }
        const RunData::Cost cost = run->costUnder(uint32_t(sel.index));
        addCost(top, cost, wt::kernelTimeUnder(run->activities(), uint32_t(sel.index)),
                QStringLiteral("%1 launches").arg(cost.launches));
        top->setIcon(0, swatch(n.color));
    }
    // The range summary: analysis's table (rangeSummaryTable), shown through the model.
    if (m_state->hasRangeSelection()) {
        m_rangeModel->setTable(rangeSummaryTable(summarizeRange(*run, m_state->rangeStartNs(), m_state->rangeEndNs())));
        const TableModel* m = m_rangeModel;
        const int64_t start = int64_t(m->data(m->index(0, m->columnOf("start_ns")), TableModel::RawRole).toLongLong());
        const int64_t end = int64_t(m->data(m->index(0, m->columnOf("end_ns")), TableModel::RawRole).toLongLong());
        m_rangeItem = add(nullptr, QStringLiteral("Range"), formatDuration(double(end - start)));
        add(m_rangeItem, QStringLiteral("start"), cell(m, 0, "start_ns"));
        add(m_rangeItem, QStringLiteral("end"), cell(m, 0, "end_ns"));
        add(m_rangeItem, QStringLiteral("kernels"), cell(m, 0, "count"));
        add(m_rangeItem, QStringLiteral("kernel time"), cell(m, 0, "time_ns"));
        auto* layers = add(m_rangeItem, QStringLiteral("time by layer"), QString());
        auto* kernels = add(m_rangeItem, QStringLiteral("top kernels"), QString());
        const int section = m->columnOf("section");
        for (int r = 1; r < m->rowCount(); ++r) {
            const QString what = m->data(m->index(r, section)).toString();
            const QString name = cell(m, r, "name");
            if (what == QLatin1String("layer"))
                add(layers, name, QStringLiteral("%1  (%2)").arg(cell(m, r, "time_ns"), cell(m, r, "share")))
                    ->setIcon(0, swatch(run->palette.color(name.toStdString())));
            else
                add(kernels, name, QStringLiteral("%1  x%2").arg(cell(m, r, "time_ns"), cell(m, r, "count")));
        }
    } else {
        m_rangeModel->setTable({});
    }
    // The run summary: analysis's table (runSummaryTable) over the worker's figures (until
    // they come: without steps, devices and span, which then read as absent).
    m_runModel->setTable(m_figures ? runSummaryTable(run->run, m_figures->steps, m_figures->devices)
                                   : runSummaryTable(run->run, {}, {}));
    if (m_tree->topLevelItemCount() == 0) {
        const TableModel* m = m_runModel;
        m_runItem = add(nullptr, QStringLiteral("Run"), cell(m, 0, "name"));
        const Table& t = m->table();
        for (size_t c = 0; c < t.columns.size(); ++c) {
            const Column& col = t.columns[c];
            if (col.id == "id" || col.id == "name" || col.id == "backend" || !col.inText)
                continue;
            const Cell& v = t.rows[0][c];
            if ((col.unit == Unit::Text && textOf(v).empty()) || isNone(v))
                continue;   // a field this run does not have (an import's variant)
            if ((col.id == "steps" || col.id == "memory_ops") && numberOf(v) == 0)
                continue;
            if (col.id == "devices" && numberOf(v) < 2)
                continue;
            QString text = m->data(m->index(0, int(c))).toString();
            if (col.id == "status" && run->run.status == RunStatus::Writing)
                text = QStringLiteral("writing (live: being captured)");
            add(m_runItem, QString::fromStdString(col.title), text);
        }
        const RunData::Cost cost = run->costUnder(kNone);
        addCost(m_runItem, cost, run->profile->run.kernelTimeNs, QStringLiteral("%1 launches").arg(cost.launches));
        // Launch latency over the kernels joined to their call (HTA's launch statistics; the
        // figures of `stats --json` launch_latency, docs/definitions.md).
        if (m_figures && !m_figures->launchLatency.empty() && m_figures->launchLatency.front().launched > 0) {
            const LaunchLatency& l = m_figures->launchLatency.front();
            QTreeWidgetItem* item = add(m_runItem, QStringLiteral("launch latency"),
                                        QStringLiteral("median %1, p95 %2").arg(formatDuration(double(l.medianNs)), formatDuration(double(l.p95Ns))));
            add(item, QStringLiteral("joined"), QStringLiteral("%1 of %2 kernels").arg(l.launched).arg(l.kernels));
            add(item, QStringLiteral("max"), formatDuration(double(l.maxNs)));
            add(item, QStringLiteral("short kernels"), QStringLiteral("%1 (ran shorter than their launch call)").arg(l.shortKernels));
            add(item, QStringLiteral("outliers"), QStringLiteral("%1 (over %2x the median)").arg(l.outliers).arg(kOutlierFactor));
            for (size_t d = 1; d < m_figures->launchLatency.size() && m_figures->launchLatency.size() > 2; ++d) {
                const LaunchLatency& dl = m_figures->launchLatency[d];
                if (dl.launched > 0)
                    add(item, QString::fromStdString(dl.device),
                        QStringLiteral("median %1, p95 %2").arg(formatDuration(double(dl.medianNs)), formatDuration(double(dl.p95Ns))));
            }
        }
    }
    m_tree->expandAll();
}

}  // namespace wt::gui
