// Fields of the selected kernel or scope, or, for a selected time range, the time by layer
// and the top kernels inside it; for a run of several devices (the ranks of a job) a per-rank
// table: each rank's mean step time and slowest step (analysis/rankstats). Listens to the ViewState.
#pragma once

#include "app/gui/core/viewstate.h"

#include <QWidget>

class QTableWidget;
class QTreeWidget;

namespace wt::gui {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(ViewState* state, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }
    // Columns: device, steps, mean step, slowest step, its time, kernel time; hidden for one device.
    QTableWidget* ranksTable() const { return m_ranks; }
    enum RankColumns { RankDevice, RankSteps, RankMeanStep, RankSlowestStep, RankSlowestTime, RankKernelTime, RankColumnCount };

private:
    void refresh();
    void refreshRanks();

    ViewState* m_state;
    QTreeWidget* m_tree;
    QTableWidget* m_ranks;
};

}  // namespace wt::gui
