#include "breakdownactions.h"

#include "breakdownview.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"

#include "app/gui/core/runloader.h"
#include "app/gui/core/timeformat.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/timelinewidget.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QMenu>
#include <QMenuBar>

#include <QSplitter>

namespace wt::gui {

BreakdownActions* BreakdownActions::install(MainWindow* window)
{
    return new BreakdownActions(window);
}

BreakdownActions::BreakdownActions(MainWindow* window)
    : QObject(window), m_window(window), m_timeline(window->timeline())
{
    m_view = new BreakdownView(window->viewState(), window);
    window->addSideView(m_view);
    // The run's stored totals at once, with the timeline's overview; the loaded run replaces them.
    connect(window->loader(), &RunLoader::overviewLoaded, m_view, [this](std::shared_ptr<const RunData> overview) {
        if (overview && overview->profile)
            m_view->setSource(BreakdownSource::loadStored(overview));
    });
    if (auto* split = qobject_cast<QSplitter*>(m_view->parentWidget())) {
        split->setStretchFactor(0, 3);
        split->setStretchFactor(split->indexOf(m_view), 2);
    }

    QMenu* menu = window->menuBar()->addMenu(QStringLiteral("&Export"));
    // Ctrl+E: this window's chart (the compare, variants and scaling windows have their own).
    menu->addAction(addExportShortcut(window, [this] { exportCurrent(); }));
    menu->addSeparator();
    menu->addAction(QStringLiteral("&Timeline..."), this, &BreakdownActions::exportTimeline);
    menu->addAction(QStringLiteral("&Breakdown chart..."), m_view, &BreakdownView::exportChart);
    menu->addAction(QStringLiteral("Breakdown &table as CSV..."), m_view, &BreakdownView::exportTableCsv);
    menu->addAction(QStringLiteral("Run &summary as Markdown..."), m_view, &BreakdownView::exportSummary);

    // Which chart Ctrl+E means: the one the user touched last.
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        for (QWidget* w = now; w; w = w->parentWidget()) {
            if (w == m_timeline) {
                m_timelineLast = true;
                return;
            }
            if (w == m_view) {
                m_timelineLast = false;
                return;
            }
        }
    });
    m_timeline->installEventFilter(this);
}

bool BreakdownActions::eventFilter(QObject* watched, QEvent* event)
{
    // The event type first: while the window is destroyed its timeline still gets events.
    if (event->type() == QEvent::ContextMenu && watched == m_timeline) {
        m_timelineLast = true;
        QMenu menu(m_window);
        QAction* exp = menu.addAction(QStringLiteral("Export timeline..."), this, &BreakdownActions::exportTimeline);
        exp->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
        menu.exec(static_cast<QContextMenuEvent*>(event)->globalPos());
        return true;
    }
    return QObject::eventFilter(watched, event);
}

void BreakdownActions::exportCurrent()
{
    if (m_timelineLast)
        exportTimeline();
    else
        m_view->exportChart();
}

void BreakdownActions::exportTimeline()
{
    const auto& run = m_window->viewState()->run();
    if (!run)
        return;
    const double t0 = m_window->viewState()->viewStartNs(), t1 = m_window->viewState()->viewEndNs();
    const QString title = QStringLiteral("Timeline %1 .. %2")
                              .arg(formatDuration(t0), formatDuration(t1));   // from the run's time 0
    QSize size = m_window->timeline()->size().expandedTo(QSize(800, 400));
    exportChartInteractive(m_window, timelinePainter(run, t0, t1), QStringLiteral("timeline.png"), size, title,
                           runCaption(run->run) + QStringLiteral(" \u00b7 ") + title, run->filePath);
}

}  // namespace wt::gui
