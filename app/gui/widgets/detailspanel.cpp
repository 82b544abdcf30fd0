#include "detailspanel.h"

#include "app/gui/core/layerpalette.h"
#include "app/gui/core/rangesummary.h"
#include "app/gui/core/timeformat.h"

#include <QHeaderView>
#include <QPixmap>
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

}  // namespace

DetailsPanel::DetailsPanel(ViewState* state, QWidget* parent) : QWidget(parent), m_state(state), m_tree(new QTreeWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({QStringLiteral("Field"), QStringLiteral("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    connect(m_state, &ViewState::selectionChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::rangeSelectionChanged, this, &DetailsPanel::refresh);
    connect(m_state, &ViewState::runChanged, this, &DetailsPanel::refresh);
    refresh();
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
        item->setToolTip(1, v);
        return item;
    };
    const double origin = double(run->spanStartNs);
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
                ->setIcon(0, swatch(LayerPalette::groupColor(e.name)));
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
        add(top, QStringLiteral("kernels"), QString::number(run->kernelCount));
        add(top, QStringLiteral("span"), formatDuration(double(run->spanEndNs - run->spanStartNs)));
        add(top, QStringLiteral("status"), QString::fromUtf8(toString(r.status).data()));
        add(top, QStringLiteral("dropped records"), QString::number(r.droppedRecords));
    }
    m_tree->expandAll();
}

}  // namespace wt::gui
