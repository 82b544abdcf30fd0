// TimelineWidget's flows: the launch links between the CPU rows' API calls and the GPU
// activities they launched (TrackData::launch, joined by correlation id at load). Computed when
// the selection changes (a selected call's kernels: one pass over the launch indices), so a
// frame only looks up a few items and draws a few lines.
#include "timelinewidget.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace wt::gui {

namespace {
constexpr size_t kMaxArrows = 256;   // a call that launched more (a graph launch) draws the first ones
}

void TimelineWidget::updateFlows()
{
    m_flowTo.clear();
    m_flowOp = FlowEnd{Row::HostLane, kNone, 0};
    if (!m_run || m_run->overviewOnly)
        return;
    const Selection& sel = m_state->selection();
    if (sel.kind == Selection::Activity && sel.track < m_run->tracks.size()) {
        const TrackData& t = m_run->tracks[sel.track];
        if (sel.index < t.launch.size() && t.launch[sel.index] != kNone) {
            const auto [row, k] = m_run->apiCallAt(t.launch[sel.index]);
            m_flowFrom = FlowEnd{Row::Api, row, k};
            m_flowTo.push_back(FlowEnd{Row::Track, sel.track, sel.index});
        }
    } else if (sel.kind == Selection::ApiCall) {
        m_flowFrom = FlowEnd{Row::Api, sel.track, sel.index};
        for (const auto& [track, index] : m_run->launchedBy(sel.track, sel.index))
            m_flowTo.push_back(FlowEnd{Row::Track, track, index});
    }
    // The CPU op around the call: the innermost range open on the call's thread when it began.
    if (!m_flowTo.empty() && m_flowFrom.kind == Row::Api && m_flowFrom.row < m_run->apiRows.size()) {
        const uint32_t inst = hostRangeAt(*m_run, m_flowFrom.row, m_run->apiRows[m_flowFrom.row].startNs[m_flowFrom.index]);
        if (inst != kNone)
            m_flowOp = FlowEnd{Row::HostLane, m_run->hostLaneOf[inst], m_run->hostPosOf[inst]};
    }
}

bool TimelineWidget::flowPartnerSpan(int64_t& t0, int64_t& t1) const
{
    if (m_flowTo.empty() || !m_run || m_flowFrom.kind != Row::Api || m_flowFrom.row >= m_run->apiRows.size())
        return false;
    const Selection& sel = m_state->selection();
    if (sel.kind == Selection::ApiCall) {   // the first kernel it launched
        const FlowEnd& k = m_flowTo.front();
        if (k.row >= m_run->tracks.size())
            return false;
        const TrackData& t = m_run->tracks[k.row];
        t0 = t.startNs[k.index];
        t1 = t.endNs(k.index);
        return true;
    }
    const ApiRowData& calls = m_run->apiRows[m_flowFrom.row];   // the kernel's launching call
    t0 = calls.startNs[m_flowFrom.index];
    t1 = calls.endNs(m_flowFrom.index);
    return true;
}

int TimelineWidget::layoutRowOf(Row::Kind kind, uint32_t index) const
{
    const auto& rows = m_layout.rows();
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].kind == kind && rows[r].index == int(index))
            return int(r);
    return -1;
}

void TimelineWidget::markFlows()
{
    if (m_flowTo.empty())
        return;
    auto mark = [&](const FlowEnd& e) {
        const int r = layoutRowOf(e.kind, e.row);
        if (r < 0 || size_t(r) >= m_draw.rows.size())
            return;
        const int k = findItem(m_draw.rows[size_t(r)], e.index);
        if (k >= 0 && !(m_draw.rows[size_t(r)][size_t(k)].flags & DrawItem::Selected))
            m_draw.rows[size_t(r)][size_t(k)].flags |= DrawItem::Highlighted;
    };
    mark(m_flowFrom);
    if (m_flowOp.row != kNone)
        mark(m_flowOp);
    for (size_t i = 0; i < m_flowTo.size() && i < kMaxArrows; ++i)
        mark(m_flowTo[i]);
}

bool TimelineWidget::flowOpSegment(QPointF& from, QPointF& to) const
{
    if (m_flowTo.empty() || !m_run || m_flowOp.row == kNone || m_flowFrom.kind != Row::Api)
        return false;
    const auto& rows = m_layout.rows();
    const int op = layoutRowOf(Row::HostLane, m_flowOp.row);
    const int call = layoutRowOf(Row::Api, m_flowFrom.row);
    if (op < 0 || call < 0)
        return false;
    // At the call's start: from the op's bottom edge down to the call's top edge (the op is
    // on a lane of the same thread, above its API rows).
    const int top = kRulerHeight;
    const double x = m_mapping.x(double(m_run->apiRows[m_flowFrom.row].startNs[m_flowFrom.index]));
    from = QPointF(x, top + rows[size_t(op)].y - m_scrollY + rows[size_t(op)].height - 1.0);
    to = QPointF(x, top + rows[size_t(call)].y - m_scrollY + 1.0);
    return true;
}

void TimelineWidget::paintFlows(QPainter& p, int top)
{
    if (m_flowTo.empty() || !m_run)
        return;
    const auto& rows = m_layout.rows();
    const int from = layoutRowOf(m_flowFrom.kind, m_flowFrom.row);
    if (from < 0)
        return;
    const ApiRowData& api = m_run->apiRows[m_flowFrom.row];
    const QPointF a(m_mapping.x(double(api.startNs[m_flowFrom.index])),
                    top + rows[size_t(from)].y - m_scrollY + rows[size_t(from)].height / 2.0);
    QColor c = palette().color(QPalette::Text);
    p.setRenderHint(QPainter::Antialiasing, true);
    auto head = [&](const QPointF& tip, double angle) {
        QPolygonF h;
        h << tip << tip - QPointF(std::cos(angle - 0.45) * 8, std::sin(angle - 0.45) * 8)
          << tip - QPointF(std::cos(angle + 0.45) * 8, std::sin(angle + 0.45) * 8);
        p.setBrush(c);
        p.drawPolygon(h);
    };
    // The CPU op around the call: a straight arrow down to the call, so op -> call -> kernel
    // reads as one chain.
    QPointF opFrom, opTo;
    if (flowOpSegment(opFrom, opTo) && opTo.y() - opFrom.y() > 4) {
        p.setPen(QPen(c, 1.5));
        p.drawLine(opFrom, opTo - QPointF(0, 2));
        head(opTo, std::atan2(1.0, 0.0));
    }
    for (size_t i = 0; i < m_flowTo.size() && i < kMaxArrows; ++i) {
        const FlowEnd& e = m_flowTo[i];
        const int r = layoutRowOf(e.kind, e.row);
        if (r < 0)
            continue;
        const TrackData& t = m_run->tracks[e.row];
        const QPointF b(m_mapping.x(double(t.startNs[e.index])), top + rows[size_t(r)].y - m_scrollY + 2.0);
        // A curve from the call down to the kernel's top left corner, and an arrow head.
        QPainterPath path(a);
        const double dy = (b.y() - a.y()) / 2;
        path.cubicTo(QPointF(a.x(), a.y() + dy), QPointF(b.x(), b.y() - dy), b);
        p.setPen(QPen(c, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        head(b, std::atan2(b.y() - (b.y() - dy), 0.0001 + b.x() - b.x()));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

}  // namespace wt::gui
