// TimelineWidget's names and tooltips: an item's full name, its short form (cached per name,
// docs/names.md) for the labels painted inside items, and the tooltip text of what lies under
// the cursor (a kernel with its launching call and launch latency, an API call, a scope, a fold).
#include "timelinewidget.h"

#include "analysis/summarytable.h"
#include "app/gui/core/displayname.h"
#include "app/gui/core/timeformat.h"

#include <QStringList>

namespace wt::gui {

namespace {

QString launchText(const LaunchConfig& c)
{
    return QStringLiteral("grid (%1, %2, %3), block (%4, %5, %6)")
        .arg(c.grid[0]).arg(c.grid[1]).arg(c.grid[2]).arg(c.block[0]).arg(c.block[1]).arg(c.block[2]);
}

}  // namespace

QString TimelineWidget::itemName(const Row& row, const DrawItem& item) const
{
    if (row.kind == Row::Lane) {
        uint32_t inst = m_run->lanes[size_t(row.index)].items[item.first];
        return m_run->nodes[m_run->instances.node[inst]].name;
    }
    if (row.kind == Row::HostLane) {
        uint32_t inst = m_run->hostLanes[size_t(row.index)].items[item.first];
        return m_run->nodes[m_run->instances.node[inst]].name;
    }
    if (row.kind == Row::Api)
        return m_run->name(m_run->apiRows[size_t(row.index)].nameId[item.first]);
    const TrackData& t = m_run->tracks[size_t(row.index)];
    return m_run->name(t.nameId[item.first]);
}

const QString& TimelineWidget::shortItemName(const Row& row, const DrawItem& item)
{
    uint64_t key;
    if (row.kind == Row::Lane)
        key = (uint64_t(1) << 32) | m_run->instances.node[m_run->lanes[size_t(row.index)].items[item.first]];
    else if (row.kind == Row::HostLane)
        key = (uint64_t(1) << 32) | m_run->instances.node[m_run->hostLanes[size_t(row.index)].items[item.first]];
    else if (row.kind == Row::Api)
        key = m_run->apiRows[size_t(row.index)].nameId[item.first];
    else
        key = m_run->tracks[size_t(row.index)].nameId[item.first];
    auto it = m_shortNames.find(key);
    if (it == m_shortNames.end())
        it = m_shortNames.emplace(key, displayName(itemName(row, item))).first;
    return it->second;
}

QString TimelineWidget::toolTipAt(const QPoint& pos) const
{
    Hit h = hitAt(pos);
    if (h.item < 0 || !m_run)
        return {};
    const Row& row = m_layout.rows()[size_t(h.row)];
    const DrawItem& d = m_draw.rows[size_t(h.row)][size_t(h.item)];
    const double origin = 0;   // stored times are measured from the run's time 0 (docs/schema.md)
    QStringList lines;
    if (row.kind == Row::Lane) {
        const LaneData& lane = m_run->lanes[size_t(row.index)];
        const InstanceData& in = m_run->instances;
        if (d.count > 1) {
            uint32_t a = lane.items[d.first], b = lane.items[d.first + d.count - 1];
            lines << QStringLiteral("<b>%1 scopes</b> (folded; zoom in to separate)").arg(d.count)
                  << QStringLiteral("from %1 to %2").arg(formatDuration(double(in.gpuStart(a)) - origin),
                                                         formatDuration(double(in.gpuEnd(b)) - origin));
        } else {
            uint32_t inst = lane.items[d.first];
            const ScopeNodeData& n = m_run->nodes[in.node[inst]];
            lines << QStringLiteral("<b>%1</b> (%2)").arg(n.name.toHtmlEscaped(), n.level.toHtmlEscaped())
                  << QStringLiteral("scope: %1").arg(m_run->scopePath(inst).toHtmlEscaped())
                  << QStringLiteral("start: %1").arg(formatDuration(double(in.gpuStart(inst)) - origin))
                  << QStringLiteral("duration: %1 (first kernel to last kernel)")
                         .arg(formatDuration(double(in.gpuEnd(inst) - in.gpuStart(inst))));
        }
    } else if (row.kind == Row::HostLane) {
        const HostLaneData& lane = m_run->hostLanes[size_t(row.index)];
        const HostThreadData& thread = m_run->hostThreads[lane.thread];
        if (d.count > 1) {
            lines << QStringLiteral("<b>%1 ranges</b> (folded; zoom in to separate)").arg(d.count)
                  << QStringLiteral("from %1 to %2").arg(formatDuration(double(lane.startNs[d.first])),
                                                         formatDuration(double(lane.endNs(d.first + d.count - 1))));
        } else {
            const uint32_t inst = lane.items[d.first];
            const InstanceData& in = m_run->instances;
            const ScopeNodeData& n = m_run->nodes[in.node[inst]];
            lines << QStringLiteral("<b>%1</b> (%2)").arg(n.name.toHtmlEscaped(), n.level.toHtmlEscaped())
                  << QStringLiteral("%1, %2").arg(hostThreadLabel(thread).toHtmlEscaped(),
                                                  hostProcessLabel(m_run->hostProcesses[thread.process]).toHtmlEscaped())
                  << QStringLiteral("scope: %1").arg(m_run->scopePath(inst).toHtmlEscaped())
                  << QStringLiteral("start: %1 (host)").arg(formatDuration(double(lane.startNs[d.first])))
                  << QStringLiteral("duration: %1 (host)").arg(formatDuration(double(lane.durationNs[d.first])));
            if (in.hasSpan(inst))
                lines << QStringLiteral("GPU: %1 from %2 (first kernel to last kernel)")
                             .arg(formatDuration(double(in.gpuEnd(inst) - in.gpuStart(inst))),
                                  formatDuration(double(in.gpuStart(inst))));
        }
    } else if (row.kind == Row::Api) {
        const ApiRowData& api = m_run->apiRows[size_t(row.index)];
        if (d.count > 1) {
            lines << QStringLiteral("<b>%1 API calls</b> (folded; zoom in to separate)").arg(d.count)
                  << QStringLiteral("from %1 to %2").arg(formatDuration(double(api.startNs[d.first])),
                                                         formatDuration(double(api.endNs(d.first + d.count - 1))));
        } else {
            const size_t i = d.first;
            lines << QStringLiteral("<b>%1</b>").arg(m_run->name(api.nameId[i]).toHtmlEscaped())
                  << QStringLiteral("thread %1").arg(api.threadId)
                  << QStringLiteral("start: %1").arg(formatDuration(double(api.startNs[i])))
                  << QStringLiteral("duration: %1").arg(formatDuration(double(api.durationNs[i])))
                  << QStringLiteral("correlation id: %1").arg(api.correlationId[i]);
        }
    } else if (row.kind == Row::Track) {
        const TrackData& t = m_run->tracks[size_t(row.index)];
        if (d.count > 1) {
            int64_t busy = 0;
            if (d.count <= 100000)
                for (uint32_t i = d.first; i < d.first + d.count; ++i)
                    busy += t.durationNs[i];
            lines << QStringLiteral("<b>%1 activities</b> (folded; zoom in to separate)").arg(d.count)
                  << QStringLiteral("from %1 to %2").arg(formatDuration(double(t.startNs[d.first]) - origin),
                                                         formatDuration(double(t.endNs(d.first + d.count - 1)) - origin));
            if (busy > 0)
                lines << QStringLiteral("busy: %1").arg(formatDuration(double(busy)));
            uint32_t inst = t.instance[d.first];
            if (inst != kNone)
                lines << QStringLiteral("first in: %1").arg(m_run->scopePath(inst).toHtmlEscaped());
        } else {
            size_t i = d.first;
            lines << QStringLiteral("<b>%1</b>").arg(m_run->name(t.nameId[i]).toHtmlEscaped());
            uint32_t inst = t.instance[i];
            lines << QStringLiteral("scope: %1").arg(inst == kNone ? QStringLiteral("(none)") : m_run->scopePath(inst).toHtmlEscaped())
                  << QStringLiteral("start: %1").arg(formatDuration(double(t.startNs[i]) - origin))
                  << QStringLiteral("duration: %1").arg(formatDuration(double(t.durationNs[i])));
            if (!t.launch.empty() && t.launch[i] != kNone) {
                const auto [ar, ak] = m_run->apiCallAt(t.launch[i]);
                const ApiRowData& api = m_run->apiRows[ar];
                lines << QStringLiteral("launched by %1 on thread %2, launch latency %3")
                             .arg(m_run->name(api.nameId[ak]).toHtmlEscaped())
                             .arg(api.threadId)
                             .arg(formatDuration(double(t.startNs[i] - api.startNs[ak])));
            }
            const bool cpu = size_t(t.deviceIndex) < m_run->devices.size() && isCpuDevice(m_run->devices[size_t(t.deviceIndex)].name.toStdString());
            if (t.kind == TrackKind::Kernel && !cpu) {   // a CPU op has no launch configuration
                const LaunchConfig& c = m_run->launchConfigs[t.config[i]];
                lines << launchText(c)
                      << QStringLiteral("registers: %1 per thread").arg(c.registers)
                      << QStringLiteral("shared memory: %1 B static, %2 B dynamic").arg(c.staticSmem).arg(c.dynamicSmem);
            } else if (t.kind != TrackKind::Kernel) {
                lines << QStringLiteral("%1, %2 bytes")
                             .arg(QString::fromUtf8(toString(ActivityKind(t.activityKind[i])).data()))
                             .arg(t.bytes[i]);
            }
        }
    }
    const MemberBits* groupRow = m_draw.grouped && size_t(h.row) < m_draw.groupedRows.size() && m_draw.groupedRows[size_t(h.row)] && groupMarks()
                                     ? groupBits(*groupMarks(), row)
                                     : nullptr;
    if (groupRow) {
        const MemberBits& bits = *groupRow;
        const size_t k = bits.count(d.first, size_t(d.first) + d.count);
        const QString group = m_search ? QStringLiteral("matches of \u201c%1\u201d").arg(m_search->text.toHtmlEscaped())
                                       : m_state->groupSelection().label.toHtmlEscaped();
        if (d.count > 1)
            lines << QStringLiteral("%1 of %2 in %3").arg(k).arg(d.count).arg(group);
        else
            lines << (k ? QStringLiteral("in %1").arg(group) : QStringLiteral("not in %1").arg(group));
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace wt::gui
