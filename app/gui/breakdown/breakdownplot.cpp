#include "breakdownplot.h"

#include "piechart.h"

#include "app/gui/core/timeformat.h"

#include <algorithm>
#include <cmath>

namespace wt::gui {

BreakdownPlot::BreakdownPlot(Kind kind, QWidget* parent) : ChartPlot(false, parent), m_kind(kind)
{
    if (kind == Kind::Pie) {
        xAxis->setVisible(false);
        yAxis->setVisible(false);
        axisRect()->setAutoMargins(QCP::msNone);
        axisRect()->setMargins(QMargins(4, 4, 4, 4));
        m_pie = new PieChart(xAxis, yAxis);
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
        styleLegend(false);
        legend->setIconSize(12, 12);
        legend->setRowSpacing(2);
    } else {
        yAxis->setRangeReversed(true);   // largest bar on top
    }
    connect(this, &ChartPlot::itemClicked, this, &BreakdownPlot::sliceClicked);
}

void BreakdownPlot::setResult(const BreakdownResult& result, double threshold, const QString& title, const QString& filter)
{
    m_title->setText(title);
    m_highlighted = -1;
    if (m_pie)
        m_pie->setHighlighted(-1);
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
    const QFont small = labelFont(11);
    QStringList labels;
    for (size_t i = 0; i < m_slices.size(); ++i) {
        const PieSlice& s = m_slices[i];
        const double key = double(i + 1);
        QCPBars* bars = addBars(yAxis, xAxis, QColor::fromRgb(s.color), 0.72);
        bars->addData(key, double(s.timeNs) / unit.ns);
        m_bars.push_back(bars);
        labels << s.label;
        addPlotLabel(double(s.timeNs) / unit.ns, key, Qt::AlignLeft | Qt::AlignVCenter, small,
                     QStringLiteral(" %1% \u00b7 %2").arg(QString::number(100.0 * s.share, 'f', 1), formatDuration(double(s.timeNs))));
    }
    setCategories(yAxis, xAxis, labels, 260);
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

int BreakdownPlot::itemAt(const QPointF& pos) const
{
    if (m_kind == Kind::Pie)
        return m_pie->sliceAt(pos);
    if (!axisRect()->rect().contains(pos.toPoint()))
        return -1;
    return categoryAt(yAxis, pos.y(), int(m_slices.size()), 0.4);
}

void BreakdownPlot::showHighlight(int slice)
{
    if (m_kind == Kind::Pie) {
        m_pie->setHighlighted(slice);
    } else {
        for (size_t i = 0; i < m_bars.size(); ++i) {
            QColor c = QColor::fromRgb(m_slices[i].color);
            m_bars[i]->setPen(int(i) == slice ? QPen(Qt::black, 2) : QPen(c.darker(130), 1));
        }
    }
}

void BreakdownPlot::prepareExport(QSize size)
{
    m_legendBeforeExport = m_legendShown;
    setLegendShown(size.width() >= 760);
}

void BreakdownPlot::restoreAfterExport()
{
    setLegendShown(m_legendBeforeExport);
}

}  // namespace wt::gui
