// The live view: the GUI follows a capture that a child process (the CLI) is writing. The main
// window (with the breakdown view) opens the run while it is `writing`, marks it live, and its
// timeline, breakdown, details and run list see the run grow at least twice, each reload being
// one consistent commit, the user's zoom and selection kept; when the capture ends (SIGINT: the
// run is kept as `interrupted`) it shows the final status and stops being live.
#include "app/gui/breakdown/breakdownactions.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/core/livefollower.h"
#include "app/gui/core/runlistmodel.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"
#include "tests/support/testsupport.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <algorithm>
#include <csignal>

using namespace wt;
using namespace wt::gui;

namespace {

// The run the capture writes, as another process reads it now (none yet: id 0).
RunInfo readRun(const std::string& path)
{
    try {
        Database db(path, OpenMode::ReadOnly);
        std::vector<RunInfo> runs = Reader(db).runs();
        if (!runs.empty())
            return runs.back();
    } catch (const StorageError&) {
        // Not created yet, or its schema is being written.
    }
    return {};
}

QString statusText(RunStatus status)
{
    const std::string_view s = wt::toString(status);
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

struct Update {
    int64_t kernels = 0;           // activities loaded on kernel tracks (the timeline's)
    int64_t storedKernels = 0;     // the run's committed summary, read in the same snapshot
    int64_t kernelTimeNs = 0;
    int64_t breakdownTotalNs = 0;  // what the breakdown shows after the update
    int64_t steps = 0;
    RunStatus status = RunStatus::Writing;
};

}  // namespace

class TstLiveView : public QObject {
    Q_OBJECT
private slots:
    void followsCapture();
};

void TstLiveView::followsCapture()
{
    const std::string path = test::tempPath("live.wt");
    const QString file = QString::fromStdString(path);
    QProcess capture;
    capture.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // Steps without end: the test ends the capture (SIGINT) once it has seen the run grow, so a
    // fast or a loaded machine cannot finish it early.
    capture.start(qEnvironmentVariable("WHERETIME_CLI"),
                  {QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                   QStringLiteral("small"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                   QStringLiteral("1000000"), QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("-o"), file});
    QVERIFY2(capture.waitForStarted(), "cannot start the CLI: set WHERETIME_CLI (CTest does)");
    auto cleanup = qScopeGuard([&] {
        if (capture.state() != QProcess::NotRunning) {
            capture.kill();
            capture.waitForFinished(10000);
        }
    });

    // The run is being written and has committed kernels.
    QTRY_VERIFY_WITH_TIMEOUT(readRun(path).status == RunStatus::Writing && readRun(path).kernels > 0, 60000);

    QElapsedTimer clock;   // the follower's ticks start when the run is loaded, after this
    clock.start();
    MainWindow window(false);
    BreakdownActions* actions = BreakdownActions::install(&window);
    BreakdownView* breakdown = actions->view();
    window.resize(1200, 700);
    window.show();
    QVERIFY(window.openFile(file));
    QTRY_VERIFY_WITH_TIMEOUT(window.viewState()->run() != nullptr, 30000);
    const auto first = window.viewState()->run();
    QCOMPARE(statusText(first->run.status), QStringLiteral("writing"));

    // Says it is live: the follower, the run browser's row, the title and the status bar.
    LiveFollower* live = window.liveFollower();
    QVERIFY(live->isLive());
    RunListModel* model = window.runBrowser()->model();
    const int row = model->rowOfRun(first->run.id);
    QVERIFY(row >= 0);
    QVERIFY(model->data(model->index(row, RunListModel::Status), RunListModel::LiveRole).toBool());
    QCOMPARE(model->data(model->index(row, RunListModel::Status)).toString(), QStringLiteral("writing (live)"));
    QVERIFY(window.windowTitle().contains(QStringLiteral("[live]")));
    QVERIFY(!window.liveLabel()->isHidden());
    QVERIFY(window.liveLabel()->text().contains(QStringLiteral("LIVE")));

    // The user zooms into the first half of what is there and selects the first kernel.
    ViewState* state = window.viewState();
    QVERIFY(!first->tracks.empty() && first->tracks[0].size() > 0);
    state->setViewRange(double(first->spanStartNs), double(first->spanStartNs) + double(first->spanEndNs - first->spanStartNs) / 2 + 1000);
    const double t0 = state->viewStartNs(), t1 = state->viewEndNs();   // as the timeline's mapping settled it
    const int64_t selectedTrack = first->tracks[0].id;
    const int64_t selectedStart = first->tracks[0].startNs[0];
    state->setSelection(Selection{Selection::Activity, 0, 0});

    std::vector<Update> updates;
    const QMetaObject::Connection watching = connect(state, &ViewState::runUpdated, this, [&] {
        const RunData& r = *state->run();
        updates.push_back(Update{r.kernelCount, r.run.kernels, r.run.kernelTimeNs, breakdown->result().totalNs,
                                 r.stepCount, r.run.status});
    });
    auto unwatch = qScopeGuard([&] { disconnect(watching); });
    auto grewTwice = [&] {
        int64_t last = first->kernelCount;
        int grew = 0;
        for (const Update& u : updates) {
            grew += u.kernels > last ? 1 : 0;
            last = std::max(last, u.kernels);
        }
        return grew >= 2;
    };
    QTRY_VERIFY_WITH_TIMEOUT(grewTwice(), 45000);

    for (const Update& u : updates) {
        // One snapshot per reload: the loaded kernels are exactly the committed summary's, and the
        // breakdown shows the same kernel time.
        QCOMPARE(u.kernels, u.storedKernels);
        QCOMPARE(u.breakdownTotalNs, u.kernelTimeNs);
        QCOMPARE(statusText(u.status), QStringLiteral("writing"));
    }
    // At most one reload a second: the follower polls on a one-second timer, one poll at a time,
    // and reloads at most once per poll. (Not reloads per wall-clock interval: a coarse timer may
    // fire a little early, and a loaded machine delays ticks.)
    QCOMPARE(live->intervalMs(), LiveFollower::kIntervalMs);
    QVERIFY2(int64_t(updates.size()) <= live->polls(),
             qPrintable(QStringLiteral("%1 reloads in %2 polls").arg(updates.size()).arg(live->polls())));
    QVERIFY(updates.back().kernelTimeNs > first->run.kernelTimeNs);
    qInfo("%zu reloads in %lld ms; kernels %lld -> %lld", updates.size(), static_cast<long long>(clock.elapsed()),
          static_cast<long long>(first->kernelCount), static_cast<long long>(updates.back().kernels));
    // The zoom and the selection stayed; the selected kernel is the same one.
    QCOMPARE(state->viewStartNs(), t0);
    QCOMPARE(state->viewEndNs(), t1);
    QCOMPARE(state->selection().kind, Selection::Activity);
    // Hold the run: the event loop below may swap in a newer reload.
    const auto held = state->run();
    const RunData& now = *held;
    QCOMPARE(now.tracks[state->selection().track].id, selectedTrack);
    QCOMPARE(now.tracks[state->selection().track].startNs[state->selection().index], selectedStart);
    // The run browser's row and the status bar follow too.
    QTRY_COMPARE_WITH_TIMEOUT(model->data(model->index(row, RunListModel::Kernels), RunListModel::SortRole).toLongLong(),
                              qint64(state->run()->run.kernels), 5000);
    QVERIFY(window.liveLabel()->text().contains(QLocale().toString(qint64(state->run()->kernelCount))));

    // The capture ends: the run is kept as interrupted, and the window says so.
    ::kill(pid_t(capture.processId()), SIGINT);
    QVERIFY(capture.waitForFinished(60000));
    QCOMPARE(capture.exitCode(), 130);
    QTRY_VERIFY_WITH_TIMEOUT(!live->isLive(), 15000);
    const RunInfo final = readRun(path);
    QCOMPARE(statusText(final.status), QStringLiteral("interrupted"));
    QCOMPARE(statusText(state->run()->run.status), QStringLiteral("interrupted"));
    QCOMPARE(state->run()->kernelCount, final.kernels);
    QCOMPARE(breakdown->result().totalNs, final.kernelTimeNs);
    QVERIFY(state->run()->stepCount >= updates.back().steps);
    QCOMPARE(model->data(model->index(row, RunListModel::Status)).toString(), QStringLiteral("interrupted"));
    QVERIFY(!model->data(model->index(row, RunListModel::Status), RunListModel::LiveRole).toBool());
    QVERIFY(!window.windowTitle().contains(QStringLiteral("[live]")));
    QVERIFY(window.liveLabel()->isHidden());
    QCOMPARE(state->viewStartNs(), t0);
    QCOMPARE(state->viewEndNs(), t1);
    // No more reloads once it is final.
    const size_t settled = updates.size();
    QTest::qWait(2500);
    QCOMPARE(updates.size(), settled);
}

QTEST_MAIN(TstLiveView)
#include "tst_liveview.moc"
