#include "compareactions.h"

#include "app/gui/export/exportdialog.h"

#include "comparetimelines.h"
#include "compareview.h"

#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>

namespace wt::gui {

CompareWindow::CompareWindow(QWidget* parent) : QTabWidget(parent), m_view(new CompareView(this))
{
    setWindowFlag(Qt::Window);
    setWindowTitle(QStringLiteral("Compare runs - wheretime"));
    setObjectName(QStringLiteral("compareWindow"));
    addTab(m_view, QStringLiteral("Charts"));
    resize(1400, 900);
    connect(m_view, &CompareView::timelinesRequested, this, &CompareWindow::showTimelines);
    // Ctrl+E: the chart of this window's tab (the charts' last clicked, or both timelines).
    addExportShortcut(this, [this] {
        if (m_timelines && currentWidget() == m_timelines)
            m_timelines->exportInteractive();
        else
            m_view->exportCurrentChart();
    });
}

CompareTimelines* CompareWindow::timelines()
{
    if (!m_timelines) {
        m_timelines = new CompareTimelines(this);
        addTab(m_timelines, QStringLiteral("Timelines"));
        connect(m_view, &CompareView::layerSelected, m_timelines, &CompareTimelines::highlightLayer);
        if (m_view->selectors().size() >= 2)
            m_timelines->load(m_view->selectors()[0], m_view->selectors()[1]);
    }
    return m_timelines;
}

void CompareWindow::showTimelines()
{
    setCurrentWidget(timelines());
}

CompareActions* CompareActions::install(MainWindow* window)
{
    return new CompareActions(window);
}

CompareActions::CompareActions(MainWindow* window) : QObject(window), m_window(window)
{
    auto* action = new QAction(QStringLiteral("&Compare selected runs"), window);
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    action->setShortcutContext(Qt::ApplicationShortcut);
    action->setToolTip(QStringLiteral("Select two or more runs in the run browser (Ctrl-click); the first selected is BASE"));
    connect(action, &QAction::triggered, this, &CompareActions::compareSelected);
    QMenu* file = window->fileMenu();
    QList<QAction*> actions = file->actions();
    file->insertAction(actions.size() > 2 ? actions[2] : nullptr, action);
    RunBrowser* browser = window->runBrowser();
    browser->addContextAction(action);
    connect(browser, &RunBrowser::contextMenuAboutToShow, action,
            [this, action] { action->setEnabled(m_window->runBrowser()->selectedRuns().size() >= 2); });
    connect(browser, &RunBrowser::contextMenuHidden, action, [action] { action->setEnabled(true); });
}

bool CompareActions::compareSelected()
{
    std::vector<CompareSelector> runs;
    for (const auto& [file, id] : m_window->runBrowser()->selectedRuns())
        runs.push_back({file, id});
    if (runs.size() < 2) {
        m_window->statusBar()->showMessage(QStringLiteral("Select two or more runs to compare (Ctrl-click in the run browser)"), 5000);
        return false;
    }
    return compare(std::move(runs));
}

bool CompareActions::compare(std::vector<CompareSelector> runs)
{
    if (runs.size() < 2)
        return false;
    // A new comparison gets a fresh window (its timelines belong to the runs).
    if (m_compare)
        m_compare->deleteLater();
    m_compare = new CompareWindow(m_window);
    m_compare->view()->load(std::move(runs));
    m_compare->show();
    m_compare->raise();
    return true;
}

}  // namespace wt::gui
