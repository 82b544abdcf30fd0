// Loads the runs of a comparison on a worker thread (an AsyncJob: analysis's loadCompareRun per
// run, each file opened read-only there), then hands them to the GUI thread: loaded or failed
// (one line). Starting a new load never waits: the one in flight is cancelled and its result
// dropped.
#pragma once

#include "analysis/compare.h"
#include "app/gui/core/asyncjob.h"

#include <QString>

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

class CompareLoader : public AsyncJob {
    Q_OBJECT
public:
    explicit CompareLoader(QObject* parent = nullptr);

    void start(std::vector<CompareSelector> runs);

signals:
    void loaded(std::shared_ptr<const wt::gui::CompareRuns> runs);
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::CompareRuns>)
