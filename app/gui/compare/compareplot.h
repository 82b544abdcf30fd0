// The compare charts (QCustomPlot): grouped horizontal bars (one bar per run in each group,
// one colour per run, runs side by side) and the delta chart (OTHER - BASE per group in time,
// labelled with the change in %, slower red, faster green, a change within noise grey, each with
// its 95% interval as an error bar; with more runs, one bar per OTHER).
// Rows keep analysis's order (largest change on top). The title says how the runs were
// compared ("per step (mean of 3 steps)" or "whole run"). Used by the compare view and the
// report; rowAt() maps a click to a row.
#pragma once

#include "analysis/compare.h"

#include "app/gui/charts/chartplot.h"

#include <optional>
#include <vector>

namespace wt::gui {

struct CompareChartRow {
    QString label;
    std::vector<double> ns;                   // per run (0 where absent)
    std::vector<bool> present;                // per run
    std::vector<double> deltaNs;              // per run, against BASE (BASE's: 0)
    std::vector<std::optional<double>> pct;   // per run: analysis's deltaPct, in % of BASE (unset: BASE has none)
    // Noise, per run (BASE's: none): the 95% interval of the delta in ns (unset: too few
    // samples) and the verdict; a change that is not slower or faster is drawn muted.
    std::vector<std::optional<std::pair<double, double>>> interval;
    std::vector<Verdict> verdict;
    int source = -1;                          // index of the group (or kernel diff row) it shows
};

struct CompareChartData {
    QString title;             // "Kernel time by layer"
    QString per;               // perLabel()
    QStringList runLabels;     // "BASE: adaptive", "OTHER: full"
    std::vector<CompareChartRow> rows;
    int hiddenRows = 0;        // rows left out (they are in the table)
};

// The first maxRows groups (analysis's order: largest change first).
CompareChartData chartData(const Comparison& c, const QString& title, size_t maxRows);
// Kernel diff rows labelled by op: "op: removed X", "op: X -> Y", "op: name" (changed),
// "op \u2192 other op: name" (moved).
CompareChartData chartData(const KernelDiff& d, const QString& title, size_t maxRows);
// The run colours (BASE first), also used by the legend and the timelines' headers.
QColor runColor(size_t index);

class ComparePlot : public ChartPlot {
    Q_OBJECT
public:
    enum class Kind { Bars, Delta };
    static constexpr size_t kMaxRows = 25;   // rows drawn; the subtitle counts the rest (the table lists them)

    explicit ComparePlot(Kind kind, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    void setData(const CompareChartData& data);
    const CompareChartData& chart() const { return m_data; }
    int rowAt(const QPointF& pos) const { return itemAt(pos); }   // -1 = none
    int itemAt(const QPointF& pos) const override;
    // Height that shows every row readably (for exports and the report).
    int preferredHeight() const;

signals:
    void rowClicked(int row);

protected:
    void showHighlight(int row) override;   // a band behind the row

private:
    void rebuild();

    Kind m_kind;
    CompareChartData m_data;
    std::vector<QCPBars*> m_bars;
};

}  // namespace wt::gui
