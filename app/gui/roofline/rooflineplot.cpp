#include "rooflineplot.h"

#include "app/gui/core/layerpalette.h"
#include "render/textformat.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <map>

namespace wt::gui {

std::vector<RooflinePoint> rooflinePoints(const std::vector<RooflineOp>& ops)
{
    double step = 0;
    for (const RooflineOp& o : ops)
        step += o.measuredNs;
    std::map<std::string, int> colorOf;
    std::vector<RooflinePoint> points;
    for (size_t i = 0; i < ops.size(); ++i) {
        const RooflineOp& o = ops[i];
        auto [it, added] = colorOf.try_emplace(o.layer, int(colorOf.size()));
        if (!(o.flops > 0 && o.bytes > 0 && o.measuredNs > 0))
            continue;
        RooflinePoint p;
        p.intensity = o.flops / o.bytes;
        p.flopPerS = o.flops / (o.measuredNs * 1e-9);
        p.share = step > 0 ? o.measuredNs / step : 0;
        p.row = int(i);
        p.colorIndex = it->second;
        p.label = QString::fromStdString(o.layer + " " + o.op);
        p.tip = QStringLiteral("%1\n%2 a step (%3 of the step), %4 FLOP/B, %5\nbound by %6: %7x of its bound")
                    .arg(p.label, QString::fromStdString(formatDuration(o.measuredNs)),
                         QString::fromStdString(formatShare(p.share)), QString::number(p.intensity, 'g', 3),
                         QString::fromStdString(formatQuantity(p.flopPerS, "FLOP/s")), QString::fromUtf8(toString(o.terms.by())),
                         QString::number(o.boundNs > 0 ? o.measuredNs / o.boundNs : 0, 'f', 2));
        points.push_back(std::move(p));
    }
    return points;
}

RooflinePlot::RooflinePlot(QWidget* parent) : ChartPlot(true, parent)
{
    setObjectName(QStringLiteral("rooflinePlot"));
    for (QCPAxis* a : {xAxis, yAxis}) {
        a->setScaleType(QCPAxis::stLogarithmic);
        a->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        a->setNumberFormat(QStringLiteral("eb"));
        a->setNumberPrecision(0);
        a->grid()->setSubGridVisible(true);
    }
    xAxis->setLabel(QStringLiteral("arithmetic intensity (FLOP per byte moved)"));
    yAxis->setLabel(QStringLiteral("achieved FLOP/s"));
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int row = itemAt(e->position());
        auto it = std::find_if(m_points.begin(), m_points.end(), [&](const RooflinePoint& p) { return p.row == row; });
        if (row >= 0 && it != m_points.end())
            QToolTip::showText(e->globalPosition().toPoint(), it->tip, this);
        else
            QToolTip::hideText();
    });
}

void RooflinePlot::setData(const DeviceSpec& device, std::vector<RooflinePoint> points, const QString& title, const QString& subtitle)
{
    clearGraphs();
    clearItems();
    m_highlight = nullptr;
    m_points = std::move(points);
    if (m_title)
        m_title->setText(title);
    if (m_subtitle)
        m_subtitle->setText(subtitle);

    // The axes cover the points and the ridge points, a decade of margin.
    double x0 = 1e-2, x1 = 1e3, y0 = 1e6, y1 = std::max(device.fp32Flops, device.bf16Flops) * 10;   // room for the top roof's name
    const double ridge = device.fp32Flops / device.memoryBytesPerS;
    x0 = std::min(x0, ridge / 100);
    x1 = std::max(x1, ridge * 100);
    for (const RooflinePoint& p : m_points) {
        x0 = std::min(x0, p.intensity / 3);
        x1 = std::max(x1, p.intensity * 3);
        y0 = std::min(y0, p.flopPerS / 3);
    }
    // The roofs, each named at its right end (a legend would cover the points).
    auto roof = [&](double peak, const QPen& pen, const QString& name, bool below) {
        QCPGraph* g = addGraph();
        g->setPen(pen);
        const double r = peak / device.memoryBytesPerS;
        QVector<double> xs{x0, r, x1}, ys{device.memoryBytesPerS * x0, peak, peak};
        g->setData(xs, ys, true);
        g->setSelectable(QCP::stNone);
        g->removeFromLegend();
        auto* t = new QCPItemText(this);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->position->setCoords(x1, peak);
        t->setPositionAlignment(Qt::AlignRight | (below ? Qt::AlignTop : Qt::AlignBottom));   // fp32 under its roof, bf16 over
        t->setPadding(below ? QMargins(0, 3, 6, 0) : QMargins(0, 0, 6, 3));
        t->setFont(labelFont(11, true));
        t->setColor(pen.color());
        t->setText(name);
        t->setClipToAxisRect(true);
    };
    roof(device.fp32Flops, QPen(QColor(40, 40, 40), 2),
         QStringLiteral("fp32 %1").arg(QString::fromStdString(formatQuantity(device.fp32Flops, "FLOP/s"))), true);
    if (device.bf16Flops > 0 && device.bf16Flops != device.fp32Flops) {
        QPen dashed(QColor(110, 110, 110), 1.5, Qt::DashLine);
        roof(device.bf16Flops, dashed, QStringLiteral("bf16 %1").arg(QString::fromStdString(formatQuantity(device.bf16Flops, "FLOP/s"))), false);
    }
    {
        // The bandwidth, on the slope a decade left of the fp32 ridge.
        const double x = std::max(x0 * 3, ridge / 10);
        auto* t = new QCPItemText(this);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->position->setCoords(x, device.memoryBytesPerS * x);
        t->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        t->setPadding(QMargins(0, 0, 4, 4));
        t->setFont(labelFont(11, true));
        t->setColor(QColor(40, 40, 40));
        t->setText(QString::fromStdString(formatQuantity(device.memoryBytesPerS, "B/s")));
        t->setClipToAxisRect(true);
    }
    // One graph per point (its own size and colour), largest first so small ones stay visible.
    std::vector<size_t> order(m_points.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_points[a].share > m_points[b].share; });
    for (size_t k : order) {
        const RooflinePoint& p = m_points[k];
        QCPGraph* g = addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        const QColor c = LayerPalette::seriesColor(p.colorIndex);
        const double size = 6 + 22 * std::sqrt(std::max(0.0, p.share));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c.darker(130), QColor(c.red(), c.green(), c.blue(), 190), size));
        g->setData(QVector<double>{p.intensity}, QVector<double>{p.flopPerS}, true);
        g->removeFromLegend();
        g->setSelectable(QCP::stNone);
    }
    // The largest ops by name, skipping one whose label would sit on an earlier one's.
    std::vector<QPointF> labelled;
    for (size_t n = 0, shown = 0; n < order.size() && shown < 5; ++n) {
        const RooflinePoint& p = m_points[order[n]];
        const QPointF at(std::log10(p.intensity), std::log10(p.flopPerS));
        if (std::any_of(labelled.begin(), labelled.end(), [&](const QPointF& q) {
                return std::abs(q.x() - at.x()) < 0.8 && std::abs(q.y() - at.y()) < 0.25;
            }))
            continue;
        labelled.push_back(at);
        ++shown;
        auto* t = new QCPItemText(this);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->position->setCoords(p.intensity, p.flopPerS);
        t->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        t->setPadding(QMargins(8, 0, 0, 6));
        t->setFont(labelFont(11));
        t->setText(p.label);
        t->setClipToAxisRect(true);
    }
    xAxis->setRange(x0, x1);
    yAxis->setRange(y0, y1);
    legend->setVisible(false);
    showHighlight(m_highlighted);
    replot();
}

int RooflinePlot::itemAt(const QPointF& pos) const
{
    // The nearest point within its radius (+3 px), the smallest on ties (drawn on top).
    int best = -1;
    double bestDist = 1e30;
    for (const RooflinePoint& p : m_points) {
        const double px = xAxis->coordToPixel(p.intensity), py = yAxis->coordToPixel(p.flopPerS);
        const double radius = (6 + 22 * std::sqrt(std::max(0.0, p.share))) / 2 + 3;
        const double d = std::hypot(px - pos.x(), py - pos.y());
        if (d <= radius && d < bestDist) {
            best = p.row;
            bestDist = d;
        }
    }
    return best;
}

std::optional<QPointF> RooflinePlot::pixelOfRow(int row) const
{
    for (const RooflinePoint& p : m_points)
        if (p.row == row)
            return QPointF(xAxis->coordToPixel(p.intensity), yAxis->coordToPixel(p.flopPerS));
    return std::nullopt;
}

void RooflinePlot::showHighlight(int row)
{
    if (m_highlight) {
        removeGraph(m_highlight);
        m_highlight = nullptr;
    }
    for (const RooflinePoint& p : m_points) {
        if (p.row != row)
            continue;
        m_highlight = addGraph();
        m_highlight->setLineStyle(QCPGraph::lsNone);
        const double size = 6 + 22 * std::sqrt(std::max(0.0, p.share)) + 8;
        m_highlight->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(20, 20, 20), 2.5), Qt::NoBrush, size));
        m_highlight->setData(QVector<double>{p.intensity}, QVector<double>{p.flopPerS}, true);
        m_highlight->removeFromLegend();
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace wt::gui
