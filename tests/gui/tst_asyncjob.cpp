// The one asynchronous job helper (app/gui/core/asyncjob.h) that the run, compare and sweep
// loaders are: a superseded job's progress and result are dropped, cancel delivers cancelled()
// and never the result, an exception becomes failed(message), and start() returns while the
// job in flight still runs (ordering and state only; no timing is measured).
#include "app/gui/compare/compareloader.h"
#include "app/gui/core/asyncjob.h"
#include "app/gui/core/runloader.h"

#include <QCoreApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <stdexcept>

using namespace wt::gui;

namespace {

// A job that blocks until the test releases it (or 60 s pass, so a test that deadlocks
// fails instead of hanging), then returns `value`.
std::function<int(const JobControl&)> gated(QSemaphore* gate, std::atomic<bool>* returned, int value)
{
    return [gate, returned, value](const JobControl&) {
        gate->tryAcquire(1, 60000);
        returned->store(true);
        return value;
    };
}

// Delivers every queued call until the job has no worker left.
void drain(AsyncJob& job)
{
    job.wait();
    for (int i = 0; i < 10; ++i)
        QCoreApplication::processEvents();
}

}  // namespace

class TstAsyncJob : public QObject {
    Q_OBJECT
private slots:
    void staleResultIsDropped()
    {
        AsyncJob job;
        std::vector<int> results;
        QSemaphore gateA, gateB;
        std::atomic<bool> aReturned{false}, bReturned{false};
        job.start<int>(gated(&gateA, &aReturned, 1), [&](int v) { results.push_back(v); });
        QCOMPARE(job.generation(), 1);
        job.start<int>(gated(&gateB, &bReturned, 2), [&](int v) { results.push_back(v); });
        // start() returned with the first job still blocked: it did not wait for it.
        QVERIFY(!aReturned.load());
        QCOMPARE(job.generation(), 2);
        QCOMPARE(job.workerCount(), size_t(2));
        QVERIFY(job.isRunning());
        // The superseded job finishes last; only the newest job's result arrives.
        gateB.release();
        QTRY_VERIFY(bReturned.load());
        gateA.release();
        drain(job);
        QVERIFY(aReturned.load());
        QCOMPARE(results, std::vector<int>{2});
        QVERIFY(!job.isRunning());
        QCOMPARE(job.workerCount(), size_t(0));   // both threads reaped
    }

    void staleFinishingFirstIsDropped()
    {
        AsyncJob job;
        std::vector<int> results;
        QSignalSpy cancelled(&job, &AsyncJob::cancelled);
        QSemaphore gateA, gateB;
        std::atomic<bool> aReturned{false}, bReturned{false};
        job.start<int>(gated(&gateA, &aReturned, 1), [&](int v) { results.push_back(v); });
        job.start<int>(gated(&gateB, &bReturned, 2), [&](int v) { results.push_back(v); });
        gateA.release();   // the old job returns while the new one still runs
        QTRY_VERIFY(aReturned.load());
        for (int i = 0; i < 10; ++i)
            QCoreApplication::processEvents();
        QVERIFY(results.empty());
        QVERIFY(job.isRunning());
        QCOMPARE(cancelled.count(), 0);   // superseded is silent; only the newest job reports
        gateB.release();
        drain(job);
        QCOMPARE(results, std::vector<int>{2});
    }

    void cancelDeliversCancelled()
    {
        AsyncJob job;
        QSignalSpy cancelled(&job, &AsyncJob::cancelled);
        QSignalSpy failed(&job, &AsyncJob::failed);
        std::atomic<bool> sawCancel{false};
        std::atomic<bool> started{false};
        bool delivered = false;
        job.start<int>(
            [&](const JobControl& control) {
                started = true;
                // Works until cancelled (bounded, so a broken cancel fails instead of hanging).
                for (int i = 0; i < 600000 && !control.cancelled(); ++i)
                    QThread::usleep(100);
                sawCancel = control.cancelled();
                return 7;
            },
            [&](int) { delivered = true; });
        QTRY_VERIFY(started.load());
        job.cancel();
        drain(job);
        QVERIFY(sawCancel.load());
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!delivered);
        QVERIFY(!job.isRunning());
    }

    void nullResultIsCancelled()
    {
        AsyncJob job;
        QSignalSpy cancelled(&job, &AsyncJob::cancelled);
        bool delivered = false;
        job.start<std::shared_ptr<int>>([](const JobControl&) { return std::shared_ptr<int>(); },
                                         [&](std::shared_ptr<int>) { delivered = true; });
        drain(job);
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!delivered);
    }

    void exceptionBecomesFailed()
    {
        AsyncJob job;
        QSignalSpy failed(&job, &AsyncJob::failed);
        bool delivered = false;
        job.start<int>([](const JobControl&) -> int { throw std::runtime_error("x.wt: no such run 9"); },
                       [&](int) { delivered = true; });
        drain(job);
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("x.wt: no such run 9"));
        QVERIFY(!delivered);
    }

    void progressOfTheNewestJobOnly()
    {
        AsyncJob job;
        QSignalSpy progress(&job, &AsyncJob::progress);
        QSemaphore gateA;
        std::atomic<bool> aReported{false};
        job.start<int>(
            [&](const JobControl& control) {
                gateA.tryAcquire(1, 60000);
                // Superseded by now: progress says stop, and what it queued is dropped.
                aReported = !control.progress(1, 100);
                return 1;
            },
            [](int) {});
        job.start<int>(
            [](const JobControl& control) {
                control.progress(5, 10);
                return 2;
            },
            [](int) {});
        gateA.release();
        drain(job);
        QVERIFY(aReported.load());
        QCOMPARE(progress.count(), 1);
        QCOMPARE(progress.at(0).at(0).toLongLong(), 5);
        QCOMPARE(progress.at(0).at(1).toLongLong(), 10);
    }

    void destructorJoinsAndDropsTheResult()
    {
        bool delivered = false;
        std::atomic<bool> sawCancel{false};
        {
            AsyncJob job;
            job.start<int>(
                [&](const JobControl& control) {
                    for (int i = 0; i < 600000 && !control.cancelled(); ++i)
                        QThread::usleep(100);
                    sawCancel = control.cancelled();
                    return 1;
                },
                [&](int) { delivered = true; });
        }
        QVERIFY(sawCancel.load());   // the destructor cancelled and joined the worker
        for (int i = 0; i < 10; ++i)
            QCoreApplication::processEvents();
        QVERIFY(!delivered);
    }

    // The loaders are AsyncJobs: a load of a missing file fails with one line, and start()
    // returns with the load in flight (CompareLoader::start used to wait for the previous load).
    void loadersAreJobs()
    {
        CompareLoader compare;
        QSignalSpy failed(&compare, &AsyncJob::failed);
        QSignalSpy loaded(&compare, &CompareLoader::loaded);
        compare.start({{QStringLiteral("/nonexistent/a.wt"), 1}});
        QVERIFY(compare.isRunning());
        compare.start({{QStringLiteral("/nonexistent/b.wt"), 1}});
        QCOMPARE(compare.generation(), 2);
        drain(compare);
        QCOMPARE(loaded.count(), 0);
        QCOMPARE(failed.count(), 1);   // the first load's failure was dropped
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("b.wt")));

        RunLoader run;
        QSignalSpy runFailed(&run, &AsyncJob::failed);
        run.start(QStringLiteral("/nonexistent/c.wt"), 1);
        drain(run);
        QCOMPARE(runFailed.count(), 1);
        QVERIFY(!runFailed.at(0).at(0).toString().contains(QLatin1Char('\n')));
    }
};

QTEST_GUILESS_MAIN(TstAsyncJob)
#include "tst_asyncjob.moc"
