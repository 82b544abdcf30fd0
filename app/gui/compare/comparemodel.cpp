#include "comparemodel.h"

#include "analysis/comparetable.h"
#include "render/comparetext.h"
#include "render/tablewriter.h"

#include <QBrush>

#include <algorithm>
#include <cstdlib>
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

// The run index (1..) of a per-OTHER column id "stem_j", or 0 when it is not one.
size_t runOfColumn(const std::string& id, std::string_view stem)
{
    if (!startsWith(id, stem) || id.size() <= stem.size() + 1 || id[stem.size()] != '_')
        return 0;
    return size_t(std::max(0, std::atoi(id.c_str() + stem.size() + 1) - 1));
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
    case Qt::ForegroundRole: {
        if (index.column() == columnOf("note"))
            return QBrush(QColor(0xb3, 0x5c, 0x00));
        // A change that is not shown to be real is muted: grey, not red or green.
        const std::string& id = table().columns[size_t(index.column())].id;
        size_t run = 0;
        for (std::string_view stem : {"delta_ns", "delta_pct", "pm_ns", "verdict"})
            run = std::max(run, runOfColumn(id, stem));
        if (run > 0) {
            const Verdict v = verdictAt(index.row(), run);
            if (v != Verdict::Slower && v != Verdict::Faster)
                return QBrush(QColor(0x8a, 0x8a, 0x8a));
            if (startsWith(id, "verdict"))
                return deltaBrush(v == Verdict::Slower ? 1 : -1);
        }
        return deltaForeground(*this, index);
    }
    case Qt::ToolTipRole: {
        const std::string& id = table().columns[size_t(index.column())].id;
        size_t run = 0;
        for (std::string_view stem : {"delta_ns", "delta_pct", "pm_ns", "verdict"})
            run = std::max(run, runOfColumn(id, stem));
        if (run > 0)
            return noiseText(index.row(), run);
        return TableModel::data(index, role);
    }
    default:
        return TableModel::data(index, role);
    }
}

Verdict CompareModel::verdictAt(int row, size_t run) const
{
    if (isTotalRow(row))
        return run < m_c.runs.size() && m_c.runs[run].interval ? m_c.runs[run].verdict : Verdict::NotEnoughSamples;
    const CompareGroup& g = m_c.groups[size_t(row)];
    return run < g.verdict.size() ? g.verdict[run] : Verdict::NotEnoughSamples;
}

QString CompareModel::noiseText(int row, size_t run) const
{
    const bool total = isTotalRow(row);
    if (run >= m_c.runs.size())
        return {};
    const CompareCell& base = total ? m_c.runs[0].total : m_c.groups[size_t(row)].cells[0];
    const CompareCell& other = total ? m_c.runs[run].total : m_c.groups[size_t(row)].cells[run];
    const std::optional<WelchInterval>& w = total ? m_c.runs[run].interval : m_c.groups[size_t(row)].interval[run];
    const QString samples = QStringLiteral("%1 and %2 %3").arg(base.stats.n).arg(other.stats.n)
                                .arg(m_c.per == ComparePer::Step ? QStringLiteral("steps") : QStringLiteral("runs"));
    const QString verdict = QString::fromLatin1(verdictLabel(verdictAt(row, run)));
    if (!w)
        return QStringLiteral("%1: not enough samples for an interval (%2; 3 a side needed)").arg(verdict, samples);
    auto ns = [](double v) { return QString::fromStdString(render::cellText(Column{{}, {}, Unit::Ns, true}, v)); };
    QString text = QStringLiteral("%1: %2 - BASE = %3, 95% interval %4 .. %5 over %6")
                       .arg(verdict, runTag(run, m_c.runs.size()), ns(w->delta), ns(w->low), ns(w->high), samples);
    if (!total)
        text += QStringLiteral("; p after Holm's control %1").arg(m_c.groups[size_t(row)].adjustedP[run], 0, 'g', 3);
    return text;
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal)
        for (size_t run = 0; run < m_c.runs.size(); ++run)
            if (section == column("ns", run)) {
                const CompareRunSummary& r = m_c.runs[run];
                QString text = QStringLiteral("%1: %2 run %3 '%4' (%5; %6 samples)")
                                   .arg(runTag(run, m_c.runs.size()), q(r.file))
                                   .arg(r.info.id)
                                   .arg(q(r.info.name), perLabel(m_c.per, m_c.runs))
                                   .arg(r.total.stats.n);
                if (r.repeats.size() > 1)
                    text += QStringLiteral(", %1 runs pooled as repeats").arg(r.repeats.size());
                return text;
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
    const KernelDiffRow& r = m_d.rows[size_t(index.row())];
    const std::string& id = table().columns[size_t(index.column())].id;
    const bool noiseColumn = id == "delta_ns" || id == "delta_pct" || id == "pm_ns" || id == "verdict";
    if (role == Qt::ForegroundRole) {
        // As the compare table: a change not shown to be real is grey, not red or green.
        if (noiseColumn && r.verdict != Verdict::Slower && r.verdict != Verdict::Faster)
            return QBrush(QColor(0x8a, 0x8a, 0x8a));
        if (id == "verdict")
            return deltaBrush(r.verdict == Verdict::Slower ? 1 : -1);
        return deltaForeground(*this, index);
    }
    if (role == Qt::ToolTipRole && noiseColumn) {
        const QString samples = QStringLiteral("%1 and %2 steps").arg(r.base.stats.n).arg(r.other.stats.n);
        const QString verdict = QString::fromLatin1(verdictLabel(r.verdict));
        if (!r.interval)
            return QStringLiteral("%1: not enough samples for an interval (%2; 3 a side needed)").arg(verdict, samples);
        auto ns = [](double v) { return QString::fromStdString(render::cellText(Column{{}, {}, Unit::Ns, true}, v)); };
        return QStringLiteral("%1: OTHER - BASE = %2, 95% interval %3 .. %4 over %5; p after Holm's control %6")
            .arg(verdict, ns(r.interval->delta), ns(r.interval->low), ns(r.interval->high), samples)
            .arg(r.adjustedP, 0, 'g', 3);
    }
    if (role == Qt::ToolTipRole && index.column() == columnOf("change") && r.similarNames)
        return QStringLiteral("swapped: the names differ only in template arguments or numbers");
    return TableModel::data(index, role);
}

}  // namespace wt::gui
