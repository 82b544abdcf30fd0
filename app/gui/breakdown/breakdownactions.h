// Puts the breakdown into the main window: the BreakdownView as its side view, an Export menu
// (timeline, current breakdown chart, table CSV, run summary Markdown), Ctrl+E exporting the
// chart last focused, and an export context menu on the timeline.
#pragma once

#include <QObject>

namespace wt::gui {

class BreakdownView;
class MainWindow;

class BreakdownActions : public QObject {
    Q_OBJECT
public:
    // Creates the view and the actions; owned by the window.
    static BreakdownActions* install(MainWindow* window);

    BreakdownView* view() const { return m_view; }
    // Ctrl+E: the timeline or the breakdown chart, whichever had the focus last.
    void exportCurrent();
    void exportTimeline();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit BreakdownActions(MainWindow* window);

    MainWindow* m_window;
    QWidget* m_timeline;   // the window's timeline, kept: events and focus changes arrive while the window is destroyed
    BreakdownView* m_view;
    bool m_timelineLast = false;
};

}  // namespace wt::gui
