// One chart of a breakdown: a pie (PieChart plottable, legend on the right) or horizontal bars
// sorted largest on top, with a title. Used by the breakdown view and by the headless report,
// so what a user sees is what a report holds. sliceAt() maps a pixel to a slice (or bar).
#pragma once

#include "breakdownsource.h"

#include <qcustomplot.h>

namespace wt::gui {

class PieChart;

class BreakdownPlot : public QCustomPlot {
    Q_OBJECT
public:
    enum class Kind { Pie, Bars };
    static constexpr size_t kMaxBars = 30;

    explicit BreakdownPlot(Kind kind, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    // Shows the result: pie slices merge rows below `threshold` (a fraction) into "other";
    // bars show the largest kMaxBars - 1 rows and "other". Under a name filter (the table's)
    // only the matching rows have slices; the others are one "filtered out" slice.
    void setResult(const BreakdownResult& result, double threshold, const QString& title, const QString& filter = {});
    const std::vector<PieSlice>& slices() const { return m_slices; }
    int sliceAt(const QPointF& pos) const;     // -1 = none
    void setHighlighted(int slice);
    int highlighted() const { return m_highlighted; }
    PieChart* pie() const { return m_pie; }
    // Pie only: legend beside the pie or none (narrow panels; the labels carry the same text).
    void setLegendShown(bool shown);
    bool legendShown() const { return m_legendShown; }

signals:
    void sliceClicked(int slice);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuildBars();

    Kind m_kind;
    QCPTextElement* m_title = nullptr;
    PieChart* m_pie = nullptr;
    std::vector<PieSlice> m_slices;
    std::vector<QCPBars*> m_bars;
    int m_highlighted = -1;
    bool m_legendShown = true;
};

}  // namespace wt::gui
