#include "chartplot.h"

#include "chartframe.h"

#include <QToolTip>

#include <cmath>

namespace wt::gui {

ChartPlot::ChartPlot(bool withSubtitle, QWidget* parent) : QCustomPlot(parent)
{
    const ChartTitles titles = setUpChartFrame(*this, withSubtitle);
    m_title = titles.title;
    m_subtitle = titles.subtitle;
    connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton)
            return;
        const int i = itemAt(e->position());
        if (i >= 0)
            emit itemClicked(i);
    });
}

void ChartPlot::showHoverTips()
{
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const QString tip = toolTipAt(e->position());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), tip, this);
    });
    setMouseTracking(true);
}

int ChartPlot::itemAt(const QPointF&) const
{
    return -1;
}

void ChartPlot::setHighlighted(int index)
{
    if (index == m_highlighted)
        return;
    m_highlighted = index;
    showHighlight(index);
    replot(QCustomPlot::rpQueuedReplot);
}

void ChartPlot::exportBegin(QSize size)
{
    // A file carries the chart, not the UI's selection.
    m_exportSaved = m_highlighted;
    if (m_highlighted >= 0) {
        m_highlighted = -1;
        showHighlight(-1);
    }
    prepareExport(size);
}

void ChartPlot::exportEnd()
{
    restoreAfterExport();
    if (m_exportSaved >= 0) {
        m_highlighted = m_exportSaved;
        showHighlight(m_highlighted);
    }
    m_exportSaved = -1;
    replot(QCustomPlot::rpQueuedReplot);
}

QCPBars* ChartPlot::addBars(QCPAxis* keyAxis, QCPAxis* valueAxis, const QColor& color, double width, const QString& name)
{
    auto* bars = new QCPBars(keyAxis, valueAxis);
    bars->setWidth(width);
    bars->setBrush(color);
    bars->setPen(QPen(color.darker(130), 1));
    if (!name.isEmpty())
        bars->setName(name);
    return bars;
}

QCPBarsGroup* ChartPlot::addBarsGroup(double spacing)
{
    auto* group = new QCPBarsGroup(this);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(spacing);
    return group;
}

QCPItemText* ChartPlot::addPlotLabel(double x, double y, Qt::Alignment alignment, const QFont& font, const QString& text)
{
    auto* label = new QCPItemText(this);
    label->setClipToAxisRect(false);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setAxes(xAxis, yAxis);
    label->position->setCoords(x, y);
    label->setPositionAlignment(alignment);
    label->setFont(font);
    label->setText(text);
    return label;
}

void ChartPlot::setCategories(QCPAxis* categoryAxis, QCPAxis* valueAxis, const QStringList& labels, int maxLabelPx)
{
    categoryAxis->grid()->setVisible(false);
    categoryAxis->setTickLength(0, 0);
    categoryAxis->setSubTicks(false);
    valueAxis->setSubTicks(false);
    valueAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QFontMetrics fm(font());
    for (qsizetype i = 0; i < labels.size(); ++i)
        ticker->addTick(double(i + 1), maxLabelPx > 0 ? fm.elidedText(labels[i], Qt::ElideMiddle, maxLabelPx) : labels[i]);
    categoryAxis->setTicker(ticker);
    categoryAxis->setRange(0.4, double(std::max<qsizetype>(labels.size(), 1)) + 0.6);
}

int ChartPlot::categoryAt(const QCPAxis* categoryAxis, double pixel, int count, double tolerance)
{
    const double key = categoryAxis->pixelToCoord(pixel);
    const int i = int(std::lround(key)) - 1;
    if (i < 0 || i >= count || std::abs(key - double(i + 1)) > tolerance)
        return -1;
    return i;
}

void ChartPlot::styleLegend(bool framed)
{
    legend->setFont(font());   // the frame's 12 px font
    legend->setBorderPen(framed ? QPen(QColor(200, 200, 200)) : QPen(Qt::NoPen));
    if (framed)
        legend->setBrush(QColor(255, 255, 255, 230));
}

QFont ChartPlot::labelFont(int pixelSize, bool bold) const
{
    QFont f = font();
    f.setPixelSize(pixelSize);
    f.setBold(bold);
    return f;
}

}  // namespace wt::gui
