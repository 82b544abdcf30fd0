// The breakdown table: the TableModel adapter over analysis's breakdown table
// (analysis/breakdowntable.h), one row per group with time, share, count, mean, median, min and
// max, and for captures of bundled workloads the FLOPs and achieved FLOP/s and B/s. Display
// text, raw sort values and the CSV are TableModel's (the writer's), so the table shows what
// `wheretime stats` prints and exports the bytes of `wheretime stats --csv`. Added here: the
// breakdown itself (with its colours), the group's path and row as roles, the path as tooltip.
#pragma once

#include "breakdownsource.h"

#include "analysis/breakdowntable.h"
#include "app/gui/core/tablemodel.h"

#include <QSortFilterProxyModel>

namespace wt::gui {

class BreakdownModel : public TableModel {
    Q_OBJECT
public:
    // The table's columns (analysis's BreakdownColumn). The view shows the name, not the
    // path, and hides the op-feature columns (FLOPs, FLOP/s, B/s) when no row has them.
    enum Columns {
        NameColumn = int(BreakdownColumn::Name), PathColumn = int(BreakdownColumn::Path),
        TimeColumn = int(BreakdownColumn::Time), ShareColumn = int(BreakdownColumn::Share),
        CountColumn = int(BreakdownColumn::Count), MeanColumn = int(BreakdownColumn::Mean),
        MedianColumn = int(BreakdownColumn::Median), MinColumn = int(BreakdownColumn::Min),
        MaxColumn = int(BreakdownColumn::Max), FlopsColumn = int(BreakdownColumn::Flops),
        BytesColumn = int(BreakdownColumn::Bytes), FlopRateColumn = int(BreakdownColumn::FlopRate),
        ByteRateColumn = int(BreakdownColumn::ByteRate), NUM_COLUMNS = int(BreakdownColumn::NumColumns)
    };
    // After TableModel's roles (SortRole, RawRole, ColumnIdRole).
    enum BreakdownRoles { PathRole = ColumnIdRole + 1, RowRole };

    explicit BreakdownModel(QObject* parent = nullptr);

    void setResult(BreakdownResult result);
    const BreakdownResult& result() const { return m_result; }
    bool hasCost() const;   // some row has op features

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    BreakdownResult m_result;
};

// Sorting by SortRole, filtering by a case-insensitive substring of the name or path.
class BreakdownProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit BreakdownProxyModel(QObject* parent = nullptr);
    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
};

}  // namespace wt::gui
