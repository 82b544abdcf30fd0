// The roofline chart of a capture (QCustomPlot, log-log): per op of analysis/rooflinetable's table
// a point at its arithmetic intensity (FLOPs per byte moved) and its achieved FLOP/s, sized by its
// share of the step, coloured by its layer family; the device's roofs: bandwidth x intensity up
// to the fp32 peak (solid), and the bf16 peak where the device has one (dashed). A point far
// below its roof is an op far from its bound; the table beside the chart says by how much (x
// bound, which also counts exps and the launch cost, which the chart cannot show). Ops without
// FLOPs or bytes (copies, gathers) have no place on these axes: rows of the table only.
// A click on a point emits itemClicked(row of the table); hovering shows the op.
#pragma once

#include "analysis/costmodel.h"
#include "analysis/rooflinetable.h"

#include "app/gui/charts/chartplot.h"

#include <vector>

namespace wt::gui {

struct RooflinePoint {
    double intensity = 0;    // FLOP/B
    double flopPerS = 0;     // achieved
    double share = 0;        // of the step's time
    int row = -1;            // the op's row in the table
    int colorIndex = 0;      // its layer family's
    QString label;           // "softmax log_softmax_forward"
    QString tip;             // hover text
};

// The points of `ops` (rows of rooflineTable(ops, ...) in the same order, no folding), the ops
// with FLOPs, bytes and time only.
std::vector<RooflinePoint> rooflinePoints(const std::vector<RooflineOp>& ops);

class RooflinePlot : public ChartPlot {
    Q_OBJECT
public:
    explicit RooflinePlot(QWidget* parent = nullptr);
    void setData(const DeviceSpec& device, std::vector<RooflinePoint> points, const QString& title, const QString& subtitle);
    const std::vector<RooflinePoint>& points() const { return m_points; }
    // The point under a pixel: its table row (-1 = none).
    int itemAt(const QPointF& pos) const override;
    // The pixel of a table row's point (for tests and the highlight); null when it has none.
    std::optional<QPointF> pixelOfRow(int row) const;

protected:
    void showHighlight(int row) override;

private:
    std::vector<RooflinePoint> m_points;
    QCPGraph* m_highlight = nullptr;
};

}  // namespace wt::gui
