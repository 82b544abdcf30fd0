#include "scalingplot.h"

#include "analysis/sweeptable.h"
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/timeformat.h"
#include "render/tablewriter.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wt::gui {

ScalingChartData scalingChartData(const SweepTable& t, const QString& file, const QString& layer, const SweepTable* predicted)
{
    ScalingChartData d;
    d.file = file;
    d.sweepId = QString::fromStdString(t.sweep.id);
    d.xKey = QString::fromStdString(t.xKey);
    d.groupKey = QString::fromStdString(t.groupKey);
    d.numeric = t.numeric;
    d.table = sweepTable(t, predicted, layer.toStdString());
    for (const std::string& v : t.xValues)
        d.xValues << QString::fromStdString(v);
    const Table& tb = d.table;
    const size_t series = tb.column(kSweepSeriesColumn), layerCol = tb.column(kSweepLayerColumn),
                 value = tb.column(sweepValueColumn(t)), group = tb.column(sweepGroupColumn(t)),
                 run = tb.column(kSweepRunColumn), source = tb.column(kSweepSourceColumn), ns = tb.column(kSweepLayerNsColumn),
                 share = tb.column(kSweepShareColumn), error = tb.column(kSweepErrorColumn),
                 ciLow = tb.column(kSweepCiLowColumn), ciHigh = tb.column(kSweepCiHighColumn),
                 inside = tb.column(kSweepInsideColumn);
    // Numeric axes take the predicted values beyond the measured ones too (extrapolation).
    if (t.numeric) {
        for (const auto& row : tb.rows)
            if (!d.xValues.contains(QString::fromStdString(textOf(row[value]))))
                d.xValues << QString::fromStdString(textOf(row[value]));
        std::sort(d.xValues.begin(), d.xValues.end(), [](const QString& a, const QString& b) { return a.toDouble() < b.toDouble(); });
    }
    const LayerPalette palette(t.layers);
    // Measured rows come first, by series; then the twin's, by the measured series they follow.
    auto lineOf = [&](const std::vector<Cell>& row) -> ScalingLine& {
        const QString name = QString::fromStdString(textOf(row[series]));
        const bool isPredicted = textOf(row[source]) == "predicted";
        for (ScalingLine& l : d.lines)
            if (l.predicted == isPredicted && (isPredicted ? l.name == name + QStringLiteral(" (predicted)") : l.name == name))
                return l;
        ScalingLine l;
        l.name = isPredicted ? name + QStringLiteral(" (predicted)") : name;
        l.layer = QString::fromStdString(textOf(row[layerCol]));
        l.group = group == Table::npos ? QString() : QString::fromStdString(textOf(row[group]));
        l.predicted = isPredicted;
        l.colorIndex = int(d.lines.size());
        for (const ScalingLine& m : d.lines)
            if (!m.predicted && m.name == name)
                l.colorIndex = m.colorIndex;
        // One line per layer: the layer's colour, as in every other view of these runs (the
        // palette of the sweep's layers, the runs' layers); a grid's lines are its variants.
        l.color = t.groupKey.empty() ? QColor::fromRgb(palette.color(l.layer.toStdString()))
                                     : LayerPalette::seriesColor(l.colorIndex);
        d.lines.push_back(std::move(l));
        return d.lines.back();
    };
    for (size_t r = 0; r < tb.rows.size(); ++r) {
        const std::vector<Cell>& row = tb.rows[r];
        ScalingLine& line = lineOf(row);
        if (isNone(row[ns]))
            continue;   // the run has no kernels in the layer
        ScalingPoint p;
        p.value = QString::fromStdString(textOf(row[value]));
        p.x = t.numeric ? p.value.toDouble() : double(d.xValues.indexOf(p.value) + 1);
        p.ns = numberOf(row[ns]);
        p.share = numberOf(row[share]);
        p.runId = int64_t(numberOf(row[run]));
        p.row = int(r);
        // The pair of a measured and a predicted row: the same series at the same value.
        for (size_t o = 0; o < tb.rows.size(); ++o)
            if (o != r && textOf(tb.rows[o][series]) == textOf(row[series]) && textOf(tb.rows[o][value]) == textOf(row[value]) &&
                textOf(tb.rows[o][source]) != textOf(row[source]))
                p.twinRow = int(o);
        const Cell& err = line.predicted ? (p.twinRow >= 0 ? tb.rows[size_t(p.twinRow)][error] : Cell()) : row[error];
        if (!isNone(err))
            p.errorPct = numberOf(err);
        if (!isNone(row[ciLow]) && !isNone(row[ciHigh])) {
            p.ciLowNs = numberOf(row[ciLow]);
            p.ciHighNs = numberOf(row[ciHigh]);
        }
        if (line.predicted && p.twinRow >= 0 && !isNone(tb.rows[size_t(p.twinRow)][inside]))
            p.inside = textOf(tb.rows[size_t(p.twinRow)][inside]) == "yes";
        line.points.push_back(p);
    }
    return d;
}

QString scalingPointText(const ScalingChartData& d, int line, int point)
{
    if (line < 0 || size_t(line) >= d.lines.size() || point < 0 || size_t(point) >= d.lines[size_t(line)].points.size())
        return {};
    const ScalingPoint& p = d.lines[size_t(line)].points[size_t(point)];
    const Table& t = d.table;
    auto cell = [&](int row, const char* id) {
        const size_t c = t.column(id);
        return row < 0 || c == Table::npos ? QString() : QString::fromStdString(render::cellText(t.columns[c], t.rows[size_t(row)][c]));
    };
    const QString source = cell(p.row, kSweepSourceColumn);
    QString text = QStringLiteral("%1 \u00b7 %2 %3 \u00b7 %4 (run %5)")
                       .arg(cell(p.row, kSweepSeriesColumn), d.xKey, p.value, source, cell(p.row, kSweepRunColumn)) +
                   QStringLiteral("\n%1 per step \u00b7 %2 of the step (%3)")
                       .arg(cell(p.row, kSweepLayerNsColumn), cell(p.row, kSweepShareColumn), cell(p.row, kSweepStepNsColumn));
    // The noise of a measured point: its interval and samples (repeats pooled).
    const int measuredRow = d.lines[size_t(line)].predicted ? p.twinRow : p.row;
    const size_t samplesCol = t.column(kSweepSamplesColumn);
    if (!d.lines[size_t(line)].predicted && samplesCol != Table::npos && p.row >= 0 && !isNone(t.rows[size_t(p.row)][samplesCol])) {
        text += p.ciLowNs ? QStringLiteral("\n\u00b1 %1 (95% interval %2 .. %3)")
                                .arg(cell(p.row, kSweepPmColumn), cell(p.row, kSweepCiLowColumn), cell(p.row, kSweepCiHighColumn))
                          : QStringLiteral("\nno interval (fewer than 3 samples)");
        text += QStringLiteral(" \u00b7 %1 samples, %2 run(s)").arg(cell(p.row, kSweepSamplesColumn), cell(p.row, kSweepRepeatsColumn));
    }
    if (p.twinRow >= 0)
        text += QStringLiteral("\n%1 %2 (run %3)")
                    .arg(cell(p.twinRow, kSweepSourceColumn), cell(p.twinRow, kSweepLayerNsColumn), cell(p.twinRow, kSweepRunColumn));
    if (p.errorPct)
        text += QStringLiteral(" \u00b7 prediction error %1").arg(cell(measuredRow, kSweepErrorColumn));
    const QString inside = cell(measuredRow, kSweepInsideColumn);
    if (inside == QStringLiteral("yes") || inside == QStringLiteral("no"))
        text += inside == QStringLiteral("yes") ? QStringLiteral("\nprediction inside the measured 95% interval")
                                                : QStringLiteral("\nprediction outside the measured 95% interval");
    return text;
}

ScalingPlot::ScalingPlot(Kind kind, QWidget* parent) : ChartPlot(true, parent), m_kind(kind)
{
    for (QCPAxis* a : {xAxis, yAxis})
        a->grid()->setPen(QPen(QColor(225, 225, 225), 1, Qt::DotLine));
    legend->setVisible(true);
    styleLegend(true);
    // Below the axes, four entries a row: a legend inside would hide points (8 lines and more
    // with a predicted twin).
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(3, 0, legend);
    plotLayout()->setRowStretchFactor(3, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(4);
    legend->setMargins(QMargins(6, 3, 6, 3));
    // A click (not a drag) on a point opens its run.
    connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) { m_pressPos = e->position().toPoint(); });
    connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton || (e->position().toPoint() - m_pressPos).manhattanLength() > 4)
            return;
        Hit h = pointAt(e->position());
        if (h.valid()) {
            setSelectedPoint(h);
            emit pointClicked(h.line, h.point);
        }
    });
    // Hovering a point shows its row of the table (the prediction's error with it).
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const Hit h = pointAt(e->position());
        if (h.valid())
            QToolTip::showText(e->globalPosition().toPoint(), scalingPointText(m_data, h.line, h.point), this);
        else
            QToolTip::hideText();
        showValueLabel(h);
    });
    setMouseTracking(true);
}

void ScalingPlot::leaveEvent(QEvent* event)
{
    QCustomPlot::leaveEvent(event);
    showValueLabel({});
}

QString ScalingPlot::valueLabel() const
{
    return m_valueLabel && m_valueLabel->visible() ? m_valueLabel->text() : QString();
}

void ScalingPlot::showValueLabel(Hit hit)
{
    // The hovered point's value on the chart itself (the table's cell text): readable where a
    // tooltip is not (a screen grab, a remote desktop), gone when the pointer leaves the point.
    if (!hit.valid() || size_t(hit.line) >= m_data.lines.size() || size_t(hit.point) >= m_data.lines[size_t(hit.line)].points.size()) {
        if (m_valueLabel && m_valueLabel->visible()) {
            m_valueLabel->setVisible(false);
            replot(QCustomPlot::rpQueuedReplot);
        }
        return;
    }
    const ScalingLine& line = m_data.lines[size_t(hit.line)];
    const ScalingPoint& p = line.points[size_t(hit.point)];
    const Table& t = m_data.table;
    const size_t c = t.column(m_kind == Kind::Time ? kSweepLayerNsColumn : kSweepShareColumn);
    if (p.row < 0 || c == Table::npos)
        return;
    const QString value = QString::fromStdString(render::cellText(t.columns[c], t.rows[size_t(p.row)][c]));
    if (!m_valueLabel) {
        m_valueLabel = new QCPItemText(this);
        m_valueLabel->setPadding(QMargins(4, 2, 4, 2));
        m_valueLabel->setBrush(QColor(255, 255, 255, 235));
        m_valueLabel->setPen(QPen(QColor(150, 150, 150)));
        m_valueLabel->setClipToAxisRect(false);
        m_valueLabel->setSelectable(false);
    }
    m_valueLabel->setText(QStringLiteral("%1 \u00b7 %2 %3: %4").arg(line.name, m_data.xKey, p.value, value));
    // Toward the middle of the chart, so that a point at an edge keeps its whole label.
    const QPointF at = pixelOf(hit.line, hit.point);
    const bool right = at.x() > axisRect()->rect().center().x();
    m_valueLabel->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    m_valueLabel->position->setType(QCPItemPosition::ptAbsolute);
    m_valueLabel->position->setCoords(at + QPointF(right ? 6 : -6, -10));
    m_valueLabel->setVisible(true);
    replot(QCustomPlot::rpQueuedReplot);
}

QString ScalingPlot::title() const
{
    const QString what = m_kind == Kind::Time ? QStringLiteral("Layer time per step") : QStringLiteral("Layer share of the step");
    return QStringLiteral("%1 against %2").arg(what, m_data.xKey.isEmpty() ? QStringLiteral("the swept value") : m_data.xKey);
}

void ScalingPlot::setData(const ScalingChartData& data)
{
    m_data = data;
    rebuild();
}

void ScalingPlot::setLogAxes(bool log)
{
    if (log == m_log)
        return;
    m_log = log;
    rebuild();
}

void ScalingPlot::rebuild()
{
    if (m_valueLabel)
        m_valueLabel->setVisible(false);   // its point may be gone
    for (QCPErrorBars* e : m_errorBars)
        if (e)
            removePlottable(e);
    m_errorBars.clear();
    clearGraphs();
    m_graphs.clear();
    m_outside = nullptr;
    m_marker = nullptr;
    legend->clearItems();
    legend->setWrap(m_data.lines.size() > 6 ? 3 : 4);   // long predicted names need wider columns
    m_title->setText(title());
    bool anyInterval = false;
    for (const ScalingLine& l : m_data.lines)
        for (const ScalingPoint& p : l.points)
            anyInterval |= p.ciLowNs.has_value();
    QString sub = QStringLiteral("per step (mean of the steps) \u00b7 a point is a run: click it to open the run");
    if (anyInterval && m_kind == Kind::Time)
        sub = QStringLiteral("per step (mean of the steps; bars: its 95% interval) \u00b7 click a point to open its run");
    if (!m_data.groupKey.isEmpty())
        sub = QStringLiteral("one line per %1 \u00b7 ").arg(m_data.groupKey) + sub;
    m_subtitle->setText(sub);

    double maxNs = 0, minX = std::numeric_limits<double>::max(), maxX = 0, minY = std::numeric_limits<double>::max(), maxY = 0;
    for (const ScalingLine& l : m_data.lines)
        for (const ScalingPoint& p : l.points)
            maxNs = std::max({maxNs, p.ns, p.ciHighNs.value_or(0.0)});
    const TimeUnit unit = unitFor(maxNs);
    m_unitNs = m_kind == Kind::Time ? unit.ns : 1.0;
    const bool logX = m_log && m_data.numeric;
    for (int i = 0; i < int(m_data.lines.size()); ++i) {
        const ScalingLine& l = m_data.lines[size_t(i)];
        QCPGraph* g = addGraph(xAxis, yAxis);
        g->setName(l.name);
        const QColor c = l.color;
        g->setPen(QPen(c, 2, l.predicted ? Qt::DashLine : Qt::SolidLine));
        if (l.predicted)
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, c, 7));
        else
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, Qt::white, 8));
        g->setSelectable(QCP::stNone);
        for (const ScalingPoint& p : l.points) {
            const double y = m_kind == Kind::Time ? p.ns / unit.ns : 100.0 * p.share;
            g->addData(p.x, y);
            minX = std::min(minX, p.x);
            maxX = std::max(maxX, p.x);
            if (y > 0)
                minY = std::min(minY, y);
            maxY = std::max(maxY, y);
        }
        legend->addItem(new QCPPlottableLegendItem(legend, g));
        m_graphs.push_back(g);
        // The time chart: each measured point's 95% interval as an error bar (share: none; the
        // interval is of the time, the step's own noise would widen a share's).
        QCPErrorBars* bars = nullptr;
        const bool withBars = m_kind == Kind::Time && !l.predicted &&
                              std::any_of(l.points.begin(), l.points.end(), [](const ScalingPoint& p) { return p.ciLowNs.has_value(); });
        if (withBars) {
            bars = new QCPErrorBars(xAxis, yAxis);
            bars->removeFromLegend();
            bars->setSelectable(QCP::stNone);
            bars->setDataPlottable(g);
            bars->setPen(QPen(c.darker(115), 1.5));
            bars->setWhiskerWidth(8);
            QVector<double> minus, plus;
            for (const ScalingPoint& p : l.points) {
                const double y = p.ns / unit.ns;
                // On a log axis a bar cannot reach 0: it stops at a hundredth of the point.
                const double low = p.ciLowNs ? std::max(*p.ciLowNs / unit.ns, m_log ? y / 100 : -1e300) : y;
                const double high = p.ciHighNs ? *p.ciHighNs / unit.ns : y;
                minus << std::max(0.0, y - low);
                plus << std::max(0.0, high - y);
                maxY = std::max(maxY, high);
            }
            bars->setData(minus, plus);
        }
        m_errorBars.push_back(bars);
    }
    // The predicted points outside their measured interval: ringed (time chart), one legend entry.
    if (m_kind == Kind::Time)
        for (const ScalingLine& l : m_data.lines)
            for (const ScalingPoint& p : l.points)
                if (l.predicted && p.inside == false) {
                    if (!m_outside) {
                        m_outside = addGraph(xAxis, yAxis);
                        m_outside->setName(QStringLiteral("prediction outside the measured 95% interval"));
                        m_outside->setLineStyle(QCPGraph::lsNone);
                        m_outside->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(200, 30, 30), 1.8), Qt::NoBrush, 14));
                        m_outside->setSelectable(QCP::stNone);
                        legend->addItem(new QCPPlottableLegendItem(legend, m_outside));
                    }
                    m_outside->addData(p.x, p.ns / unit.ns);
                }
    if (m_data.lines.empty() || maxX < minX) {
        minX = 1;
        maxX = 2;
    }
    if (maxY <= 0 || minY > maxY) {
        minY = 1;
        maxY = 1;
    }
    // x: the values as ticks (numeric: at their value; else by position, labelled).
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < int(m_data.xValues.size()); ++i)
        ticker->addTick(m_data.numeric ? m_data.xValues[i].toDouble() : double(i + 1), m_data.xValues[i]);
    xAxis->setTicker(ticker);
    xAxis->setScaleType(logX ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logX)
        xAxis->setRange(minX / 1.25, maxX * 1.25);
    else {
        const double pad = std::max((maxX - minX) * 0.06, m_data.numeric ? std::max(1e-9, maxX * 0.02) : 0.4);
        xAxis->setRange(minX - pad, maxX + pad);
    }
    xAxis->setLabel(m_data.xKey + (logX ? QStringLiteral(" (log scale)") : QString()));
    if (m_log) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        // A share never passes 100%: no room above it for nothing.
        const double top = m_kind == Kind::Share ? std::min(maxY * 1.8, std::max(maxY * 1.1, 100.0)) : maxY * 1.8;
        yAxis->setRange(minY / 1.5, top);
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        yAxis->setRange(0, maxY * 1.12);
    }
    yAxis->setLabel(m_kind == Kind::Time ? QStringLiteral("layer time per step (%1)%2").arg(QLatin1String(unit.name), m_log ? QStringLiteral(", log") : QString())
                                         : QStringLiteral("share of the step (%)%1").arg(m_log ? QStringLiteral(", log") : QString()));
    replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* ScalingPlot::lineGraph(int line) const
{
    return line >= 0 && size_t(line) < m_graphs.size() ? m_graphs[size_t(line)] : nullptr;
}

QCPErrorBars* ScalingPlot::errorBars(int line) const
{
    return line >= 0 && size_t(line) < m_errorBars.size() ? m_errorBars[size_t(line)] : nullptr;
}

QPointF ScalingPlot::pixelOf(int line, int point) const
{
    const ScalingPoint& p = m_data.lines[size_t(line)].points[size_t(point)];
    const double y = m_kind == Kind::Time ? p.ns / m_unitNs : 100.0 * p.share;
    return {xAxis->coordToPixel(p.x), yAxis->coordToPixel(y)};
}

ScalingPlot::Hit ScalingPlot::pointAt(const QPointF& pos) const
{
    Hit best;
    double bestD = 10.0 * 10.0;
    for (int l = 0; l < int(m_data.lines.size()); ++l)
        for (int p = 0; p < int(m_data.lines[size_t(l)].points.size()); ++p) {
            const QPointF d = pixelOf(l, p) - pos;
            const double dd = d.x() * d.x() + d.y() * d.y();
            if (dd <= bestD) {
                bestD = dd;
                best = {l, p};
            }
        }
    return best;
}

void ScalingPlot::prepareExport(QSize)
{
    if (m_marker)
        m_marker->setVisible(false);
}

void ScalingPlot::restoreAfterExport()
{
    if (m_marker)
        m_marker->setVisible(true);
}

void ScalingPlot::setSelectedPoint(Hit hit)
{
    if (m_marker) {
        removeGraph(m_marker);
        m_marker = nullptr;
    }
    if (hit.valid()) {
        m_marker = addGraph(xAxis, yAxis);
        m_marker->setLineStyle(QCPGraph::lsNone);
        m_marker->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 16));
        m_marker->setSelectable(QCP::stNone);
        const ScalingPoint& p = m_data.lines[size_t(hit.line)].points[size_t(hit.point)];
        m_marker->addData(p.x, m_kind == Kind::Time ? p.ns / m_unitNs : 100.0 * p.share);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace wt::gui
