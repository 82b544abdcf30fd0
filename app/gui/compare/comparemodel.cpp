#include "comparemodel.h"

#include "analysis/comparetable.h"
#include "render/comparetext.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace wt::gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// Slower in red, faster in green (the text of deltas).
QVariant deltaBrush(double delta)
{
    if (delta > 0)
        return QBrush(QColor(0xc0, 0x29, 0x2b));
    if (delta < 0)
        return QBrush(QColor(0x1b, 0x7f, 0x3a));
    return {};
}

bool startsWith(const std::string& s, std::string_view prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

// The delta (raw ns) that colours a cell: its own for delta_ns columns, the run's delta_ns for
// delta_pct columns; nothing for other columns.
QVariant deltaForeground(const TableModel& m, const QModelIndex& index)
{
    const std::string& id = m.table().columns[size_t(index.column())].id;
    std::string deltaId;
    if (startsWith(id, "delta_ns"))
        deltaId = id;
    else if (startsWith(id, "delta_pct"))
        deltaId = "delta_ns" + id.substr(std::string_view("delta_pct").size());
    else
        return {};
    const int c = m.columnOf(deltaId);
    return c < 0 ? QVariant() : deltaBrush(numberOf(m.table().rows[size_t(index.row())][size_t(c)]));
}

}  // namespace

QString runTag(size_t index, size_t runCount)
{
    return q(compareRunTag(index, runCount));
}

QString perLabel(ComparePer per, const std::vector<CompareRunSummary>& runs)
{
    if (per == ComparePer::Run)
        return QStringLiteral("whole run");
    QStringList steps;
    bool same = true;
    for (const CompareRunSummary& r : runs) {
        steps << QString::number(r.steps);
        same = same && r.steps == runs.front().steps;
    }
    if (same && !runs.empty())
        return QStringLiteral("per step (mean of %1 step%2)").arg(runs.front().steps).arg(runs.front().steps == 1 ? QString() : QStringLiteral("s"));
    if (steps.size() == 2)
        return QStringLiteral("per step (mean of %1 and %2 steps)").arg(steps[0], steps[1]);
    return QStringLiteral("per step (mean of %1 steps)").arg(steps.join(QStringLiteral(", ")));
}

// ---- CompareModel

CompareModel::CompareModel(QObject* parent) : TableModel(parent) {}

void CompareModel::setComparison(Comparison comparison)
{
    m_c = std::move(comparison);
    setTable(compareTable(m_c));
}

int CompareModel::column(std::string_view stem, size_t run) const
{
    return columnOf(compareColumn(stem, run));
}

QVariant CompareModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const bool total = isTotalRow(index.row());
    switch (role) {
    case PathRole:
        return total ? QString() : q(m_c.groups[size_t(index.row())].path);
    case GroupIndexRole:
        return total ? -1 : index.row();
    case Qt::FontRole:
        if (total) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == columnOf("note"))
            return QBrush(QColor(0xb3, 0x5c, 0x00));
        return deltaForeground(*this, index);
    default:
        return TableModel::data(index, role);
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal)
        for (size_t run = 0; run < m_c.runs.size(); ++run)
            if (section == column("ns", run)) {
                const CompareRunSummary& r = m_c.runs[run];
                return QStringLiteral("%1: %2 run %3 '%4' (%5)")
                    .arg(runTag(run, m_c.runs.size()), q(r.file))
                    .arg(r.info.id)
                    .arg(q(r.info.name), perLabel(m_c.per, m_c.runs));
            }
    return TableModel::headerData(section, orientation, role);
}

// ---- KernelDiffModel

KernelDiffModel::KernelDiffModel(QObject* parent) : TableModel(parent) {}

void KernelDiffModel::setDiff(KernelDiff diff)
{
    m_d = std::move(diff);
    Table t = kernelDiffTable(m_d);
    addKernelDiffNotes(t, m_d);
    setTable(std::move(t));
}

QVariant KernelDiffModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role == Qt::ForegroundRole)
        return deltaForeground(*this, index);
    if (role == Qt::ToolTipRole && index.column() == columnOf("change") && m_d.rows[size_t(index.row())].similarNames)
        return QStringLiteral("swapped: the names differ only in template arguments or numbers");
    return TableModel::data(index, role);
}

}  // namespace wt::gui
