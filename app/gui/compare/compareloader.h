// Loads the runs of a comparison on a worker thread (analysis's loadCompareRun per run, each
// file opened read-only there), then hands them to the GUI thread: loaded or failed (one line).
// Starting a new load drops the result of the one in flight.
#pragma once

#include "analysis/compare.h"

#include <QObject>
#include <QString>
#include <QThread>

#include <memory>
#include <vector>

namespace wt::gui {

// A run to compare: a file and a run id in it.
struct CompareSelector {
    QString file;
    int64_t runId = 0;
};

// The loaded runs, BASE first; immutable once loaded.
using CompareRuns = std::vector<std::shared_ptr<const CompareRun>>;

// Loads every run (BASE first); throws StorageError / std::runtime_error with one line.
CompareRuns loadCompareRuns(const std::vector<CompareSelector>& runs);

class CompareLoader : public QObject {
    Q_OBJECT
public:
    explicit CompareLoader(QObject* parent = nullptr);
    ~CompareLoader() override;

    void start(std::vector<CompareSelector> runs);
    bool isRunning() const { return m_thread != nullptr; }
    void wait();   // blocks until the current load ends (tests, shutdown)

signals:
    void loaded(std::shared_ptr<const wt::gui::CompareRuns> runs);
    void failed(const QString& message);

private:
    QThread* m_thread = nullptr;
    int m_generation = 0;
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::CompareRuns>)
