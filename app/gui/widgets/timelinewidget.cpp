#include "timelinewidget.h"

#include "app/gui/core/displayname.h"
#include "app/gui/core/timeformat.h"
#include "findbar.h"
#include "analysis/summarytable.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace wt::gui {

namespace {

QColor textOn(QRgb c)
{
    return qGray(c) > 140 ? QColor(Qt::black) : QColor(Qt::white);
}

// 70% brightness without the HSV round trip of QColor::darker (hot in the paint loop).
QColor shade(QRgb c)
{
    return QColor(qRed(c) * 7 / 10, qGreen(c) * 7 / 10, qBlue(c) * 7 / 10);
}

// a over b with alpha a255 / 255, opaque.
QRgb mix(QRgb a, QRgb b, int a255)
{
    auto ch = [&](int x, int y) { return (x * a255 + y * (255 - a255) + 127) / 255; };
    return qRgb(ch(qRed(a), qRed(b)), ch(qGreen(a), qGreen(b)), ch(qBlue(a), qBlue(b)));
}

}  // namespace

TimelineWidget::TimelineWidget(ViewState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_vbar(new QScrollBar(Qt::Vertical, this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setObjectName(QStringLiteral("timeline"));
    connect(m_vbar, &QScrollBar::valueChanged, this, [this](int v) {
        m_scrollY = v;
        update();
    });
    connect(m_state, &ViewState::runChanged, this, &TimelineWidget::onRunChanged);
    connect(m_state, &ViewState::runUpdated, this, &TimelineWidget::onRunUpdated);
    connect(m_state, &ViewState::viewRangeChanged, this, [this](double t0, double t1) {
        if (t0 != m_mapping.startNs() || t1 != m_mapping.endNs())
            setViewRange(t0, t1);
    });
    connect(m_state, &ViewState::selectionChanged, this, [this] {
        updateFlows();
        revealSelection();
        prepare();
        update();
        updateFindStatus();
    });
    connect(m_state, &ViewState::groupSelectionChanged, this, [this] {
        if (!m_state->groupSelection().isEmpty() && m_search)
            closeFind();   // a group picked elsewhere takes the marks
        prepare();
        update();
    });
    connect(m_state, &ViewState::rangeSelectionChanged, this, qOverload<>(&QWidget::update));
    onRunChanged();
}

QRect TimelineWidget::plotRect() const
{
    int w = width() - kGutterWidth - (m_vbar->isVisible() ? m_vbar->width() : 0);
    return QRect(kGutterWidth, kRulerHeight, std::max(w, 1), std::max(height() - kRulerHeight, 1));
}

void TimelineWidget::showOverview(std::shared_ptr<const RunData> overview)
{
    if (!overview) {   // the load failed or was cancelled: back to the ViewState's run
        if (showsOverview())
            onRunChanged();
        return;
    }
    m_run = std::move(overview);
    m_collapsed.clear();
    m_hostFolds = HostFolds();
    m_flowTo.clear();
    m_shortNames.clear();
    m_scrollY = 0;
    m_mapping = TimeMapping(0, 1, plotRect().width());
    double span = double(std::max<int64_t>(m_run->spanEndNs - m_run->spanStartNs, 1000));
    m_mapping.setLimits(double(m_run->spanStartNs) - 0.02 * span, double(m_run->spanEndNs) + 0.02 * span);
    m_mapping.setRange(double(m_run->spanStartNs), double(m_run->spanEndNs));
    relayout();
    mappingChanged();
}

void TimelineWidget::showWindow(std::shared_ptr<const RunData> window)
{
    if (!window)
        return;
    const bool same = m_run && m_run->overviewOnly && m_run->filePath == window->filePath && m_run->run.id == window->run.id;
    if (!same) {
        showOverview(std::move(window));
        return;
    }
    // Same run, same rows: the view, the scroll and the folded lanes stay.
    const int scroll = m_vbar->value();
    m_run = std::move(window);
    m_shortNames.clear();
    relayout();
    m_vbar->setValue(scroll);
    prepare();
    update();
}

void TimelineWidget::setDetailNote(const QString& note)
{
    m_detailNote = note;
    update();
}

QString TimelineWidget::caption() const
{
    if (!m_run || !m_run->overviewOnly)
        return {};
    if (m_run->windowed && double(m_run->detailStartNs) <= m_mapping.startNs() && double(m_run->detailEndNs) >= m_mapping.endNs())
        return m_run->detailLanes ? QString()
                                  : QStringLiteral("Activities loaded for this window \u00b7 scope lanes from the summary until they are read");
    if (!m_detailNote.isEmpty())
        return m_detailNote;
    return QStringLiteral("Overview from the stored summary \u00b7 loading the activities\u2026");
}

void TimelineWidget::onRunChanged()
{
    // The loaded run replacing its overview keeps the window the user moved to meanwhile.
    const bool fromOverview = m_run && m_run->overviewOnly && m_state->run() && m_state->run()->filePath == m_run->filePath &&
                              m_state->run()->run.id == m_run->run.id;
    const double keepT0 = m_mapping.startNs(), keepT1 = m_mapping.endNs();
    const bool zoomed = fromOverview && (keepT0 > double(m_run->spanStartNs) || keepT1 < double(m_run->spanEndNs));
    m_run = m_state->run();
    m_collapsed.clear();
    m_hostFolds = HostFolds();
    // A CPU-backend capture: the "device" is the capturing thread itself, so its scope tree on
    // the thread row (host time) and in the device's lanes (projected onto the ops, same clock)
    // would read twice. The device shows its step lane and op track only; a click on that
    // lane unfolds the rest.
    if (m_run && m_run->run.backend == "cpu" && !m_run->hostLanes.empty())
        for (const LaneData& lane : m_run->lanes)
            m_collapsed[lane.deviceIndex] = 1;
    updateFlows();
    m_shortNames.clear();
    m_scrollY = 0;
    m_mapping = TimeMapping(0, 1, plotRect().width());
    if (m_run) {
        double span = double(std::max<int64_t>(m_run->spanEndNs - m_run->spanStartNs, 1000));
        m_mapping.setLimits(double(m_run->spanStartNs) - 0.02 * span, double(m_run->spanEndNs) + 0.02 * span);
        m_mapping.setRange(double(m_run->spanStartNs), double(m_run->spanEndNs));
        if (zoomed)
            m_mapping.setRange(keepT0, keepT1);
    }
    relayout();
    if (m_search)   // the matches of the new run
        runSearch(m_search->text, m_search->regex);
    mappingChanged();
}

void TimelineWidget::onRunUpdated()
{
    m_run = m_state->run();
    m_shortNames.clear();
    if (!m_run) {
        onRunChanged();
        return;
    }
    const int scroll = m_vbar->value();
    double span = double(std::max<int64_t>(m_run->spanEndNs - m_run->spanStartNs, 1000));
    m_mapping.setLimits(double(m_run->spanStartNs) - 0.02 * span, double(m_run->spanEndNs) + 0.02 * span);
    m_mapping.setRange(m_state->viewStartNs(), m_state->viewEndNs());
    relayout();
    m_vbar->setValue(scroll);
    if (m_search)
        runSearch(m_search->text, m_search->regex);
    mappingChanged();
}

void TimelineWidget::relayout()
{
    if (m_run)
        m_layout.build(*m_run, m_collapsed, m_hostFolds);
    else
        m_layout = TimelineLayout();
    updateScrollBar();
}

void TimelineWidget::updateScrollBar()
{
    int viewH = height() - kRulerHeight;
    int maxScroll = std::max(0, m_layout.contentHeight() - viewH);
    m_vbar->setVisible(maxScroll > 0);
    m_vbar->setGeometry(width() - m_vbar->sizeHint().width(), kRulerHeight, m_vbar->sizeHint().width(), std::max(viewH, 1));
    m_vbar->setRange(0, maxScroll);
    m_vbar->setPageStep(std::max(viewH, 1));
    m_vbar->setSingleStep(TimelineLayout::kTrackHeight);
    m_scrollY = m_vbar->value();
}

void TimelineWidget::prepare()
{
    if (!m_run) {
        m_draw = DrawList();
        return;
    }
    if (m_run->overviewOnly) {   // the ViewState's selection and marks are of another run
        buildDrawList(*m_run, m_layout, m_mapping, Selection{}, m_draw);
        return;
    }
    buildDrawList(*m_run, m_layout, m_mapping, m_state->selection(), m_draw, {}, groupMarks());
    markFlows();
}

void TimelineWidget::mappingChanged()
{
    prepare();
    if (m_run && !m_run->overviewOnly)
        m_state->setViewRange(m_mapping.startNs(), m_mapping.endNs());
    if (m_run && m_run->overviewOnly)
        emit summaryViewChanged();
    update();
}

void TimelineWidget::setViewRange(double t0, double t1)
{
    m_mapping.setRange(t0, t1);
    mappingChanged();
}

void TimelineWidget::setTimeLimits(double lo, double hi)
{
    m_mapping.setLimits(lo, hi);
    mappingChanged();
}

void TimelineWidget::zoomBy(double factor)
{
    // At the cursor when the mouse is over the plot, else around the center.
    QPoint pos = mapFromGlobal(QCursor::pos());
    double x = underMouse() && plotRect().contains(pos) ? plotX(pos) : m_mapping.widthPx() / 2.0;
    m_mapping.zoomAt(x, factor);
    mappingChanged();
}

void TimelineWidget::panByFraction(double fraction)
{
    m_mapping.panPx(fraction * m_mapping.widthPx());
    mappingChanged();
}

void TimelineWidget::fit()
{
    if (!m_run)
        return;
    double t0 = double(m_run->spanStartNs), t1 = double(m_run->spanEndNs);
    if (m_run->overviewOnly) {   // the ViewState's selection and range are of another run
        setViewRange(t0, t1);
        return;
    }
    const Selection& sel = m_state->selection();
    bool whole = false;
    if (m_state->hasRangeSelection()) {
        t0 = m_state->rangeStartNs();
        t1 = m_state->rangeEndNs();
    } else if (sel.kind == Selection::Activity && sel.track < m_run->tracks.size()) {
        const TrackData& t = m_run->tracks[sel.track];
        t0 = double(t.startNs[sel.index]);
        t1 = double(t.endNs(sel.index));
    } else if (int64_t a = 0, b = 0; sel.kind != Selection::None && selectionSpan(*m_run, sel, a, b)) {
        t0 = double(a);
        t1 = double(b);
    } else {
        whole = true;
    }
    // The whole run: exactly its span (the ruler from its first activity to its last); an item
    // or a range: with a margin, so its edges show.
    const double margin = whole ? 0.0 : std::max((t1 - t0) * 0.02, 5.0);
    setViewRange(t0 - margin, t1 + margin);
}

void TimelineWidget::revealSelection()
{
    // A selection made elsewhere (a breakdown slice picks a representative kernel, maybe on
    // another rank) must be seen: scroll its row into view and, when it lies outside the visible
    // time, centre it at the same zoom. A click in the timeline is in view already: no change.
    const Selection& sel = m_state->selection();
    if (!m_run || m_run->overviewOnly || sel.kind == Selection::None)
        return;
    int64_t start = 0, end = 0;
    int rowY = -1, rowH = 0;
    if (sel.kind == Selection::Activity && sel.track < m_run->tracks.size() && sel.index < m_run->tracks[sel.track].size()) {
        const TrackData& t = m_run->tracks[sel.track];
        start = t.startNs[sel.index];
        end = t.endNs(sel.index);
        for (const Row& r : m_layout.rows())
            if (r.kind == Row::Track && r.index == int(sel.track)) {
                rowY = r.y;
                rowH = r.height;
            }
    } else if (sel.kind == Selection::Scope && sel.host && sel.index < m_run->hostLaneOf.size() && m_run->hostLaneOf[sel.index] != kNone) {
        selectionSpan(*m_run, sel, start, end);
        for (const Row& r : m_layout.rows())
            if (r.kind == Row::HostLane && r.index == int(m_run->hostLaneOf[sel.index])) {
                rowY = r.y;
                rowH = r.height;
            }
    } else if (sel.kind == Selection::Scope && sel.index < m_run->instances.size() && m_run->instances.hasSpan(sel.index)) {
        start = m_run->instances.gpuStart(sel.index);
        end = m_run->instances.gpuEnd(sel.index);
        for (const Row& r : m_layout.rows()) {
            if (r.kind != Row::Lane || size_t(r.index) >= m_run->lanes.size())
                continue;
            const auto& items = m_run->lanes[size_t(r.index)].items;
            if (std::find(items.begin(), items.end(), sel.index) != items.end()) {
                rowY = r.y;
                rowH = r.height;
                break;
            }
        }
    } else {
        return;
    }
    const int viewH = height() - kRulerHeight;
    if (rowY >= 0 && viewH > 0 && (rowY < m_scrollY || rowY + rowH > m_scrollY + viewH))
        m_vbar->setValue(std::clamp(rowY - viewH / 3, m_vbar->minimum(), m_vbar->maximum()));
    const double t0 = m_mapping.startNs(), t1 = m_mapping.endNs();
    if (double(end) < t0 || double(start) > t1) {
        const double half = (t1 - t0) / 2, mid = (double(start) + double(end)) / 2;
        setViewRange(mid - half, mid + half);
    }
}

void TimelineWidget::setCollapsedDepth(int deviceIndex, int depth)
{
    if (depth == 0)
        m_collapsed.erase(deviceIndex);
    else
        m_collapsed[deviceIndex] = depth;
    relayout();
    prepare();
    update();
}

int TimelineWidget::collapsedDepth(int deviceIndex) const
{
    auto it = m_collapsed.find(deviceIndex);
    return it == m_collapsed.end() ? 0 : it->second;
}

void TimelineWidget::setHostFolded(Row::Kind kind, int index, bool folded)
{
    std::set<uint32_t>* set = kind == Row::ProcessHeader ? &m_hostFolds.processes : kind == Row::ThreadHeader ? &m_hostFolds.threads : nullptr;
    if (!set || index < 0)
        return;
    if (folded)
        set->insert(uint32_t(index));
    else
        set->erase(uint32_t(index));
    relayout();
    prepare();
    update();
}

bool TimelineWidget::hostFolded(Row::Kind kind, int index) const
{
    if (index < 0)
        return false;
    if (kind == Row::ProcessHeader)
        return m_hostFolds.processes.count(uint32_t(index)) > 0;
    if (kind == Row::ThreadHeader)
        return m_hostFolds.threads.count(uint32_t(index)) > 0;
    return false;
}

void TimelineWidget::resizeEvent(QResizeEvent*)
{
    updateScrollBar();
    m_mapping.setWidth(plotRect().width());
    placeFindBar();
    mappingChanged();
}

TimelineWidget::Hit TimelineWidget::hitAt(const QPoint& pos) const
{
    Hit h;
    if (!plotRect().contains(pos))
        return h;
    int r = m_layout.rowAt(pos.y() - kRulerHeight + m_scrollY);
    if (r < 0 || size_t(r) >= m_draw.rows.size())
        return h;
    h.row = r;
    h.item = hitTest(m_draw.spans[size_t(r)], plotX(pos), 2.0);
    return h;
}

void TimelineWidget::selectAt(const QPoint& pos)
{
    if (showsOverview())
        return;   // buckets, not activities: nothing to pick until the run is loaded
    Hit h = hitAt(pos);
    Selection sel;
    if (h.item >= 0) {
        const Row& row = m_layout.rows()[size_t(h.row)];
        const DrawItem& d = m_draw.rows[size_t(h.row)][size_t(h.item)];
        if (d.count == 1 && row.kind == Row::Track) {
            sel.kind = Selection::Activity;
            sel.track = uint32_t(row.index);
            sel.index = d.first;
        } else if (d.count == 1 && row.kind == Row::Api) {
            sel.kind = Selection::ApiCall;
            sel.track = uint32_t(row.index);
            sel.index = d.first;
        } else if (d.count == 1 && row.kind == Row::Lane) {
            sel.kind = Selection::Scope;
            sel.index = m_run->lanes[size_t(row.index)].items[d.first];
        } else if (d.count == 1 && row.kind == Row::HostLane) {
            sel.kind = Selection::Scope;
            sel.index = m_run->hostLanes[size_t(row.index)].items[d.first];
            sel.host = true;
        } else {
            // A fold: zoom onto it so its members separate.
            double t0 = m_mapping.timeAt(d.x0), t1 = m_mapping.timeAt(d.x1);
            setViewRange(t0, t1);
            return;
        }
    }
    // A pick in the timeline replaces a group picked in the breakdown.
    m_state->clearGroupSelection();
    m_state->setSelection(sel);
}

bool TimelineWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QString text = showsOverview() ? QStringLiteral("Overview from the file's stored summary; the activities are loading")
                                       : toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    // As Perfetto and Nsight Systems: Ctrl+wheel zooms at the cursor, the wheel scrolls the
    // rows, Shift+wheel and the horizontal wheel (trackpads) pan. (Qt turns Shift+wheel into a
    // horizontal delta on some platforms: either way it pans.)
    const QPoint delta = event->angleDelta();
    const bool horizontal = std::abs(delta.x()) > std::abs(delta.y());
    if (event->modifiers() & Qt::ControlModifier) {
        const int d = horizontal ? delta.x() : delta.y();
        double x = std::clamp(event->position().x() - kGutterWidth, 0.0, double(m_mapping.widthPx()));
        m_mapping.zoomAt(x, std::pow(1.0015, d));
        mappingChanged();
    } else if (horizontal || (event->modifiers() & Qt::ShiftModifier)) {
        const int d = horizontal ? delta.x() : delta.y();
        m_mapping.panPx(-double(d) / 120.0 * 0.1 * double(m_mapping.widthPx()));   // a notch: 10% of the view
        mappingChanged();
    } else if (delta.y() != 0) {
        m_vbar->setValue(m_vbar->value() - delta.y() / 2);
    }
    event->accept();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    // Double-click a slice: select it and zoom to it (Perfetto's, Tracy's gesture).
    if (event->button() != Qt::LeftButton || event->pos().x() < kGutterWidth || event->pos().y() < kRulerHeight)
        return QWidget::mouseDoubleClickEvent(event);
    m_drag = Drag::None;
    unsetCursor();
    selectAt(event->pos());
    if (m_state->selection().kind != Selection::None)
        fit();
    event->accept();
}

bool TimelineWidget::isNavigationKey(int key, Qt::KeyboardModifiers modifiers)
{
    if (modifiers & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))
        return false;
    switch (key) {
    case Qt::Key_W: case Qt::Key_A: case Qt::Key_S: case Qt::Key_D: case Qt::Key_F: case Qt::Key_Slash:
        return true;
    default:
        return false;
    }
}

QString TimelineWidget::shortcutsHelp()
{
    return QStringLiteral(
        "<table>"
        "<tr><th align=left colspan=2>Timeline (the keys work wherever the focus is, outside text fields)</th></tr>"
        "<tr><td>W / S</td><td>zoom in / out</td></tr>"
        "<tr><td>A / D, Left / Right</td><td>pan left / right (10% of the view)</td></tr>"
        "<tr><td>F</td><td>fit the range selection, the selected item, or the whole run</td></tr>"
        "<tr><td>Up / Down</td><td>scroll the rows</td></tr>"
        "<tr><td>Ctrl+F or /</td><td>find by name (substring or regular expression)</td></tr>"
        "<tr><td>Enter / Shift+Enter</td><td>next / previous match (in the find bar)</td></tr>"
        "<tr><td>Escape</td><td>close the find bar, else clear the selection</td></tr>"
        "<tr><th align=left colspan=2>Mouse</th></tr>"
        "<tr><td>Ctrl+wheel</td><td>zoom at the cursor</td></tr>"
        "<tr><td>wheel</td><td>scroll the rows</td></tr>"
        "<tr><td>Shift+wheel, horizontal wheel</td><td>pan</td></tr>"
        "<tr><td>drag</td><td>pan (and scroll)</td></tr>"
        "<tr><td>click</td><td>select a kernel, scope or API call (its launch flow is drawn)</td></tr>"
        "<tr><td>double-click</td><td>select a slice and zoom to it</td></tr>"
        "<tr><td>Shift+drag</td><td>select a time range (its duration is shown; the breakdown can follow it)</td></tr>"
        "<tr><td>click a lane or rank label</td><td>fold the levels below it, or the rank</td></tr>"
        "</table>");
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_pressPos = m_lastPos = event->pos();
    m_moved = false;
    if (event->pos().x() < kGutterWidth && event->pos().y() >= kRulerHeight) {
        // Gutter: a lane label toggles the levels below it.
        int r = m_layout.rowAt(event->pos().y() - kRulerHeight + m_scrollY);
        if (r >= 0 && m_run) {
            const Row& row = m_layout.rows()[size_t(r)];
            if (row.kind == Row::Lane) {
                int depth = m_run->lanes[size_t(row.index)].depth;
                setCollapsedDepth(row.deviceIndex, collapsedDepth(row.deviceIndex) == depth ? 0 : depth);
            } else if (row.kind == Row::ProcessHeader || row.kind == Row::ThreadHeader) {
                setHostFolded(row.kind, row.index, !hostFolded(row.kind, row.index));
            } else if (row.isHeader()) {
                // A device header (a rank of a job) folds its whole group.
                setCollapsedDepth(row.deviceIndex, collapsedDepth(row.deviceIndex) < 0 ? 0 : -1);
            }
        }
        m_drag = Drag::None;
        return;
    }
    m_drag = event->modifiers() & Qt::ShiftModifier ? Drag::Range : Drag::Pan;
    m_pressTimeNs = m_mapping.timeAt(plotX(event->pos()));
    if (m_drag == Drag::Pan)
        setCursor(Qt::ClosedHandCursor);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_drag == Drag::None)
        return;
    if ((event->pos() - m_pressPos).manhattanLength() >= 3)
        m_moved = true;
    if (m_drag == Drag::Pan) {
        m_mapping.panPx(double(m_lastPos.x() - event->pos().x()));
        m_vbar->setValue(m_vbar->value() - (event->pos().y() - m_lastPos.y()));
        mappingChanged();
    } else if (m_moved) {
        m_state->setRangeSelection(m_pressTimeNs, m_mapping.timeAt(plotX(event->pos())));
    }
    m_lastPos = event->pos();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || m_drag == Drag::None)
        return;
    Drag drag = m_drag;
    m_drag = Drag::None;
    unsetCursor();
    if (!m_moved) {
        if (drag == Drag::Range)
            m_state->clearRangeSelection();
        else
            selectAt(event->pos());
    }
}

void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_W: zoomBy(1.25); break;
    case Qt::Key_S: zoomBy(1 / 1.25); break;
    case Qt::Key_A: case Qt::Key_Left: panByFraction(-0.1); break;
    case Qt::Key_D: case Qt::Key_Right: panByFraction(0.1); break;
    case Qt::Key_F:
        if (event->modifiers() & Qt::ControlModifier)
            openFind();
        else
            fit();
        break;
    case Qt::Key_Slash: openFind(); break;
    case Qt::Key_Up: m_vbar->setValue(m_vbar->value() - TimelineLayout::kTrackHeight); break;
    case Qt::Key_Down: m_vbar->setValue(m_vbar->value() + TimelineLayout::kTrackHeight); break;
    case Qt::Key_Escape:
        if (m_search || (m_find && m_find->isVisible())) {
            closeFind();
            break;
        }
        m_state->clearRangeSelection();
        m_state->clearGroupSelection();
        m_state->setSelection({});
        break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette& pal = palette();
    const QRect plot = plotRect();
    if (!m_run) {
        p.fillRect(rect(), pal.color(QPalette::Base));
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("Open a file (Ctrl+O) or drop one here, then pick a run."));
        return;
    }
    const QColor grid = pal.color(QPalette::Mid);
    const QColor highlight = pal.color(QPalette::Highlight);
    const QRgb accent = highlight.rgb();
    const QColor text = pal.color(QPalette::Text);
    const QFontMetrics fm = fontMetrics();
    const auto& rows = m_layout.rows();
    const int top = kRulerHeight;

    // Rows: bands and item bodies go into an opaque strip image, one line buffer per row
    // copied to each of its pixel lines, then the strip is drawn once. A QPainter::fillRect
    // per span (two or three per item, ~10k a frame zoomed out) cost several ms a frame;
    // this writes each pixel once. Below the rows: the base color.
    const QRgb base = pal.color(QPalette::Base).rgb(), alternateBase = pal.color(QPalette::AlternateBase).rgb();
    const int stripH = std::clamp(m_layout.contentHeight() - m_scrollY, 0, std::max(height() - top, 0));
    const qreal dpr = devicePixelRatioF();
    const int stripW = int(std::ceil(plot.width() * dpr)), stripDevH = int(std::ceil(stripH * dpr));
    if (stripW > 0 && stripDevH > 0) {
        if (m_strip.width() != stripW || m_strip.height() != stripDevH)
            m_strip = QImage(stripW, stripDevH, QImage::Format_RGB32);
        m_strip.setDevicePixelRatio(dpr);
        auto line = [&](int dy) { return reinterpret_cast<QRgb*>(m_strip.scanLine(dy)); };
        auto col = [&](double x) { return std::clamp(int(std::lround(x * dpr)), 0, stripW); };
        int dy = 0;
        for (size_t r = 0; r < rows.size(); ++r) {
            const Row& row = rows[r];
            const int ry0 = row.y - m_scrollY;   // logical, from the strip's top
            if (ry0 + row.height <= 0)
                continue;
            if (ry0 >= stripH)
                break;
            const int d0 = std::clamp(int(std::lround(ry0 * dpr)), 0, stripDevH);
            const int d1 = std::clamp(int(std::lround((ry0 + row.height) * dpr)), 0, stripDevH);
            for (; dy < d0; ++dy)
                std::fill_n(line(dy), stripW, base);   // the gap above the row
            const bool alternate = row.isHeader() || (row.kind == Row::Track && (r % 2));
            const QRgb bg = alternate ? alternateBase : base;
            m_lineBody.assign(size_t(stripW), bg);
            m_lineBase.assign(size_t(stripW), bg);
            if (!row.isHeader() && r < m_draw.rows.size()) {
                const std::vector<DrawItem>& items = m_draw.rows[r];
                for (const PaintSpan& span : m_draw.spans[r]) {
                    const DrawItem& d = items[span.item];
                    const int c0 = col(span.x0), c1 = col(span.x1);
                    if (d.isFold()) {
                        // Folds: the color at 55% over the band with a solid baseline, so they
                        // read as "many" (blended here: spans never overlap).
                        std::fill(m_lineBody.begin() + c0, m_lineBody.begin() + c1, mix(d.color, bg, 140));
                        std::fill(m_lineBase.begin() + c0, m_lineBase.begin() + c1, shade(d.color).rgb());
                        continue;
                    }
                    std::fill(m_lineBody.begin() + c0, m_lineBody.begin() + c1, d.color);
                    std::fill(m_lineBase.begin() + c0, m_lineBase.begin() + c1, d.color);
                    if (span.x1 - span.x0 > 6 && span.x1 >= int(std::ceil(d.x1))) {   // right edge
                        const int e0 = col(span.x1 - 1);
                        std::fill(m_lineBody.begin() + e0, m_lineBody.begin() + c1, shade(d.color).rgb());
                        std::fill(m_lineBase.begin() + e0, m_lineBase.begin() + c1, shade(d.color).rgb());
                    }
                }
                // Group selection: members keep their colors over a baseline in the highlight
                // color; every other item of the row fades into the band. Column by column
                // from the prepared marks, so a fold shows where its members are.
                if (r < m_draw.groupedRows.size() && m_draw.groupedRows[r]) {
                    m_lineMark.assign(size_t(stripW), 0);
                    for (const MarkSpan& mk : m_draw.marks[r]) {
                        const int a = col(mk.x0), b = std::max(col(mk.x1), std::min(a + 1, stripW));
                        std::fill(m_lineMark.begin() + a, m_lineMark.begin() + b, 1);
                    }
                    for (const PaintSpan& span : m_draw.spans[r]) {
                        for (int c = col(span.x0), c1 = col(span.x1); c < c1; ++c) {
                            if (m_lineMark[size_t(c)]) {
                                m_lineBase[size_t(c)] = accent;
                            } else {
                                m_lineBody[size_t(c)] = mix(m_lineBody[size_t(c)], bg, 70);
                                m_lineBase[size_t(c)] = mix(m_lineBase[size_t(c)], bg, 70);
                            }
                        }
                    }
                }
            }
            // Pixel lines: band, bodies, baselines (the last two above the bottom), band.
            for (; dy < d1; ++dy) {
                const double off = dy / dpr - ry0;
                const bool band = off < 1 || off >= row.height - 1 || row.isHeader();
                if (band)
                    std::fill_n(line(dy), stripW, bg);
                else
                    std::memcpy(line(dy), (off >= row.height - 3 ? m_lineBase : m_lineBody).data(), size_t(stripW) * sizeof(QRgb));
            }
        }
        for (; dy < stripDevH; ++dy)
            std::fill_n(line(dy), stripW, base);
        p.drawImage(QPointF(plot.left(), top), m_strip);
    }
    if (stripH < height() - top)
        p.fillRect(QRect(plot.left(), top + stripH, plot.width(), height() - top - stripH), pal.color(QPalette::Base));

    // Labels inside wide items, then selection outlines, clipped to the plot.
    p.save();
    p.setClipRect(plot);
    p.translate(plot.left(), 0);
    // A window of a run over the memory cap holds activities (and, with its skeleton, scope
    // instances) where it covers the view: those have names.
    const bool detail = m_run->windowed && double(m_run->detailStartNs) <= m_mapping.startNs() &&
                        double(m_run->detailEndNs) >= m_mapping.endNs();
    for (size_t r = 0; r < rows.size() && r < m_draw.rows.size(); ++r) {
        const Row& row = rows[r];
        int y = top + row.y - m_scrollY;
        if (y + row.height < top || y > height() || row.isHeader())
            continue;
        const std::vector<DrawItem>& items = m_draw.rows[r];
        const MemberBits* members = nullptr;   // the row's group membership, when it takes part
        if (r < m_draw.groupedRows.size() && m_draw.groupedRows[r] && groupMarks())
            members = groupBits(*groupMarks(), row);
        const bool named = !m_run->overviewOnly || (detail && (row.kind == Row::Track || m_run->detailLanes));
        for (const PaintSpan& span : m_draw.spans[r]) {
            const DrawItem& d = items[span.item];
            if (d.isFold() || span.x1 - span.x0 <= 40 || !named)   // overview: buckets have no names
                continue;
            QRect tr = QRect(span.x0, y + 1, span.x1 - span.x0, row.height - 2).adjusted(3, 0, -3, 0);
            const bool dimmed = members && !members->test(d.first);
            p.setPen(dimmed ? pal.color(QPalette::PlaceholderText) : textOn(d.color));
            p.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, elideShort(fm, shortItemName(row, d), tr.width()));
        }
        for (const DrawItem& d : items) {
            if (!(d.flags & (DrawItem::Selected | DrawItem::Highlighted)))
                continue;
            QRectF box(d.x0, y + 1, d.x1 - d.x0, row.height - 2);
            p.setPen(QPen(d.flags & DrawItem::Selected ? text : highlight, d.flags & DrawItem::Selected ? 2 : 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
        }
    }
    paintFlows(p, top);
    // Selected scope: its span as a band across all rows (none on an overview: the selection
    // is of the run shown before).
    static const Selection noSelection;
    const Selection& sel = m_run->overviewOnly ? noSelection : m_state->selection();
    int64_t bandStart = 0, bandEnd = 0;   // GPU span, or host times when picked on a host lane
    if (sel.kind == Selection::Scope && selectionSpan(*m_run, sel, bandStart, bandEnd)) {
        double a = m_mapping.x(double(bandStart));
        double b = m_mapping.x(double(bandEnd));
        QColor band = highlight;
        band.setAlpha(40);
        p.fillRect(QRectF(a, top, std::max(b - a, 1.0), height() - top), band);
    }
    if (m_state->hasRangeSelection()) {
        double a = m_mapping.x(m_state->rangeStartNs()), b = m_mapping.x(m_state->rangeEndNs());
        QColor band = highlight;
        band.setAlpha(60);
        p.fillRect(QRectF(a, top, std::max(b - a, 1.0), height() - top), band);
        p.setPen(highlight);
        p.drawLine(QPointF(a, top), QPointF(a, height()));
        p.drawLine(QPointF(b, top), QPointF(b, height()));
        QString len = formatDuration(m_state->rangeEndNs() - m_state->rangeStartNs());
        p.setPen(text);
        p.drawText(QRectF(a, top + 2, std::max(b - a, 80.0), fm.height()), Qt::AlignHCenter, len);
    }
    p.restore();

    // Gutter: row labels; lane labels are indented by depth and show the collapse state.
    p.fillRect(QRect(0, top, kGutterWidth, height() - top), pal.color(QPalette::Window));
    p.setClipRect(QRect(0, top, kGutterWidth, height() - top));
    for (const Row& row : rows) {
        int y = top + row.y - m_scrollY;
        if (y + row.height < top || y > height())
            continue;
        QRect lr(6, y, kGutterWidth - 10, row.height);
        QFont f = font();
        p.setPen(pal.color(QPalette::WindowText));
        QString label = row.label;
        if (row.kind == Row::ProcessHeader || row.kind == Row::ThreadHeader) {
            // Processes and threads nest under the CPU header: indented, the thread's name plain.
            f.setBold(row.kind == Row::ProcessHeader);
            lr.setLeft(row.kind == Row::ProcessHeader ? 8 : 14);
            if (!m_printMode)
                label = (hostFolded(row.kind, row.index) ? QStringLiteral("\u25b8 ") : QStringLiteral("\u25be ")) + label;
        } else if (row.isHeader()) {
            f.setBold(true);
            if (!m_printMode)
                label = (collapsedDepth(row.deviceIndex) < 0 ? QStringLiteral("\u25b8 ") : QStringLiteral("\u25be ")) + label;
        } else if (row.kind == Row::HostLane || (row.kind == Row::Api && !m_run->hostThreads.empty())) {
            // A thread's lanes: indented under its header, deeper ranges a little more.
            const int depth = row.kind == Row::HostLane ? m_run->hostLanes[size_t(row.index)].depth : 1;
            lr.setLeft(24 + 2 * std::min(depth - 1, 6));
            p.setPen(pal.color(QPalette::PlaceholderText));
        } else if (row.kind == Row::Lane) {
            int depth = m_run->lanes[size_t(row.index)].depth;
            lr.setLeft(6 + 8 * (depth - 1));
            bool collapsedHere = collapsedDepth(row.deviceIndex) == depth;
            if (!m_printMode)
                label = (collapsedHere ? QStringLiteral("\u25b8 ") : QStringLiteral("\u25be ")) + label;
            p.setPen(pal.color(QPalette::PlaceholderText));
        }
        p.setFont(f);
        // Host rows put what identifies them first (pid, tid, depth): cut at the right.
        const Qt::TextElideMode elide = row.deviceIndex == -1 ? Qt::ElideRight : Qt::ElideMiddle;
        p.drawText(lr, Qt::AlignVCenter | Qt::AlignLeft, QFontMetrics(f).elidedText(label, elide, lr.width()));
    }
    p.setClipping(false);
    p.setFont(font());
    p.setPen(grid);
    p.drawLine(kGutterWidth - 1, top, kGutterWidth - 1, height());

    // Ruler: adaptive units, from the run's time 0; at deep zoom an offset and relative ticks.
    p.fillRect(QRect(0, 0, width(), top), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    const Ruler ruler = timeRuler(m_mapping);
    // With an offset, the gutter names it: the ticks to its right count from it.
    p.drawText(QRect(6, 0, kGutterWidth - 10, top), Qt::AlignVCenter | Qt::AlignLeft,
               ruler.hasOffset ? ruler.offsetLabel + QStringLiteral(" +") : formatDuration(m_mapping.spanNs()) + QStringLiteral(" shown"));
    p.setClipRect(QRect(plot.left(), 0, plot.width(), top));
    for (const Tick& t : ruler.ticks) {
        double x = plot.left() + t.x;
        p.setPen(grid);
        p.drawLine(QPointF(x, t.major ? top - 10 : top - 4), QPointF(x, top));
        if (t.major) {
            p.setPen(pal.color(QPalette::WindowText));
            // A label that would run past the right edge goes left of its tick, whole.
            const double w = p.fontMetrics().horizontalAdvance(t.label) + 3;
            if (x + w > plot.right())
                p.drawText(QRectF(x - 3 - 120, 0, 120, top - 8), Qt::AlignRight | Qt::AlignVCenter, t.label);
            else
                p.drawText(QRectF(x + 3, 0, 120, top - 8), Qt::AlignLeft | Qt::AlignVCenter, t.label);
        }
    }
    p.setClipping(false);
    p.setPen(grid);
    p.drawLine(0, top - 1, width(), top - 1);
    if (const QString caption = this->caption(); !caption.isEmpty()) {
        // What is on screen: the stored summary, refined when the activities (or the window's) are in.
        QRect box = fm.boundingRect(caption).adjusted(-6, -3, 6, 3);
        box.moveTopRight(QPoint(plot.right() - 8, top + 4));
        p.fillRect(box, pal.color(QPalette::ToolTipBase));
        p.setPen(pal.color(QPalette::ToolTipText));
        p.drawText(box, Qt::AlignCenter, caption);
    }
}

}  // namespace wt::gui
