#include "jobplot.h"

#include "app/gui/core/layerpalette.h"
#include "app/gui/core/timeformat.h"
#include "render/tablewriter.h"


#include <algorithm>
#include <cmath>

namespace wt::gui {
namespace {

// A cell as the table writer prints it ("-" for none), for the hover text.
QString cell(const Table& t, size_t row, std::string_view id)
{
    const int c = [&] {
        for (size_t i = 0; i < t.columns.size(); ++i)
            if (t.columns[i].id == id)
                return int(i);
        return -1;
    }();
    if (c < 0)
        return {};
    return QString::fromStdString(render::cellText(t.columns[size_t(c)], t.rows[row][size_t(c)]));
}

bool hasColumn(const Table& t, std::string_view id)
{
    return std::any_of(t.columns.begin(), t.columns.end(), [&](const Column& c) { return c.id == id; });
}

}  // namespace

JobChartData jobChartData(const Table& ranks, const StragglerRule& rule, const std::optional<std::string>& layer,
                          const QString& title)
{
    JobChartData d;
    d.title = title;
    const bool byLayer = layer && hasColumn(ranks, "layer_ns");
    d.valueName = byLayer ? QString::fromStdString(*layer) + QStringLiteral(" per step") : QStringLiteral("median step kernel time");
    if (!byLayer && rule.ranks >= 3) {
        d.medianNs = rule.medianNs;
        d.thresholdNs = rule.thresholdNs;
    }
    size_t stragglers = 0;
    for (size_t r = 0; r < ranks.rows.size(); ++r) {
        JobBar b;
        const Cell& rank = ranks.at(r, "rank");
        b.label = isNone(rank) ? cell(ranks, r, "file") : QString::number(int64_t(numberOf(rank)));
        b.straggler = numberOf(ranks.at(r, "straggler")) > 0;
        stragglers += b.straggler ? 1 : 0;
        const Cell* v = &ranks.at(r, byLayer ? "layer_per_step_ns" : "step_median_ns");
        if (byLayer && isNone(*v))
            v = &ranks.at(r, "layer_ns");   // a rank without steps: its layer's whole time
        b.hasValue = !isNone(*v);
        b.valueNs = b.hasValue ? numberOf(*v) : 0;
        QString tip = (isNone(rank) ? b.label : QStringLiteral("rank ") + b.label) + QStringLiteral(" (") + cell(ranks, r, "file") +
                      QStringLiteral(")") + (b.straggler ? QStringLiteral(": straggler") : QString());
        tip += QStringLiteral("\n%1 steps; step kernel time median %2, mean %3 (95% +- %4, cv %5); %6 the job's median")
                   .arg(cell(ranks, r, "steps"), cell(ranks, r, "step_median_ns"), cell(ranks, r, "step_mean_ns"),
                        cell(ranks, r, "step_ci_ns"), cell(ranks, r, "step_cv"), cell(ranks, r, "vs_median"));
        if (byLayer)
            tip += QStringLiteral("\n%1: %2 in all, %3 a step, %4 of the rank's kernel time, %5 the ranks' median")
                       .arg(QString::fromStdString(*layer), cell(ranks, r, "layer_ns"), cell(ranks, r, "layer_per_step_ns"),
                            cell(ranks, r, "layer_share"), cell(ranks, r, "layer_vs_median"));
        tip += QStringLiteral("\nDouble-click: open this rank's timeline");
        b.tip = tip;
        d.bars.push_back(std::move(b));
    }
    d.subtitle = QStringLiteral("%1 per rank; %2 rank%3, %4 straggler%5")
                     .arg(d.valueName)
                     .arg(d.bars.size())
                     .arg(d.bars.size() == 1 ? QString() : QStringLiteral("s"))
                     .arg(stragglers)
                     .arg(stragglers == 1 ? QString() : QStringLiteral("s"));
    return d;
}

JobPlot::JobPlot(QWidget* parent) : ChartPlot(true, parent)
{
    setObjectName(QStringLiteral("jobPlot"));
    // The legend in one row under the axes: inside them it would hide the ranks' bars.
    styleLegend(false);
    plotLayout()->addElement(3, 0, legend);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setMargins(QMargins(6, 2, 6, 2));
    plotLayout()->setRowStretchFactor(3, 0.001);
    showHoverTips();
}

void JobPlot::setData(JobChartData data)
{
    m_data = std::move(data);
    clearPlottables();
    clearItems();
    m_highlight = nullptr;
    m_title->setText(m_data.title);
    if (m_subtitle)
        m_subtitle->setText(m_data.subtitle);
    const int n = int(m_data.bars.size());
    double maxNs = 0;
    for (const JobBar& b : m_data.bars)
        maxNs = std::max(maxNs, b.valueNs);
    if (m_data.thresholdNs)
        maxNs = std::max(maxNs, *m_data.thresholdNs);
    const TimeUnit unit = unitFor(maxNs);
    m_unitNs = unit.ns;

    // Category axis: bars at 1..n; every k-th labelled so that labels never overlap.
    QStringList labels;
    const int every = std::max(1, int(std::ceil(double(n) / 40.0)));
    for (int i = 0; i < n; ++i)
        labels << (i % every == 0 ? m_data.bars[size_t(i)].label : QString());
    setCategories(xAxis, yAxis, labels, 90);
    xAxis->setTickLabelRotation(n > 16 ? 60 : 0);
    xAxis->setLabel(QStringLiteral("rank"));
    yAxis->setLabel(m_data.valueName + QStringLiteral(" (") + QString::fromLatin1(unit.name) + QStringLiteral(")"));

    const double width = n > 200 ? 1.0 : 0.7;   // many ranks: bars touch, else gaps read as missing ranks
    QCPBars* ranks = addBars(xAxis, yAxis, LayerPalette::seriesColor(0), width, QStringLiteral("rank"));
    QCPBars* slow = addBars(xAxis, yAxis, LayerPalette::slowerColor(), width, QStringLiteral("straggler"));
    if (n > 200)
        for (QCPBars* b : {ranks, slow})
            b->setPen(Qt::NoPen);
    bool anySlow = false;
    for (int i = 0; i < n; ++i) {
        const JobBar& b = m_data.bars[size_t(i)];
        (b.straggler ? slow : ranks)->addData(double(i + 1), b.valueNs / unit.ns);
        anySlow = anySlow || b.straggler;
    }
    ranks->addToLegend();
    if (anySlow)
        slow->addToLegend();
    else
        removePlottable(slow);
    auto hLine = [&](double ns, const QPen& pen, const QString& name) {
        QCPGraph* g = addGraph(xAxis, yAxis);
        g->setPen(pen);
        g->setName(name);
        g->addToLegend();
        g->addData(0.4, ns / unit.ns);
        g->addData(double(n) + 0.6, ns / unit.ns);
    };
    if (m_data.medianNs)
        hLine(*m_data.medianNs, QPen(QColor(60, 60, 60), 1.5),
              QStringLiteral("job median %1").arg(formatDuration(*m_data.medianNs)));
    if (m_data.thresholdNs && *m_data.thresholdNs > 0)
        hLine(*m_data.thresholdNs, QPen(LayerPalette::slowerColor().darker(120), 1.5, Qt::DashLine),
              QStringLiteral("straggler threshold %1").arg(formatDuration(*m_data.thresholdNs)));
    legend->setVisible(true);
    yAxis->setRange(0, maxNs > 0 ? maxNs / unit.ns * 1.12 : 1);
    m_highlight = addBars(xAxis, yAxis, QColor(0, 0, 0, 0), width, QString());
    m_highlight->setPen(QPen(QColor(20, 20, 20), 2));
    showHighlight(m_highlighted);
    replot();
}

int JobPlot::itemAt(const QPointF& pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()))
        return -1;
    return categoryAt(xAxis, pos.x(), int(m_data.bars.size()), 0.5);
}

QPointF JobPlot::pixelOfRow(int row) const
{
    const double v = row >= 0 && row < int(m_data.bars.size()) ? m_data.bars[size_t(row)].valueNs / m_unitNs : 0;
    return {xAxis->coordToPixel(double(row + 1)), yAxis->coordToPixel(v / 2)};
}

void JobPlot::showHighlight(int row)
{
    if (!m_highlight)
        return;
    m_highlight->data()->clear();
    if (row >= 0 && row < int(m_data.bars.size()))
        m_highlight->addData(double(row + 1), m_data.bars[size_t(row)].valueNs / m_unitNs);
}

void JobPlot::mouseDoubleClickEvent(QMouseEvent* event)
{
    ChartPlot::mouseDoubleClickEvent(event);
    if (event->button() != Qt::LeftButton)
        return;
    const int row = itemAt(event->position());
    if (row >= 0)
        emit barDoubleClicked(row);
}

QString JobPlot::toolTipAt(const QPointF& pos) const
{
    const int row = itemAt(pos);
    return row < 0 ? QString() : m_data.bars[size_t(row)].tip;
}

}  // namespace wt::gui
