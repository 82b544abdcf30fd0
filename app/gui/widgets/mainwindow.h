// The main window: run browser (left dock), timeline (center), details (a dock), loading
// progress with cancel in the status bar, File menu with recent files, drag and drop.
// The timeline is the main view: at 1400 px and wider it gets at least 55% of the width. The
// breakdown (side view) sits below it (default) or beside it (View menu), a choice kept in
// QSettings ("layout/panels"); the details dock sits under the runs.
// Settings (geometry, recent files, last zoom per file and run, panel placement) persist through QSettings
// unless persistence is off (screenshots, tests). A run still being captured is followed live
// (LiveFollower): its views refresh as steps land, marked "live" in the title and status bar.
// A run whose activities exceed the memory cap for the timeline's detail (View > Memory cap,
// QSettings "timeline/memoryCap", `wheretime-gui --memory-cap`) is browsed in windows
// (core/windowedrun.h): the summary where detail is not loaded, the visible window's detail
// loaded as the view moves, one window held at a time.
#pragma once

#include "app/gui/core/livefollower.h"
#include "app/gui/core/runloader.h"
#include "app/gui/core/viewstate.h"

#include <QMainWindow>
#include <QString>

class QLabel;
class QMenu;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTimer;

namespace wt::gui {

class DetailsPanel;
class RunBrowser;
class TimelineWidget;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class PanelPlacement { Below, Beside };

    explicit MainWindow(bool persistSettings = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a file and loads one of its runs: selector is a run id or name, empty = newest.
    // Returns false (after showing the reason) when the file cannot be opened.
    // A wheretime file, or a trace another tool wrote (Nsight SQLite export, Kineto/Chrome
    // JSON, gzip or not), imported on the fly into a scratch file.
    bool openFile(const QString& path, const QString& runSelector = {});
    // The file to open for `path`: itself, or its import into a scratch wheretime file.
    QString importForViewing(const QString& path);
    // Lists a file's runs in the run browser beside those already there (no run loads).
    // Returns false (after showing the reason) when the file cannot be opened.
    bool addFile(const QString& path);
    void loadRun(int64_t runId);
    // Loads a run of any listed file.
    void loadRun(const QString& path, int64_t runId);

    ViewState* viewState() const { return m_state; }
    TimelineWidget* timeline() const { return m_timeline; }
    RunBrowser* runBrowser() const { return m_browser; }
    DetailsPanel* details() const { return m_details; }
    RunLoader* loader() const { return m_loader; }
    LiveFollower* liveFollower() const { return m_live; }
    QLabel* liveLabel() const { return m_liveLabel; }
    // The background pass over an older file's runs (core/backfilljob.h) and its status-bar line.
    class BackfillJob* backfill() const { return m_backfill; }
    QLabel* backfillLabel() const { return m_backfillLabel; }
    QString currentFile() const { return m_file; }
    QString lastError() const { return m_lastError; }
    QMenu* fileMenu() const { return m_fileMenu; }
    // Issue 7's breakdown view goes beside the timeline and shares m_state.
    void addSideView(QWidget* view);
    // Where the breakdown goes: below the timeline or beside it (right of it); the details dock
    // sits under the runs in the left column either way. Remembered.
    void setPanelPlacement(PanelPlacement placement);
    // View > Full names (core/displayname.h): every view relabels the current run.
    void showFullNames(bool full);
    PanelPlacement panelPlacement() const { return m_placement; }
    // The memory cap of the timeline's detail (bytes; default kDefaultDetailCapBytes): applies
    // to the next run loaded.
    void setDetailCap(int64_t bytes);
    int64_t detailCap() const { return m_detailCap; }
    // The window on screen of a run over the cap (RunData::windowed), else null.
    std::shared_ptr<const RunData> detailWindow() const { return m_window; }

signals:
    void runLoaded();
    // A run over the cap: its skeleton is in, windows load as the view moves.
    void windowedReady();
    // A window's detail is on screen (RunData::windowed).
    void detailWindowShown();
    void loadFailed(const QString& message);

protected:
    // Navigation keys reach the timeline wherever the focus is (TimelineWidget::isNavigationKey).
    bool eventFilter(QObject* watched, QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void showError(const QString& message);
    void onLoaded(std::shared_ptr<const RunData> run);
    void saveZoom();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    QString zoomKey() const;
    void updateLiveMarker();
    void applyPlacement();
    // Loads the visible window's detail when the view left the loaded one (debounced).
    void requestDetail();

    bool m_persist;
    ViewState* m_state;
    RunLoader* m_loader;
    LiveFollower* m_live;
    TimelineWidget* m_timeline;
    RunBrowser* m_browser;
    DetailsPanel* m_details;
    QSplitter* m_center;
    class QDockWidget* m_runsDock;
    class QDockWidget* m_detailsDock;
    class QAction* m_belowAction;
    class QAction* m_besideAction;
    class QAction* m_fullNamesAction = nullptr;
    PanelPlacement m_placement = PanelPlacement::Below;
    bool m_placedOnce = false;
    bool m_userArranged = false;   // the user moved the panels: a resize keeps them
    int m_placedLeftW = 0;         // px asked for the runs and details column
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QLabel* m_rangeLabel;
    QLabel* m_liveLabel;
    QMenu* m_recentMenu;
    QMenu* m_fileMenu;
    QMessageBox* m_errorBox = nullptr;
    QString m_file;
    int64_t m_runId = 0;
    QString m_lastError;
    int64_t m_detailCap;
    std::shared_ptr<const RunData> m_overview;   // the run's summary while it is not loaded whole
    std::shared_ptr<const RunData> m_skeleton;   // over the cap: instances and lanes
    std::shared_ptr<const RunData> m_window;     // the window on screen
    class AsyncJob* m_detailJob;
    QTimer* m_detailTimer;
    class BackfillJob* m_backfill;
    QLabel* m_backfillLabel;
    QTimer* m_backfillTick;        // the label's elapsed seconds
    QString m_backfillText;        // the label without them
    qint64 m_backfillSinceMs = 0;  // when the run's pass began (QDateTime ms)
    QStringList m_readOnlyFiles;   // older files that cannot be written: lanes computed in memory
};

}  // namespace wt::gui
