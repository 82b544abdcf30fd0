// Puts the roofline into the main window: File > Show roofline (Ctrl+Shift+R, also in the run
// browser's context menu): the roofline window of the browser's current run (else the loaded
// run), against the file's calibration or the H200 of the device table.
#pragma once

#include <QObject>

class QAction;

namespace wt::gui {

class MainWindow;
class RooflineView;

class RooflineActions : public QObject {
    Q_OBJECT
public:
    static RooflineActions* install(MainWindow* window);
    // The roofline window of run `runId` of `file` against `device` (empty: the view's default).
    void showRoofline(const QString& file, int64_t runId, const QString& device = {});
    // Of the browser's current run, else the loaded run; false with a status bar message without one.
    bool showRooflineOfCurrent();
    RooflineView* view() const { return m_view; }
    QAction* action() const { return m_action; }

private:
    explicit RooflineActions(MainWindow* window);

    MainWindow* m_window;
    QAction* m_action;
    RooflineView* m_view = nullptr;
};

}  // namespace wt::gui
