#include "compareloader.h"

#include "storage/database.h"
#include "storage/reader.h"

namespace wt::gui {

CompareRuns loadCompareRuns(const std::vector<CompareSelector>& runs)
{
    CompareRuns out;
    for (const CompareSelector& s : runs) {
        Database db(s.file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        out.push_back(std::make_shared<const CompareRun>(loadCompareRun(reader, s.runId, s.file.toStdString())));
    }
    return out;
}

CompareLoader::CompareLoader(QObject* parent) : AsyncJob(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::CompareRuns>>();
}

void CompareLoader::start(std::vector<CompareSelector> runs)
{
    // Loads read stored totals; a superseded one is cancelled between runs.
    AsyncJob::start<std::shared_ptr<const CompareRuns>>(
        [runs = std::move(runs)](const JobControl& control) -> std::shared_ptr<const CompareRuns> {
            CompareRuns out;
            for (const CompareSelector& s : runs) {
                if (control.cancelled())
                    return nullptr;
                out.push_back(loadCompareRuns({s}).front());
            }
            return std::make_shared<const CompareRuns>(std::move(out));
        },
        [this](std::shared_ptr<const CompareRuns> result) { emit loaded(std::move(result)); });
}

}  // namespace wt::gui
