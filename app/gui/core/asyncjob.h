// One asynchronous job at a time, run on a worker thread: the run, compare and sweep loaders
// are each an AsyncJob with their own `loaded` signal. start() never waits: it cancels the job
// in flight (whose work sees cancelled() at its next check) and starts the new one beside it;
// a superseded job's progress and result are dropped by a generation counter, so only the
// newest job's outcome reaches the owner's thread: the result, failed(message) (the one line
// of what the work threw) or cancelled(). The destructor cancels and joins every worker, so no
// worker outlives its job object.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

class QThread;

namespace wt::gui {

class AsyncJob;

// What the work of a job sees on its worker thread.
class JobControl {
public:
    // True once the job was cancelled or superseded: the work should stop and return.
    bool cancelled() const { return m_cancel->load(); }
    // Reports progress to the owner (queued; dropped once superseded). Returns !cancelled(), so a
    // loader's progress callback can pass it straight on.
    bool progress(int64_t done, int64_t total) const;
    // Runs fn on the owner's thread (queued) if the job is then still the newest and running:
    // a stage's result ahead of the final one (the run loader's overview before the run).
    void post(std::function<void()> fn) const;

private:
    friend class AsyncJob;
    JobControl(AsyncJob* owner, int generation, std::shared_ptr<std::atomic<bool>> cancel)
        : m_owner(owner), m_generation(generation), m_cancel(std::move(cancel)) {}
    AsyncJob* m_owner;
    int m_generation;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

class AsyncJob : public QObject {
    Q_OBJECT
public:
    explicit AsyncJob(QObject* parent = nullptr);
    ~AsyncJob() override;

    // Runs work(control) on a new worker thread and, when it returns and the job is still the
    // newest and not cancelled, done(result) on this object's thread. Result must be copyable
    // (a shared_ptr for anything large). A null Result pointer counts as cancelled.
    template <class Result>
    void start(std::function<Result(const JobControl&)> work, std::function<void(Result)> done)
    {
        startErased([work = std::move(work), done = std::move(done)](const JobControl& control) -> std::function<void()> {
            Result result = work(control);
            if constexpr (std::is_constructible_v<bool, const Result&>) {
                if (!result)
                    return {};
            }
            return [done, result = std::move(result)]() mutable { done(std::move(result)); };
        });
    }

    // Cancels the newest job: its work sees cancelled(), its result is dropped and cancelled()
    // is emitted once its work returns.
    void cancel();
    // The newest job is running (its outcome not yet delivered).
    bool isRunning() const { return m_active; }
    // The newest job's number (1 for the first); a result is delivered only with the current one.
    int generation() const { return m_generation; }
    // Blocks until every worker (the newest and superseded ones) has returned (tests, shutdown);
    // the outcome is still delivered through the event loop.
    void wait();
    // Workers whose threads have not yet been reaped (superseded ones included).
    size_t workerCount() const { return m_threads.size(); }

signals:
    void progress(qint64 done, qint64 total);
    void failed(const QString& message);
    void cancelled();

private:
    friend class JobControl;
    // work returns the delivery (run on this thread) or an empty function for "cancelled".
    void startErased(std::function<std::function<void()>(const JobControl&)> work);
    void reap(QThread* thread);

    std::vector<QThread*> m_threads;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    int m_generation = 0;
    bool m_active = false;
};

}  // namespace wt::gui
