// Loads a run on a worker thread: progress while it reads, cancel at any time, and one of
// loaded / failed / cancelled at the end (delivered to the loader's thread through queued
// signals). Starting a new load cancels the one in flight; its late result is dropped.
#pragma once

#include "rundata.h"

#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <memory>

namespace wt::gui {

class RunLoader : public QObject {
    Q_OBJECT
public:
    explicit RunLoader(QObject* parent = nullptr);
    ~RunLoader() override;

    void start(const QString& path, int64_t runId);
    void cancel();
    bool isRunning() const { return m_thread != nullptr; }
    // Blocks until the current load ends (tests, shutdown).
    void wait();

signals:
    void progress(qint64 done, qint64 total);
    void loaded(std::shared_ptr<const wt::gui::RunData> run);
    void failed(const QString& message);
    void cancelled();

private:
    void finish(int generation);

    QThread* m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    int m_generation = 0;
};

}  // namespace wt::gui

Q_DECLARE_METATYPE(std::shared_ptr<const wt::gui::RunData>)
