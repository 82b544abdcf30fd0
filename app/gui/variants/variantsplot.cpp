#include "variantsplot.h"

#include "app/gui/charts/chartframe.h"
#include "app/gui/compare/compareplot.h"
#include "app/gui/core/timeformat.h"

#include <algorithm>
#include <cmath>

namespace wt::gui {

QColor opColor(int index)
{
    static const QRgb colors[] = {0x4c78a8, 0xf58518, 0x54a24b, 0xe45756, 0x72b7b2, 0xeeca3b, 0xb279a2,
                                  0xff9da6, 0x9d755d, 0xbab0ac, 0x1f77b4, 0x8c564b, 0x17becf, 0xbcbd22};
    constexpr int n = int(sizeof colors / sizeof colors[0]);
    if (index < n)
        return QColor::fromRgb(colors[index]);
    // Past the palette: distinct hues, so no two ops of a stack share a colour.
    return QColor::fromHsv((index * 67) % 360, 110 + (index % 3) * 40, 190 - (index % 2) * 40);
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
    for (const std::string& op : t.opNames)
        d.ops << QString::fromStdString(op);
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
        for (const VariantOp& op : r.ops)
            b.opNs.push_back(op.ns);
        d.variants.push_back(std::move(b));
    }
    return d;
}

VariantsPlot::VariantsPlot(Kind kind, QWidget* parent) : QCustomPlot(parent), m_kind(kind)
{
    const ChartTitles titles = setUpChartFrame(*this, true);
    m_title = titles.title;
    m_subtitle = titles.subtitle;
    xAxis->grid()->setVisible(false);
    xAxis->setTickLength(0, 0);
    xAxis->setSubTicks(false);
    yAxis->setSubTicks(false);
    yAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    legend->setFont(font());   // the frame's 12 px font
    legend->setBorderPen(QPen(QColor(200, 200, 200)));
    legend->setBrush(QColor(255, 255, 255, 230));
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
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < n; ++i) {
        QString label = m_data.variants[size_t(i)].label;
        if (i == m_data.baseline)
            label += QStringLiteral("\n(baseline)");
        ticker->addTick(double(i + 1), label);
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(0.4, double(std::max(n, 1)) + 0.6);
    QFont labelFont = font();
    labelFont.setPixelSize(12);
    labelFont.setBold(true);

    // Per variant: the top of its bars (in axis units) and the label above.
    std::vector<double> top(static_cast<size_t>(n), 0.0);
    std::vector<QString> labels(static_cast<size_t>(n));
    auto newBars = [&](const QString& name, const QColor& color, double width) {
        auto* b = new QCPBars(xAxis, yAxis);
        b->setName(name);
        b->setWidth(width);
        b->setBrush(color);
        b->setPen(QPen(color.darker(130), 1));
        m_bars.push_back(b);
        return b;
    };

    double maxNs = 0;
    for (const VariantBar& v : m_data.variants)
        maxNs = std::max({maxNs, v.forwardNs, v.backwardNs, v.totalNs, m_kind == Kind::StepTime ? std::max(v.stepNs, v.stepWallNs) : 0.0});
    const TimeUnit unit = unitFor(maxNs);
    m_unitNs = unit.ns;

    switch (m_kind) {
    case Kind::LayerTime: {
        auto* group = new QCPBarsGroup(this);
        group->setSpacingType(QCPBarsGroup::stAbsolute);
        group->setSpacing(2);
        // The label above a group is the layer's total: its bars add up to it (the update phase's
        // gradient norm, SGD and loss read-back are a third bar when the layer has any).
        const bool update = hasUpdate();
        const double width = update ? 0.26 : 0.36;
        QCPBars* fwd = newBars(QStringLiteral("forward"), QColor(0x4c78a8), width);
        QCPBars* bwd = newBars(QStringLiteral("backward"), QColor(0xf58518), width);
        QCPBars* upd = update ? newBars(QStringLiteral("update"), QColor(0x54a24b), width) : nullptr;
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
            QCPBars* b = newBars(m_data.ops[op], opColor(op), 0.6);
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
        QCPBars* b = newBars(QStringLiteral("share"), QColor(0x54a24b), 0.6);
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
        QCPBars* b = newBars(QStringLiteral("kernel time per step"), QColor(0x72b7b2), 0.6);
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
        auto* text = new QCPItemText(this);
        text->setClipToAxisRect(false);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setAxes(xAxis, yAxis);
        text->position->setCoords(double(i + 1), top[size_t(i)]);
        text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        text->setTextAlignment(Qt::AlignHCenter);
        text->setFont(labelFont);
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
