// Puts the job view into the main window: File > Open job directory (Ctrl+Shift+J): a directory
// of rank files as one job (JobView), and a rank opened from it (a double click, Open rank)
// loads in the main window's timeline, beside the job window.
#pragma once

#include <QObject>

class QAction;

namespace wt::gui {

class JobView;
class MainWindow;

class JobActions : public QObject {
    Q_OBJECT
public:
    static JobActions* install(MainWindow* window);
    // The job window of `input` (a directory of .wt files, or one .wt file).
    void showJob(const QString& input);
    // Asks for a directory, then showJob; false when none was chosen.
    bool chooseAndShowJob();
    JobView* view() const { return m_view; }
    QAction* action() const { return m_action; }

private:
    explicit JobActions(MainWindow* window);

    MainWindow* m_window;
    QAction* m_action;
    JobView* m_view = nullptr;
};

}  // namespace wt::gui
