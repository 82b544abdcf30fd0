#include "variantsplot.h"

#include "app/gui/core/layerpalette.h"
#include "app/gui/core/timeformat.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace wt::gui {

QColor opColor(int index)
{
    return LayerPalette::seriesColor(index);
}

QString variantsPerLabel(const VariantsTable& t)
{
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        lo = i == 0 ? t.rows[i].steps : std::min(lo, t.rows[i].steps);
        hi = std::max(hi, t.rows[i].steps);
    }
    if (lo == hi)
        return QStringLiteral("per step (mean of %1 step%2)").arg(lo).arg(lo == 1 ? QString() : QStringLiteral("s"));
    return QStringLiteral("per step (mean of %1 to %2 steps)").arg(lo).arg(hi);
}

VariantsChartData variantsChartData(const VariantsTable& t)
{
    VariantsChartData d;
    d.setting = QString::fromStdString(t.setting.empty() ? std::string("variant") : t.setting);
    d.layer = QString::fromStdString(t.layer);
    d.per = variantsPerLabel(t);
    d.baseline = int(t.baseline);
    // The stack shows the ops that matter: those of at least kMinOpShare of the layer in some
    // variant (at most kMaxOps, analysis's order: largest first); the rest are one "other"
    // segment, so two dozen ops do not become two dozen slivers in near-identical colours.
    std::vector<bool> shown(t.opNames.size(), false);
    int kept = 0;
    for (size_t op = 0; op < t.opNames.size(); ++op) {
        bool large = false;
        for (const VariantRow& r : t.rows)
            large = large || (op < r.ops.size() && r.layerNs > 0 && r.ops[op].ns >= VariantsPlot::kMinOpShare * r.layerNs);
        shown[op] = large && kept < VariantsPlot::kMaxOps;
        kept += shown[op] ? 1 : 0;
    }
    for (size_t op = 0; op < t.opNames.size(); ++op)
        (shown[op] ? d.ops : d.otherOps) << QString::fromStdString(t.opNames[op]);
    if (d.otherOps.size() == 1) {   // one op is no merge: show it
        d.ops.clear();
        d.otherOps.clear();
        std::fill(shown.begin(), shown.end(), true);
        for (const std::string& op : t.opNames)
            d.ops << QString::fromStdString(op);
    }
    if (!d.otherOps.isEmpty())
        d.ops << QStringLiteral("other (%1 ops)").arg(d.otherOps.size());
    for (const VariantRow& r : t.rows) {
        VariantBar b;
        b.label = QString::fromStdString(r.value);
        b.file = QString::fromStdString(r.file);
        b.runId = r.info.id;
        b.forwardNs = r.forwardNs;
        b.backwardNs = r.backwardNs;
        b.updateNs = r.updateNs;
        b.totalNs = r.layerNs;
        b.share = r.share;
        b.stepNs = r.stepNs;
        b.stepWallNs = r.stepWallNs;
        b.speedup = r.speedup;
        b.opSumNs = r.layerNs;
        double other = 0;
        for (size_t op = 0; op < r.ops.size(); ++op) {
            if (op < shown.size() && shown[op])
                b.opNs.push_back(r.ops[op].ns);
            else
                other += r.ops[op].ns;
        }
        if (!d.otherOps.isEmpty())
            b.opNs.push_back(other);
        d.variants.push_back(std::move(b));
    }
    return d;
}

VariantsPlot::VariantsPlot(Kind kind, QWidget* parent) : ChartPlot(true, parent), m_kind(kind)
{
    styleLegend(true);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    legend->setVisible(kind == Kind::LayerTime || kind == Kind::Ops);
    if (kind == Kind::LayerTime) {
        // The legend in one row under the axes: over the bars it would hide a speedup label.
        plotLayout()->addElement(3, 0, legend);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        legend->setMargins(QMargins(6, 2, 6, 2));
        plotLayout()->setRowStretchFactor(3, 0.001);
    }
    if (kind == Kind::Ops) {
        QFont lf = font();
        lf.setPixelSize(11);
        legend->setFont(lf);
        legend->setRowSpacing(0);
        legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        legend->setWrap(14);   // more ops than that: a second column
        // A layer has a dozen ops or more: their legend goes right of the bars, not over them.
        auto* side = new QCPLayoutGrid;
        plotLayout()->addElement(2, 1, side);
        side->setMargins(QMargins(4, 0, 6, 6));
        side->addElement(0, 0, legend);
        plotLayout()->setColumnStretchFactor(1, 0.001);
    }
    // Hovering a bar names what it shows (the ops chart: the op under the cursor).
    showHoverTips();
}

QString VariantsPlot::toolTipAt(const QPointF& pos) const
{
    const int n = int(m_data.variants.size());
    if (!axisRect()->rect().contains(pos.toPoint()))
        return {};
    const int i = categoryAt(xAxis, pos.x(), n, 0.4);
    if (i < 0)
        return {};
    const VariantBar& v = m_data.variants[size_t(i)];
    const double y = yAxis->pixelToCoord(pos.y());
    switch (m_kind) {
    case Kind::Ops: {
        double below = 0;
        for (qsizetype op = 0; op < m_data.ops.size() && size_t(op) < v.opNs.size(); ++op) {
            const double h = v.opNs[size_t(op)] / m_unitNs;
            if (y >= below && y < below + h) {
                QString name = m_data.ops[op];
                if (!m_data.otherOps.isEmpty() && op == m_data.ops.size() - 1)
                    name += QStringLiteral(": ") + m_data.otherOps.join(QStringLiteral(", "));
                const double share = v.opSumNs > 0 ? 100.0 * v.opNs[size_t(op)] / v.opSumNs : 0.0;
                return QStringLiteral("%1 \u00b7 %2\n%3 per step \u00b7 %4% of the layer")
                    .arg(v.label, name, formatDuration(v.opNs[size_t(op)]), QString::number(share, 'f', 1));
            }
            below += h;
        }
        return {};
    }
    case Kind::LayerTime:
        return QStringLiteral("%1 \u00b7 %2 layer\nforward %3 \u00b7 backward %4 \u00b7 total %5 per step")
            .arg(v.label, m_data.layer, formatDuration(v.forwardNs), formatDuration(v.backwardNs), formatDuration(v.totalNs));
    case Kind::Share:
        return QStringLiteral("%1 \u00b7 %2 layer: %3% of the step").arg(v.label, m_data.layer, QString::number(100.0 * v.share, 'f', 1));
    case Kind::StepTime:
        return QStringLiteral("%1 \u00b7 step %2").arg(v.label, formatDuration(v.stepNs));
    }
    return {};
}

QString VariantsPlot::title() const
{
    const QString layer = m_data.layer.isEmpty() ? QStringLiteral("layer") : m_data.layer;
    switch (m_kind) {
    case Kind::LayerTime:
        return hasUpdate() ? QStringLiteral("%1 layer: forward, backward and update time by %2").arg(layer, m_data.setting)
                           : QStringLiteral("%1 layer: forward and backward time by %2").arg(layer, m_data.setting);
    case Kind::Ops: return QStringLiteral("%1 layer: time by op, by %2").arg(layer, m_data.setting);
    case Kind::Share: return QStringLiteral("%1 layer's share of the step, by %2").arg(layer, m_data.setting);
    case Kind::StepTime: return QStringLiteral("Kernel time per step by %1").arg(m_data.setting);
    }
    return {};
}

void VariantsPlot::setData(const VariantsChartData& data)
{
    m_data = data;
    rebuild();
}

void VariantsPlot::rebuild()
{
    clearPlottables();
    clearItems();
    m_bars.clear();
    m_labels.clear();
    m_wall = nullptr;
    legend->clearItems();
    m_title->setText(title());
    QString sub = m_data.per;
    if (m_kind == Kind::LayerTime && !m_data.variants.empty())
        sub += QStringLiteral(" \u00b7 above: the layer's speedup against %1 and its total")
                   .arg(m_data.variants[size_t(m_data.baseline)].label);
    if (m_kind == Kind::StepTime && !m_data.variants.empty())
        sub += QStringLiteral(" \u00b7 bars: every kernel of a step \u00b7 \u25c6 the step's wall time \u00b7 speedup against %1")
                   .arg(m_data.variants[size_t(m_data.baseline)].label);
    m_subtitle->setText(sub);

    const int n = int(m_data.variants.size());
    QStringList categories;
    for (int i = 0; i < n; ++i)
        categories << m_data.variants[size_t(i)].label + (i == m_data.baseline ? QStringLiteral("\n(baseline)") : QString());
    setCategories(xAxis, yAxis, categories);
    const QFont bold = labelFont(12, true);

    // Per variant: the top of its bars (in axis units) and the label above.
    std::vector<double> top(static_cast<size_t>(n), 0.0);
    std::vector<QString> labels(static_cast<size_t>(n));
    auto newBars = [&](const QString& name, const QColor& color, double width) {
        m_bars.push_back(addBars(xAxis, yAxis, color, width, name));
        return m_bars.back();
    };

    double maxNs = 0;
    for (const VariantBar& v : m_data.variants)
        maxNs = std::max({maxNs, v.forwardNs, v.backwardNs, v.totalNs, m_kind == Kind::StepTime ? std::max(v.stepNs, v.stepWallNs) : 0.0});
    const TimeUnit unit = unitFor(maxNs);
    m_unitNs = unit.ns;

    switch (m_kind) {
    case Kind::LayerTime: {
        QCPBarsGroup* group = addBarsGroup(2);
        // The label above a group is the layer's total: its bars add up to it (the update phase's
        // gradient norm, SGD and loss read-back are a third bar when the layer has any).
        const bool update = hasUpdate();
        const double width = update ? 0.26 : 0.36;
        QCPBars* fwd = newBars(QStringLiteral("forward"), LayerPalette::forwardColor(), width);
        QCPBars* bwd = newBars(QStringLiteral("backward"), LayerPalette::backwardColor(), width);
        QCPBars* upd = update ? newBars(QStringLiteral("update"), LayerPalette::seriesColor(2), width) : nullptr;
        for (QCPBars* b : {fwd, bwd, upd})
            if (b)
                b->setBarsGroup(group);
        for (int i = 0; i < n; ++i) {
            const VariantBar& v = m_data.variants[size_t(i)];
            fwd->addData(double(i + 1), v.forwardNs / unit.ns);
            bwd->addData(double(i + 1), v.backwardNs / unit.ns);
            if (upd)
                upd->addData(double(i + 1), v.updateNs / unit.ns);
            top[size_t(i)] = std::max({v.forwardNs, v.backwardNs, upd ? v.updateNs : 0.0}) / unit.ns;
            labels[size_t(i)] = i == m_data.baseline ? QStringLiteral("1.00x")
                                : v.speedup ? QStringLiteral("%1x").arg(*v.speedup, 0, 'f', 2)
                                            : QStringLiteral("-");
            labels[size_t(i)] += QStringLiteral("\n") + formatDuration(v.totalNs);
        }
        for (QCPBars* b : {fwd, bwd, upd})
            if (b)
                legend->addItem(new QCPPlottableLegendItem(legend, b));
        yAxis->setLabel(QStringLiteral("layer time per step (%1)").arg(QLatin1String(unit.name)));
        break;
    }
    case Kind::Ops: {
        QCPBars* below = nullptr;
        for (int op = 0; op < int(m_data.ops.size()); ++op) {
            const bool other = !m_data.otherOps.isEmpty() && op == int(m_data.ops.size()) - 1;
            QCPBars* b = newBars(m_data.ops[op], other ? QColor::fromRgb(LayerPalette::otherColor()) : opColor(op), 0.6);
            for (int i = 0; i < n; ++i) {
                const auto& ns = m_data.variants[size_t(i)].opNs;
                b->addData(double(i + 1), size_t(op) < ns.size() ? ns[size_t(op)] / unit.ns : 0.0);
            }
            if (below)
                b->moveAbove(below);
            below = b;
        }
        // Legend top-down as the stack reads.
        for (auto it = m_bars.rbegin(); it != m_bars.rend(); ++it)
            legend->addItem(new QCPPlottableLegendItem(legend, *it));
        for (int i = 0; i < n; ++i) {
            // The ops of a layer add up to the layer (analysis's layerNs).
            const double sum = m_data.variants[size_t(i)].opSumNs;
            top[size_t(i)] = sum / unit.ns;
            labels[size_t(i)] = formatDuration(sum);
        }
        yAxis->setLabel(QStringLiteral("layer time per step (%1)").arg(QLatin1String(unit.name)));
        break;
    }
    case Kind::Share: {
        QCPBars* b = newBars(QStringLiteral("share"), LayerPalette::seriesColor(4), 0.6);
        for (int i = 0; i < n; ++i) {
            const double pct = 100.0 * m_data.variants[size_t(i)].share;
            b->addData(double(i + 1), pct);
            top[size_t(i)] = pct;
            labels[size_t(i)] = QStringLiteral("%1%").arg(pct, 0, 'f', 1);
        }
        m_unitNs = 1;
        yAxis->setLabel(QStringLiteral("share of the step (%)"));
        break;
    }
    case Kind::StepTime: {
        QCPBars* b = newBars(QStringLiteral("kernel time per step"), LayerPalette::seriesColor(3), 0.6);
        // The step's wall time beside it (host clock: kernels plus the gaps between them), a
        // marker so that the bars stay what the title says.
        auto* wall = new QCPGraph(xAxis, yAxis);
        wall->setName(QStringLiteral("step wall time"));
        wall->setLineStyle(QCPGraph::lsNone);
        wall->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QColor(60, 60, 60), QColor(60, 60, 60), 9));
        m_wall = wall;
        for (int i = 0; i < n; ++i) {
            const VariantBar& v = m_data.variants[size_t(i)];
            b->addData(double(i + 1), v.stepNs / unit.ns);
            if (v.stepWallNs > 0)
                wall->addData(double(i + 1), v.stepWallNs / unit.ns);
            top[size_t(i)] = std::max(v.stepNs, v.stepWallNs) / unit.ns;
            const VariantBar& base = m_data.variants[size_t(m_data.baseline)];
            labels[size_t(i)] = formatDuration(v.stepNs);
            if (i != m_data.baseline && v.stepNs > 0 && base.stepNs > 0)
                labels[size_t(i)] += QStringLiteral("\n%1x").arg(base.stepNs / v.stepNs, 0, 'f', 2);
        }
        yAxis->setLabel(QStringLiteral("time per step (%1)").arg(QLatin1String(unit.name)));
        legend->setVisible(true);
        legend->addItem(new QCPPlottableLegendItem(legend, b));
        legend->addItem(new QCPPlottableLegendItem(legend, wall));
        break;
    }
    }
    // The baseline's bars are outlined darker.
    for (int i = 0; i < n; ++i) {
        QCPItemText* text = addPlotLabel(double(i + 1), top[size_t(i)], Qt::AlignHCenter | Qt::AlignBottom, bold, QString());
        text->setTextAlignment(Qt::AlignHCenter);
        text->setColor(i == m_data.baseline ? QColor(90, 90, 90) : QColor(30, 30, 30));
        text->setText(labels[size_t(i)]);
        m_labels.push_back(text);
    }
    double maxTop = 0;
    for (double t : top)
        maxTop = std::max(maxTop, t);
    // Room above the tallest bar for two lines of label (and the legend).
    yAxis->setRange(0, std::max(maxTop, 1e-9) * (m_kind == Kind::Ops ? 1.12 : 1.22));
    replot(QCustomPlot::rpQueuedReplot);
}

bool VariantsPlot::hasUpdate() const
{
    for (const VariantBar& v : m_data.variants)
        if (v.updateNs > 0)
            return true;
    return false;
}

double VariantsPlot::drawnWall(int variant) const
{
    if (!m_wall)
        return std::nan("");
    auto it = m_wall->data()->findBegin(double(variant + 1), false);
    if (it == m_wall->data()->constEnd() || it->key != double(variant + 1))
        return std::nan("");
    return it->value * m_unitNs;
}

double VariantsPlot::drawnValue(int series, int variant) const
{
    if (series < 0 || size_t(series) >= m_bars.size())
        return std::nan("");
    auto it = m_bars[size_t(series)]->data()->findBegin(double(variant + 1), false);
    if (it == m_bars[size_t(series)]->data()->constEnd() || it->key != double(variant + 1))
        return std::nan("");
    return m_kind == Kind::Share ? it->value / 100.0 : it->value * m_unitNs;
}

QString VariantsPlot::labelAt(int variant) const
{
    if (variant < 0 || size_t(variant) >= m_labels.size())
        return {};
    return m_labels[size_t(variant)]->text();
}

}  // namespace wt::gui
