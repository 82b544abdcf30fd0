// The base of every view's chart (breakdown, compare, variants, scaling plots): the chart frame
// (title and optional subtitle), the building blocks their bar charts share (a bar series, a
// value label at plot coordinates, a bars group, a category axis with text ticks, the legend's
// look, the category under a pixel), the click-to-index signal and the highlight, and what an
// export needs: exportBegin() draws the chart as it goes to a file (no UI selection, the
// chart's own adjustments to the export size), exportEnd() restores the view.
#pragma once

#include <qcustomplot.h>

#include <QStringList>

namespace wt::gui {

class ChartPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit ChartPlot(bool withSubtitle, QWidget* parent = nullptr);

    // The highlighted item (slice, row, point; -1 = none): the UI's selection.
    void setHighlighted(int index);
    int highlighted() const { return m_highlighted; }

    // Around painting into a file of `size` logical px.
    void exportBegin(QSize size);
    void exportEnd();

    // The item under a pixel (-1 = none); a left click on one emits itemClicked.
    virtual int itemAt(const QPointF& pos) const;

signals:
    void itemClicked(int index);

protected:
    // The chart draws `index` highlighted (called by setHighlighted and the export).
    virtual void showHighlight(int index) { Q_UNUSED(index); }
    // The hover text at a pixel (empty: none); shown once showHoverTips() was called.
    virtual QString toolTipAt(const QPointF& pos) const
    {
        Q_UNUSED(pos);
        return {};
    }
    // Hovering shows toolTipAt's text (mouse tracking on).
    void showHoverTips();
    // The chart's own change for an export of `size` (a pie's legend by the export's width),
    // undone by restoreAfterExport.
    virtual void prepareExport(QSize size) { Q_UNUSED(size); }
    virtual void restoreAfterExport() {}

    // A bar series on (key, value) axes with the charts' fill and a darker outline.
    QCPBars* addBars(QCPAxis* keyAxis, QCPAxis* valueAxis, const QColor& color, double width,
                     const QString& name = QString());
    // Bars of several series side by side, `spacing` px apart.
    QCPBarsGroup* addBarsGroup(double spacing);
    // A text at plot coordinates (x on xAxis, y on yAxis), drawn outside the axis rect too.
    QCPItemText* addPlotLabel(double x, double y, Qt::Alignment alignment, const QFont& font, const QString& text);
    // The category axis of a bar chart: labels at 1..n (elided in the middle to maxLabelPx
    // when > 0), no grid or ticks, range 0.4..n + 0.6; the value axis: dotted grid, no sub ticks.
    void setCategories(QCPAxis* categoryAxis, QCPAxis* valueAxis, const QStringList& labels, int maxLabelPx = 0);
    // Category 0..count-1 at a pixel coordinate along categoryAxis (-1 when none within
    // tolerance, in categories).
    static int categoryAt(const QCPAxis* categoryAxis, double pixel, int count, double tolerance);
    // The legend in the frame's font, on white with a light border (framed) or none.
    void styleLegend(bool framed);
    // A font of `pixelSize` px from the frame's.
    QFont labelFont(int pixelSize, bool bold = false) const;

    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_subtitle = nullptr;   // null without one
    int m_highlighted = -1;

private:
    int m_exportSaved = -1;
};

}  // namespace wt::gui
