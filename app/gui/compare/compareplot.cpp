#include "compareplot.h"

#include "app/gui/core/displayname.h"
#include "comparemodel.h"

#include "analysis/comparetable.h"
#include "app/gui/core/layerpalette.h"
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
    return LayerPalette::seriesColor(int(index));
}

CompareChartData chartData(const Comparison& c, const QString& title, size_t maxRows)
{
    CompareChartData d;
    d.title = title;
    d.per = perLabel(c.per, c.runs);
    d.runLabels = runLabels(c.runs);
    // The rows' names as distinct short names (render/shortname.h).
    QStringList names;
    for (size_t i = 0; i < c.groups.size() && i < maxRows; ++i)
        names << q(c.groups[i].name);
    const QStringList shown = distinctNames(names);
    for (size_t i = 0; i < c.groups.size() && i < maxRows; ++i) {
        const CompareGroup& g = c.groups[i];
        CompareChartRow row;
        row.label = shown[qsizetype(i)];
        if (!g.inAll())
            row.label += QStringLiteral("  [%1]").arg(q(onlyInLabel(g)));
        for (size_t r = 0; r < g.cells.size(); ++r) {
            row.ns.push_back(g.cells[r].present ? g.cells[r].ns : 0.0);
            row.present.push_back(g.cells[r].present);
            row.deltaNs.push_back(g.deltaNs[r]);
            row.pct.push_back(g.deltaPct[r]);
            const bool tested = r < g.interval.size() && g.interval[r];
            row.interval.push_back(tested ? std::optional<std::pair<double, double>>({g.interval[r]->low, g.interval[r]->high})
                                          : std::nullopt);
            row.verdict.push_back(r < g.verdict.size() ? g.verdict[r] : Verdict::NotEnoughSamples);
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
    // Kernel names as distinct short names, BASE's and OTHER's in one view.
    QStringList names;
    for (size_t i = 0; i < k.rows.size() && i < maxRows; ++i)
        names << q(k.rows[i].baseName) << q(k.rows[i].otherName);
    const QStringList shortNames = distinctNames(names);
    for (size_t i = 0; i < k.rows.size() && i < maxRows; ++i) {
        const KernelDiffRow& r = k.rows[i];
        CompareChartRow row;
        const QString base = shortNames[qsizetype(2 * i)], other = shortNames[qsizetype(2 * i + 1)];
        switch (r.change) {
        case KernelChange::Added: row.label = QStringLiteral("added ") + other; break;
        case KernelChange::Removed: row.label = QStringLiteral("removed ") + base; break;
        case KernelChange::Swapped: row.label = base + QStringLiteral(" -> ") + other; break;
        // "-> to op: kernel": an elided label keeps its kernel name at the end.
        case KernelChange::Moved: row.label = QStringLiteral("\u2192 %1: %2").arg(q(r.otherOp), base); break;
        case KernelChange::Changed:
        case KernelChange::Unchanged: row.label = base; break;
        }
        // One kernel name runs in several ops (sgemm_nt in every projection): the op says which.
        if (!r.op.empty())
            row.label = q(r.op) + (r.change == KernelChange::Moved ? QStringLiteral(" ") : QStringLiteral(": ")) + row.label;
        row.ns = {r.base.present ? r.base.ns : 0.0, r.other.present ? r.other.ns : 0.0};
        row.present = {r.base.present, r.other.present};
        row.deltaNs = {0.0, r.deltaNs};
        row.pct = {std::optional<double>(0.0), r.deltaPct};
        // The row's noise (analysis's Welch interval and Holm verdict), as the groups' rows.
        row.interval = {std::nullopt, r.interval ? std::optional<std::pair<double, double>>({r.interval->low, r.interval->high})
                                                 : std::nullopt};
        row.verdict = {Verdict::WithinNoise, r.verdict};
        row.source = int(i);
        d.rows.push_back(std::move(row));
    }
    d.hiddenRows = int(k.rows.size() - d.rows.size());
    return d;
}

ComparePlot::ComparePlot(Kind kind, QWidget* parent) : ChartPlot(true, parent), m_kind(kind)
{
    yAxis->setRangeReversed(true);   // first row on top
    xAxis->grid()->setZeroLinePen(QPen(QColor(90, 90, 90), 1));
    styleLegend(true);
    if (kind == Kind::Bars) {
        legend->setVisible(true);
        axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    }
    connect(this, &ChartPlot::itemClicked, this, &ComparePlot::rowClicked);
}

void ComparePlot::setData(const CompareChartData& data)
{
    m_data = data;
    m_highlighted = -1;   // rebuild() clears the items, the band with them
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
    QStringList labels;
    for (const CompareChartRow& r : m_data.rows)
        labels << r.label;
    setCategories(yAxis, xAxis, labels, 300);
    const QFont small = labelFont(11);

    if (m_kind == Kind::Bars) {
        double maxNs = 0;
        for (const CompareChartRow& r : m_data.rows)
            for (double v : r.ns)
                maxNs = std::max(maxNs, v);
        const TimeUnit unit = unitFor(maxNs);
        QCPBarsGroup* group = addBarsGroup(1);
        const double width = 0.8 / double(std::max<size_t>(runs, 1));
        for (size_t run = 0; run < runs; ++run) {
            QCPBars* bars = addBars(yAxis, xAxis, runColor(run), width, m_data.runLabels[qsizetype(run)]);
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
            QCPBars* slower = addBars(yAxis, xAxis, LayerPalette::slowerColor(), 0.7);
            QCPBars* faster = addBars(yAxis, xAxis, LayerPalette::fasterColor(), 0.7);
            QCPBars* noise = addBars(yAxis, xAxis, QColor(0xc8, 0xc8, 0xc8), 0.7);   // within noise, or n < 3
            m_bars = {slower, faster, noise};
            for (int i = 0; i < n; ++i) {
                const CompareChartRow& r = m_data.rows[size_t(i)];
                const double v = r.deltaNs[1] / unit.ns;
                const Verdict verdict = r.verdict.size() > 1 ? r.verdict[1] : Verdict::NotEnoughSamples;
                const bool real = verdict == Verdict::Slower || verdict == Verdict::Faster;
                (!real ? noise : v > 0 ? slower : faster)->addData(double(i + 1), v);
                lo = std::min(lo, v);
                hi = std::max(hi, v);
                if (r.interval.size() > 1 && r.interval[1]) {
                    // The 95% interval as an error bar across the bar's end.
                    auto* bar = new QCPItemLine(this);
                    bar->start->setCoords(r.interval[1]->first / unit.ns, double(i + 1));
                    bar->end->setCoords(r.interval[1]->second / unit.ns, double(i + 1));
                    bar->setHead(QCPLineEnding(QCPLineEnding::esBar, 8));
                    bar->setTail(QCPLineEnding(QCPLineEnding::esBar, 8));
                    bar->setPen(QPen(QColor(0x40, 0x40, 0x40), 1.2));
                    lo = std::min(lo, r.interval[1]->first / unit.ns);
                    hi = std::max(hi, r.interval[1]->second / unit.ns);
                }
                // Right of the bar and of its error bar, whatever the sign: a label left of a
                // negative bar runs into the layer names.
                double at = std::max(v, 0.0);
                if (r.interval.size() > 1 && r.interval[1])
                    at = std::max(at, r.interval[1]->second / unit.ns);
                const QString pct = r.pct[1] ? cellText(Unit::Percent, *r.pct[1]) : (r.present[0] ? QStringLiteral("-") : QStringLiteral("new"));
                QString pm;
                if (r.interval.size() > 1 && r.interval[1])
                    pm = QStringLiteral(" \u00b1 ") + cellText(Unit::Ns, (r.interval[1]->second - r.interval[1]->first) / 2);
                QCPItemText* text = addPlotLabel(at, double(i + 1), Qt::AlignLeft | Qt::AlignVCenter, small, QStringLiteral(" %1%2 (%3)%4 ")
                                  .arg(cellText(Unit::Ns, r.deltaNs[1]), pm, pct, real                                  ? QString()
                                       : verdict == Verdict::WithinNoise ? QStringLiteral(", within noise")
                                                                         : QStringLiteral(", n < 3")));
                if (!real)
                    text->setColor(QColor(0x80, 0x80, 0x80));
            }
        } else {
            QCPBarsGroup* group = addBarsGroup(1);
            const double width = 0.8 / double(std::max<size_t>(runs - 1, 1));
            for (size_t run = 1; run < runs; ++run) {
                QCPBars* bars = addBars(yAxis, xAxis, runColor(run), width, m_data.runLabels[qsizetype(run)] + QStringLiteral(" - BASE"));
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
        const double span = std::max(hi - lo, 1e-9);
        if (runs == 2)   // the labels all stand right of their bars: room on the right for them
            xAxis->setRange(lo - 0.05 * span, hi + 0.8 * span);
        else   // room on both sides for the labels
            xAxis->setRange(lo - (lo < 0 ? 0.35 * span : 0.05 * span), hi + (hi > 0 ? 0.35 * span : 0.05 * span));
        xAxis->setLabel(QStringLiteral("change of kernel time (%1)").arg(QLatin1String(unit.name)));
    }
    replot(QCustomPlot::rpQueuedReplot);
}

int ComparePlot::preferredHeight() const
{
    return std::clamp(150 + int(m_data.rows.size()) * (m_kind == Kind::Bars ? 14 + 10 * int(m_data.runLabels.size()) : 26), 420, 2400);
}

int ComparePlot::itemAt(const QPointF& pos) const
{
    // The bars or their labels left of the axis rect.
    if (!axisRect()->rect().contains(pos.toPoint()) && !(pos.x() < axisRect()->left() && pos.y() >= axisRect()->top() && pos.y() <= axisRect()->bottom()))
        return -1;
    return categoryAt(yAxis, pos.y(), int(m_data.rows.size()), 0.45);
}

void ComparePlot::showHighlight(int row)
{
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
}

}  // namespace wt::gui
