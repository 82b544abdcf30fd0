#include "breakdownmodel.h"

#include <QColor>

namespace wt::gui {

BreakdownModel::BreakdownModel(QObject* parent) : TableModel(parent)
{
    // An empty breakdown still has its columns: the view sorts and sizes them before a run loads.
    setResult({});
}

void BreakdownModel::setResult(BreakdownResult result)
{
    m_result = std::move(result);
    std::vector<QColor> colors;
    colors.reserve(m_result.rows.size());
    for (const BreakdownRow& r : m_result.rows)
        colors.push_back(QColor::fromRgb(r.color));
    setTable(breakdownTable(m_result.level.groupBy, m_result.rows), std::move(colors));
}

bool BreakdownModel::hasCost() const
{
    for (const BreakdownRow& r : m_result.rows)
        if (r.hasCost)
            return true;
    return false;
}

QVariant BreakdownModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const BreakdownRow& r = m_result.rows[size_t(index.row())];
    if (role == PathRole)
        return QString::fromStdString(r.path);
    if (role == RowRole)
        return index.row();
    if (role == Qt::ToolTipRole && index.column() == NameColumn)   // the whole key, not only the name
        return QString::fromStdString(r.path);
    return TableModel::data(index, role);
}

BreakdownProxyModel::BreakdownProxyModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(BreakdownModel::SortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void BreakdownProxyModel::setFilterText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateFilter();
}

bool BreakdownProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    // One rule for the table and the charts (matchesNameFilter).
    const auto* model = qobject_cast<const BreakdownModel*>(sourceModel());
    if (m_text.isEmpty() || !model || sourceParent.isValid())
        return true;
    const auto& rows = model->result().rows;
    return sourceRow < 0 || size_t(sourceRow) >= rows.size() || matchesNameFilter(rows[size_t(sourceRow)], m_text);
}

}  // namespace wt::gui
