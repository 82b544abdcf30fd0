// The GUI's one adapter over an analysis table (analysis/table.h): every column of the table
// is a column of the model; DisplayRole is the writer's cell text (render::cellText, the same
// text the CLI prints; text columns as their distinct short names, render/shortname.h, the
// full text in the tooltip), SortRole the raw value (numbers sort as numbers, none first), and
// toCsv() the writer's CSV, so an exported table is the same bytes as `wheretime ... --csv`.
// Views add what only the GUI has: a colour per row (DecorationRole of the first column),
// tooltips, and which columns they show.
#pragma once

#include "analysis/table.h"

#include <QAbstractTableModel>
#include <QColor>

#include <vector>

namespace wt::gui {

class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Roles { SortRole = Qt::UserRole, RawRole, ColumnIdRole };

    explicit TableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setTable(Table table, std::vector<QColor> rowColors = {});
    // Rows drawn bold (FontRole), by index into table().rows: a view's emphasis (the straggler).
    void setBoldRows(std::vector<bool> bold);
    const Table& table() const { return m_table; }
    // The model column of a table column id, or -1.
    int columnOf(std::string_view id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The writer's CSV of every row, or of the given rows (indices into table().rows).
    QString toCsv() const;
    QString toCsv(const std::vector<size_t>& rows) const;

private:
    Table m_table;
    std::vector<QColor> m_colors;
    std::vector<std::vector<QString>> m_labels;   // per column: text columns' display labels, else empty
    std::vector<bool> m_bold;
};

}  // namespace wt::gui
