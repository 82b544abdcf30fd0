// The runs of one file as a table for the run browser: name, workload, variant, backend,
// device, date, duration, kernels, status, dropped records. Sort through SortRole (raw values).
#pragma once

#include "storage/types.h"

#include <QAbstractTableModel>

#include <vector>

namespace wt::gui {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Name, Workload, Variant, Backend, Device, Date, Duration, Kernels, Status, Dropped, NUM_COLUMNS };
    enum Roles { SortRole = Qt::UserRole, RunIdRole, StatusRole };

    explicit RunListModel(QObject* parent = nullptr);

    void setRuns(std::vector<RunInfo> runs);
    const std::vector<RunInfo>& runs() const { return m_runs; }
    int rowOfRun(int64_t runId) const;   // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunInfo> m_runs;
};

}  // namespace wt::gui
