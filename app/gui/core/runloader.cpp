#include "runloader.h"

#include "overviewrun.h"
#include "storage/storageerror.h"

namespace wt::gui {

RunLoader::RunLoader(QObject* parent) : AsyncJob(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::RunData>>();
}

void RunLoader::start(const QString& path, int64_t runId)
{
    const std::string file = path.toStdString();
    AsyncJob::start<std::shared_ptr<const RunData>>(
        [this, file, runId](const JobControl& control) -> std::shared_ptr<const RunData> {
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
            std::shared_ptr<const RunData> run = loadRun(file, runId, cb);
            return control.cancelled() ? nullptr : run;
        },
        [this](std::shared_ptr<const RunData> run) { emit loaded(std::move(run)); });
}

}  // namespace wt::gui
