#include "runlistmodel.h"

#include "timeformat.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFileInfo>

namespace wt::gui {

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunListModel::setRuns(std::vector<RunInfo> runs, const QString& file)
{
    beginResetModel();
    m_runs = std::move(runs);
    m_files.assign(m_runs.size(), file);
    endResetModel();
}

void RunListModel::addFile(const QString& file, std::vector<RunInfo> runs)
{
    beginResetModel();
    std::vector<RunInfo> keep;
    std::vector<QString> keepFiles;
    for (size_t i = 0; i < m_runs.size(); ++i)
        if (m_files[i] != file) {
            keep.push_back(std::move(m_runs[i]));
            keepFiles.push_back(m_files[i]);
        }
    m_runs = std::move(keep);
    m_files = std::move(keepFiles);
    for (RunInfo& r : runs) {
        m_runs.push_back(std::move(r));
        m_files.push_back(file);
    }
    endResetModel();
}

QStringList RunListModel::files() const
{
    QStringList out;
    for (const QString& f : m_files)
        if (!out.contains(f))
            out << f;
    return out;
}

int RunListModel::rowOfRun(int64_t runId, const QString& file) const
{
    for (size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == runId && (file.isEmpty() || m_files[i] == file))
            return int(i);
    return -1;
}

bool RunListModel::updateRun(const RunInfo& info, const QString& file)
{
    const int row = rowOfRun(info.id, file);
    if (row < 0)
        return false;
    m_runs[size_t(row)] = info;
    emit dataChanged(index(row, 0), index(row, NUM_COLUMNS - 1));
    return true;
}

int RunListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunInfo& r = m_runs[size_t(index.row())];
    auto s = [](const std::string& v) { return QString::fromStdString(v); };
    if (role == RunIdRole)
        return qint64(r.id);
    if (role == StatusRole)
        return int(r.status);
    // Status `writing` as read is a run whose writer process is alive: a capture in progress.
    const bool live = r.status == RunStatus::Writing;
    if (role == LiveRole)
        return live;
    if (role == Qt::ToolTipRole && index.column() == Status && live)
        return QStringLiteral("Being captured now: the figures grow as steps are committed");
    if (role == Qt::ForegroundRole && index.column() == Status && live)
        return QBrush(QColor(0x2c, 0xa0, 0x2c));
    if (role == FileRole)
        return m_files[size_t(index.row())];
    if (role == Qt::ToolTipRole && index.column() == File)
        return m_files[size_t(index.row())];
    if (role == Qt::ForegroundRole && index.column() == Status) {
        // Interrupted, failed and incomplete runs stand out.
        if (r.status == RunStatus::Failed)
            return QBrush(QColor(0xd6, 0x27, 0x28));
        if (r.status == RunStatus::Interrupted || r.status == RunStatus::Incomplete)
            return QBrush(QColor(0xe5, 0x86, 0x06));
        return {};
    }
    if (role == Qt::ForegroundRole && index.column() == Dropped && r.droppedRecords > 0)
        return QBrush(QColor(0xd6, 0x27, 0x28));
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Duration && index.column() != Status && index.column() != File ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                                                      : QVariant();
    if (role == Qt::ToolTipRole && index.column() == Name)   // the whole name (the cell elides it)
        return QString((r.name.empty() ? QStringLiteral("run %1").arg(r.id) : s(r.name)) +
                       (r.sourceFile.empty() ? QString() : QStringLiteral("\n") + s(r.sourceFile)));
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (Columns(index.column())) {
    case Name: return r.name.empty() ? QStringLiteral("run %1").arg(r.id) : s(r.name);
    case Workload: return s(r.workload);
    case Variant: return s(r.variant);
    case Backend: return s(r.backend);
    case Device: return s(r.device);
    case Date: {
        if (sort)
            return s(r.startedAt);
        QDateTime t = QDateTime::fromString(s(r.startedAt), Qt::ISODate);
        return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : s(r.startedAt);
    }
    case Duration: return sort ? QVariant(qint64(r.durationNs)) : QVariant(formatDuration(double(r.durationNs)));
    case Kernels: return sort ? QVariant(qint64(r.kernels)) : QVariant(QLocale().toString(qint64(r.kernels)));
    case Status: {
        QString status = QString::fromUtf8(toString(r.status).data(), qsizetype(toString(r.status).size()));
        return live && !sort ? status + QStringLiteral(" (live)") : status;
    }
    case Dropped: return sort ? QVariant(qint64(r.droppedRecords)) : QVariant(QLocale().toString(qint64(r.droppedRecords)));
    case File: return QFileInfo(m_files[size_t(index.row())]).fileName();
    case NUM_COLUMNS: break;
    }
    return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= NUM_COLUMNS)
        return {};
    static const char* names[NUM_COLUMNS] = {"Name", "Workload", "Variant", "Backend", "Device",
                                             "Date", "Duration", "Kernels", "Status", "Dropped", "File"};
    return QString::fromLatin1(names[section]);
}

}  // namespace wt::gui
