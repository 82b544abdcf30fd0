// The variants charts (QCustomPlot), one class for the four of them, fed plain chart data that
// the view fills from analysis/variants (variantsdata.h):
//   LayerTime  grouped bars per variant: the layer's forward and backward time per step, with
//              the speedup of the layer's total against the baseline above each group
//   Ops        stacked bars per variant: the layer's ops (what a variant removes or fuses); ops
//              under kMinOpShare of the layer in every variant merge into one "other" segment
//   Share      the layer's share of the step per variant (%)
//   StepTime   the step time per variant
// Variants sit on the x axis in the order analysis gives them; the baseline is marked.
#pragma once

#include "analysis/variants.h"

#include "app/gui/charts/chartplot.h"

#include <optional>
#include <vector>

namespace wt::gui {

// One variant's figures, as analysis computed them (per step, ns).
struct VariantBar {
    QString label;                 // the differing setting's value ("adaptive")
    QString file;                  // the run it came from
    int64_t runId = 0;
    double forwardNs = 0;
    double backwardNs = 0;
    double updateNs = 0;           // the layer's time in the update phase (its third bar)
    double totalNs = 0;            // the layer's total (forward + backward + update)
    double share = 0;              // the layer's share of the step, 0..1
    double stepNs = 0;             // the step's kernel time (every kernel of a step)
    double stepWallNs = 0;         // the step's wall time (analysis's step_wall_ns)
    std::optional<double> speedup; // baseline's layer total / this one's (unset: undefined)
    std::vector<double> opNs;      // per VariantsChartData::ops (the "other" segment: its ops' sum)
    double opSumNs = 0;            // the op stack's height: the layer's total (analysis's layerNs)
};

struct VariantsChartData {
    QString setting;               // the setting that differs ("variant")
    QString layer;                 // "softmax"
    QString per;                   // "per step (mean of 5 steps)"
    int baseline = 0;              // index into variants
    std::vector<VariantBar> variants;
    QStringList ops;               // the stack's segments, largest op first (bottom up); last may be "other (N ops)"
    QStringList otherOps;          // the ops merged into "other" (empty: none merged)
};

class VariantsPlot : public ChartPlot {
    Q_OBJECT
public:
    enum class Kind { LayerTime, Ops, Share, StepTime };
    static constexpr double kMinOpShare = 0.02;   // of the layer: smaller ops go to "other"
    static constexpr int kMaxOps = 11;            // segments before "other"

    explicit VariantsPlot(Kind kind, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    void setData(const VariantsChartData& data);
    const VariantsChartData& chart() const { return m_data; }
    QString title() const;
    // The value drawn for variant i in series s (LayerTime: 0 forward, 1 backward, 2 update
    // when any variant has update time; Ops: op s; Share, StepTime: 0 (the step's kernel
    // time)), in ns (share: 0..1), read back from the plottables: what is drawn.
    double drawnValue(int series, int variant) const;
    // StepTime: the wall-time marker drawn for variant i (ns); NaN elsewhere.
    double drawnWall(int variant) const;
    // LayerTime: whether the update phase has its bar (some variant has update time there).
    bool hasUpdate() const;
    // The label drawn above variant i ("1.62x", "41.2%", "12.3 ms"), empty when none.
    QString labelAt(int variant) const;
    int preferredHeight() const { return 520; }
    // What hovering at pos shows: the variant, and on the ops chart the op under the cursor,
    // with its time and share of the layer; empty off the bars.
    QString toolTipAt(const QPointF& pos) const override;

private:
    void rebuild();

    Kind m_kind;
    VariantsChartData m_data;
    std::vector<QCPBars*> m_bars;
    std::vector<QCPItemText*> m_labels;   // per variant
    QCPGraph* m_wall = nullptr;           // StepTime: the step wall-time markers
    double m_unitNs = 1;
};

// The chart data of analysis's table (labels, numbers as they are; nothing summed here).
VariantsChartData variantsChartData(const VariantsTable& table);
// "per step (mean of 5 steps)", "per step (mean of 3 to 5 steps)".
QString variantsPerLabel(const VariantsTable& table);

// The colour of op i in the stacked bars (and its legend): LayerPalette::seriesColor; the
// "other" segment LayerPalette::otherColor().
QColor opColor(int index);

}  // namespace wt::gui
