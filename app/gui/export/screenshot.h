// `wheretime-gui --screenshot PNG ...`: grab a window once what it shows is there, write the
// PNG, print "PNG: WxH" and quit (exit 1 with one line on stderr on failure). main.cpp parses
// the arguments and opens the runs; these wait for the views and grab.
#pragma once

#include "analysis/timerange.h"

#include <QSize>
#include <QString>

#include <optional>
#include <vector>

class QWidget;

namespace wt::gui {

class BreakdownActions;
class CompareActions;
class MainWindow;
struct CompareSelector;

// After delayMs: grabs `widget` into `out` and quits the application (0, or 1 when the file
// cannot be written).
void grabAndQuit(QWidget* widget, const QString& out, int delayMs);
// Prints "wheretime-gui: MESSAGE" and quits the application with `code`.
void failAndQuit(const QString& message, int code = 1);

struct MainScreenshot {
    QString out;                          // the PNG
    bool bars = false;                    // the breakdown as bars
    QString drill;                        // click this layer's slice and drill into it; empty = none
    std::optional<TimeRange> range;       // the visible range, from the run's time 0
    QString find;                         // --find: the find bar filled, the first match selected; empty = none
};
// The main window, once its run and breakdown are there.
void screenshotMainWindow(MainWindow& window, BreakdownActions& breakdown, const MainScreenshot& options);

struct CompareScreenshot {
    QString out;
    QSize size;
    QString drill;                        // the kernel diff of this layer; empty = the layers
    bool timelines = false;               // the synchronized timelines, the layer marked in both
};
// The compare window of runs[0] (BASE) and the others, once its charts (or timelines) are there.
void screenshotCompare(CompareActions& actions, const std::vector<CompareSelector>& runs, const CompareScreenshot& options);

}  // namespace wt::gui
