// An older (schema-5) file in the main window: the first frame comes from its stored summary
// before any scope lane is stored, then the background pass (core/backfilljob.h) stores every
// run's lanes, the run on screen first, saying so in the status bar; they equal a fresh
// computation; a file with nothing missing starts no pass; a stopped pass keeps what it stored
// and the next one does the rest.
#include "app/gui/core/backfilljob.h"
#include "app/gui/core/runloader.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/mainwindow.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/runoverview.h"
#include "storage/scopelanes.h"
#include "storage/writer.h"
#include "tests/support/tabledump.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <sqlite3.h>

using namespace wt;
using namespace wt::gui;

namespace {

using wt::test::laneSets;

std::vector<int64_t> writeVersion5(const std::string& path, int runs)
{
    std::vector<int64_t> ids;
    {
        Database db(path, OpenMode::ReadWrite);
        for (int i = 0; i < runs; ++i) {
            Writer w(db);
            synth::Options o;
            o.kernels = 30000 + 5000 * i;
            o.layers = 4;
            o.seed = uint64_t(3 + i);
            o.name = "older-" + std::to_string(i);
            ids.push_back(synth::generate(w, o).runId);
        }
    }
    sqlite3* h = nullptr;
    sqlite3_open(path.c_str(), &h);
    sqlite3_exec(h, "DROP TABLE scope_lane_chunks; DROP TABLE scope_lanes; DROP TABLE scope_lane_sets; PRAGMA user_version=5;",
                 nullptr, nullptr, nullptr);
    sqlite3_close(h);
    return ids;
}

bool lanesEqualFresh(const std::string& path, int64_t runId)
{
    Database db(path, OpenMode::ReadOnly);
    ScopeLaneSet fresh;
    computeRunOverview(db, runId, &fresh);
    const std::optional<std::vector<ScopeLane>> stored = readScopeLanes(db, runId);
    return stored && *stored == fresh.lanes;
}

}  // namespace

class TestBackfillView : public QObject {
    Q_OBJECT

private slots:
    void firstFrameThenLanesInTheBackground()
    {
        const std::string path = test::tempPath("backfill-gui-v5.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 2);
        MainWindow w(false);
        w.resize(1200, 700);
        w.show();
        int64_t lanesAtFirstFrame = -1;
        connect(w.loader(), &RunLoader::overviewLoaded, this, [&] { lanesAtFirstFrame = laneSets(path); });
        QSignalSpy overview(w.loader(), &RunLoader::overviewLoaded);
        QSignalSpy loaded(&w, &MainWindow::runLoaded);
        QSignalSpy started(w.backfill(), &BackfillJob::runStarted);
        QSignalSpy stored(w.backfill(), &BackfillJob::runStored);
        QSignalSpy done(w.backfill(), &BackfillJob::fileDone);
        bool labelShown = false;
        connect(w.backfill(), &BackfillJob::runStarted, this, [&] {
            labelShown = labelShown || (w.backfillLabel()->isVisible() && w.backfillLabel()->text().contains(QStringLiteral("scope lanes")));
        });
        QVERIFY(w.openFile(QString::fromStdString(path), QStringLiteral("1")));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(overview.size(), 1);              // drawn from the schema-5 summary
        QCOMPARE(lanesAtFirstFrame, int64_t(0));   // before any lane was computed
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(1).toInt(), 2);
        QCOMPARE(started.size(), 2);
        QCOMPARE(started.first().at(1).toLongLong(), qint64(runs[0]));   // the run on screen first
        QCOMPARE(stored.size(), 2);
        QVERIFY(labelShown);
        QVERIFY(!w.backfillLabel()->isVisible());
        for (int64_t run : runs)
            QVERIFY(lanesEqualFresh(path, run));

        // Up to date now: a second window finds nothing to do.
        MainWindow again(false);
        QSignalSpy loaded2(&again, &MainWindow::runLoaded);
        QSignalSpy started2(again.backfill(), &BackfillJob::runStarted);
        QSignalSpy done2(again.backfill(), &BackfillJob::fileDone);
        QVERIFY(again.openFile(QString::fromStdString(path), QStringLiteral("2")));
        QVERIFY(loaded2.wait(60000));
        QVERIFY(done2.wait(30000));
        QCOMPARE(done2.first().at(1).toInt(), 0);
        QCOMPARE(started2.size(), 0);
    }

    void aStoppedPassKeepsWhatItStored()
    {
        const std::string path = test::tempPath("backfill-gui-stop.wt");
        const std::vector<int64_t> runs = writeVersion5(path, 3);
        { Database ro(path, OpenMode::ReadOnly); }   // migrated: empty lane tables
        {
            BackfillJob job;
            QSignalSpy stored(&job, &BackfillJob::runStored);
            job.add(QString::fromStdString(path));
            QVERIFY(stored.wait(60000));
            job.stop();    // the window closing: interrupts the next run's pass
            job.wait();
        }
        const int64_t kept = laneSets(path);
        QVERIFY(kept >= 1 && kept <= 3);
        BackfillJob next;
        QSignalSpy done(&next, &BackfillJob::fileDone);
        next.add(QString::fromStdString(path));
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(1).toInt(), int(3 - kept));
        QCOMPARE(laneSets(path), int64_t(3));
        for (int64_t run : runs)
            QVERIFY(lanesEqualFresh(path, run));
    }
};

QTEST_MAIN(TestBackfillView)
#include "tst_backfillview.moc"
