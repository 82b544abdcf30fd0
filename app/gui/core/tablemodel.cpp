#include "tablemodel.h"

#include "displayname.h"

#include "render/shortname.h"
#include "render/tablewriter.h"

#include <QFont>

#include <limits>

namespace wt::gui {

void TableModel::setTable(Table table, std::vector<QColor> rowColors)
{
    beginResetModel();
    m_table = std::move(table);
    m_colors = std::move(rowColors);
    // Text columns read as their distinct short labels (render/shortname.h); the tooltip,
    // SortRole, RawRole and the CSV keep the full text.
    m_labels.assign(m_table.columns.size(), {});
    for (size_t c = 0; c < m_table.columns.size(); ++c) {
        if (m_table.columns[c].unit != Unit::Text)
            continue;
        std::vector<std::string> cells;
        cells.reserve(m_table.rows.size());
        for (const auto& row : m_table.rows)
            cells.push_back(render::cellText(m_table.columns[c], row[c]));
        if (fullNames()) {   // View > Full names
            for (const std::string& l : cells)
                m_labels[c].push_back(QString::fromStdString(l));
            continue;
        }
        for (std::string& l : distinctLabels(cells, 0))
            m_labels[c].push_back(QString::fromStdString(l));
    }
    m_bold.clear();
    endResetModel();
}

void TableModel::setBoldRows(std::vector<bool> bold)
{
    m_bold = std::move(bold);
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::FontRole});
}

int TableModel::columnOf(std::string_view id) const
{
    const size_t c = m_table.column(id);
    return c == Table::npos ? -1 : int(c);
}

int TableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.rows.size());
}

int TableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.columns.size());
}

QVariant TableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Column& col = m_table.columns[size_t(index.column())];
    const Cell& cell = m_table.rows[size_t(index.row())][size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        if (!m_labels[size_t(index.column())].empty())
            return m_labels[size_t(index.column())][size_t(index.row())];
        return QString::fromStdString(render::cellText(col, cell));
    case Qt::ToolTipRole:
        return col.unit == Unit::Text ? QVariant(QString::fromStdString(textOf(cell))) : QVariant();
    case Qt::TextAlignmentRole:
        return col.unit == Unit::Text ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DecorationRole:
        if (index.column() == 0 && size_t(index.row()) < m_colors.size() && m_colors[size_t(index.row())].isValid())
            return m_colors[size_t(index.row())];
        return {};
    case SortRole:
        if (col.unit == Unit::Text)
            return QString::fromStdString(textOf(cell));
        return isNone(cell) ? QVariant(-std::numeric_limits<double>::infinity()) : QVariant(numberOf(cell));
    case RawRole:
        if (isNone(cell))
            return {};
        if (const auto* i = std::get_if<int64_t>(&cell))
            return qlonglong(*i);
        if (const auto* d = std::get_if<double>(&cell))
            return *d;
        return QString::fromStdString(textOf(cell));
    case ColumnIdRole:
        return QString::fromStdString(col.id);
    case Qt::FontRole:
        if (size_t(index.row()) < m_bold.size() && m_bold[size_t(index.row())]) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    default:
        return {};
    }
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || size_t(section) >= m_table.columns.size())
        return {};
    if (role == Qt::DisplayRole)
        return QString::fromStdString(m_table.columns[size_t(section)].title);
    if (role == ColumnIdRole)
        return QString::fromStdString(m_table.columns[size_t(section)].id);
    return {};
}

QString TableModel::toCsv() const
{
    return QString::fromStdString(render::csv(m_table));
}

QString TableModel::toCsv(const std::vector<size_t>& rows) const
{
    Table part;
    part.id = m_table.id;
    part.columns = m_table.columns;
    for (size_t r : rows)
        if (r < m_table.rows.size())
            part.rows.push_back(m_table.rows[r]);
    return QString::fromStdString(render::csv(part));
}

}  // namespace wt::gui
