#include "screenshot.h"

#include "app/gui/breakdown/breakdownactions.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/compare/compareactions.h"
#include "app/gui/compare/comparetimelines.h"
#include "app/gui/compare/compareview.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/timelinewidget.h"

#include <QApplication>
#include <QImage>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace wt::gui {

void grabAndQuit(QWidget* widget, const QString& out, int delayMs)
{
    QTimer::singleShot(delayMs, widget, [widget, out] {
        const QImage image = widget->grab().toImage();
        if (!image.save(out))
            return failAndQuit(QStringLiteral("cannot write %1").arg(out));
        std::printf("%s: %dx%d\n", qPrintable(out), image.width(), image.height());
        QApplication::exit(0);
    });
}

void failAndQuit(const QString& message, int code)
{
    std::fprintf(stderr, "wheretime-gui: %s\n", qPrintable(message));
    QApplication::exit(code);
}

void screenshotMainWindow(MainWindow& window, BreakdownActions& breakdown, const MainScreenshot& o)
{
    QObject::connect(&window, &MainWindow::loadFailed, qApp, [](const QString& message) { failAndQuit(message); });
    QObject::connect(breakdown.view(), &BreakdownView::sourceFailed, qApp, [](const QString& message) { failAndQuit(message); });
    // The breakdown loads after the run: grab once both are there.
    QObject::connect(breakdown.view(), &BreakdownView::sourceReady, qApp, [&window, &breakdown, o] {
        BreakdownView* view = breakdown.view();
        view->setShowBars(o.bars);
        view->waitForResult();   // a large run's figures come from a worker
        if (!o.drill.isEmpty()) {
            const auto& slices = view->currentPlot()->slices();
            auto it = std::find_if(slices.begin(), slices.end(), [&](const PieSlice& sl) { return sl.path == o.drill.toStdString(); });
            // As a click on the slice: mark the layer's kernels in the timeline, then drill.
            if (it != slices.end())
                view->selectSlice(view->currentPlot(), int(it - slices.begin()));
            if (it == slices.end() || !view->drillInto(int(it - slices.begin())))
                return failAndQuit(QStringLiteral("no layer '%1' to drill into").arg(o.drill), 2);
            view->waitForResult();
        }
        if (!o.find.isEmpty()) {   // before the range: stepping to the first match zooms to it
            window.timeline()->findText(o.find, true);
            window.timeline()->findStep(true);
        }
        if (o.range)   // from the run's time 0, as every stored time and `stats --range`
            window.timeline()->setViewRange(double(o.range->startNs), double(o.range->endNs));
        QTimer::singleShot(50, &window, [&window, &breakdown, out = o.out] {
            breakdown.view()->waitForResult();
            window.details()->waitForFigures();   // the devices and ranks tables (a worker's)
            // Draw the chart now, at its laid-out size: a queued replot may not have run yet,
            // and a plot that never replotted grabs blank (docs/images/multirank.png).
            breakdown.view()->currentPlot()->replot(QCustomPlot::rpImmediateRefresh);
            grabAndQuit(&window, out, 0);
        });
    });
}

void screenshotCompare(CompareActions& actions, const std::vector<CompareSelector>& runs, const CompareScreenshot& o)
{
    actions.compare(runs);
    CompareWindow* cw = actions.window();
    cw->resize(o.size);
    auto fail = [](const QString& message) { failAndQuit(message); };
    QObject::connect(cw->view(), &CompareView::failed, qApp, fail);
    QObject::connect(cw->view(), &CompareView::ready, qApp, [cw, o, fail] {
        if (!o.drill.isEmpty()) {
            cw->view()->drillIntoLayer(o.drill.toStdString());
            cw->view()->showKernelDiff();
        }
        if (!o.timelines)
            return grabAndQuit(cw, o.out, 100);
        CompareTimelines* t = cw->timelines();
        QObject::connect(t, &CompareTimelines::failed, qApp, fail);
        QObject::connect(t, &CompareTimelines::ready, qApp, [cw, t, o] {
            cw->showTimelines();
            t->highlightLayer(o.drill.isEmpty() ? QStringLiteral("softmax") : o.drill);
            grabAndQuit(cw, o.out, 100);
        });
    });
}

}  // namespace wt::gui
