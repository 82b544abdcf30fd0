#include "asyncjob.h"

#include <QThread>

#include <algorithm>
#include <exception>

namespace wt::gui {

bool JobControl::progress(int64_t done, int64_t total) const
{
    if (cancelled())
        return false;
    // Queued with the owner as context: dropped if the owner is gone by then.
    AsyncJob* owner = m_owner;
    const int generation = m_generation;
    QMetaObject::invokeMethod(m_owner, [owner, generation, done, total] {
        if (owner->m_generation == generation && owner->m_active)
            emit owner->progress(done, total);
    }, Qt::QueuedConnection);
    return !cancelled();
}

void JobControl::post(std::function<void()> fn) const
{
    if (cancelled())
        return;
    AsyncJob* owner = m_owner;
    const int generation = m_generation;
    QMetaObject::invokeMethod(m_owner, [owner, generation, fn = std::move(fn)] {
        if (owner->m_generation == generation && owner->m_active)
            fn();
    }, Qt::QueuedConnection);
}

AsyncJob::AsyncJob(QObject* parent) : QObject(parent) {}

AsyncJob::~AsyncJob()
{
    cancel();
    wait();
    // Finished threads: their queued finished() calls die with this object.
    for (QThread* t : m_threads)
        delete t;
    m_threads.clear();
}

void AsyncJob::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void AsyncJob::wait()
{
    for (QThread* t : m_threads)
        t->wait();
}

void AsyncJob::reap(QThread* thread)
{
    auto it = std::find(m_threads.begin(), m_threads.end(), thread);
    if (it == m_threads.end())
        return;
    m_threads.erase(it);
    thread->deleteLater();
}

void AsyncJob::startErased(std::function<std::function<void()>(const JobControl&)> work)
{
    // The job in flight stops at its next check; it keeps running beside the new one until it
    // does, and what it hands back is dropped by the generation check.
    cancel();
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    const int generation = ++m_generation;
    m_active = true;
    QThread* thread = QThread::create([this, generation, cancelFlag, work = std::move(work)]() {
        // `this` is alive while the worker runs: the destructor joins every worker first.
        const JobControl control(this, generation, cancelFlag);
        std::function<void()> deliver;
        QString error;
        bool threw = false;
        try {
            deliver = work(control);
        } catch (const std::exception& e) {
            threw = true;
            error = QString::fromUtf8(e.what());
        } catch (...) {
            threw = true;
            error = QStringLiteral("unknown error");
        }
        // Queued with this object as context: a job object destroyed meanwhile drops it.
        QMetaObject::invokeMethod(this, [self = this, generation, cancelFlag, deliver = std::move(deliver), error, threw] {
            if (self->m_generation != generation || !self->m_active)
                return;   // superseded: a newer job owns the outcome
            self->m_active = false;
            if (cancelFlag->load() || (!threw && !deliver))
                emit self->cancelled();
            else if (threw)
                emit self->failed(error);
            else
                deliver();
        }, Qt::QueuedConnection);
    });
    connect(thread, &QThread::finished, this, [this, thread] { reap(thread); }, Qt::QueuedConnection);
    m_threads.push_back(thread);
    thread->start();
}

}  // namespace wt::gui
