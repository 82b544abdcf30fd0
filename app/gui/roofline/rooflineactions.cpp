#include "rooflineactions.h"

#include "rooflineview.h"

#include "app/gui/core/rundata.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>

namespace wt::gui {

RooflineActions* RooflineActions::install(MainWindow* window)
{
    return new RooflineActions(window);
}

RooflineActions::RooflineActions(MainWindow* window)
    : QObject(window), m_window(window), m_action(new QAction(QStringLiteral("Show &roofline"), window))
{
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_action->setShortcutContext(Qt::ApplicationShortcut);
    m_action->setToolTip(QStringLiteral("Each op of a capture against the device's roofline: how far from its bound"));
    connect(m_action, &QAction::triggered, this, &RooflineActions::showRooflineOfCurrent);
    QMenu* file = m_window->fileMenu();
    QList<QAction*> actions = file->actions();
    QAction* before = actions.size() > 3 ? actions[3] : nullptr;
    file->insertAction(before, m_action);
    m_window->runBrowser()->addContextAction(m_action);
}

bool RooflineActions::showRooflineOfCurrent()
{
    auto current = m_window->runBrowser()->currentRun();
    if (current.second == 0)
        if (const auto& run = m_window->viewState()->run())
            current = {m_window->currentFile(), run->run.id};
    if (current.second == 0) {
        m_window->statusBar()->showMessage(QStringLiteral("Open a run first: the roofline shows its ops"), 5000);
        return false;
    }
    showRoofline(current.first, current.second);
    return true;
}

void RooflineActions::showRoofline(const QString& file, int64_t runId, const QString& device)
{
    if (!m_view) {
        m_view = new RooflineView(m_window);
        m_view->setWindowFlag(Qt::Window);
        m_view->setWindowTitle(QStringLiteral("Roofline - wheretime"));
        m_view->resize(1300, 1000);
    }
    m_view->load(file, runId, device);
    m_view->show();
    m_view->raise();
}

}  // namespace wt::gui
