#include "jobactions.h"

#include "jobview.h"

#include "app/gui/widgets/mainwindow.h"

#include <QAction>
#include <QFileDialog>
#include <QMenu>

namespace wt::gui {

JobActions* JobActions::install(MainWindow* window)
{
    return new JobActions(window);
}

JobActions::JobActions(MainWindow* window)
    : QObject(window), m_window(window), m_action(new QAction(QStringLiteral("Open &job directory..."), window))
{
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
    m_action->setShortcutContext(Qt::ApplicationShortcut);
    m_action->setToolTip(QStringLiteral("A directory of rank files (one wheretime import per rank) as one job: steps, stragglers, layers per rank"));
    connect(m_action, &QAction::triggered, this, &JobActions::chooseAndShowJob);
    // After File > Open (and Open Recent): it opens something too.
    QMenu* file = m_window->fileMenu();
    QList<QAction*> actions = file->actions();
    QAction* before = actions.size() > 2 ? actions[2] : nullptr;
    file->insertAction(before, m_action);
}

bool JobActions::chooseAndShowJob()
{
    const QString dir = QFileDialog::getExistingDirectory(m_window, QStringLiteral("Open job directory"));
    if (dir.isEmpty())
        return false;
    showJob(dir);
    return true;
}

void JobActions::showJob(const QString& input)
{
    if (!m_view) {
        m_view = new JobView(m_window);
        m_view->setWindowFlag(Qt::Window);
        m_view->setWindowTitle(QStringLiteral("Job - wheretime"));
        m_view->resize(1300, 1000);
        connect(m_view, &JobView::openRank, this, [this](const QString& file) {
            m_window->openFile(file);
            m_window->raise();
            m_window->activateWindow();
        });
    }
    m_view->load(input);
    m_view->show();
    m_view->raise();
}

}  // namespace wt::gui
