// The scaling charts (QCustomPlot) of a sweep: a layer's kernel time per step (Time) or its share
// of the step (Share) against the swept value, one line per series of the sweep table
// (analysis/sweeptable.h: one per layer; on a grid with variant one per variant of the chosen
// layer), every point one row of it. Numeric x values sit at their value (log axes optional),
// others evenly in capture order. Every point is one run: pointAt() finds the point under a
// pixel, a click emits pointClicked (the view opens the run), hovering shows the row (the
// prediction's error included). A predicted twin's lines are dashed, in their measured line's
// colour, over the points. The time chart draws each measured point's 95% interval as an error
// bar (analysis's t interval over every step of every repeat), and rings a predicted point
// that lies outside the measured interval.
#pragma once

#include "analysis/sweep.h"
#include "analysis/table.h"

#include "app/gui/charts/chartplot.h"

#include <optional>
#include <vector>

namespace wt::gui {

struct ScalingPoint {
    double x = 0;            // the value on the axis (the number, or the position 1..n)
    QString value;           // as captured ("512")
    double ns = 0;           // analysis's layer time per step
    double share = 0;        // analysis's share of the step (0..1)
    int64_t runId = 0;
    int row = -1;            // its row of ScalingChartData::table
    int twinRow = -1;        // the row of the other source at the same series and value (measured <-> predicted), or -1
    std::optional<double> errorPct;   // the prediction's error at this point (the table's error_pct), where both exist
    // Measured points: the 95% interval of the mean per step (the table's ci_low_ns, ci_high_ns),
    // drawn as an error bar on the time chart; none with fewer than 3 samples.
    std::optional<double> ciLowNs, ciHighNs;
    // Predicted points: whether the prediction lies inside its measured point's interval (the
    // measured row's predicted_inside); none where that point has no interval. Outside: ringed.
    std::optional<bool> inside;
};

struct ScalingLine {
    QString name;            // "softmax", "softmax fused"
    QString layer;
    QString group;           // grids: the variant (or other key's value)
    bool predicted = false;  // a line of the predicted twin: dashed, in its measured line's colour
    int colorIndex = 0;      // the measured line's index
    QColor color;            // a layer's line: the layer's colour in the run's palette; a grid's: seriesColor(colorIndex)
    std::vector<ScalingPoint> points;
};

struct ScalingChartData {
    QString file;            // the runs' file
    QString sweepId;
    QString xKey;            // "hidden"
    QString groupKey;        // grids: "variant"
    bool numeric = false;
    QStringList xValues;     // in axis order
    std::vector<ScalingLine> lines;
    Table table;             // sweepTable(): what the lines are drawn from, the view lists and the CSV export writes
};

// The lines of the sweep table over `table` and its twin; layer empty = every series, else
// that layer's series only. With a predicted twin, each measured line with a predicted series
// of the same name gets a dashed line after the measured ones ("softmax (predicted)").
ScalingChartData scalingChartData(const SweepTable& table, const QString& file, const QString& layer,
                                  const SweepTable* predicted = nullptr);
// Point p of line l as the table has it: its series, value, source and run, time, share, step,
// and the other source's time with the prediction's error (the writer's text of each cell).
QString scalingPointText(const ScalingChartData& data, int line, int point);

class ScalingPlot : public ChartPlot {
    Q_OBJECT
public:
    enum class Kind { Time, Share };
    struct Hit {
        int line = -1;
        int point = -1;
        bool valid() const { return line >= 0; }
    };

    explicit ScalingPlot(Kind kind, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    void setData(const ScalingChartData& data);
    const ScalingChartData& chart() const { return m_data; }
    void setLogAxes(bool log);
    bool logAxes() const { return m_log; }
    QString title() const;
    // The graph of line i (what is drawn: its keys are the x values, its values ns or %).
    QCPGraph* lineGraph(int line) const;
    // The error bars of line i (time chart, measured lines with an interval), else nullptr.
    QCPErrorBars* errorBars(int line) const;
    // The graph ringing the predicted points outside their measured interval (time chart), or nullptr.
    QCPGraph* outsideMarks() const { return m_outside; }
    // The point within 10 px of pos (the nearest), or none.
    Hit pointAt(const QPointF& pos) const;
    // Where point p of line l is drawn (pixels), for tests and the screenshot script.
    QPointF pixelOf(int line, int point) const;
    void setSelectedPoint(Hit hit);
    // The value label of the point under the pointer ("conv1 · hidden 256: 3.663 ms"; empty
    // when the pointer is on no point). Hovering also shows the point's row as a tooltip.
    QString valueLabel() const;
    void showValueLabel(Hit hit);

signals:
    void pointClicked(int line, int point);

protected:
    // An export shows the lines without the selected point's ring.
    void prepareExport(QSize size) override;
    void restoreAfterExport() override;
    void leaveEvent(QEvent* event) override;

private:
    void rebuild();

    Kind m_kind;
    ScalingChartData m_data;
    QCPItemText* m_valueLabel = nullptr;
    bool m_log = false;
    std::vector<QCPGraph*> m_graphs;
    std::vector<QCPErrorBars*> m_errorBars;   // per line, nullptr where none
    QCPGraph* m_outside = nullptr;
    QCPGraph* m_marker = nullptr;
    double m_unitNs = 1;
    QPoint m_pressPos;
};


}  // namespace wt::gui
