#include "histogramplot.h"

#include "render/textformat.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace wt::gui {

namespace {

QString duration(int64_t ns)
{
    return QString::fromStdString(formatDuration(double(ns)));
}

}  // namespace

HistogramPlot::HistogramPlot(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("histogramPlot"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void HistogramPlot::setBins(std::vector<HistogramBin> bins)
{
    m_bins = std::move(bins);
    m_marked = m_chosen = -1;
    update();
}

void HistogramPlot::setMarkedBin(int bin)
{
    m_marked = bin >= 0 && size_t(bin) < m_bins.size() ? bin : -1;
    update();
}

void HistogramPlot::setChosenBin(int bin)
{
    m_chosen = bin >= 0 && size_t(bin) < m_bins.size() ? bin : -1;
    update();
}

QRect HistogramPlot::plotArea() const
{
    const int text = fontMetrics().height();
    // Room for the count above, the edge labels and the marker below.
    return rect().adjusted(4, text + 2, -4, -(text + 10));
}

QRect HistogramPlot::binRect(int bin) const
{
    if (bin < 0 || size_t(bin) >= m_bins.size())
        return {};
    const QRect a = plotArea();
    const int n = int(m_bins.size());
    const int x0 = a.left() + int(int64_t(a.width()) * bin / n);
    const int x1 = a.left() + int(int64_t(a.width()) * (bin + 1) / n);
    return QRect(QPoint(x0, a.top()), QPoint(std::max(x0, x1 - 1), a.bottom()));
}

int HistogramPlot::binAt(QPoint pos) const
{
    const QRect a = plotArea();
    if (m_bins.empty() || !a.adjusted(0, 0, 0, 10).contains(pos))
        return -1;
    const int b = int(int64_t(pos.x() - a.left()) * int64_t(m_bins.size()) / std::max(1, a.width()));
    return std::clamp(b, 0, int(m_bins.size()) - 1);
}

void HistogramPlot::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect a = plotArea();
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(a.bottomLeft() + QPoint(0, 1), a.bottomRight() + QPoint(0, 1));
    if (m_bins.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("no instances"));
        return;
    }
    int64_t most = 1;
    for (const HistogramBin& b : m_bins)
        most = std::max(most, b.count);
    const QColor bar = palette().color(QPalette::Highlight).lighter(130);
    const QColor accent(230, 120, 20);
    for (int i = 0; i < int(m_bins.size()); ++i) {
        const QRect r = binRect(i);
        const int h = m_bins[size_t(i)].count == 0 ? 0 : std::max(1, int(double(r.height()) * double(m_bins[size_t(i)].count) / double(most)));
        const QRect filled(r.left(), r.bottom() - h + 1, std::max(1, r.width() - (r.width() > 3 ? 1 : 0)), h);
        if (h > 0)
            p.fillRect(filled, i == m_marked ? accent : bar);
        if (i == m_chosen) {
            p.setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
            p.drawRect(r.adjusted(0, 0, -1, 0));
        }
    }
    if (m_marked >= 0) {   // a triangle under the selected instance's bin
        const QRect r = binRect(m_marked);
        const int cx = r.center().x(), y = a.bottom() + 3;
        const QPoint tri[3] = {{cx, y}, {cx - 4, y + 6}, {cx + 4, y + 6}};
        p.setPen(Qt::NoPen);
        p.setBrush(accent);
        p.drawPolygon(tri, 3);
    }
    p.setPen(palette().color(QPalette::Text));
    const int text = fontMetrics().height();
    const QRect below(a.left(), a.bottom() + 9, a.width(), text);
    p.drawText(below, Qt::AlignLeft | Qt::AlignVCenter, duration(m_bins.front().loNs));
    p.drawText(below, Qt::AlignRight | Qt::AlignVCenter, duration(m_bins.back().hiNs));
    p.drawText(QRect(a.left(), 0, a.width(), text), Qt::AlignLeft | Qt::AlignVCenter, QString::number(most));
}

void HistogramPlot::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    const int b = binAt(event->position().toPoint());
    if (b >= 0)
        emit binClicked(b);
}

bool HistogramPlot::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int b = binAt(help->pos());
        if (b < 0) {
            QToolTip::hideText();
            return true;
        }
        const HistogramBin& bin = m_bins[size_t(b)];
        QToolTip::showText(help->globalPos(), QStringLiteral("%1 .. %2: %3 instance%4%5")
                                                  .arg(duration(bin.loNs), duration(bin.hiNs))
                                                  .arg(bin.count)
                                                  .arg(bin.count == 1 ? QString() : QStringLiteral("s"))
                                                  .arg(bin.count ? QStringLiteral(" (click: mark them on the timeline)") : QString()),
                           this);
        return true;
    }
    return QWidget::event(event);
}

}  // namespace wt::gui
