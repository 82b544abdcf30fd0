// The summaries an older file lacks, computed in the background (storage/summarybackfill.h):
// opening a file only bumps its schema, so the runs of a schema-5 file have no stored scope
// lanes (and those of a schema-4 file or recovered runs no level-of-detail summary). The main
// window queues each file once a session after its run is on screen; this job computes and
// stores the missing runs one at a time on a worker (at a lower CPU priority), the run on
// screen first, each in its own write transaction (a kill or a close loses nothing already
// stored, another process sees a run with all of it or none, the GUI's own writes wait at most
// a transaction). Until a run's are stored it loads as before: spans and lanes computed from
// the activities. A file that cannot be written (read-only file or media) stays as it is
// (`readOnlyFile`): its lanes are computed in memory on every load.
#pragma once

#include "asyncjob.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

struct sqlite3;

namespace wt::gui {

class BackfillJob : public AsyncJob {
    Q_OBJECT
public:
    explicit BackfillJob(QObject* parent = nullptr);
    ~BackfillJob() override;

    // Queues the file (a file already queued or done this session is not queued again); its
    // run `firstRunId` is computed first.
    void add(const QString& path, int64_t firstRunId = 0);
    // Cancels the pass in flight, interrupting its queries (the window closing), and empties the
    // queue; what was stored stays stored, the file's next open continues.
    void stop();
    // The file being worked on, empty when idle.
    QString currentFile() const { return m_current; }

signals:
    // A run's pass begins: the index-th (from 0) of `count` missing runs of the file.
    void runStarted(const QString& path, qint64 runId, int index, int count, qint64 activities, bool lanesOnly);
    void runStored(const QString& path, qint64 runId, double seconds);
    // The file lacks summaries of `missing` runs and cannot be written here.
    void readOnlyFile(const QString& path, int missing);
    // The file's pass ended: `stored` runs stored; `skipped` one line per damaged run.
    void fileDone(const QString& path, int stored, const QStringList& skipped);

private:
    struct Interrupt {
        std::mutex mutex;
        sqlite3* db = nullptr;   // the pass's connection while it is open
    };
    void startNext();

    std::vector<std::pair<QString, int64_t>> m_pending;
    QStringList m_seen;
    QString m_current;
    std::shared_ptr<Interrupt> m_interrupt = std::make_shared<Interrupt>();
};

}  // namespace wt::gui
