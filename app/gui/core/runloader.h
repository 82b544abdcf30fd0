// Loads a run on a worker thread (an AsyncJob) in stages: first overviewLoaded with the run
// drawn from its stored level-of-detail summary (loadOverviewRun: milliseconds at any size; not
// emitted for runs without one), then -- when a visible window is given -- windowLoaded with that
// window's activities read through the chunk index (windowedrun.h), then the activities with
// progress while they read, cancel at any time, and one of loaded / failed / cancelled at the
// end (delivered to the loader's thread through queued signals). A run whose activities do not
// fit the memory cap (LoadOptions::detailCapBytes) is not loaded whole: the last stage reads its
// skeleton -- the stored scope lanes' figures (schema 6, loadStoredSkeleton), or without them a
// pass that keeps the scope instances, spans and lanes, no activity -- and ends with skeletonLoaded; its
// windows are loaded on demand (loadDetailWindow). Starting a new load cancels the one in flight
// without waiting for it; its late result is dropped.
#pragma once

#include "asyncjob.h"
#include "rundata.h"
#include "windowedrun.h"

#include <QString>

#include <memory>

namespace wt::gui {

struct LoadOptions {
    int64_t detailCapBytes = kDefaultDetailCapBytes;   // the timeline's detail: memory cap
    // The visible window, loaded first (windowEndNs <= windowStartNs: none, e.g. the whole run).
    double windowStartNs = 0, windowEndNs = 0;
    int widthPx = 1000;                                // the plot's width (the window's margins)
};

class RunLoader : public AsyncJob {
    Q_OBJECT
public:
    explicit RunLoader(QObject* parent = nullptr);

    void start(const QString& path, int64_t runId, const LoadOptions& options = {});
    // The chunk index of the run loading or loaded (after detailIndexReady), else null.
    std::shared_ptr<const DetailIndex> detailIndex() const { return m_index; }

signals:
    // The overview (RunData::overviewOnly), for the timeline until `loaded` replaces it.
    void overviewLoaded(std::shared_ptr<const wt::gui::RunData> overview);
    // The run has no stored summary (being written, or an older file opened read-only): the
    // timeline draws when the activities are in.
    void overviewMissing();
    // The chunk index is read (detailIndex()): `fits` says whether the run loads whole.
    void detailIndexReady(bool fits);
    // The visible window's detail (RunData::windowed), before the whole run.
    void windowLoaded(std::shared_ptr<const wt::gui::RunData> window);
    void loaded(std::shared_ptr<const wt::gui::RunData> run);
    // Over the cap: the skeleton (RunData::skeleton) instead of `loaded`.
    void skeletonLoaded(std::shared_ptr<const wt::gui::RunData> skeleton);

private:
    std::shared_ptr<const DetailIndex> m_index;
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::RunData>)
