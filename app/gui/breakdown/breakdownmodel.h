// The breakdown table: one row per group with total time, share, count, mean, median, min and
// max, and for captures of bundled workloads the FLOPs and achieved FLOP/s and B/s. Display text is formatted; SortRole holds the raw number so a QSortFilterProxyModel
// sorts numerically. CSV uses raw numbers (ns, share as a fraction) like `wheretime stats --csv`.
#pragma once

#include "breakdownsource.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace wt::gui {

class BreakdownModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // FLOPs, achieved FLOP/s and B/s: op features of captures (Group::hasCost), "-" elsewhere;
    // the view hides them when no row has them.
    enum Columns { NameColumn, TimeColumn, ShareColumn, CountColumn, MeanColumn, MedianColumn, MinColumn, MaxColumn,
                   FlopsColumn, FlopRateColumn, ByteRateColumn, NUM_COLUMNS };
    enum Roles { SortRole = Qt::UserRole, PathRole, RowRole };

    explicit BreakdownModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setResult(BreakdownResult result);
    const BreakdownResult& result() const { return m_result; }
    bool hasCost() const;   // some row has op features

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Header line plus the given rows (indices into result().rows), raw numbers.
    QString toCsv(const std::vector<size_t>& rows) const;
    QString toCsv() const;   // every row

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

// One CSV field: quoted when it holds a comma, quote or line break.
QString csvField(const QString& text);

}  // namespace wt::gui
