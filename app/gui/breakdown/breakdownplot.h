// One chart of a breakdown: a pie (PieChart plottable, legend on the right) or horizontal bars
// sorted largest on top, with a title. Used by the breakdown view and by the headless report,
// so what a user sees is what a report holds. sliceAt() maps a pixel to a slice (or bar).
#pragma once

#include "breakdownsource.h"

#include "app/gui/charts/chartplot.h"

namespace wt::gui {

class PieChart;

class BreakdownPlot : public ChartPlot {
    Q_OBJECT
public:
    enum class Kind { Pie, Bars };
    // Bars drawn at most (the last one "other": analysis's topSlices).
    static constexpr size_t kMaxBars = 30;
    explicit BreakdownPlot(Kind kind, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    // Shows the result: pie slices merge rows below `threshold` (a fraction) into "other";
    // bars show the largest kMaxBars - 1 rows and "other". Under a name filter (the table's)
    // only the matching rows have slices; the others are one "filtered out" slice.
    void setResult(const BreakdownResult& result, double threshold, const QString& title, const QString& filter = {});
    const std::vector<PieSlice>& slices() const { return m_slices; }
    int sliceAt(const QPointF& pos) const { return itemAt(pos); }   // -1 = none
    int itemAt(const QPointF& pos) const override;
    PieChart* pie() const { return m_pie; }
    // Pie only: legend beside the pie or none (narrow panels; the labels carry the same text).
    void setLegendShown(bool shown);
    bool legendShown() const { return m_legendShown; }

signals:
    void sliceClicked(int slice);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showHighlight(int slice) override;
    // A pie's legend follows the export's width, not the on-screen one.
    void prepareExport(QSize size) override;
    void restoreAfterExport() override;

private:
    void rebuildBars();

    Kind m_kind;
    PieChart* m_pie = nullptr;
    std::vector<PieSlice> m_slices;
    std::vector<QCPBars*> m_bars;
    bool m_legendShown = true;
    bool m_legendBeforeExport = true;
};

}  // namespace wt::gui
