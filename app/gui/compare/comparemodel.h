// The compare table and the kernel-level diff of a layer, as the GUI shows them: thin adapters
// over analysis's tables (analysis/comparetable.h) on TableModel. Every cell, the delta % too,
// is the table's (DisplayRole the writer's text, RawRole the raw value, one column per table
// column, ids as `wheretime compare --csv`), and toCsv() is the writer's CSV, so an export is
// the CLI's bytes. What the models add is the GUI's: deltas in red (slower) or green (faster)
// when the verdict says the change is real, grey when it is within noise (or too few samples),
// the interval and samples in the tooltips,
// the one-run-only note in orange, the total row in bold, run details in the header tooltips.
#pragma once

#include "analysis/compare.h"
#include "app/gui/core/tablemodel.h"

namespace wt::gui {

// "BASE", "OTHER" (two runs) or "#2", "#3"... (more); index 0 is BASE (analysis's compareRunTag).
QString runTag(size_t index, size_t runCount);
// "per step (mean of 3 steps)", "per step (mean of 3 and 5 steps)", "whole run".
QString perLabel(ComparePer per, const std::vector<CompareRunSummary>& runs);

class CompareModel : public TableModel {
    Q_OBJECT
public:
    enum Roles { PathRole = ColumnIdRole + 1, GroupIndexRole };

    explicit CompareModel(QObject* parent = nullptr);

    // The table of the comparison (compareTable): its groups, then the total row.
    void setComparison(Comparison comparison);
    const Comparison& comparison() const { return m_c; }
    size_t runCount() const { return m_c.runs.size(); }
    // The model column of a per-run column: column("ns", 0) is BASE's time, ("delta_pct", 2) #3's change in %.
    int column(std::string_view stem, size_t run) const;
    bool isTotalRow(int row) const { return row == int(m_c.groups.size()); }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // The verdict of run `run` (1..) against BASE in a row (the total row: the total's).
    Verdict verdictAt(int row, size_t run) const;
    // "slower: OTHER - BASE = 3.1 us, 95% interval 1.0 us .. 5.2 us over 12 and 12 steps; ...":
    // the tooltip of the delta, the interval and the verdict cells.
    QString noiseText(int row, size_t run) const;

private:
    Comparison m_c;
};

class KernelDiffModel : public TableModel {
    Q_OBJECT
public:
    explicit KernelDiffModel(QObject* parent = nullptr);

    // The table of the diff (kernelDiffTable), one row per diff row in its order. Its delta, ±
    // and verdict cells are grey unless the verdict is slower or faster, with the interval, the
    // samples and the adjusted p as their tooltip (as CompareModel's).
    void setDiff(KernelDiff diff);
    const KernelDiff& diff() const { return m_d; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    KernelDiff m_d;
};

}  // namespace wt::gui
