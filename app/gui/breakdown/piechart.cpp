#include "piechart.h"

#include "app/gui/core/timeformat.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace wt::gui {

namespace {

constexpr double kMinLabelShare = 0.005;   // smaller slices get no label (the legend has them)
constexpr int kNameMaxPx = 190;            // kernel names are long: elide in the middle
constexpr double kExplodePx = 8;           // highlighted slice is pulled out this far

QFont labelFont(const QFont& base)
{
    QFont f = base;
    f.setPixelSize(11);
    return f;
}

double totalOf(const std::vector<PieSlice>& slices)
{
    double t = 0;
    for (const PieSlice& s : slices)
        t += double(s.timeNs);
    return t;
}

QPointF onCircle(QPointF c, double r, double deg)
{
    double rad = deg * std::numbers::pi / 180.0;
    return {c.x() + r * std::cos(rad), c.y() - r * std::sin(rad)};
}

}  // namespace

QString sliceText(const PieSlice& slice)
{
    return slice.label + QLatin1Char('\n') + QString::number(100.0 * slice.share, 'f', 1) + QStringLiteral("% \u00b7 ") +
           formatDuration(double(slice.timeNs));
}

PieChart::PieChart(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stSingleData);
    setPen(QPen(Qt::white, 1));
}

void PieChart::setSlices(std::vector<PieSlice> slices)
{
    m_slices = std::move(slices);
    m_highlighted = -1;
}

void PieChart::fillLegend(QCPLegend* legend)
{
    legend->clearItems();
    for (int i = 0; i < int(m_slices.size()); ++i)
        legend->addItem(new PieLegendItem(legend, this, i));
}

QRectF PieChart::area() const
{
    return mKeyAxis ? QRectF(mKeyAxis->axisRect()->rect()) : QRectF();
}

double PieChart::labelWidth() const
{
    QFontMetricsF fm(labelFont(mParentPlot ? mParentPlot->font() : QFont()));
    double w = 60;
    for (const PieSlice& s : m_slices) {
        if (s.share < kMinLabelShare)
            continue;
        for (const QString& line : sliceText(s).split(QLatin1Char('\n')))
            w = std::max(w, std::min(fm.horizontalAdvance(line), double(kNameMaxPx)));
    }
    return w;
}

QPointF PieChart::center() const
{
    return area().center();
}

double PieChart::radius() const
{
    QRectF a = area();
    // Labels start at 1.22 r + 8 px from the center and may be labelWidth() wide.
    return std::max(10.0, std::min((a.width() / 2 - labelWidth() - 12) / 1.22, a.height() / 2 - 28));
}

int PieChart::sliceAt(const QPointF& pos) const
{
    const double total = totalOf(m_slices);
    if (total <= 0)
        return -1;
    QPointF c = center();
    QPointF d = pos - c;
    double dist = std::hypot(d.x(), d.y());
    if (dist > radius() + kExplodePx)
        return -1;
    // Degrees clockwise from 12 o'clock, the direction slices are laid out in.
    double deg = std::atan2(d.x(), -d.y()) * 180.0 / std::numbers::pi;
    if (deg < 0)
        deg += 360;
    double acc = 0;
    for (int i = 0; i < int(m_slices.size()); ++i) {
        acc += 360.0 * double(m_slices[size_t(i)].timeNs) / total;
        if (deg < acc)
            return i;
    }
    return int(m_slices.size()) - 1;
}

double PieChart::selectTest(const QPointF& pos, bool onlySelectable, QVariant* details) const
{
    if (onlySelectable && !mSelectable)
        return -1;
    int i = sliceAt(pos);
    if (i < 0)
        return -1;
    if (details)
        details->setValue(QCPDataSelection(QCPDataRange(i, i + 1)));
    return 0;
}

QCPRange PieChart::getKeyRange(bool& foundRange, QCP::SignDomain) const
{
    foundRange = true;
    return QCPRange(-1, 1);
}

QCPRange PieChart::getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const
{
    foundRange = true;
    return QCPRange(-1, 1);
}

void PieChart::draw(QCPPainter* painter)
{
    const double total = totalOf(m_slices);
    if (total <= 0 || m_slices.empty())
        return;
    const QPointF c = center();
    const double r = radius();
    painter->setRenderHint(QPainter::Antialiasing, true);

    struct Label {
        int slice;
        bool right;
        double mid;      // degrees, math convention (counter-clockwise from 3 o'clock)
        double y;        // top of the text block
    };
    std::vector<Label> labels;
    double start = 90;   // 12 o'clock, slices run clockwise
    for (int i = 0; i < int(m_slices.size()); ++i) {
        const PieSlice& s = m_slices[size_t(i)];
        double span = 360.0 * double(s.timeNs) / total;
        double mid = start - span / 2;
        QPointF off = i == m_highlighted ? onCircle(QPointF(0, 0), kExplodePx, mid) : QPointF(0, 0);
        QRectF box(c.x() - r + off.x(), c.y() - r + off.y(), 2 * r, 2 * r);
        QPainterPath path;
        path.moveTo(box.center());
        if (span >= 359.999)
            path.addEllipse(box);
        else
            path.arcTo(box, start, -span);
        path.closeSubpath();
        painter->setBrush(QColor::fromRgb(s.color));
        painter->setPen(i == m_highlighted ? QPen(Qt::black, 2) : mPen);
        painter->drawPath(path);
        if (s.share >= kMinLabelShare)
            labels.push_back({i, std::cos(mid * std::numbers::pi / 180) >= 0, mid, 0});
        start -= span;
    }

    // Labels in two columns beside the pie, pushed apart so they never overlap.
    QFont font = labelFont(mParentPlot->font());
    painter->setFont(font);
    QFontMetricsF fm(font);
    const double lineH = fm.height();
    const double blockH = 2 * lineH + 2;
    const QRectF a = area();
    for (bool right : {false, true}) {
        std::vector<Label*> col;
        for (Label& l : labels)
            if (l.right == right)
                col.push_back(&l);
        for (Label* l : col)
            l->y = c.y() - std::sin(l->mid * std::numbers::pi / 180) * r * 1.15 - blockH / 2;
        std::sort(col.begin(), col.end(), [](const Label* x, const Label* y) { return x->y < y->y; });
        double prev = a.top() - blockH;
        for (Label* l : col) {
            l->y = std::max(l->y, prev + blockH);
            prev = l->y;
        }
        double next = a.bottom();
        for (auto it = col.rbegin(); it != col.rend(); ++it) {
            (*it)->y = std::min((*it)->y, next - blockH);
            next = (*it)->y;
        }
    }
    const double textX = r * 1.22 + 8;
    for (const Label& l : labels) {
        const PieSlice& s = m_slices[size_t(l.slice)];
        QStringList lines = sliceText(s).split(QLatin1Char('\n'));
        lines[0] = fm.elidedText(lines[0], Qt::ElideMiddle, kNameMaxPx);
        double anchorY = l.y + blockH / 2;
        QPointF edge = onCircle(c, r, l.mid);
        QPointF elbow(c.x() + (l.right ? 1 : -1) * r * 1.12, anchorY);
        QPointF end(c.x() + (l.right ? 1 : -1) * (textX - 4), anchorY);
        painter->setPen(QPen(QColor(120, 120, 120), 1));
        painter->drawPolyline(QPolygonF({edge, elbow, end}));
        painter->setPen(Qt::black);
        for (int k = 0; k < 2; ++k) {
            double w = fm.horizontalAdvance(lines[k]);
            double x = l.right ? c.x() + textX : c.x() - textX - w;
            painter->drawText(QPointF(x, l.y + fm.ascent() + k * (lineH + 2)), lines[k]);
        }
    }
}

void PieChart::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const
{
    painter->setPen(mPen);
    painter->setBrush(m_slices.empty() ? QColor(Qt::gray) : QColor::fromRgb(m_slices.front().color));
    painter->drawPie(rect, 30 * 16, 300 * 16);
}

PieLegendItem::PieLegendItem(QCPLegend* parent, PieChart* pie, int slice)
    : QCPAbstractLegendItem(parent), m_pie(pie), m_slice(slice)
{
    setAntialiased(true);
}

QString PieLegendItem::text() const
{
    const PieSlice& s = m_pie->slices()[size_t(m_slice)];
    QFontMetricsF fm(mFont);
    return fm.elidedText(s.label, Qt::ElideMiddle, 240) + QStringLiteral("  ") + QString::number(100.0 * s.share, 'f', 1) +
           QLatin1Char('%');
}

void PieLegendItem::draw(QCPPainter* painter)
{
    if (m_slice >= int(m_pie->slices().size()))
        return;
    const PieSlice& s = m_pie->slices()[size_t(m_slice)];
    QSize icon = mParentLegend->iconSize();
    QRect r = mRect;
    QFontMetrics fm(mFont);
    int textH = fm.height();
    int h = std::max(icon.height(), textH);
    QRect box(r.left(), r.top() + (h - icon.height()) / 2, icon.width(), icon.height());
    painter->setPen(QPen(QColor(90, 90, 90), 1));
    painter->setBrush(QColor::fromRgb(s.color));
    painter->drawRect(box);
    painter->setFont(mFont);
    painter->setPen(m_slice == m_pie->highlighted() ? QColor(Qt::black) : mTextColor);
    QFont f = mFont;
    f.setBold(m_slice == m_pie->highlighted());
    painter->setFont(f);
    painter->drawText(QRect(r.left() + icon.width() + mParentLegend->iconTextPadding(), r.top(), 10000, h),
                      Qt::AlignLeft | Qt::AlignVCenter, text());
}

QSize PieLegendItem::minimumOuterSizeHint() const
{
    QSize icon = mParentLegend->iconSize();
    QFontMetrics fm(mFont);
    QSize s(icon.width() + mParentLegend->iconTextPadding() + fm.horizontalAdvance(text()) + 4,
            std::max(icon.height(), fm.height()) + 4);
    return s + QSize(mMargins.left() + mMargins.right(), mMargins.top() + mMargins.bottom());
}

}  // namespace wt::gui
