#include "compareloader.h"

#include "storage/database.h"
#include "storage/reader.h"

#include <QPointer>

#include <exception>

namespace wt::gui {

CompareRuns loadCompareRuns(const std::vector<CompareSelector>& runs)
{
    CompareRuns out;
    for (const CompareSelector& s : runs) {
        Database db(s.file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        out.push_back(std::make_shared<const CompareRun>(loadCompareRun(reader, s.runId, s.file.toStdString())));
    }
    return out;
}

CompareLoader::CompareLoader(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const wt::gui::CompareRuns>>();
}

CompareLoader::~CompareLoader()
{
    wait();
}

void CompareLoader::wait()
{
    if (!m_thread)
        return;
    m_thread->wait();
    m_thread->deleteLater();
    m_thread = nullptr;
}

void CompareLoader::start(std::vector<CompareSelector> runs)
{
    // Loads are short (stored totals); a superseded one finishes and its result is dropped.
    wait();
    const int generation = ++m_generation;
    QPointer<CompareLoader> self(this);
    m_thread = QThread::create([self, generation, runs = std::move(runs)]() {
        std::shared_ptr<const CompareRuns> result;
        QString error;
        try {
            result = std::make_shared<const CompareRuns>(loadCompareRuns(runs));
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(self, [self, generation, result, error] {
            if (!self || self->m_generation != generation)
                return;
            self->wait();
            if (result)
                emit self->loaded(result);
            else
                emit self->failed(error);
        }, Qt::QueuedConnection);
    });
    m_thread->start();
}

}  // namespace wt::gui
