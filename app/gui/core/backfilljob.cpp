#include "backfilljob.h"

#include "storage/database.h"
#include "storage/summarybackfill.h"

#include <sqlite3.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace wt::gui {

namespace {

struct Outcome {
    int missing = 0;
    int stored = 0;
    bool readOnly = false;
    QStringList skipped;
};

bool writable(const std::string& path)
{
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
    return ::access(path.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}

}  // namespace

BackfillJob::BackfillJob(QObject* parent) : AsyncJob(parent)
{
    // The next file once one is done, whatever its outcome.
    connect(this, &AsyncJob::failed, this, [this] {
        m_current.clear();
        startNext();
    });
    connect(this, &AsyncJob::cancelled, this, [this] {
        m_current.clear();
        startNext();
    });
}

BackfillJob::~BackfillJob()
{
    stop();
}

void BackfillJob::add(const QString& path, int64_t firstRunId)
{
    if (m_seen.contains(path))
        return;
    m_seen << path;
    m_pending.emplace_back(path, firstRunId);
    if (m_current.isEmpty())
        startNext();
}

void BackfillJob::stop()
{
    m_pending.clear();
    cancel();
    std::lock_guard<std::mutex> lock(m_interrupt->mutex);
    if (m_interrupt->db)
        sqlite3_interrupt(m_interrupt->db);   // a pass over a large run stops at its next row
}

void BackfillJob::startNext()
{
    if (m_pending.empty())
        return;
    const auto [path, firstRunId] = m_pending.front();
    m_pending.erase(m_pending.begin());
    m_current = path;
    const std::string file = path.toStdString();
    std::shared_ptr<Interrupt> interrupt = m_interrupt;
    start<std::shared_ptr<const Outcome>>(
        [this, path, file, firstRunId, interrupt](const JobControl& control) -> std::shared_ptr<const Outcome> {
            // Below the GUI and the loaders: the pass takes the CPU they leave.
            ::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), 10);
            auto out = std::make_shared<Outcome>();
            std::vector<MissingSummary> missing;
            bool immutable = false;
            {
                // What is missing, without a write: most files lack nothing.
                Database ro(file, OpenMode::ReadOnly);
                missing = findMissingSummaries(ro);
                immutable = ro.immutable() || ro.schemaVersion() < Database::kSchemaVersion;
            }
            out->missing = int(missing.size());
            if (missing.empty() || control.cancelled())
                return out;
            if (immutable || !writable(file)) {
                out->readOnly = true;
                return out;
            }
            Database db(file, OpenMode::ReadWrite);
            {
                std::lock_guard<std::mutex> lock(interrupt->mutex);
                interrupt->db = db.handle();
            }
            struct Clear {
                Interrupt& i;
                ~Clear()
                {
                    std::lock_guard<std::mutex> lock(i.mutex);
                    i.db = nullptr;
                }
            } clear{*interrupt};
            if (control.cancelled())
                return nullptr;
            BackfillCallbacks cb;
            cb.stop = [&control] { return control.cancelled(); };
            cb.firstRunId = firstRunId;
            cb.before = [this, &control, path](size_t index, size_t count, const MissingSummary& m) {
                control.post([this, path, m, index, count] {
                    emit runStarted(path, m.runId, int(index), int(count), m.activities, !m.overview);
                });
            };
            cb.stored = [this, &control, path](const MissingSummary& m, double seconds) {
                control.post([this, path, m, seconds] { emit runStored(path, m.runId, seconds); });
            };
            cb.skipped = [&out](const MissingSummary& m, const std::string& error) {
                out->skipped << QStringLiteral("run %1: %2").arg(m.runId).arg(QString::fromStdString(error));
            };
            out->stored = storeMissingRunOverviews(db, cb);
            return control.cancelled() ? nullptr : out;
        },
        [this, path](std::shared_ptr<const Outcome> out) {
            m_current.clear();
            if (out->readOnly)
                emit readOnlyFile(path, out->missing);
            else
                emit fileDone(path, out->stored, out->skipped);
            startNext();
        });
}

}  // namespace wt::gui
