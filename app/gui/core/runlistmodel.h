// The runs of the open files as a table for the run browser: name, workload, variant, backend,
// device, date, duration, kernels, status, dropped records, file. Sort through SortRole (raw
// values). setRuns() lists one file's runs; addFile() adds (or refreshes) another file's.
// A run whose capture is still writing it shows as "writing (live)" (LiveRole true); a live
// follower updates its row in place as it grows and when it ends (updateRun).
#pragma once

#include "storage/types.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace wt::gui {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Name, Workload, Variant, Backend, Device, Date, Duration, Kernels, Status, Dropped, File, NUM_COLUMNS };
    enum Roles { SortRole = Qt::UserRole, RunIdRole, StatusRole, LiveRole, FileRole };

    explicit RunListModel(QObject* parent = nullptr);

    void setRuns(std::vector<RunInfo> runs, const QString& file = {});
    // Adds a file's runs below those listed; a file already listed has its rows replaced.
    void addFile(const QString& file, std::vector<RunInfo> runs);
    const std::vector<RunInfo>& runs() const { return m_runs; }
    const QString& fileOf(int row) const { return m_files[size_t(row)]; }
    QStringList files() const;
    // -1 when absent; an empty file matches any file.
    int rowOfRun(int64_t runId, const QString& file = {}) const;
    // Replaces the row of run `info.id` of `file` (a live run's new summary or final status);
    // false when the model has no such run.
    bool updateRun(const RunInfo& info, const QString& file = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunInfo> m_runs;
    std::vector<QString> m_files;   // per row: the file the run is in
};

}  // namespace wt::gui
