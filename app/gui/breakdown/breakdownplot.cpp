#include "breakdownplot.h"

#include "piechart.h"

#include "app/gui/charts/chartframe.h"
#include "app/gui/core/timeformat.h"

#include <algorithm>
#include <cmath>

namespace wt::gui {

namespace {

}  // namespace

BreakdownPlot::BreakdownPlot(Kind kind, QWidget* parent) : QCustomPlot(parent), m_kind(kind)
{
    m_title = setUpChartFrame(*this, false).title;
    if (kind == Kind::Pie) {
        xAxis->setVisible(false);
        yAxis->setVisible(false);
        axisRect()->setAutoMargins(QCP::msNone);
        axisRect()->setMargins(QMargins(4, 4, 4, 4));
        m_pie = new PieChart(xAxis, yAxis);
        // Legend in its own column right of the pie, not inset over it.
        // Legend in its own column right of the pie, packed at the top (a spacer below it
        // takes the rest of the height; legend rows would otherwise spread out).
        axisRect()->insetLayout()->take(legend);
        auto* side = new QCPLayoutGrid;
        plotLayout()->addElement(1, 1, side);
        plotLayout()->setColumnStretchFactor(1, 0.001);
        side->addElement(0, 0, legend);
        side->addElement(1, 0, new QCPLayoutElement(this));
        side->setRowStretchFactor(0, 0.001);
        side->setRowSpacing(0);
        legend->setVisible(true);
        legend->setBorderPen(Qt::NoPen);
        legend->setFont(font());   // the frame's 12 px font
        legend->setIconSize(12, 12);
        legend->setRowSpacing(2);
    } else {
        yAxis->setRangeReversed(true);   // largest bar on top
        yAxis->grid()->setVisible(false);
        yAxis->setTickLength(0, 0);
        yAxis->setSubTicks(false);
        xAxis->setSubTicks(false);
        xAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    }
    connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton)
            return;
        int i = sliceAt(e->position());
        if (i >= 0)
            emit sliceClicked(i);
    });
}

void BreakdownPlot::setResult(const BreakdownResult& result, double threshold, const QString& title, const QString& filter)
{
    m_title->setText(title);
    m_highlighted = -1;
    if (m_kind == Kind::Pie) {
        m_slices = pieSlices(result, threshold, filter);
        m_pie->setSlices(m_slices);
        if (m_legendShown)
            m_pie->fillLegend(legend);
    } else {
        m_slices = topSlices(result, kMaxBars, filter);
        rebuildBars();
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void BreakdownPlot::rebuildBars()
{
    for (QCPBars* b : m_bars)
        removePlottable(b);
    m_bars.clear();
    clearItems();
    double maxNs = 0;
    for (const PieSlice& s : m_slices)
        maxNs = std::max(maxNs, double(s.timeNs));
    const TimeUnit unit = unitFor(maxNs);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QFontMetrics fm(font());
    QFont labelFont = font();
    labelFont.setPixelSize(11);
    for (size_t i = 0; i < m_slices.size(); ++i) {
        const PieSlice& s = m_slices[i];
        const double key = double(i + 1);
        auto* bars = new QCPBars(yAxis, xAxis);
        bars->setWidth(0.72);
        bars->setBrush(QColor::fromRgb(s.color));
        bars->setPen(QPen(QColor::fromRgb(s.color).darker(130), 1));
        bars->addData(key, double(s.timeNs) / unit.ns);
        m_bars.push_back(bars);
        ticker->addTick(key, fm.elidedText(s.label, Qt::ElideMiddle, 260));
        auto* text = new QCPItemText(this);
        text->setClipToAxisRect(false);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setAxes(xAxis, yAxis);
        text->position->setCoords(double(s.timeNs) / unit.ns, key);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setFont(labelFont);
        text->setText(QStringLiteral(" %1% \u00b7 %2").arg(QString::number(100.0 * s.share, 'f', 1), formatDuration(double(s.timeNs))));
    }
    yAxis->setTicker(ticker);
    yAxis->setRange(0.4, double(m_slices.size()) + 0.6);
    // Room right of the longest bar for its label.
    xAxis->setRange(0, std::max(maxNs / unit.ns, 1e-9) * 1.28);
    xAxis->setLabel(QStringLiteral("kernel time (%1)").arg(QLatin1String(unit.name)));
}

void BreakdownPlot::resizeEvent(QResizeEvent* event)
{
    // Narrow side panels: the slice labels already carry name, share and time; the legend
    // would leave the pie no room (nor would it under the timeline, wide but short).
    setLegendShown(event->size().width() >= 760 && event->size().height() >= 420);
    QCustomPlot::resizeEvent(event);
}

void BreakdownPlot::setLegendShown(bool shown)
{
    if (m_kind != Kind::Pie || shown == m_legendShown)
        return;
    m_legendShown = shown;
    // An empty legend takes no width; a hidden one would keep its column.
    if (shown)
        m_pie->fillLegend(legend);
    else
        legend->clearItems();
    legend->setVisible(shown);
}

int BreakdownPlot::sliceAt(const QPointF& pos) const
{
    if (m_kind == Kind::Pie)
        return m_pie->sliceAt(pos);
    if (!axisRect()->rect().contains(pos.toPoint()))
        return -1;
    double key = yAxis->pixelToCoord(pos.y());
    int i = int(std::lround(key)) - 1;
    if (i < 0 || i >= int(m_slices.size()) || std::abs(key - double(i + 1)) > 0.4)
        return -1;
    return i;
}

void BreakdownPlot::setHighlighted(int slice)
{
    if (slice == m_highlighted)
        return;
    m_highlighted = slice;
    if (m_kind == Kind::Pie) {
        m_pie->setHighlighted(slice);
    } else {
        for (size_t i = 0; i < m_bars.size(); ++i) {
            QColor c = QColor::fromRgb(m_slices[i].color);
            m_bars[i]->setPen(int(i) == slice ? QPen(Qt::black, 2) : QPen(c.darker(130), 1));
        }
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace wt::gui
