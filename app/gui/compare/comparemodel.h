// The compare table: the groups of a Comparison (matched ones and those found in some runs
// only) in analysis's order, plus a total row at the bottom, and the kernel-level diff of a
// layer. Every number is analysis's (ValueRole gives it raw: ns per step or per run as the
// comparison says; null where the group is absent or the ratio undefined); the models only
// format. CSV in the shape of `wheretime compare --csv`.
#pragma once

#include "analysis/compare.h"

#include <QAbstractTableModel>

namespace wt::gui {

// "BASE", "OTHER" (two runs) or "#2", "#3"... (more); index 0 is BASE.
QString runTag(size_t index, size_t runCount);
// "per step (mean of 3 steps)", "per step (mean of 3 and 5 steps)", "whole run".
QString perLabel(ComparePer per, const std::vector<CompareRunSummary>& runs);
// "BASE only", "OTHER only", "only in BASE, #3"; empty when the group is in every run.
QString onlyInLabel(const CompareGroup& group);

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Columns: Group, then per run its time, then per OTHER its delta, delta %, ratio, then Note.
    enum class Column { Group, Time, Delta, DeltaPct, Ratio, Note };
    enum Roles { ValueRole = Qt::UserRole, SortRole, PathRole, GroupIndexRole };

    explicit CompareModel(QObject* parent = nullptr);

    void setComparison(Comparison comparison);
    const Comparison& comparison() const { return m_c; }
    size_t runCount() const { return m_c.runs.size(); }
    // The kind of a column and the run it belongs to (Time: 0..N-1; Delta, DeltaPct, Ratio: 1..N-1).
    std::pair<Column, int> columnKind(int column) const;
    int column(Column kind, int run = 0) const;
    bool isTotalRow(int row) const { return row == int(m_c.groups.size()); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // name,path,ns_1..ns_N,delta_ns_2..,ratio_2..,per (as `wheretime compare --csv`), no total row.
    QString toCsv() const;

private:
    Comparison m_c;
};

class KernelDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Change, Op, BaseName, OtherName, BaseCount, OtherCount, BaseTime, OtherTime, Delta, Ratio, NUM_COLUMNS };
    enum Roles { ValueRole = Qt::UserRole, SortRole };

    explicit KernelDiffModel(QObject* parent = nullptr);

    void setDiff(KernelDiff diff);
    const KernelDiff& diff() const { return m_d; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // As `wheretime compare --kernels --csv`.
    QString toCsv() const;

private:
    KernelDiff m_d;
};

}  // namespace wt::gui
