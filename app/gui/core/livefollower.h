// Follows a run while its capture writes it (status `writing`: its writer process is alive).
// Once a second it polls the file's run rows on a worker thread (one read-only open and one
// small query; each commit of a capture carries the run's summary, so the row tells whether
// steps landed), and when the followed run's summary moved it reloads the run there (loadRun,
// one read snapshot) and hands the new RunData over. When the run's status turns final
// (complete, interrupted, failed, incomplete) it reloads once more and stops.
// The GUI thread only starts polls and receives results through queued calls; a poll or reload
// still in flight makes the next tick skip, so work never piles up on a slow or loaded machine.
// No connection stays open between polls: a reader held open would keep the finished file in
// WAL mode (docs/robustness.md).
#pragma once

#include "rundata.h"
#include "runloader.h"   // the RunData pointer's metatype
#include "storage/types.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

class QThread;
class QTimer;

namespace wt::gui {

class LiveFollower : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 1000;   // at most one poll (and reload) a second

    explicit LiveFollower(QObject* parent = nullptr);
    ~LiveFollower() override;

    // Follows run `loaded.id` of `path` from the state `loaded` describes (the RunInfo of the
    // RunData on screen). Not live (isLive() false, nothing polled) unless its status is
    // `writing`. Replaces what was followed before.
    void follow(const QString& path, const RunInfo& loaded);
    void stop();
    bool isLive() const { return m_live; }
    const QString& file() const { return m_path; }
    int64_t runId() const { return m_known.id; }
    // The followed run as last loaded (status, summary).
    const RunInfo& runInfo() const { return m_known; }
    // Polls posted since construction: each poll reloads the run at most once, and a poll is
    // posted only on a timer tick with none in flight, so reloads <= polls <= ticks.
    int64_t polls() const { return m_polls; }
    int intervalMs() const;

signals:
    void liveChanged(bool live);
    // Every poll that found a row of the file changed: all runs of the file, as stored now.
    void runsChanged(const std::vector<wt::RunInfo>& runs);
    // The followed run, reloaded with what was committed since the last load.
    void runUpdated(std::shared_ptr<const wt::gui::RunData> run);
    // A poll or reload failed (file gone, damaged): following stops.
    void failed(const QString& message);

private:
    struct Result;
    void tick();
    void deliver(int generation, const std::shared_ptr<Result>& result);
    void setLive(bool live);

    QThread* m_thread;
    QObject* m_worker;                    // lives in m_thread: the context of the posted work
    QTimer* m_timer;
    QString m_path;
    RunInfo m_known;                      // the followed run as last loaded
    std::vector<RunInfo> m_rows;          // the file's rows as last polled
    bool m_live = false;
    bool m_busy = false;                  // a poll or reload is in flight
    int64_t m_polls = 0;
    int m_generation = 0;                 // of follow()/stop(): late results of older ones are dropped
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

}  // namespace wt::gui
