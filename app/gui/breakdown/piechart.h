// A pie chart as a QCustomPlot plottable (QCustomPlot has none): slices drawn with QPainter
// inside the axis rect, labels with share and time outside the pie, one legend item per
// slice. Being a plottable, it renders and exports (toPainter, PNG/SVG/PDF) through the same
// path as the bar chart. The key and value axes it sits on are hidden and ignored.
#pragma once

#include "breakdownsource.h"

#include <qcustomplot.h>

#include <vector>

namespace wt::gui {

class PieChart : public QCPAbstractPlottable {
    Q_OBJECT
public:
    PieChart(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setSlices(std::vector<PieSlice> slices);
    const std::vector<PieSlice>& slices() const { return m_slices; }
    // Slice drawn pulled out, -1 = none.
    void setHighlighted(int slice) { m_highlighted = slice; }
    int highlighted() const { return m_highlighted; }
    // Adds one legend item per slice to the plot's legend (after clearing it).
    void fillLegend(QCPLegend* legend);

    // Slice under a pixel of the plot, -1 = none.
    int sliceAt(const QPointF& pos) const;
    QPointF center() const;
    double radius() const;

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    QRectF area() const;
    double labelWidth() const;   // px reserved on each side for labels

    std::vector<PieSlice> m_slices;
    int m_highlighted = -1;
};

// Legend entry of one slice: color box, name and share.
class PieLegendItem : public QCPAbstractLegendItem {
    Q_OBJECT
public:
    PieLegendItem(QCPLegend* parent, PieChart* pie, int slice);

protected:
    void draw(QCPPainter* painter) override;
    QSize minimumOuterSizeHint() const override;

private:
    QString text() const;
    PieChart* m_pie;
    int m_slice;
};

// "softmax" / "31.2% · 4.56 ms": the two lines of a slice label.
QString sliceText(const PieSlice& slice);

}  // namespace wt::gui
