#include "breakdownmodel.h"

#include "app/gui/core/timeformat.h"
#include "analysis/duration.h"

#include <QColor>

namespace wt::gui {

QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r')))
        return text;
    QString q = text;
    q.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

void BreakdownModel::setResult(BreakdownResult result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

bool BreakdownModel::hasCost() const
{
    for (const BreakdownRow& r : m_result.rows)
        if (r.hasCost)
            return true;
    return false;
}

int BreakdownModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_result.rows.size());
}

int BreakdownModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QVariant BreakdownModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const BreakdownRow& r = m_result.rows[size_t(index.row())];
    const int col = index.column();
    if (role == PathRole)
        return QString::fromStdString(r.path);
    if (role == RowRole)
        return index.row();
    if (role == Qt::DecorationRole && col == NameColumn)
        return QColor::fromRgb(r.color);
    if (role == Qt::TextAlignmentRole)
        return col == NameColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && col == NameColumn)
        return QString::fromStdString(r.path);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    auto stat = [&](int64_t v) -> QVariant {
        if (!r.hasDistribution)
            return sort ? QVariant(qlonglong(-1)) : QVariant(QStringLiteral("-"));
        return sort ? QVariant(qlonglong(v)) : QVariant(formatDuration(double(v)));
    };
    switch (col) {
    case NameColumn: return QString::fromStdString(r.name);
    case TimeColumn: return sort ? QVariant(qlonglong(r.timeNs)) : QVariant(formatDuration(double(r.timeNs)));
    case ShareColumn: return sort ? QVariant(r.share) : QVariant(QString::number(100.0 * r.share, 'f', 1) + QLatin1Char('%'));
    case CountColumn: return sort ? QVariant(qlonglong(r.count)) : QVariant(QString::number(r.count));
    case MeanColumn: return sort ? QVariant(r.meanNs) : QVariant(formatDuration(r.meanNs));
    case MedianColumn: return stat(r.medianNs);
    case MinColumn: return stat(r.minNs);
    case MaxColumn: return stat(r.maxNs);
    case FlopsColumn:
    case FlopRateColumn:
    case ByteRateColumn: {
        if (!r.hasCost)
            return sort ? QVariant(-1.0) : QVariant(QStringLiteral("-"));
        const double v = col == FlopsColumn ? r.flops : col == FlopRateColumn ? r.flopPerS() : r.bytesPerS();
        const char* unit = col == FlopsColumn ? "FLOP" : col == FlopRateColumn ? "FLOP/s" : "B/s";
        return sort ? QVariant(v) : QVariant(QString::fromStdString(wt::formatQuantity(v, unit)));
    }
    default: return {};
    }
}

QVariant BreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= NUM_COLUMNS)
        return {};
    static const char* const names[NUM_COLUMNS] = {"Name", "Total", "Share", "Count", "Mean", "Median", "Min", "Max",
                                                   "FLOPs", "FLOP/s", "B/s"};
    if (section == NameColumn)
        return QString(groupByLabel(m_result.level.groupBy).left(1).toUpper() + groupByLabel(m_result.level.groupBy).mid(1));
    return QString::fromLatin1(names[section]);
}

QString BreakdownModel::toCsv(const std::vector<size_t>& rows) const
{
    QString out = QStringLiteral("name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns,flops,bytes\n");
    for (size_t i : rows) {
        if (i >= m_result.rows.size())
            continue;
        const BreakdownRow& r = m_result.rows[i];
        auto stat = [&](int64_t v) { return r.hasDistribution ? QString::number(v) : QString(); };
        out += csvField(QString::fromStdString(r.name)) + QLatin1Char(',') + csvField(QString::fromStdString(r.path)) +
               QLatin1Char(',') + QString::number(r.timeNs) + QLatin1Char(',') + QString::number(r.share, 'g', 12) +
               QLatin1Char(',') + QString::number(r.count) + QLatin1Char(',') + QString::number(r.meanNs, 'f', 1) +
               QLatin1Char(',') + stat(r.medianNs) + QLatin1Char(',') + stat(r.minNs) + QLatin1Char(',') +
               stat(r.maxNs) + QLatin1Char(',') + (r.hasCost ? QString::number(r.flops, 'g', 15) : QString()) +
               QLatin1Char(',') + (r.hasCost ? QString::number(r.bytes, 'g', 15) : QString()) + QLatin1Char('\n');
    }
    return out;
}

QString BreakdownModel::toCsv() const
{
    std::vector<size_t> all(m_result.rows.size());
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    return toCsv(all);
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
    const QString& needle = m_text;
    if (needle.isEmpty())
        return true;
    QModelIndex idx = sourceModel()->index(sourceRow, BreakdownModel::NameColumn, sourceParent);
    return idx.data(Qt::DisplayRole).toString().contains(needle, Qt::CaseInsensitive) ||
           idx.data(BreakdownModel::PathRole).toString().contains(needle, Qt::CaseInsensitive);
}

}  // namespace wt::gui
