#include "detailspanel.h"

#include "app/gui/core/layerpalette.h"
#include "app/gui/core/rangesummary.h"
#include "app/gui/core/timeformat.h"
#include "analysis/activitystats.h"
#include "analysis/breakdown.h"
#include "analysis/duration.h"
#include "analysis/gputime.h"
#include "analysis/gputimetable.h"
#include "analysis/rankstats.h"
#include "render/tablewriter.h"

#include <QHeaderView>
#include <QPainter>
#include <QPixmap>
#include <QSplitter>
#include <QTableWidget>
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

}  // namespace

DetailsPanel::DetailsPanel(ViewState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_tree(new QTreeWidget(this)), m_ranks(new QTableWidget(this)),
      m_devices(new QTableWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_devices);
    split->addWidget(m_ranks);
    layout->addWidget(split);
    m_devices->setObjectName(QStringLiteral("devicesTable"));
    m_devices->setColumnCount(DevColumnCount);
    m_devices->setHorizontalHeaderLabels({QStringLiteral("Device"), QStringLiteral("GPU time"), QStringLiteral("Span"),
                                          QStringLiteral("Busy"), QStringLiteral("Idle"), QStringLiteral("Compute"),
                                          QStringLiteral("Communication"), QStringLiteral("Overlapped"), QStringLiteral("Exposed"),
                                          QStringLiteral("Memory"), QStringLiteral("Mem. overlapped"), QStringLiteral("Mem. exposed")});
    m_devices->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_devices->verticalHeader()->hide();
    m_devices->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_devices->setTextElideMode(Qt::ElideMiddle);
    m_devices->setToolTip(QStringLiteral("Per device, first activity start to last activity end: busy = some kernel or memory operation "
                                         "running, idle = nothing; compute = kernels that are neither communication nor memory; "
                                         "communication = NCCL/collective kernels; memory = memcpy, memset and memory kernels; "
                                         "overlapped = while a compute kernel ran; exposed communication = the rest; exposed memory = "
                                         "while neither compute nor communication ran. Bar: compute, overlapped communication, exposed "
                                         "communication, exposed memory, idle (docs/definitions.md)."));
    connect(m_state, &ViewState::runChanged, this, &DetailsPanel::refreshDevices);
    connect(m_state, &ViewState::runUpdated, this, &DetailsPanel::refreshDevices);
    refreshDevices();
    m_ranks->setObjectName(QStringLiteral("ranksTable"));
    m_ranks->setColumnCount(RankColumnCount);
    m_ranks->setHorizontalHeaderLabels({QStringLiteral("Rank (device)"), QStringLiteral("Steps"), QStringLiteral("Mean step"),
                                        QStringLiteral("Slowest step"), QStringLiteral("Its time"), QStringLiteral("Kernel time")});
    m_ranks->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_ranks->horizontalHeader()->setStretchLastSection(true);
    m_ranks->verticalHeader()->hide();
    m_ranks->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ranks->setToolTip(QStringLiteral("Each rank's steps: a step's time is its GPU span on that rank (first kernel start to last kernel end "
                                       "under it). Bold: the rank with the largest mean step (the straggler)."));
    m_ranks->hide();
    connect(m_state, &ViewState::runChanged, this, &DetailsPanel::refreshRanks);
    connect(m_state, &ViewState::runUpdated, this, &DetailsPanel::refreshRanks);
    refreshRanks();
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({QStringLiteral("Field"), QStringLiteral("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setRootIsDecorated(true);
    m_tree->setTextElideMode(Qt::ElideMiddle);   // long kernel names keep start and end (tooltip: whole name)
    m_ranks->setTextElideMode(Qt::ElideMiddle);
    m_tree->setUniformRowHeights(true);
    connect(m_state, &ViewState::selectionChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::rangeSelectionChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::runChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::runUpdated, this, &DetailsPanel::refresh);
    refresh();
}

DeviceBar::DeviceBar(std::vector<Segment> segments, QWidget* parent) : QWidget(parent), m_segments(std::move(segments))
{
    QStringList tip;
    int64_t total = 0;
    for (const Segment& s : m_segments)
        total += s.ns;
    for (const Segment& s : m_segments)
        tip << QStringLiteral("%1: %2 (%3%)")
                   .arg(s.label, formatDuration(double(s.ns)))
                   .arg(total > 0 ? 100.0 * double(s.ns) / double(total) : 0.0, 0, 'f', 1);
    setToolTip(tip.join(QLatin1Char('\n')));
}

void DeviceBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QRectF r = QRectF(rect()).adjusted(2, 3, -2, -3);
    int64_t total = 0;
    for (const Segment& s : m_segments)
        total += s.ns;
    if (total <= 0 || r.width() <= 0)
        return;
    double x = r.left();
    for (const Segment& s : m_segments) {
        const double w = r.width() * double(s.ns) / double(total);
        p.fillRect(QRectF(x, r.top(), w, r.height()), QColor::fromRgb(s.color));
        x += w;
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(r);
}

void DetailsPanel::refreshDevices()
{
    const auto& run = m_state->run();
    m_devices->setRowCount(0);
    if (!run || !run->profile) {
        m_devices->hide();
        return;
    }
    const std::vector<DeviceTime> times = computeDeviceTimes(*run->profile, run->activities());
    if (times.empty()) {
        m_devices->hide();
        return;
    }
    // compute, overlapped communication, exposed communication, exposed memory, idle
    // The cells are the devices table's text (analysis/gputimetable.h, the CLI's `stats --group-by step`).
    const Table table = wt::devicesTable(times);
    static const char* const kDevIds[DevColumnCount] = {"name", nullptr, "span_ns", "busy_ns", "idle_ns", "compute_ns", "comm_ns",
                                                        "comm_overlap_ns", "comm_exposed_ns", "memory_ns", "memory_overlap_ns",
                                                        "memory_exposed_ns"};
    m_devices->setRowCount(int(times.size()));
    for (int i = 0; i < int(times.size()); ++i) {
        const GpuTime& t = times[size_t(i)].time;
        for (int c = 0; c < DevColumnCount; ++c) {
            if (!kDevIds[c]) {   // the bar (a cell widget over an empty item)
                m_devices->setItem(i, c, new QTableWidgetItem());
                continue;
            }
            const size_t k = table.column(kDevIds[c]);
            const QString cell = QString::fromStdString(render::cellText(table.columns[k], table.rows[size_t(i)][k]));
            auto* item = new QTableWidgetItem(cell);
            item->setToolTip(cell);
            m_devices->setItem(i, c, item);
        }
        std::vector<DeviceBar::Segment> segments;
        int k = 0;
        for (const BarSegment& b : deviceBarSegments(t))
            segments.push_back({QString::fromLatin1(b.label), b.ns, LayerPalette::deviceTimeColor(k++)});
        m_devices->setCellWidget(i, DevBar, new DeviceBar(std::move(segments), m_devices));
    }
    m_devices->resizeColumnsToContents();
    m_devices->setColumnWidth(DevBar, 160);
    m_devices->show();
}

void DetailsPanel::refreshRanks()
{
    const auto& run = m_state->run();
    m_ranks->setRowCount(0);
    if (!run || run->devices.size() < 2) {
        m_ranks->hide();
        return;
    }
    std::vector<int32_t> trackDevice;
    for (const TrackData& t : run->tracks)
        trackDevice.push_back(t.deviceId);
    std::vector<DeviceInfo> devices;
    for (const DeviceData& d : run->devices)
        devices.push_back(DeviceInfo{d.id, d.name.toStdString(), "{}"});
    const std::vector<RankStats> rows = computeRankStats(run->activities(), trackDevice, run->instances.parent, run->profile->tree, devices);
    // The cells are the ranks table's text (analysis/gputimetable.h, `stats --group-by device`).
    const Table table = wt::ranksTable(rows);
    static const RankColumn kRankColumns[RankColumnCount] = {RankColumn::Name,        RankColumn::Steps,       RankColumn::MeanStep,
                                                             RankColumn::SlowestStep, RankColumn::SlowestTime, RankColumn::Time};
    m_ranks->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        const std::vector<Cell>& row = table.rows[size_t(i)];
        const bool straggler = numberOf(row[size_t(RankColumn::Straggler)]) != 0;
        for (int c = 0; c < RankColumnCount; ++c) {
            const size_t k = size_t(kRankColumns[c]);
            const QString cell = QString::fromStdString(render::cellText(table.columns[k], row[k]));
            auto* item = new QTableWidgetItem(cell);
            item->setToolTip(cell);
            if (c == RankMeanStep || c == RankSlowestTime)
                item->setData(Qt::UserRole, qint64(numberOf(row[k])));   // raw ns (0 without steps)
            if (straggler) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                item->setToolTip(cell + QStringLiteral(" (the slowest rank: largest mean step)"));
            }
            m_ranks->setItem(i, c, item);
        }
    }
    m_ranks->resizeColumnsToContents();
    m_ranks->show();
}

void DetailsPanel::refresh()
{
    m_tree->clear();
    const auto& run = m_state->run();
    if (!run)
        return;
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
    const double origin = 0;   // stored times are measured from the run's time 0 (docs/schema.md)
    const Selection& sel = m_state->selection();
    if (sel.kind == Selection::Activity && sel.track < run->tracks.size()) {
        const TrackData& t = run->tracks[sel.track];
        size_t i = sel.index;
        auto* top = add(nullptr, t.kind == TrackKind::Kernel ? QStringLiteral("Kernel") : QStringLiteral("Memory"),
                        run->name(t.nameId[i]));
        add(top, QStringLiteral("track"), t.name);
        add(top, QStringLiteral("scope"), t.instance[i] == kNone ? QStringLiteral("(none)") : run->scopePath(t.instance[i]));
        add(top, QStringLiteral("start"), formatDuration(double(t.startNs[i]) - origin));
        add(top, QStringLiteral("duration"), formatDuration(double(t.durationNs[i])));
        if (t.kind == TrackKind::Kernel) {
            const LaunchConfig& c = run->launchConfigs[t.config[i]];
            add(top, QStringLiteral("grid"), QStringLiteral("%1 x %2 x %3").arg(c.grid[0]).arg(c.grid[1]).arg(c.grid[2]));
            add(top, QStringLiteral("block"), QStringLiteral("%1 x %2 x %3").arg(c.block[0]).arg(c.block[1]).arg(c.block[2]));
            add(top, QStringLiteral("registers"), QString::number(c.registers));
            add(top, QStringLiteral("static shared memory"), QStringLiteral("%1 B").arg(c.staticSmem));
            add(top, QStringLiteral("dynamic shared memory"), QStringLiteral("%1 B").arg(c.dynamicSmem));
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
    } else if (sel.kind == Selection::Scope && sel.index < run->instances.size()) {
        const InstanceData& in = run->instances;
        const ScopeNodeData& n = run->nodes[in.node[sel.index]];
        auto* top = add(nullptr, QStringLiteral("Scope"), n.name);
        add(top, QStringLiteral("level"), n.level);
        add(top, QStringLiteral("path"), run->scopePath(sel.index));
        if (in.hasSpan(sel.index)) {
            add(top, QStringLiteral("GPU start"), formatDuration(double(in.gpuStartNs[sel.index]) - origin));
            add(top, QStringLiteral("GPU span"), formatDuration(double(in.gpuEndNs[sel.index] - in.gpuStartNs[sel.index])));
        }
        const RunData::Cost cost = run->costUnder(uint32_t(sel.index));
        addCost(top, cost, wt::kernelTimeUnder(run->activities(), uint32_t(sel.index)),
                QStringLiteral("%1 launches").arg(cost.launches));
        top->setIcon(0, swatch(n.color));
    }
    if (m_state->hasRangeSelection()) {
        const wt::RangeSummary s = summarizeRange(*run, m_state->rangeStartNs(), m_state->rangeEndNs());
        auto* top = add(nullptr, QStringLiteral("Range"), formatDuration(double(s.range.durationNs())));
        add(top, QStringLiteral("kernels"), QString::number(s.kernels));
        add(top, QStringLiteral("kernel time"), formatDuration(double(s.kernelTimeNs)));
        auto* layers = add(top, QStringLiteral("time by layer"), QString());
        for (const Group& e : s.layers.groups)
            add(layers, QString::fromStdString(e.name),
                QStringLiteral("%1  (%2%)").arg(formatDuration(double(e.timeNs))).arg(100.0 * e.share, 0, 'f', 1))
                ->setIcon(0, swatch(run->palette.color(e.name)));
        auto* kernels = add(top, QStringLiteral("top kernels"), QString());
        for (const Group& e : s.kernelsByName.groups)
            add(kernels, QString::fromStdString(e.name),
                QStringLiteral("%1  x%2").arg(formatDuration(double(e.timeNs))).arg(e.count));
    }
    if (m_tree->topLevelItemCount() == 0) {
        const RunInfo& r = run->run;
        auto* top = add(nullptr, QStringLiteral("Run"), QString::fromStdString(r.name));
        add(top, QStringLiteral("workload"), QString::fromStdString(r.workload));
        add(top, QStringLiteral("variant"), QString::fromStdString(r.variant));
        add(top, QStringLiteral("device"), QString::fromStdString(r.device));
        if (run->stepCount > 0)
            add(top, QStringLiteral("steps"), QString::number(run->stepCount));
        add(top, QStringLiteral("kernels"), QString::number(run->kernelCount));
        add(top, QStringLiteral("span"), formatDuration(double(run->spanEndNs - run->spanStartNs)));
        add(top, QStringLiteral("status"), r.status == RunStatus::Writing ? QStringLiteral("writing (live: being captured)")
                                                                          : QString::fromUtf8(toString(r.status).data()));
        add(top, QStringLiteral("dropped records"), QString::number(r.droppedRecords));
        const RunData::Cost cost = run->costUnder(kNone);
        addCost(top, cost, run->profile->run.kernelTimeNs, QStringLiteral("%1 launches").arg(cost.launches));
    }
    m_tree->expandAll();
}

}  // namespace wt::gui
