// The runs of one file as a table for the run browser: name, workload, variant, backend,
// device, date, duration, kernels, status, dropped records. Sort through SortRole (raw values).
// A run whose capture is still writing it shows as "writing (live)" (LiveRole true); a live
// follower updates its row in place as it grows and when it ends (updateRun).
#pragma once

#include "storage/types.h"

#include <QAbstractTableModel>

#include <vector>

namespace wt::gui {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Name, Workload, Variant, Backend, Device, Date, Duration, Kernels, Status, Dropped, NUM_COLUMNS };
    enum Roles { SortRole = Qt::UserRole, RunIdRole, StatusRole, LiveRole };

    explicit RunListModel(QObject* parent = nullptr);

    void setRuns(std::vector<RunInfo> runs);
    const std::vector<RunInfo>& runs() const { return m_runs; }
    int rowOfRun(int64_t runId) const;   // -1 when absent
    // Replaces the row of run `info.id` (a live run's new summary or final status); false
    // when the model has no such run.
    bool updateRun(const RunInfo& info);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunInfo> m_runs;
};

}  // namespace wt::gui
