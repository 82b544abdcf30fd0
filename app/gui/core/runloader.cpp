#include "runloader.h"

#include "overviewrun.h"
#include "storage/storageerror.h"

namespace wt::gui {

RunLoader::RunLoader(QObject* parent) : AsyncJob(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::RunData>>();
}

void RunLoader::start(const QString& path, int64_t runId, const LoadOptions& options)
{
    const std::string file = path.toStdString();
    m_index.reset();
    AsyncJob::start<std::shared_ptr<const RunData>>(
        [this, file, runId, options](const JobControl& control) -> std::shared_ptr<const RunData> {
            // The overview first; a summary that does not read leaves the full load to say why.
            std::shared_ptr<const RunData> overview;
            try {
                overview = loadOverviewRun(file, runId);
            } catch (const StorageError&) {
            }
            if (overview)
                control.post([this, overview] { emit overviewLoaded(overview); });
            else
                control.post([this] { emit overviewMissing(); });
            LoadCallbacks cb;
            cb.progress = [&control](int64_t done, int64_t total) { return control.progress(done, total); };
            // Windows need the summary (drawn outside them) and the chunk index; without the
            // summary the run loads whole, whatever the cap.
            std::shared_ptr<const DetailIndex> index;
            if (overview) {
                try {
                    index = std::make_shared<const DetailIndex>(DetailIndex::load(file, runId));
                } catch (const StorageError&) {
                }
            }
            const bool fits = !index || index->fits(options.detailCapBytes);
            if (index)
                control.post([this, index, fits] {
                    m_index = index;
                    emit detailIndexReady(fits);
                });
            if (index && options.windowEndNs > options.windowStartNs) {
                // The visible window's chunks first: worth it when it is a part of the run.
                const int64_t budget = fits ? index->activities() / 2 : windowBudget(options.detailCapBytes, 0);
                if (auto range = index->chooseRange(options.windowStartNs, options.windowEndNs, options.widthPx, budget)) {
                    std::shared_ptr<const RunData> window =
                        loadDetailWindow(file, runId, *overview, nullptr, *index, range->first, range->second);
                    control.post([this, window] { emit windowLoaded(window); });
                }
            }
            if (control.cancelled())
                return nullptr;
            cb.keepActivities = fits;
            // Over the cap, a file with stored scope lanes (schema 6) needs no pass over the
            // activities: the skeleton is the lanes' figures, and windows read their items.
            if (!fits && overview)
                if (std::shared_ptr<const RunData> stored = loadStoredSkeleton(file, runId, *overview))
                    return stored;
            std::shared_ptr<const RunData> run = loadRun(file, runId, cb);
            return control.cancelled() ? nullptr : run;
        },
        [this](std::shared_ptr<const RunData> run) {
            if (run->skeleton)
                emit skeletonLoaded(std::move(run));
            else
                emit loaded(std::move(run));
        });
}

}  // namespace wt::gui
