#include "livefollower.h"

#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"

#include <QThread>
#include <QTimer>

#include <exception>
#include <tuple>

namespace wt::gui {

namespace {

// The summary a capture commits with its rows: when none of it moved, nothing landed.
auto summaryOf(const RunInfo& r)
{
    return std::tie(r.status, r.kernels, r.kernelTimeNs, r.busyNs, r.spanStartNs, r.spanEndNs, r.durationNs,
                    r.droppedRecords);
}

bool sameRows(const std::vector<RunInfo>& a, const std::vector<RunInfo>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || summaryOf(a[i]) != summaryOf(b[i]))
            return false;
    return true;
}

}  // namespace

struct LiveFollower::Result {
    std::vector<RunInfo> runs;              // the file's rows
    bool rowsChanged = false;
    std::shared_ptr<const RunData> data;    // the reloaded run, when its summary moved
    QString error;
};

LiveFollower::LiveFollower(QObject* parent)
    : QObject(parent), m_thread(new QThread(this)), m_worker(new QObject), m_timer(new QTimer(this)),
      m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    m_thread->setObjectName(QStringLiteral("wt-live"));
    m_worker->moveToThread(m_thread);
    m_thread->start();
    m_timer->setInterval(kIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &LiveFollower::tick);
}

LiveFollower::~LiveFollower()
{
    // A reload in flight stops at its next progress check; its result is never delivered (the
    // queued call dies with this object).
    m_cancel->store(true);
    m_thread->quit();
    m_thread->wait();
    delete m_worker;
}

void LiveFollower::follow(const QString& path, const RunInfo& loaded)
{
    stop();
    m_path = path;
    m_known = loaded;
    m_rows.clear();
    setLive(loaded.status == RunStatus::Writing);
}

void LiveFollower::stop()
{
    ++m_generation;
    m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_busy = false;
    setLive(false);
}

void LiveFollower::setLive(bool live)
{
    if (live == m_live)
        return;
    m_live = live;
    if (live)
        m_timer->start();
    else
        m_timer->stop();
    emit liveChanged(live);
}

int LiveFollower::intervalMs() const { return m_timer->interval(); }

void LiveFollower::tick()
{
    if (!m_live || m_busy)
        return;
    m_busy = true;
    ++m_polls;
    const int generation = m_generation;
    QMetaObject::invokeMethod(
        m_worker,
        [this, generation, cancel = m_cancel, path = m_path.toStdString(), known = m_known, rows = m_rows] {
            auto r = std::make_shared<Result>();
            try {
                const RunInfo* now = nullptr;
                {
                    Database db(path, OpenMode::ReadOnly);
                    r->runs = Reader(db).runs();
                }
                for (const RunInfo& info : r->runs)
                    if (info.id == known.id)
                        now = &info;
                if (!now)
                    throw StorageError(path + ": run " + std::to_string(known.id) + " is no longer in the file");
                r->rowsChanged = !sameRows(r->runs, rows);
                if (summaryOf(*now) != summaryOf(known) && !cancel->load()) {
                    LoadCallbacks cb;
                    cb.progress = [&cancel](int64_t, int64_t) { return !cancel->load(); };
                    r->data = loadRun(path, known.id, cb);
                }
            } catch (const std::exception& e) {
                r->error = QString::fromUtf8(e.what());
            }
            // Runs on this object's thread; dropped there when follow()/stop() came in between.
            QMetaObject::invokeMethod(this, [this, generation, r] { deliver(generation, r); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void LiveFollower::deliver(int generation, const std::shared_ptr<Result>& r)
{
    if (generation != m_generation)
        return;
    m_busy = false;
    if (!r->error.isEmpty()) {
        setLive(false);
        emit failed(r->error);
        return;
    }
    if (r->rowsChanged) {
        m_rows = r->runs;
        emit runsChanged(m_rows);
    }
    if (r->data) {
        m_known = r->data->run;
        emit runUpdated(r->data);
    }
    if (m_known.status != RunStatus::Writing)
        setLive(false);
}

}  // namespace wt::gui
