// Puts comparing into the main window: File > Compare selected runs (Ctrl+D) and the run
// browser's context menu open a CompareWindow for the runs selected there (two or more, the
// first selected is BASE). The window holds the compare view and, on its second tab, the
// synchronized timelines of BASE and OTHER.
#pragma once

#include "compareloader.h"

#include <QObject>
#include <QPointer>
#include <QTabWidget>

namespace wt::gui {

class CompareTimelines;
class CompareView;
class MainWindow;

class CompareWindow : public QTabWidget {
    Q_OBJECT
public:
    explicit CompareWindow(QWidget* parent = nullptr);
    CompareView* view() const { return m_view; }
    // Created on first use (it loads both runs' activities).
    CompareTimelines* timelines();
    void showTimelines();

private:
    CompareView* m_view;
    CompareTimelines* m_timelines = nullptr;
};

class CompareActions : public QObject {
    Q_OBJECT
public:
    static CompareActions* install(MainWindow* window);

    // Opens (or reuses) the compare window for these runs; false with fewer than two.
    bool compare(std::vector<CompareSelector> runs);
    bool compareSelected();
    CompareWindow* window() const { return m_compare; }

private:
    explicit CompareActions(MainWindow* window);

    MainWindow* m_window;
    QPointer<CompareWindow> m_compare;
};

}  // namespace wt::gui
