// Loads a run on a worker thread (an AsyncJob): progress while it reads, cancel at any time,
// and one of loaded / failed / cancelled at the end (delivered to the loader's thread through
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
    void loaded(std::shared_ptr<const wt::gui::RunData> run);
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::RunData>)
