// The job chart (QCustomPlot): one bar per rank of a job, in the ranks table's order, its
// height the rank's median step kernel time (or, with a layer chosen, that layer's time per
// step), stragglers in the "slower" colour, the job's median and the straggler threshold as
// horizontal lines. Every value is a cell of analysis/jobtable's ranks table (jobChartData reads
// them); nothing here is computed. A click on a bar emits itemClicked(row), a double click
// barDoubleClicked(row); hovering names the rank with its figures. A thousand ranks are a
// thousand thin bars: the axis labels every k-th rank.
#pragma once

#include "analysis/jobsummary.h"
#include "analysis/table.h"

#include "app/gui/charts/chartplot.h"

#include <optional>
#include <vector>

namespace wt::gui {

struct JobBar {
    QString label;          // the rank's label ("3", or the file's name)
    double valueNs = 0;     // the bar's height; 0 for a rank without the figure
    bool hasValue = false;  // false: no steps (or not that layer)
    bool straggler = false;
    QString tip;            // hover text
};

struct JobChartData {
    QString title;
    QString subtitle;
    QString valueName;      // "median step kernel time" or "<layer> per step"
    std::vector<JobBar> bars;            // the ranks table's rows, in order
    std::optional<double> medianNs;      // the job's median (the straggler rule's), step chart only
    std::optional<double> thresholdNs;   // the straggler threshold (needs 3 ranks with steps)
};

// The chart of `ranks` (jobRanksTable(job, layer)): with `layer`, the layer_per_step_ns column
// (layer_ns for ranks without steps), else step_median_ns with `rule`'s median and threshold.
JobChartData jobChartData(const Table& ranks, const StragglerRule& rule, const std::optional<std::string>& layer,
                          const QString& title);

class JobPlot : public ChartPlot {
    Q_OBJECT
public:
    explicit JobPlot(QWidget* parent = nullptr);
    void setData(JobChartData data);
    const JobChartData& data() const { return m_data; }
    int itemAt(const QPointF& pos) const override;
    // The centre of a row's bar, in widget pixels (tests, the highlight).
    QPointF pixelOfRow(int row) const;

signals:
    void barDoubleClicked(int row);

protected:
    void showHighlight(int row) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QString toolTipAt(const QPointF& pos) const override;

    JobChartData m_data;
    double m_unitNs = 1;
    QCPBars* m_highlight = nullptr;
};

}  // namespace wt::gui
