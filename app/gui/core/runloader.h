// Loads a run on a worker thread (an AsyncJob) in two stages: first overviewLoaded with the run
// drawn from its stored level-of-detail summary (loadOverviewRun: milliseconds at any size; not
// emitted for runs without one), then the activities with progress while they read, cancel at
// any time, and one of loaded / failed / cancelled at the end (delivered to the loader's thread through
// queued signals). Starting a new load cancels the one in flight without waiting for it; its
// late result is dropped.
#pragma once

#include "asyncjob.h"
#include "rundata.h"

#include <QString>

#include <memory>

namespace wt::gui {

class RunLoader : public AsyncJob {
    Q_OBJECT
public:
    explicit RunLoader(QObject* parent = nullptr);

    void start(const QString& path, int64_t runId);

signals:
    // The overview (RunData::overviewOnly), for the timeline until `loaded` replaces it.
    void overviewLoaded(std::shared_ptr<const wt::gui::RunData> overview);
    // The run has no stored summary (being written, or an older file opened read-only): the
    // timeline draws when the activities are in.
    void overviewMissing();
    void loaded(std::shared_ptr<const wt::gui::RunData> run);
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::RunData>)
