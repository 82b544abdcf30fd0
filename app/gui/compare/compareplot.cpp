#include "compareplot.h"

#include "app/gui/charts/chartframe.h"
#include "comparemodel.h"

#include "analysis/comparetable.h"
#include "app/gui/core/timeformat.h"
#include "render/tablewriter.h"

#include <algorithm>
#include <cmath>

namespace wt::gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// A delta label's parts as the tables write them (the writer's ns and percent text).
QString cellText(Unit unit, const Cell& cell)
{
    return QString::fromStdString(render::cellText(Column{{}, {}, unit, true}, cell));
}

QStringList runLabels(const std::vector<CompareRunSummary>& runs)
{
    QStringList out;
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunInfo& r = runs[i].info;
        QString name = r.name.empty() ? QStringLiteral("run %1").arg(r.id) : q(r.name);
        if (!r.variant.empty() && r.variant != r.name)
            name += QStringLiteral(" (%1)").arg(q(r.variant));
        out << QStringLiteral("%1: %2").arg(runTag(i, runs.size()), name);
    }
    return out;
}

}  // namespace

QColor runColor(size_t index)
{
    static const QRgb colors[] = {0x4c78a8, 0xf58518, 0x54a24b, 0xb279a2, 0x9d755d, 0x72b7b2, 0xe45756, 0xeeca3b};
    return QColor::fromRgb(colors[index % (sizeof colors / sizeof colors[0])]);
}

CompareChartData chartData(const Comparison& c, const QString& title, size_t maxRows)
{
    CompareChartData d;
    d.title = title;
    d.per = perLabel(c.per, c.runs);
    d.runLabels = runLabels(c.runs);
    for (size_t i = 0; i < c.groups.size() && i < maxRows; ++i) {
        const CompareGroup& g = c.groups[i];
        CompareChartRow row;
        row.label = q(g.name);
        if (!g.inAll())
            row.label += QStringLiteral("  [%1]").arg(q(onlyInLabel(g)));
        for (size_t r = 0; r < g.cells.size(); ++r) {
            row.ns.push_back(g.cells[r].present ? g.cells[r].ns : 0.0);
            row.present.push_back(g.cells[r].present);
            row.deltaNs.push_back(g.deltaNs[r]);
            row.pct.push_back(g.deltaPct[r]);
        }
        row.source = int(i);
        d.rows.push_back(std::move(row));
    }
    d.hiddenRows = int(c.groups.size() - d.rows.size());
    return d;
}

CompareChartData chartData(const KernelDiff& k, const QString& title, size_t maxRows)
{
    CompareChartData d;
    d.title = title;
    d.per = perLabel(k.per, {k.base, k.other});
    d.runLabels = runLabels({k.base, k.other});
    for (size_t i = 0; i < k.rows.size() && i < maxRows; ++i) {
        const KernelDiffRow& r = k.rows[i];
        CompareChartRow row;
        switch (r.change) {
        case KernelChange::Added: row.label = QStringLiteral("added ") + q(r.otherName); break;
        case KernelChange::Removed: row.label = QStringLiteral("removed ") + q(r.baseName); break;
        case KernelChange::Swapped: row.label = q(r.baseName) + QStringLiteral(" -> ") + q(r.otherName); break;
        // "from op -> to op: kernel": an elided label keeps its kernel name at the end.
        case KernelChange::Moved: row.label = QStringLiteral("\u2192 %1: %2").arg(q(r.otherOp), q(r.baseName)); break;
        case KernelChange::Changed:
        case KernelChange::Unchanged: row.label = q(r.baseName); break;
        }
        // One kernel name runs in several ops (sgemm_nt in every projection): the op says which.
        if (!r.op.empty())
            row.label = q(r.op) + (r.change == KernelChange::Moved ? QStringLiteral(" ") : QStringLiteral(": ")) + row.label;
        row.ns = {r.base.present ? r.base.ns : 0.0, r.other.present ? r.other.ns : 0.0};
        row.present = {r.base.present, r.other.present};
        row.deltaNs = {0.0, r.deltaNs};
        row.pct = {std::optional<double>(0.0), r.deltaPct};
        row.source = int(i);
        d.rows.push_back(std::move(row));
    }
    d.hiddenRows = int(k.rows.size() - d.rows.size());
    return d;
}

ComparePlot::ComparePlot(Kind kind, QWidget* parent) : QCustomPlot(parent), m_kind(kind)
{
    const ChartTitles titles = setUpChartFrame(*this, true);
    m_title = titles.title;
    m_subtitle = titles.subtitle;
    yAxis->setRangeReversed(true);   // first row on top
    yAxis->grid()->setVisible(false);
    yAxis->setTickLength(0, 0);
    yAxis->setSubTicks(false);
    xAxis->setSubTicks(false);
    xAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    xAxis->grid()->setZeroLinePen(QPen(QColor(90, 90, 90), 1));
    if (kind == Kind::Bars) {
        legend->setVisible(true);
        legend->setFont(font());   // the frame's 12 px font
        legend->setBorderPen(QPen(QColor(200, 200, 200)));
        legend->setBrush(QColor(255, 255, 255, 230));
        axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    }
    connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton)
            return;
        int i = rowAt(e->position());
        if (i >= 0)
            emit rowClicked(i);
    });
}

void ComparePlot::setData(const CompareChartData& data)
{
    m_data = data;
    m_highlighted = -1;
    rebuild();
}

void ComparePlot::rebuild()
{
    clearPlottables();
    clearItems();
    m_bars.clear();
    if (legend)
        legend->clearItems();
    m_title->setText(m_data.title);
    QString sub = m_data.per;
    if (m_kind == Kind::Delta && m_data.runLabels.size() >= 2)
        sub = (m_data.runLabels.size() == 2 ? QStringLiteral("OTHER - BASE, ") : QStringLiteral("each run - BASE, ")) + sub;
    if (m_data.hiddenRows > 0)
        sub += QStringLiteral(" \u00b7 %1 more rows in the table").arg(m_data.hiddenRows);
    m_subtitle->setText(sub);
    const size_t runs = size_t(m_data.runLabels.size());
    const int n = int(m_data.rows.size());
    QFontMetrics fm(font());
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < n; ++i)
        ticker->addTick(double(i + 1), fm.elidedText(m_data.rows[size_t(i)].label, Qt::ElideMiddle, 300));
    yAxis->setTicker(ticker);
    yAxis->setRange(0.4, double(std::max(n, 1)) + 0.6);
    QFont labelFont = font();
    labelFont.setPixelSize(11);

    if (m_kind == Kind::Bars) {
        double maxNs = 0;
        for (const CompareChartRow& r : m_data.rows)
            for (double v : r.ns)
                maxNs = std::max(maxNs, v);
        const TimeUnit unit = unitFor(maxNs);
        auto* group = new QCPBarsGroup(this);
        group->setSpacingType(QCPBarsGroup::stAbsolute);
        group->setSpacing(1);
        const double width = 0.8 / double(std::max<size_t>(runs, 1));
        for (size_t run = 0; run < runs; ++run) {
            auto* bars = new QCPBars(yAxis, xAxis);
            bars->setWidth(width);
            bars->setBrush(runColor(run));
            bars->setPen(QPen(runColor(run).darker(130), 1));
            bars->setName(m_data.runLabels[qsizetype(run)]);
            bars->setBarsGroup(group);
            for (int i = 0; i < n; ++i)
                bars->addData(double(i + 1), m_data.rows[size_t(i)].ns[run] / unit.ns);
            legend->addItem(new QCPPlottableLegendItem(legend, bars));
            m_bars.push_back(bars);
        }
        xAxis->setRange(0, std::max(maxNs / unit.ns, 1e-9) * 1.08);
        xAxis->setLabel(QStringLiteral("kernel time (%1)").arg(QLatin1String(unit.name)));
    } else {
        double maxAbs = 0;
        for (const CompareChartRow& r : m_data.rows)
            for (size_t run = 1; run < r.deltaNs.size(); ++run)
                maxAbs = std::max(maxAbs, std::abs(r.deltaNs[run]));
        const TimeUnit unit = unitFor(maxAbs);
        double lo = 0, hi = 0;
        if (runs == 2) {
            // One bar per row, coloured by the sign of the change, labelled with time and %.
            auto* slower = new QCPBars(yAxis, xAxis);
            auto* faster = new QCPBars(yAxis, xAxis);
            slower->setBrush(QColor(0xe4, 0x57, 0x56));
            slower->setPen(QPen(QColor(0xe4, 0x57, 0x56).darker(130), 1));
            faster->setBrush(QColor(0x54, 0xa2, 0x4b));
            faster->setPen(QPen(QColor(0x54, 0xa2, 0x4b).darker(130), 1));
            for (QCPBars* b : {slower, faster}) {
                b->setWidth(0.7);
                m_bars.push_back(b);
            }
            for (int i = 0; i < n; ++i) {
                const CompareChartRow& r = m_data.rows[size_t(i)];
                const double v = r.deltaNs[1] / unit.ns;
                (v > 0 ? slower : faster)->addData(double(i + 1), v);
                lo = std::min(lo, v);
                hi = std::max(hi, v);
                auto* text = new QCPItemText(this);
                text->setClipToAxisRect(false);
                text->position->setType(QCPItemPosition::ptPlotCoords);
                text->position->setAxes(xAxis, yAxis);
                text->position->setCoords(v, double(i + 1));
                text->setPositionAlignment((v < 0 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
                text->setFont(labelFont);
                const QString pct = r.pct[1] ? cellText(Unit::Percent, *r.pct[1]) : (r.present[0] ? QStringLiteral("-") : QStringLiteral("new"));
                text->setText(QStringLiteral(" %1 (%2) ").arg(cellText(Unit::Ns, r.deltaNs[1]), pct));
            }
        } else {
            auto* group = new QCPBarsGroup(this);
            group->setSpacingType(QCPBarsGroup::stAbsolute);
            group->setSpacing(1);
            const double width = 0.8 / double(std::max<size_t>(runs - 1, 1));
            for (size_t run = 1; run < runs; ++run) {
                auto* bars = new QCPBars(yAxis, xAxis);
                bars->setWidth(width);
                bars->setBrush(runColor(run));
                bars->setPen(QPen(runColor(run).darker(130), 1));
                bars->setName(m_data.runLabels[qsizetype(run)] + QStringLiteral(" - BASE"));
                bars->setBarsGroup(group);
                for (int i = 0; i < n; ++i) {
                    const double v = m_data.rows[size_t(i)].deltaNs[run] / unit.ns;
                    bars->addData(double(i + 1), v);
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
                m_bars.push_back(bars);
            }
            legend->setVisible(true);
            for (QCPBars* b : m_bars)
                legend->addItem(new QCPPlottableLegendItem(legend, b));
        }
        // Room on both sides for the labels.
        const double span = std::max(hi - lo, 1e-9);
        xAxis->setRange(lo - (lo < 0 ? 0.35 * span : 0.05 * span), hi + (hi > 0 ? 0.35 * span : 0.05 * span));
        xAxis->setLabel(QStringLiteral("change of kernel time (%1)").arg(QLatin1String(unit.name)));
    }
    replot(QCustomPlot::rpQueuedReplot);
}

int ComparePlot::preferredHeight() const
{
    return std::clamp(150 + int(m_data.rows.size()) * (m_kind == Kind::Bars ? 14 + 10 * int(m_data.runLabels.size()) : 26), 420, 2400);
}

int ComparePlot::rowAt(const QPointF& pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()) && !(pos.x() < axisRect()->left() && pos.y() >= axisRect()->top() && pos.y() <= axisRect()->bottom()))
        return -1;
    double key = yAxis->pixelToCoord(pos.y());
    int i = int(std::lround(key)) - 1;
    if (i < 0 || i >= int(m_data.rows.size()) || std::abs(key - double(i + 1)) > 0.45)
        return -1;
    return i;
}

void ComparePlot::setHighlighted(int row)
{
    if (row == m_highlighted)
        return;
    m_highlighted = row;
    // A band behind the highlighted row, under the bars.
    for (int i = itemCount() - 1; i >= 0; --i)
        if (item(i)->objectName() == QLatin1String("highlight"))
            removeItem(i);
    if (row >= 0 && row < int(m_data.rows.size())) {
        auto* band = new QCPItemRect(this);
        band->setObjectName(QStringLiteral("highlight"));
        band->setLayer(QStringLiteral("grid"));
        band->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setTypeY(QCPItemPosition::ptPlotCoords);
        band->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptPlotCoords);
        band->topLeft->setAxes(xAxis, yAxis);
        band->bottomRight->setAxes(xAxis, yAxis);
        band->topLeft->setCoords(0, row + 0.5);
        band->bottomRight->setCoords(1, row + 1.5);
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(255, 226, 130, 150));
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace wt::gui
