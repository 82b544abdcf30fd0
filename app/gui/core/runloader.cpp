#include "runloader.h"

#include "storage/storageerror.h"

#include <QPointer>

#include <exception>

namespace wt::gui {

RunLoader::RunLoader(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::RunData>>();
}

RunLoader::~RunLoader()
{
    cancel();
    wait();
}

void RunLoader::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void RunLoader::wait()
{
    while (m_thread) {
        m_thread->wait();
        // The thread's finished signal deletes it; deliver that now.
        QThread* t = m_thread;
        m_thread = nullptr;
        t->deleteLater();
    }
}

void RunLoader::start(const QString& path, int64_t runId)
{
    // The old load stops at its next progress check; its queued result is dropped by the
    // generation check.
    cancel();
    wait();
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    const int generation = ++m_generation;
    QPointer<RunLoader> self(this);
    std::string file = path.toStdString();
    m_thread = QThread::create([self, cancelFlag, generation, file, runId]() {
        // Signals emitted here are queued to the loader's thread; the generation check there
        // drops results of superseded loads.
        auto alive = [&] { return !cancelFlag->load(); };
        try {
            LoadCallbacks cb;
            cb.progress = [&](int64_t done, int64_t total) {
                if (alive())
                    QMetaObject::invokeMethod(self, [self, generation, done, total] {
                        if (self && self->m_generation == generation)
                            emit self->progress(done, total);
                    }, Qt::QueuedConnection);
                return alive();
            };
            std::shared_ptr<const RunData> run = loadRun(file, runId, cb);
            QMetaObject::invokeMethod(self, [self, generation, run, cancelled = !run || !alive()] {
                if (!self || self->m_generation != generation)
                    return;
                self->finish(generation);
                if (cancelled)
                    emit self->cancelled();
                else
                    emit self->loaded(run);
            }, Qt::QueuedConnection);
        } catch (const std::exception& e) {
            QString message = QString::fromUtf8(e.what());
            QMetaObject::invokeMethod(self, [self, generation, message] {
                if (!self || self->m_generation != generation)
                    return;
                self->finish(generation);
                emit self->failed(message);
            }, Qt::QueuedConnection);
        }
    });
    m_thread->start();
}

void RunLoader::finish(int generation)
{
    if (generation != m_generation || !m_thread)
        return;
    m_thread->wait();
    m_thread->deleteLater();
    m_thread = nullptr;
}

}  // namespace wt::gui
