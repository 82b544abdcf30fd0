#include "mainwindow.h"

#include "detailspanel.h"
#include "runbrowser.h"
#include "timelinewidget.h"

#include "app/gui/core/asyncjob.h"
#include "app/gui/core/backfilljob.h"
#include "app/gui/core/displayname.h"
#include "app/gui/core/windowedrun.h"
#include "app/gui/core/timeformat.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QAction>
#include <QAbstractSpinBox>
#include <QActionGroup>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QApplication>
#include <QCloseEvent>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QResizeEvent>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdlib>
#include <exception>

namespace wt::gui {

namespace {

constexpr int kMaxRecent = 10;

}  // namespace

MainWindow::MainWindow(bool persistSettings, QWidget* parent)
    : QMainWindow(parent), m_persist(persistSettings), m_state(new ViewState(this)), m_loader(new RunLoader(this)),
      m_live(new LiveFollower(this)), m_detailCap(kDefaultDetailCapBytes), m_detailJob(new AsyncJob(this)),
      m_detailTimer(new QTimer(this)), m_backfill(new BackfillJob(this)), m_backfillTick(new QTimer(this))
{
    if (m_persist)
        if (auto cap = parseByteSize(QSettings().value(QStringLiteral("timeline/memoryCap")).toString()))
            m_detailCap = *cap;
    setWindowTitle(QStringLiteral("wheretime"));
    setAcceptDrops(true);
    m_timeline = new TimelineWidget(m_state, this);
    m_center = new QSplitter(Qt::Horizontal, this);
    m_center->addWidget(m_timeline);
    setCentralWidget(m_center);
    connect(m_center, &QSplitter::splitterMoved, this, [this] { m_userArranged = true; });

    m_browser = new RunBrowser(this);
    auto* runsDock = m_runsDock = new QDockWidget(QStringLiteral("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    runsDock->setWidget(m_browser);
    addDockWidget(Qt::LeftDockWidgetArea, runsDock);
    connect(m_browser, &RunBrowser::runInFileActivated, this, [this](const QString& path, qint64 id) {
        const QString file = QFileInfo(path.isEmpty() ? m_file : path).absoluteFilePath();
        if (file == m_file && id == m_runId)
            return;   // on screen or loading already (a click on its row)
        loadRun(file, id);
    });

    m_details = new DetailsPanel(m_state, this);
    auto* detailsDock = m_detailsDock = new QDockWidget(QStringLiteral("Details"), this);
    detailsDock->setObjectName(QStringLiteral("detailsDock"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    // Status bar: visible range, and progress + cancel while a run loads.
    m_rangeLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(240);
    m_progress->setRange(0, 1000);
    m_cancel = new QPushButton(QStringLiteral("Cancel"), this);
    statusBar()->addWidget(m_rangeLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->hide();
    m_cancel->hide();
    // Live: the run on screen is being captured; its views follow it (LiveFollower).
    m_liveLabel = new QLabel(this);
    m_liveLabel->setObjectName(QStringLiteral("liveLabel"));
    m_liveLabel->setStyleSheet(QStringLiteral("QLabel { color: #2ca02c; font-weight: bold; }"));
    m_liveLabel->setToolTip(QStringLiteral("This run is being captured: the timeline, breakdown and details refresh as steps are committed"));
    statusBar()->addPermanentWidget(m_liveLabel);
    m_liveLabel->hide();
    // An older file's runs get their scope lanes (and summary) in the background, after the run
    // on screen is there; the label says which run and for how long.
    m_backfillLabel = new QLabel(this);
    m_backfillLabel->setObjectName(QStringLiteral("backfillLabel"));
    m_backfillLabel->setToolTip(QStringLiteral("The file was written by an older wheretime: the stored scope lanes (and level-of-detail "
                                               "summary) of its runs are computed once and stored, one run at a time. Until then a run "
                                               "loads as before, its lanes computed from the activities. Closing stops it; what was "
                                               "stored stays, and the next open continues (or: wheretime upgrade FILE)."));
    statusBar()->addPermanentWidget(m_backfillLabel);
    m_backfillLabel->hide();
    m_backfillTick->setInterval(1000);
    connect(m_backfillTick, &QTimer::timeout, this, [this] {
        const qint64 s = (QDateTime::currentMSecsSinceEpoch() - m_backfillSinceMs) / 1000;
        m_backfillLabel->setText(m_backfillText + QStringLiteral(", %1 s").arg(s));
    });
    connect(m_backfill, &BackfillJob::runStarted, this,
            [this](const QString& path, qint64 runId, int index, int count, qint64 activities, bool lanesOnly) {
                m_backfillText = QStringLiteral("Computing %1 of an older file: %2 run %3 (%4 of %5, %6 activities)")
                                     .arg(lanesOnly ? QStringLiteral("scope lanes") : QStringLiteral("summaries and scope lanes"),
                                          QFileInfo(path).fileName())
                                     .arg(runId)
                                     .arg(index + 1)
                                     .arg(count)
                                     .arg(QLocale().toString(activities));
                m_backfillSinceMs = QDateTime::currentMSecsSinceEpoch();
                m_backfillLabel->setText(m_backfillText);
                m_backfillLabel->show();
                m_backfillTick->start();
            });
    connect(m_backfill, &BackfillJob::runStored, this, [this](const QString& path, qint64 runId, double seconds) {
        const bool onScreen = QFileInfo(path).absoluteFilePath() == m_file && runId == m_runId;
        statusBar()->showMessage(QStringLiteral("%1 run %2: scope lanes stored in %3 s%4")
                                     .arg(QFileInfo(path).fileName())
                                     .arg(runId)
                                     .arg(seconds, 0, 'f', 1)
                                     .arg(onScreen ? QStringLiteral(" (the run on screen has the same lanes, computed in memory; "
                                                                    "its next load reads them)")
                                                   : QString()),
                                 10000);
    });
    auto backfillEnded = [this] {
        m_backfillTick->stop();
        m_backfillLabel->hide();
    };
    connect(m_backfill, &BackfillJob::fileDone, this, [this, backfillEnded](const QString& path, int stored, const QStringList& skipped) {
        backfillEnded();
        if (!skipped.isEmpty())
            statusBar()->showMessage(QStringLiteral("%1: %2 damaged run(s) left without scope lanes: %3")
                                         .arg(QFileInfo(path).fileName())
                                         .arg(skipped.size())
                                         .arg(skipped.join(QStringLiteral("; "))),
                                     15000);
        else if (stored > 0)
            statusBar()->showMessage(QStringLiteral("%1: scope lanes of %2 older run(s) stored; the file is up to date")
                                         .arg(QFileInfo(path).fileName())
                                         .arg(stored),
                                     10000);
    });
    connect(m_backfill, &BackfillJob::readOnlyFile, this, [this, backfillEnded](const QString& path, int missing) {
        backfillEnded();
        m_readOnlyFiles << QFileInfo(path).absoluteFilePath();
        m_backfillLabel->setText(QStringLiteral("Older file, read-only: scope lanes of %1 run(s) computed in memory on each load").arg(missing));
        m_backfillLabel->show();
    });
    connect(m_backfill, &AsyncJob::failed, this, [this, backfillEnded](const QString& message) {
        backfillEnded();
        statusBar()->showMessage(QStringLiteral("Scope lanes of an older file not stored: ") + message, 15000);
    });
    connect(m_live, &LiveFollower::runUpdated, this, [this](std::shared_ptr<const RunData> run) {
        m_state->updateRun(std::move(run));
        updateLiveMarker();
    });
    connect(m_live, &LiveFollower::runsChanged, this, [this](const std::vector<RunInfo>& runs) {
        for (const RunInfo& r : runs)
            m_browser->model()->updateRun(r, m_file);   // the follower follows the current file
    });
    connect(m_live, &LiveFollower::liveChanged, this, [this](bool live) {
        updateLiveMarker();
        if (!live && m_state->run() && m_live->runId() == m_runId && m_live->runInfo().status != RunStatus::Writing)
            statusBar()->showMessage(QStringLiteral("Run %1 is %2").arg(m_runId).arg(QString::fromUtf8(toString(m_live->runInfo().status).data())), 10000);
    });
    connect(m_live, &LiveFollower::failed, this, [this](const QString& message) {
        statusBar()->showMessage(QStringLiteral("Stopped following the run: ") + message, 10000);
    });
    connect(m_cancel, &QPushButton::clicked, m_loader, &RunLoader::cancel);
    connect(m_loader, &RunLoader::progress, this, [this](qint64 done, qint64 total) {
        m_progress->setValue(total > 0 ? int(1000 * done / total) : 0);
    });
    connect(m_loader, &RunLoader::overviewLoaded, this, [this](std::shared_ptr<const RunData> overview) {
        // The first frame, from the file's stored summary; the activities go on loading.
        m_overview = overview;
        m_timeline->setDetailNote({});
        m_timeline->showOverview(std::move(overview));
        statusBar()->showMessage(QStringLiteral("Run %1: overview from the stored summary; loading the activities...").arg(m_runId));
    });
    connect(m_loader, &RunLoader::overviewMissing, this, [this] {
        statusBar()->showMessage(QStringLiteral("Run %1: no stored summary in the file (an older file: computed in the background once "
                                                "the run is loaded; read-only; or still being written); the timeline draws once the "
                                                "activities are loaded...").arg(m_runId));
    });
    connect(m_loader, &RunLoader::loaded, this, &MainWindow::onLoaded);
    // Windows: the visible one first (the loader's, or one asked for while the run loads), and
    // over the cap every window the view moves to.
    m_detailTimer->setSingleShot(true);
    m_detailTimer->setInterval(120);
    connect(m_detailTimer, &QTimer::timeout, this, &MainWindow::requestDetail);
    connect(m_timeline, &TimelineWidget::summaryViewChanged, m_detailTimer, qOverload<>(&QTimer::start));
    auto showWindow = [this](std::shared_ptr<const RunData> window) {
        if (!m_overview || window->filePath != m_overview->filePath || window->run.id != m_runId)
            return;
        m_window = window;
        m_timeline->showWindow(std::move(window));
        emit detailWindowShown();
        requestDetail();   // the view may have moved on while it loaded
    };
    connect(m_loader, &RunLoader::windowLoaded, this, showWindow);
    connect(m_loader, &RunLoader::detailIndexReady, this, [this](bool fits) {
        if (fits)
            return;
        m_timeline->setDetailNote(QStringLiteral("Summary where detail is not loaded \u00b7 the run is over the %1 memory cap: "
                                                 "zoom in to load a window").arg(formatByteSize(m_detailCap)));
        statusBar()->showMessage(QStringLiteral("Run %1 is over the %2 memory cap: reading its scopes; detail loads for the visible window")
                                     .arg(m_runId).arg(formatByteSize(m_detailCap)));
        requestDetail();
    });
    connect(m_loader, &RunLoader::skeletonLoaded, this, [this](std::shared_ptr<const RunData> skeleton) {
        m_progress->hide();
        m_cancel->hide();
        m_skeleton = std::move(skeleton);
        if (m_skeleton->storedLanes)
            statusBar()->showMessage(QStringLiteral("Run %1 is over the %2 memory cap: detail and scope lanes load for the visible window")
                                         .arg(m_runId).arg(formatByteSize(m_detailCap)));
        else
            statusBar()->showMessage(QStringLiteral("Run %1 is over the %2 memory cap: detail loads for the visible window (%3 for its scopes, "
                                                    "computed from the activities: the file has no stored scope lanes for it yet; "
                                                    "they are stored in the background unless the file is read-only)")
                                         .arg(m_runId).arg(formatByteSize(m_detailCap), formatByteSize(int64_t(m_skeleton->memoryBytes()))));
        m_window.reset();   // windows without exact lanes are loaded again with them
        requestDetail();
        m_backfill->add(m_file, m_runId);   // an older file's missing lanes, now that the run is there
        emit windowedReady();
    });
    connect(m_detailJob, &AsyncJob::failed, this, [this](const QString& message) {
        statusBar()->showMessage(QStringLiteral("The window's detail did not load: ") + message, 10000);
    });
    connect(m_loader, &RunLoader::failed, this, [this](const QString& message) {
        m_progress->hide();
        m_cancel->hide();
        m_timeline->showOverview(nullptr);
        showError(message);
    });
    connect(m_loader, &RunLoader::cancelled, this, [this] {
        m_progress->hide();
        m_cancel->hide();
        m_timeline->showOverview(nullptr);
        statusBar()->showMessage(QStringLiteral("Loading cancelled"), 5000);
    });
    connect(m_state, &ViewState::viewRangeChanged, this, [this](double t0, double t1) {
        const auto& run = m_state->run();
        if (run)
            m_rangeLabel->setText(QStringLiteral("%1 .. %2  (%3 shown)")
                                      // from time 0, with the digits the window's width needs ("540.9500 ms")
                                      .arg(formatTimeAt(t0, (t1 - t0) / 100), formatTimeAt(t1, (t1 - t0) / 100), formatDuration(t1 - t0)));
    });

    // Menus.
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    m_fileMenu = file;
    QAction* open = file->addAction(QStringLiteral("&Open..."), this, [this] {
        QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open wheretime file"), QFileInfo(m_file).path(),
                                                    QStringLiteral("wheretime files (*.wt *.db);;Traces to import (*.sqlite *.json *.json.gz *.gz);;"
                                                                   "All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(QStringLiteral("Open &Recent"));
    file->addSeparator();
    QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
    view->addAction(QStringLiteral("&Fit (F)"), m_timeline, &TimelineWidget::fit);
    view->addAction(QStringLiteral("Zoom &in (W)"), m_timeline, [this] { m_timeline->zoomBy(1.25); });
    view->addAction(QStringLiteral("Zoom &out (S)"), m_timeline, [this] { m_timeline->zoomBy(1 / 1.25); });
    // Find wherever the focus is in the window (the timeline's own Ctrl+F and / need its focus).
    QAction* find = view->addAction(QStringLiteral("&Find..."), m_timeline, &TimelineWidget::openFind);
    find->setShortcut(QKeySequence::Find);
    // Short names by default (render/shortname.h, like Nsight's shortened names); full ones here.
    m_fullNamesAction = view->addAction(QStringLiteral("F&ull names"), this, [this](bool on) { showFullNames(on); });
    m_fullNamesAction->setCheckable(true);
    if (m_persist && QSettings().value(QStringLiteral("view/fullNames")).toBool())
        setFullNames(true);
    m_fullNamesAction->setChecked(fullNames());   // wheretime-gui --full-names sets it before
    view->addSeparator();
    view->addAction(runsDock->toggleViewAction());
    view->addAction(detailsDock->toggleViewAction());
    view->addSeparator();
    auto* placement = new QActionGroup(this);
    m_belowAction = view->addAction(QStringLiteral("Panels &below the timeline"), this, [this] { setPanelPlacement(PanelPlacement::Below); });
    m_besideAction = view->addAction(QStringLiteral("Panels &beside the timeline"), this, [this] { setPanelPlacement(PanelPlacement::Beside); });
    for (QAction* a : {m_belowAction, m_besideAction}) {
        a->setCheckable(true);
        placement->addAction(a);
    }
    view->addSeparator();
    view->addAction(QStringLiteral("&Memory cap for the timeline's detail..."), this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(this, QStringLiteral("Memory cap"),
                                                   QStringLiteral("Memory for the timeline's detail (e.g. 4G, 512M). A run whose "
                                                                  "activities need more is browsed window by window:"),
                                                   QLineEdit::Normal, formatByteSize(m_detailCap).remove(QLatin1Char(' ')), &ok);
        if (!ok)
            return;
        auto cap = parseByteSize(text);
        if (!cap) {
            showError(QStringLiteral("Not a memory size: '%1' (e.g. 4G, 512M, 100000)").arg(text));
            return;
        }
        setDetailCap(*cap);
        if (m_persist)
            QSettings().setValue(QStringLiteral("timeline/memoryCap"), QString::number(*cap));
        if (m_runId > 0)
            loadRun(m_runId);   // the run on screen under the new cap
    });
    QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
    help->addAction(QStringLiteral("&Keyboard shortcuts"), this, [this] {
        QMessageBox box(QMessageBox::NoIcon, QStringLiteral("Keyboard shortcuts"), TimelineWidget::shortcutsHelp(), QMessageBox::Close, this);
        box.setTextFormat(Qt::RichText);
        box.exec();
    });
    // W/A/S/D/F and / drive the timeline wherever the focus is in the window (a table, the
    // runs), except where they are typed (a filter box, a spin box).
    qApp->installEventFilter(this);
    rebuildRecentMenu();

    resize(1400, 800);
    if (m_persist) {
        QSettings s;
        m_placement = s.value(QStringLiteral("layout/panels")).toString() == QStringLiteral("beside") ? PanelPlacement::Beside : PanelPlacement::Below;
    }
    applyPlacement();
    if (m_persist) {
        QSettings s;
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        // Version 2: states saved before the timeline-first layout are not restored.
        m_placedOnce = restoreState(s.value(QStringLiteral("window/state")).toByteArray(), 2);
        m_userArranged = m_placedOnce;   // a restored arrangement is the user's
    }
    m_timeline->setFocus();
}

MainWindow::~MainWindow()
{
    m_backfill->stop();   // interrupts its pass: closing does not wait for a large run
    m_loader->cancel();
    m_loader->wait();
}

void MainWindow::addSideView(QWidget* view)
{
    m_center->addWidget(view);
    m_center->setCollapsible(m_center->indexOf(view), true);
    applyPlacement();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::KeyPress)
        return QMainWindow::eventFilter(watched, event);
    auto* target = qobject_cast<QWidget*>(watched);
    auto* key = static_cast<QKeyEvent*>(event);
    if (!target || target == m_timeline || target->window() != this || !TimelineWidget::isNavigationKey(key->key(), key->modifiers()))
        return QMainWindow::eventFilter(watched, event);
    // Typed text stays where it is typed.
    for (QWidget* w = target; w; w = w->parentWidget()) {
        if (w == m_timeline)
            return QMainWindow::eventFilter(watched, event);   // the timeline's find bar, say
        if (qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QTextEdit*>(w) ||
            qobject_cast<QPlainTextEdit*>(w) || (qobject_cast<QComboBox*>(w) && static_cast<QComboBox*>(w)->isEditable()))
            return QMainWindow::eventFilter(watched, event);
    }
    QKeyEvent copy(QEvent::KeyPress, key->key(), key->modifiers(), key->text());
    QCoreApplication::sendEvent(m_timeline, &copy);
    return true;
}

void MainWindow::showFullNames(bool full)
{
    if (m_fullNamesAction->isChecked() != full)
        m_fullNamesAction->setChecked(full);
    if (fullNames() == full)
        return;
    setFullNames(full);
    if (m_persist)
        QSettings().setValue(QStringLiteral("view/fullNames"), full);
    // The views label their names when the run is set or updated: the same run again, zoom kept.
    if (m_state->run())
        m_state->updateRun(m_state->run());
}

void MainWindow::setPanelPlacement(PanelPlacement placement)
{
    m_placement = placement;
    if (m_persist)
        QSettings().setValue(QStringLiteral("layout/panels"), placement == PanelPlacement::Beside ? QStringLiteral("beside") : QStringLiteral("below"));
    applyPlacement();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!m_placedOnce) {
        m_placedOnce = true;
        applyPlacement();   // sizes need the real window width
    }
}

// Docks and splitter for the placement: the timeline keeps >= 55% of the window width from
// 1400 px up. The runs and details column (~25%, 320..480 px) is wide enough for the details'
// values beside their fields; beside the timeline the breakdown takes the rest (its toolbar
// wraps), below it ~45% of the height (chart and table side by side, 8 table rows or more).
void MainWindow::applyPlacement()
{
    const bool beside = m_placement == PanelPlacement::Beside;
    m_belowAction->setChecked(!beside);
    m_besideAction->setChecked(beside);
    m_center->setOrientation(beside ? Qt::Horizontal : Qt::Vertical);
    const int w = std::max(width(), 800);
    const int h = std::max(height(), 500);
    const int leftW = std::clamp(w * 25 / 100, 320, 480);
    m_placedLeftW = leftW;
    // The details sit under the runs in the left column either way (a dock: the user may move
    // it); the breakdown goes right of the timeline or under it.
    addDockWidget(Qt::LeftDockWidgetArea, m_detailsDock);
    splitDockWidget(m_runsDock, m_detailsDock, Qt::Vertical);
    resizeDocks({m_runsDock}, {leftW}, Qt::Horizontal);
    resizeDocks({m_runsDock, m_detailsDock}, {h * 30 / 100, h * 70 / 100}, Qt::Vertical);
    // The side view may be narrower (beside) or lower (below) than its own hint: the timeline
    // comes first.
    for (int i = 1; i < m_center->count(); ++i)
        m_center->widget(i)->setMinimumSize(beside ? QSize(240, 0) : QSize(0, 200));
    if (beside) {
        const int center = w - leftW;
        const int timelineW = std::max(center * 64 / 100, w * 56 / 100);
        if (m_center->count() > 1)
            m_center->setSizes({timelineW, std::max(center - timelineW, 1)});
    } else if (m_center->count() > 1) {
        m_center->setSizes({h * 55 / 100, h * 45 / 100});
    }
    for (int i = 0; i < m_center->count(); ++i)
        m_center->setStretchFactor(i, i == 0 ? 3 : 1);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    // A window made larger (maximized, dragged) re-lays out the panels for its new size as
    // long as the user has not arranged them: a dock the user dragged keeps its width.
    if (!m_placedOnce || m_userArranged || event->oldSize().width() <= 0 || event->oldSize() == event->size())
        return;
    if (std::abs(m_runsDock->width() - m_placedLeftW) > 24) {   // not the width we gave it
        m_userArranged = true;
        return;
    }
    QTimer::singleShot(0, this, [this] {
        if (!m_userArranged)
            applyPlacement();
    });
}

void MainWindow::showError(const QString& message)
{
    m_lastError = message;
    emit loadFailed(message);
    // Window-modal and opened (not exec'd): the app and the event loop keep running.
    if (!m_errorBox) {
        m_errorBox = new QMessageBox(QMessageBox::Warning, QStringLiteral("wheretime"), QString(), QMessageBox::Ok, this);
        m_errorBox->setWindowModality(Qt::WindowModal);
    }
    m_errorBox->setText(message);
    m_errorBox->open();
}

namespace {

// A wheretime file is SQLite with our application_id (header bytes 68..71, big-endian); an
// unreadable file counts as one, so that Database reports why it cannot be read.
bool isWheretimeFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return true;
    QByteArray head = f.read(72);
    if (head.size() < 72 || !head.startsWith(QByteArrayLiteral("SQLite format 3")))
        return false;
    uint32_t id = (uint32_t(uint8_t(head[68])) << 24) | (uint32_t(uint8_t(head[69])) << 16) |
                  (uint32_t(uint8_t(head[70])) << 8) | uint32_t(uint8_t(head[71]));
    return id == uint32_t(Database::kApplicationId);
}

}  // namespace

QString MainWindow::importForViewing(const QString& path)
{
    // Nsight Systems SQLite exports and Kineto/Chrome JSON (.json, .json.gz) are imported on
    // the fly into a scratch wheretime file that lives as long as the app.
    if (isWheretimeFile(path) || interop::detectFormat(path.toStdString()) == interop::TraceFormat::Unknown)
        return path;
    static QTemporaryDir scratch;
    if (!scratch.isValid())
        throw std::runtime_error("cannot create a scratch folder to import " + path.toStdString());
    static int serial = 0;
    QString out = scratch.filePath(QStringLiteral("import-%1-%2.wt").arg(++serial).arg(QFileInfo(path).completeBaseName()));
    Database db(out.toStdString(), OpenMode::ReadWrite);
    interop::importTrace(db, path.toStdString());
    statusBar()->showMessage(QStringLiteral("imported %1 (not saved; `wheretime import` keeps it)").arg(QFileInfo(path).fileName()));
    return out;
}

bool MainWindow::openFile(const QString& requested, const QString& runSelector)
{
    std::vector<RunInfo> runs;
    int64_t runId = 0;
    QString path = requested;
    try {
        path = importForViewing(requested);
        Database db(path.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        runs = reader.runs();
        if (runs.empty())
            throw std::runtime_error(path.toStdString() + ": the file holds no runs");
        runId = reader.resolveRun(runSelector.toStdString());
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
    saveZoom();
    m_live->stop();
    m_file = QFileInfo(path).absoluteFilePath();
    // Every open file stays listed (for comparing runs across files).
    m_browser->model()->addFile(m_file, std::move(runs));
    updateLiveMarker();
    addRecent(m_file);
    loadRun(runId);
    return true;
}

bool MainWindow::addFile(const QString& path)
{
    std::vector<RunInfo> runs;
    try {
        Database db(path.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        runs = reader.runs();
        if (runs.empty())
            throw std::runtime_error(path.toStdString() + ": the file holds no runs");
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_browser->model()->addFile(abs, std::move(runs));
    addRecent(abs);
    if (m_file.isEmpty())
        m_file = abs;
    return true;
}

void MainWindow::loadRun(const QString& path, int64_t runId)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs != m_file) {
        saveZoom();
        m_file = abs;
        m_runId = 0;   // nothing of the new file is shown yet: no zoom to save under its key
    }
    loadRun(runId);
}

void MainWindow::loadRun(int64_t runId)
{
    if (m_file.isEmpty())
        return;
    saveZoom();
    m_live->stop();   // a late update of the previous run must not land on this one
    m_runId = runId;
    m_browser->setCurrentRun(runId, m_file);
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(QStringLiteral("Loading run %1...").arg(runId));
    updateLiveMarker();   // the title names the run
    m_detailJob->cancel();
    m_overview.reset();
    m_skeleton.reset();
    m_window.reset();
    LoadOptions options;
    options.detailCapBytes = m_detailCap;
    options.widthPx = m_timeline->plotWidth();
    if (m_persist) {   // the window last shown loads first
        const QVariantList l = QSettings().value(zoomKey()).toList();
        if (l.size() == 2) {
            options.windowStartNs = l[0].toDouble();
            options.windowEndNs = l[1].toDouble();
        }
    }
    m_loader->start(m_file, runId, options);
}

void MainWindow::setDetailCap(int64_t bytes)
{
    m_detailCap = std::max<int64_t>(bytes, 1);
}

void MainWindow::requestDetail()
{
    const std::shared_ptr<const DetailIndex> index = m_loader->detailIndex();
    if (!m_overview || !index || !m_timeline->showsOverview())
        return;   // loaded whole, or nothing to load windows of yet
    const double v0 = m_timeline->viewStartNs(), v1 = m_timeline->viewEndNs();
    const int width = m_timeline->plotWidth();
    const double margin = (v1 - v0) / std::max(width, 1) * DetailIndex::kMarginPx;
    const bool fits = index->fits(m_detailCap);
    // Over the cap, windows before the skeleton is in have no exact lanes: wait for it, unless
    // nothing is on screen yet.
    if (!fits && !m_skeleton && m_window)
        return;
    if (m_window && double(m_window->detailStartNs) <= v0 - margin && double(m_window->detailEndNs) >= v1 + margin &&
        (m_window->detailLanes || !m_skeleton))
        return;   // the loaded window holds the view
    const int64_t budget = fits ? index->activities() / 2
                                : windowBudget(m_detailCap, m_skeleton ? int64_t(m_skeleton->memoryBytes()) : 0);
    const auto range = index->chooseRange(v0, v1, width, budget);
    if (!range)
        return;   // the summary stays (the timeline says so)
    const std::string file = m_overview->filePath.toStdString();
    const int64_t runId = m_runId;
    std::shared_ptr<const RunData> overview = m_overview, skeleton = m_skeleton;
    m_detailJob->start<std::shared_ptr<const RunData>>(
        [file, runId, overview, skeleton, index, range](const JobControl&) -> std::shared_ptr<const RunData> {
            return loadDetailWindow(file, runId, *overview, skeleton.get(), *index, range->first, range->second);
        },
        [this](std::shared_ptr<const RunData> window) {
            if (!m_overview || window->filePath != m_overview->filePath || window->run.id != m_runId || !m_timeline->showsOverview())
                return;
            m_window = window;
            m_timeline->showWindow(std::move(window));
            emit detailWindowShown();
            requestDetail();
        });
}

void MainWindow::onLoaded(std::shared_ptr<const RunData> run)
{
    m_detailJob->cancel();
    m_overview.reset();
    m_window.reset();
    m_progress->hide();
    m_cancel->hide();
    statusBar()->clearMessage();
    m_live->follow(m_file, run->run);
    m_state->setRun(std::move(run));
    updateLiveMarker();
    m_backfill->add(m_file, m_runId);   // an older file's missing summaries, now that the run is there
    if (m_persist) {
        QSettings s;
        QVariant z = s.value(zoomKey());
        if (z.canConvert<QVariantList>()) {
            QVariantList l = z.toList();
            if (l.size() == 2)
                m_timeline->setViewRange(l[0].toDouble(), l[1].toDouble());
        }
    }
    emit runLoaded();
}

void MainWindow::updateLiveMarker()
{
    const bool live = m_live->isLive() && m_live->runId() == m_runId;
    // "FILE: run ID NAME - wheretime": the run on screen (the one loading until it is there).
    QString title = QStringLiteral("wheretime");
    if (!m_file.isEmpty()) {
        title = QFileInfo(m_file).fileName();
        if (m_runId > 0) {
            title += QStringLiteral(": run %1").arg(m_runId);
            const int row = m_browser->model()->rowOfRun(m_runId, m_file);
            if (row >= 0 && !m_browser->model()->runs()[size_t(row)].name.empty())
                title += QLatin1Char(' ') + QString::fromStdString(m_browser->model()->runs()[size_t(row)].name);
        }
        title += QStringLiteral(" - wheretime");
    }
    if (live)
        title += QStringLiteral(" [live]");
    setWindowTitle(title);
    m_liveLabel->setVisible(live);
    if (live && m_state->run()) {
        const RunData& run = *m_state->run();
        m_liveLabel->setText(QStringLiteral("\u25CF LIVE  %1 steps, %2 kernels")
                                 .arg(QLocale().toString(qint64(run.stepCount)), QLocale().toString(qint64(run.kernelCount))));
    }
}

QString MainWindow::zoomKey() const
{
    QByteArray h = QCryptographicHash::hash(m_file.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return QStringLiteral("zoom/") + QString::fromLatin1(h) + QStringLiteral("-") + QString::number(m_runId);
}

void MainWindow::saveZoom()
{
    if (!m_persist || !m_state->run() || m_runId == 0)
        return;
    QSettings s;
    s.setValue(zoomKey(), QVariantList{m_state->viewStartNs(), m_state->viewEndNs()});
}

void MainWindow::addRecent(const QString& path)
{
    if (!m_persist)
        return;
    QSettings s;
    QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    s.setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    QStringList recent = m_persist ? QSettings().value(QStringLiteral("recentFiles")).toStringList() : QStringList();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_backfill->stop();
    m_loader->cancel();
    if (m_persist) {
        saveZoom();
        QSettings s;
        s.setValue(QStringLiteral("window/geometry"), saveGeometry());
        s.setValue(QStringLiteral("window/state"), saveState(2));
    }
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().value(0).isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QString path = event->mimeData()->urls().value(0).toLocalFile();
    if (!path.isEmpty())
        openFile(path);
}

}  // namespace wt::gui
