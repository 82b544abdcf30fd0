#include "comparemodel.h"

#include "app/gui/core/timeformat.h"
#include "storage/csv.h"
#include "storage/json.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <cmath>

namespace wt::gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString q(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString signedDuration(double ns)
{
    const QString d = formatDuration(std::abs(ns));
    return ns > 0 ? QStringLiteral("+") + d : ns < 0 ? QStringLiteral("-") + d : d;
}

QString ratioText(const std::optional<double>& r)
{
    return r ? QString::number(*r, 'f', 3) : QStringLiteral("-");
}

// The change in % of BASE; unset where BASE has no time.
std::optional<double> deltaPct(double baseNs, double deltaNs)
{
    if (!(baseNs > 0))
        return std::nullopt;
    return 100.0 * deltaNs / baseNs;
}

QString pctText(const std::optional<double>& p)
{
    if (!p)
        return QStringLiteral("-");
    return (*p > 0 ? QStringLiteral("+") : QString()) + QString::number(*p, 'f', 1) + QLatin1Char('%');
}

QVariant opt(const std::optional<double>& v)
{
    return v ? QVariant(*v) : QVariant();
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

}  // namespace

QString runTag(size_t index, size_t runCount)
{
    if (index == 0)
        return QStringLiteral("BASE");
    if (runCount == 2)
        return QStringLiteral("OTHER");
    return QStringLiteral("#%1").arg(index + 1);
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

QString onlyInLabel(const CompareGroup& g)
{
    if (g.inAll())
        return {};
    const size_t n = g.cells.size();
    if (n == 2)
        return g.cells[0].present ? QStringLiteral("BASE only") : QStringLiteral("OTHER only");
    QStringList in;
    for (size_t i = 0; i < n; ++i)
        if (g.cells[i].present)
            in << runTag(i, n);
    return QStringLiteral("only in ") + in.join(QStringLiteral(", "));
}

// ---- CompareModel

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::setComparison(Comparison comparison)
{
    beginResetModel();
    m_c = std::move(comparison);
    endResetModel();
}

std::pair<CompareModel::Column, int> CompareModel::columnKind(int column) const
{
    const int n = int(m_c.runs.size());
    if (column <= 0)
        return {Column::Group, 0};
    column -= 1;
    if (column < n)
        return {Column::Time, column};
    column -= n;
    for (Column k : {Column::Delta, Column::DeltaPct, Column::Ratio}) {
        if (column < n - 1)
            return {k, column + 1};
        column -= n - 1;
    }
    return {Column::Note, 0};
}

int CompareModel::column(Column kind, int run) const
{
    const int n = int(m_c.runs.size());
    switch (kind) {
    case Column::Group: return 0;
    case Column::Time: return 1 + run;
    case Column::Delta: return 1 + n + (run - 1);
    case Column::DeltaPct: return 1 + n + (n - 1) + (run - 1);
    case Column::Ratio: return 1 + n + 2 * (n - 1) + (run - 1);
    case Column::Note: return 1 + n + 3 * (n - 1);
    }
    return 0;
}

int CompareModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || m_c.runs.empty() ? 0 : int(m_c.groups.size()) + 1;
}

int CompareModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || m_c.runs.empty() ? 0 : column(Column::Note) + 1;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const bool total = isTotalRow(index.row());
    const CompareGroup* g = total ? nullptr : &m_c.groups[size_t(index.row())];
    const auto [kind, run] = columnKind(index.column());
    auto cell = [&](int i) -> const CompareCell& { return total ? m_c.runs[size_t(i)].total : g->cells[size_t(i)]; };
    auto delta = [&](int i) { return total ? m_c.runs[size_t(i)].deltaNs : g->deltaNs[size_t(i)]; };
    auto ratio = [&](int i) { return total ? m_c.runs[size_t(i)].ratio : g->ratio[size_t(i)]; };
    if (role == PathRole)
        return total ? QString() : q(g->path);
    if (role == GroupIndexRole)
        return total ? -1 : index.row();
    if (role == Qt::TextAlignmentRole)
        return kind == Column::Group || kind == Column::Note ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::FontRole && total) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ForegroundRole && (kind == Column::Delta || kind == Column::DeltaPct))
        return deltaBrush(delta(run));
    if (role == Qt::ForegroundRole && kind == Column::Note)
        return QBrush(QColor(0xb3, 0x5c, 0x00));
    if (role == Qt::ToolTipRole && kind == Column::Group && !total)
        return q(g->path);
    if (role == ValueRole || role == SortRole) {
        switch (kind) {
        case Column::Group:
            return role == SortRole ? QVariant(total ? QStringLiteral("\uffff") : q(g->name)) : QVariant(total ? QStringLiteral("(total)") : q(g->name));
        case Column::Time: return cell(run).present ? QVariant(cell(run).ns) : (role == SortRole ? QVariant(-1.0) : QVariant());
        case Column::Delta: return delta(run);
        case Column::DeltaPct: return opt(deltaPct(cell(0).ns, delta(run)));
        case Column::Ratio: return opt(ratio(run));
        case Column::Note: return total ? QString() : onlyInLabel(*g);
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (kind) {
    case Column::Group: return total ? QStringLiteral("(total)") : q(g->name);
    case Column::Time: return cell(run).present || total ? formatDuration(cell(run).ns) : QStringLiteral("-");
    case Column::Delta: return signedDuration(delta(run));
    case Column::DeltaPct: return pctText(deltaPct(cell(0).ns, delta(run)));
    case Column::Ratio: return ratioText(ratio(run));
    case Column::Note: return total ? QString() : onlyInLabel(*g);
    }
    return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    const size_t n = m_c.runs.size();
    const auto [kind, run] = columnKind(section);
    const QString tag = runTag(size_t(run), n);
    if (role == Qt::ToolTipRole && kind == Column::Time)
        return QStringLiteral("%1: %2 run %3 '%4' (%5)")
            .arg(tag, q(m_c.runs[size_t(run)].file))
            .arg(m_c.runs[size_t(run)].info.id)
            .arg(q(m_c.runs[size_t(run)].info.name), perLabel(m_c.per, m_c.runs));
    if (role != Qt::DisplayRole)
        return {};
    const QString vs = n == 2 ? QString() : QStringLiteral(" ") + tag;
    switch (kind) {
    case Column::Group: return q(toString(m_c.groupBy));
    case Column::Time: {
        const std::string& name = m_c.runs[size_t(run)].info.name;
        return name.empty() ? tag : QStringLiteral("%1 (%2)").arg(tag, q(name));
    }
    case Column::Delta: return QString(QStringLiteral("delta") + vs);
    case Column::DeltaPct: return QString(QStringLiteral("delta %") + vs);
    case Column::Ratio: return n == 2 ? QStringLiteral("ratio") : QStringLiteral("%1/BASE").arg(tag);
    case Column::Note: return QStringLiteral("note");
    }
    return {};
}

QString CompareModel::toCsv() const
{
    const size_t n = m_c.runs.size();
    std::string out = "name,path";
    for (size_t i = 0; i < n; ++i)
        out += ",ns_" + std::to_string(i + 1);
    for (size_t i = 1; i < n; ++i)
        out += ",delta_ns_" + std::to_string(i + 1);
    for (size_t i = 1; i < n; ++i)
        out += ",ratio_" + std::to_string(i + 1);
    out += ",per\n";
    for (const CompareGroup& g : m_c.groups) {
        out += csv::field(g.name) + ',' + csv::field(g.path);
        for (size_t i = 0; i < n; ++i)
            out += ',' + (g.cells[i].present ? json::number(g.cells[i].ns) : std::string());
        for (size_t i = 1; i < n; ++i)
            out += ',' + json::number(g.deltaNs[i]);
        for (size_t i = 1; i < n; ++i)
            out += ',' + (g.ratio[i] ? json::number(*g.ratio[i]) : std::string());
        out += ',' + std::string(toString(m_c.per)) + '\n';
    }
    return QString::fromStdString(out);
}

// ---- KernelDiffModel

KernelDiffModel::KernelDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelDiffModel::setDiff(KernelDiff diff)
{
    beginResetModel();
    m_d = std::move(diff);
    endResetModel();
}

int KernelDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_d.rows.size());
}

int KernelDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QVariant KernelDiffModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KernelDiffRow& r = m_d.rows[size_t(index.row())];
    const int c = index.column();
    if (role == Qt::TextAlignmentRole)
        return c >= BaseCount ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == Qt::ForegroundRole && c == Delta)
        return deltaBrush(r.deltaNs);
    if (role == Qt::ToolTipRole && (c == BaseName || c == OtherName))
        return q(c == BaseName ? r.baseName : r.otherName);
    auto cellValue = [&](const CompareCell& cell, bool count) -> QVariant {
        if (!cell.present)
            return role == SortRole ? QVariant(-1.0) : QVariant();
        return count ? cell.count : cell.ns;
    };
    if (role == ValueRole || role == SortRole) {
        switch (Columns(c)) {
        case Change: return q(toString(r.change));
        case Op: return r.change == KernelChange::Moved ? q(r.op + " -> " + r.otherOp) : q(r.op);
        case BaseName: return q(r.baseName);
        case OtherName: return q(r.otherName);
        case BaseCount: return cellValue(r.base, true);
        case OtherCount: return cellValue(r.other, true);
        case BaseTime: return cellValue(r.base, false);
        case OtherTime: return cellValue(r.other, false);
        case Delta: return r.deltaNs;
        case Ratio: return role == SortRole && !r.ratio ? QVariant(-1.0) : opt(r.ratio);
        case NUM_COLUMNS: break;
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    auto countText = [](const CompareCell& cell) {
        return cell.present ? QString::number(cell.count, 'g', 6) : QStringLiteral("-");
    };
    switch (Columns(c)) {
    case Change: return QString(q(toString(r.change)) + (r.similarNames ? QStringLiteral(" (similar)") : QString()));
    case Op: return r.change == KernelChange::Moved ? q(r.op + " -> " + r.otherOp) : q(r.op);
    case BaseName: return r.baseName.empty() ? QStringLiteral("-") : q(r.baseName);
    case OtherName: return r.otherName.empty() ? QStringLiteral("-") : q(r.otherName);
    case BaseCount: return countText(r.base);
    case OtherCount: return countText(r.other);
    case BaseTime: return r.base.present ? formatDuration(r.base.ns) : QStringLiteral("-");
    case OtherTime: return r.other.present ? formatDuration(r.other.ns) : QStringLiteral("-");
    case Delta: return signedDuration(r.deltaNs);
    case Ratio: return ratioText(r.ratio);
    case NUM_COLUMNS: break;
    }
    return {};
}

QVariant KernelDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= NUM_COLUMNS)
        return {};
    static const char* names[NUM_COLUMNS] = {"change", "op", "BASE kernel", "OTHER kernel", "BASE count", "OTHER count",
                                             "BASE", "OTHER", "delta", "ratio"};
    return QString::fromLatin1(names[section]);
}

QString KernelDiffModel::toCsv() const
{
    std::string out = "op,other_op,change,base_name,other_name,base_count,other_count,base_ns,other_ns,delta_ns,ratio,per\n";
    for (const KernelDiffRow& r : m_d.rows)
        out += csv::field(r.op) + ',' + csv::field(r.otherOp) + ',' + std::string(toString(r.change)) + ',' + csv::field(r.baseName) +
               ',' + csv::field(r.otherName) + ',' + (r.base.present ? json::number(r.base.count) : "") + ',' +
               (r.other.present ? json::number(r.other.count) : "") + ',' + (r.base.present ? json::number(r.base.ns) : "") + ',' +
               (r.other.present ? json::number(r.other.ns) : "") + ',' + json::number(r.deltaNs) + ',' +
               (r.ratio ? json::number(*r.ratio) : "") + ',' + std::string(toString(m_d.per)) + '\n';
    return QString::fromStdString(out);
}

}  // namespace wt::gui
