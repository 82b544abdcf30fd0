// End to end, offscreen: the main window opens a generated run and an imported real trace,
// loads on the worker thread, and the grabbed timeline has tracks and layer lanes and is not
// blank; keyboard navigation moves the visible range as expected; selection reaches the
// details panel; bad files show a one-line error and the window keeps working.
#include "app/gui/core/layerpalette.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "app/gui/widgets/timelinewidget.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QImage>
#include <QSignalSpy>
#include <QLineEdit>
#include <QMenuBar>
#include <QTableView>
#include <QWheelEvent>
#include <QAction>
#include <QMenu>
#include <QTest>
#include <QTreeWidget>

#include <fstream>
#include <set>
#include <sqlite3.h>

using namespace wt::gui;

namespace {

int countRows(const TimelineLayout& layout, Row::Kind kind)
{
    int n = 0;
    for (const Row& r : layout.rows())
        n += r.kind == kind;
    return n;
}

// Distinct colors in the plot area, and whether the palette colors of some layers show.
struct ImageStats {
    size_t distinct = 0;
    size_t paletteHits = 0;
};

ImageStats analyse(const QImage& image, const QRect& area)
{
    std::set<QRgb> colors;
    std::set<QRgb> palette;
    for (int i = 0; i < LayerPalette::kCount; ++i)
        palette.insert(LayerPalette::colorAt(i) | 0xff000000u);
    ImageStats s;
    for (int y = area.top(); y < area.bottom(); y += 2)
        for (int x = area.left(); x < area.right(); x += 2) {
            QRgb c = image.pixel(x, y) | 0xff000000u;
            colors.insert(c);
            s.paletteHits += palette.count(c);
        }
    s.distinct = colors.size();
    return s;
}

}  // namespace

class TstTimelineGui : public QObject {
    Q_OBJECT
private:
    std::string m_runFile;

    bool waitLoaded(MainWindow& w)
    {
        QSignalSpy loaded(&w, &MainWindow::runLoaded);
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        for (int i = 0; i < 600 && loaded.isEmpty() && failed.isEmpty(); ++i)
            QTest::qWait(50);
        return !loaded.isEmpty();
    }

    void checkTimeline(MainWindow& w, int minLanes, int minTracks)
    {
        TimelineWidget* tl = w.timeline();
        QVERIFY(w.viewState()->run());
        QVERIFY2(countRows(tl->layout(), Row::Lane) >= minLanes, "layer lanes missing");
        QVERIFY2(countRows(tl->layout(), Row::Track) >= minTracks, "tracks missing");
        QVERIFY(tl->drawList().itemCount() > 0);
        QImage image = tl->grab().toImage();
        QCOMPARE(image.size(), tl->size() * image.devicePixelRatio());
        ImageStats st = analyse(image, tl->plotRect());
        QVERIFY2(st.distinct > 8, qPrintable(QStringLiteral("only %1 colors").arg(st.distinct)));
        QVERIFY2(st.paletteHits > 100, "no layer colors in the plot");
    }

private slots:
    void initTestCase()
    {
        m_runFile = wt::test::tempPath("gui.wt");
        wt::Database db(m_runFile, wt::OpenMode::ReadWrite);
        wt::Writer writer(db);
        wt::synth::Options o;
        o.kernels = 20000;
        o.layers = 4;
        o.name = "first";
        wt::synth::generate(writer, o);
        o.kernels = 3000;
        o.name = "second";
        wt::synth::generate(writer, o);
    }

    void opensGeneratedRun()
    {
        MainWindow w(false);
        w.resize(1600, 900);
        w.show();
        QVERIFY(w.openFile(QString::fromStdString(m_runFile)));
        QCOMPARE(w.runBrowser()->model()->rowCount(), 2);
        QVERIFY(waitLoaded(w));
        QCOMPARE(QString::fromStdString(w.viewState()->run()->run.name), QStringLiteral("second"));   // newest
        checkTimeline(w, 4, 8);
        // Another run from the browser, by id.
        w.loadRun(1);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.viewState()->run()->kernelCount, 20000);
        checkTimeline(w, 4, 8);
        // Collapsing at the layer level hides the op lane; expanding brings it back.
        TimelineWidget* tl = w.timeline();
        tl->setCollapsedDepth(0, 3);
        QCOMPARE(countRows(tl->layout(), Row::Lane), 3);
        tl->setCollapsedDepth(0, 0);
        QCOMPARE(countRows(tl->layout(), Row::Lane), 4);
    }

    void keyboardNavigation()
    {
        MainWindow w(false);
        w.resize(1600, 900);
        w.show();
        QVERIFY(w.openFile(QString::fromStdString(m_runFile), QStringLiteral("first")));
        QVERIFY(waitLoaded(w));
        TimelineWidget* tl = w.timeline();
        tl->setFocus();
        const double full = tl->mapping().spanNs();
        const double center = (tl->mapping().startNs() + tl->mapping().endNs()) / 2;
        QTest::keyClick(tl, Qt::Key_W);
        QVERIFY(qAbs(tl->mapping().spanNs() - full / 1.25) < 1e-6 * full);
        QTest::keyClick(tl, Qt::Key_W);
        QVERIFY(qAbs(tl->mapping().spanNs() - full / 1.5625) < 1e-6 * full);
        QVERIFY(qAbs((tl->mapping().startNs() + tl->mapping().endNs()) / 2 - center) < 1e-6 * full);
        // The shared state follows the widget.
        QCOMPARE(w.viewState()->viewStartNs(), tl->mapping().startNs());
        double start = tl->mapping().startNs(), span = tl->mapping().spanNs();
        QTest::keyClick(tl, Qt::Key_D);
        QVERIFY(qAbs(tl->mapping().startNs() - (start + 0.1 * span)) < 1e-6 * span);
        QTest::keyClick(tl, Qt::Key_A);
        QTest::keyClick(tl, Qt::Key_A);
        QVERIFY(qAbs(tl->mapping().startNs() - (start - 0.1 * span)) < 1e-6 * span);
        QTest::keyClick(tl, Qt::Key_S);
        QVERIFY(qAbs(tl->mapping().spanNs() - span * 1.25) < 1e-6 * span);
        QTest::keyClick(tl, Qt::Key_F);
        const auto& run = w.viewState()->run();
        QVERIFY(tl->mapping().startNs() <= double(run->spanStartNs));
        QVERIFY(tl->mapping().endNs() >= double(run->spanEndNs));
        QVERIFY(tl->mapping().spanNs() <= 1.05 * double(run->spanEndNs - run->spanStartNs));

        // Zoom deep, select a kernel by clicking it, F fits the selection, details show it.
        const TrackData& track = run->tracks.front();
        size_t k = track.size() / 2;
        tl->setViewRange(double(track.startNs[k]) - 2000, double(track.endNs(k)) + 2000);
        int row = -1;
        for (size_t r = 0; r < tl->layout().rows().size(); ++r)
            if (tl->layout().rows()[r].kind == Row::Track && tl->layout().rows()[r].index == 0)
                row = int(r);
        QVERIFY(row >= 0);
        const Row& rr = tl->layout().rows()[size_t(row)];
        double x = tl->mapping().x((double(track.startNs[k]) + double(track.endNs(k))) / 2) + TimelineWidget::kGutterWidth;
        QPoint pos(int(x), TimelineWidget::kRulerHeight + rr.y + rr.height / 2);
        QVERIFY(tl->toolTipAt(pos).contains(QStringLiteral("grid")));
        QTest::mouseClick(tl, Qt::LeftButton, Qt::NoModifier, pos);
        QCOMPARE(w.viewState()->selection().kind, Selection::Activity);
        QCOMPARE(w.viewState()->selection().index, uint32_t(k));
        QVERIFY(w.details()->tree()->topLevelItemCount() > 0);
        QCOMPARE(w.details()->tree()->topLevelItem(0)->text(1), run->name(track.nameId[k]));
        QTest::keyClick(tl, Qt::Key_F);
        QVERIFY(tl->mapping().spanNs() < 1.1 * double(track.durationNs[k]) + 20);

        // Shift-drag selects a range; the details show time by layer.
        tl->setViewRange(double(run->spanStartNs), double(run->spanEndNs));
        QPoint a(TimelineWidget::kGutterWidth + 100, pos.y()), b(TimelineWidget::kGutterWidth + 400, pos.y());
        QTest::mousePress(tl, Qt::LeftButton, Qt::ShiftModifier, a);
        QMouseEvent move(QEvent::MouseMove, b, tl->mapToGlobal(b), Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        QApplication::sendEvent(tl, &move);
        QTest::mouseRelease(tl, Qt::LeftButton, Qt::ShiftModifier, b);
        QVERIFY(w.viewState()->hasRangeSelection());
        QVERIFY(qAbs(w.viewState()->rangeStartNs() - tl->mapping().timeAt(100)) < tl->mapping().nsPerPx());
        bool layers = false;
        for (int i = 0; i < w.details()->tree()->topLevelItemCount(); ++i)
            layers |= w.details()->tree()->topLevelItem(i)->text(0) == QStringLiteral("Range");
        QVERIFY(layers);
        QTest::keyClick(tl, Qt::Key_Escape);
        QVERIFY(!w.viewState()->hasRangeSelection());
    }

    // Issue 26, navigation as the peers: F fits the run's span exactly; the keys work with the
    // focus elsewhere in the window but not in a text field; Ctrl+wheel zooms, the wheel
    // scrolls, Shift+wheel and the horizontal wheel pan; double-click zooms to a slice; Help
    // lists the keys.
    void navigationAsThePeers()
    {
        MainWindow w(false);
        w.resize(1600, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFile(QString::fromStdString(m_runFile), QStringLiteral("first")));
        QVERIFY(waitLoaded(w));
        TimelineWidget* tl = w.timeline();
        const auto& run = w.viewState()->run();
        tl->zoomBy(3);
        QTest::keyClick(tl, Qt::Key_F);
        QCOMPARE(tl->mapping().startNs(), double(run->spanStartNs));
        QCOMPARE(tl->mapping().endNs(), double(run->spanEndNs));

        // W with the focus in the runs table: the timeline zooms; typed in the runs' filter box: not.
        const double full = tl->mapping().spanNs();
        QWidget* table = w.runBrowser()->findChild<QTableView*>();
        QVERIFY(table);
        table->setFocus();
        QTest::keyClick(table, Qt::Key_W);
        QVERIFY(qAbs(tl->mapping().spanNs() - full / 1.25) < 1e-6 * full);
        QLineEdit* filter = w.runBrowser()->findChild<QLineEdit*>();
        QVERIFY(filter);
        filter->setFocus();
        QTest::keyClick(filter, Qt::Key_W);
        QVERIFY(qAbs(tl->mapping().spanNs() - full / 1.25) < 1e-6 * full);
        QCOMPARE(filter->text(), QStringLiteral("w"));
        filter->clear();

        // The wheel: Ctrl zooms, plain scrolls the rows (the view keeps its span), Shift pans.
        const QPointF at(TimelineWidget::kGutterWidth + 300, TimelineWidget::kRulerHeight + 40);
        auto wheel = [&](QPoint delta, Qt::KeyboardModifiers mods) {
            QWheelEvent e(at, tl->mapToGlobal(at), QPoint(), delta, Qt::NoButton, mods, Qt::NoScrollPhase, false);
            QApplication::sendEvent(tl, &e);
        };
        double span = tl->mapping().spanNs(), start = tl->mapping().startNs();
        wheel(QPoint(0, 120), Qt::ControlModifier);
        QVERIFY(tl->mapping().spanNs() < 0.9 * span);
        span = tl->mapping().spanNs();
        start = tl->mapping().startNs();
        wheel(QPoint(0, -120), Qt::NoModifier);
        QCOMPARE(tl->mapping().spanNs(), span);
        QCOMPARE(tl->mapping().startNs(), start);
        wheel(QPoint(0, -120), Qt::ShiftModifier);
        QVERIFY(qAbs(tl->mapping().startNs() - (start + 0.1 * span)) < 0.01 * span);
        QCOMPARE(tl->mapping().spanNs(), span);
        wheel(QPoint(120, 0), Qt::NoModifier);   // a trackpad's horizontal swipe: back
        QVERIFY(qAbs(tl->mapping().startNs() - start) < 0.01 * span);

        // Double-click a kernel: selected, and the view is its span (with the fit's margin).
        const TrackData& track = run->tracks.front();
        const size_t k = track.size() / 3;
        tl->setViewRange(double(track.startNs[k]) - 5000, double(track.endNs(k)) + 5000);
        int row = -1;
        for (size_t r = 0; r < tl->layout().rows().size(); ++r)
            if (tl->layout().rows()[r].kind == Row::Track && tl->layout().rows()[r].index == 0)
                row = int(r);
        QVERIFY(row >= 0);
        const Row& rr = tl->layout().rows()[size_t(row)];
        const double x = tl->mapping().x((double(track.startNs[k]) + double(track.endNs(k))) / 2) + TimelineWidget::kGutterWidth;
        QTest::mouseDClick(tl, Qt::LeftButton, Qt::NoModifier, QPoint(int(x), TimelineWidget::kRulerHeight + rr.y + rr.height / 2 - tl->scrollY()));
        QCOMPARE(w.viewState()->selection().kind, Selection::Activity);
        QCOMPARE(w.viewState()->selection().index, uint32_t(k));
        QVERIFY(tl->mapping().spanNs() < 1.1 * double(track.durationNs[k]) + 20);

        // Help > Keyboard shortcuts lists what the handlers do.
        bool listed = false;
        for (QAction* menu : w.menuBar()->actions())
            if (menu->text().remove(QLatin1Char('&')) == QStringLiteral("Help"))
                for (QAction* a : menu->menu()->actions())
                    listed |= a->text().remove(QLatin1Char('&')) == QStringLiteral("Keyboard shortcuts");
        QVERIFY(listed);
        for (const char* key : {"Ctrl+wheel", "Shift+wheel", "double-click", "Shift+drag", "W / S", "A / D", "Ctrl+F"})
            QVERIFY2(TimelineWidget::shortcutsHelp().contains(QLatin1String(key)), key);
    }

    void selectingScopeHighlightsKernels()
    {
        MainWindow w(false);
        w.resize(1600, 900);
        w.show();
        QVERIFY(w.openFile(QString::fromStdString(m_runFile), QStringLiteral("first")));
        QVERIFY(waitLoaded(w));
        const auto& run = w.viewState()->run();
        const LaneData& layerLane = run->lanes[2];
        uint32_t inst = layerLane.items[layerLane.items.size() / 2];
        Selection sel;
        sel.kind = Selection::Scope;
        sel.index = inst;
        w.viewState()->setSelection(sel);
        QTest::keyClick(w.timeline(), Qt::Key_F);   // fit the scope
        size_t highlighted = 0;
        for (const auto& items : w.timeline()->drawList().rows)
            for (const DrawItem& d : items)
                highlighted += (d.flags & DrawItem::Highlighted) != 0;
        QVERIFY(highlighted > 0);
    }

    void badFilesKeepTheAppRunning()
    {
        MainWindow w(false);
        w.show();
        std::string garbage = wt::test::tempPath("garbage.wt");
        std::ofstream(garbage) << "definitely not sqlite";
        QVERIFY(!w.openFile(QString::fromStdString(garbage)));
        QVERIFY(!w.lastError().isEmpty());
        QVERIFY(!w.lastError().contains(QLatin1Char('\n')));
        // A newer schema than this build knows.
        std::string newer = wt::test::tempPath("newer.wt");
        {
            wt::Database db(newer, wt::OpenMode::ReadWrite);
            wt::Writer writer(db);
            wt::synth::Options o;
            o.kernels = 100;
            wt::synth::generate(writer, o);
            db.exec("PRAGMA user_version = 999");
        }
        QVERIFY(!w.openFile(QString::fromStdString(newer)));
        QVERIFY2(!w.lastError().isEmpty(), "newer schema accepted");
        QVERIFY(!w.openFile(QStringLiteral("/nonexistent/file.wt")));
        // Still works afterwards.
        QVERIFY(w.openFile(QString::fromStdString(m_runFile)));
        QVERIFY(waitLoaded(w));
    }

    void opensImportedTrace()
    {
#ifndef WT_HAVE_IMPORTER
        QSKIP("the importer (wt_interop) was not part of this build when it was configured");
#else
        WT_REQUIRE_TRACE(trace, "nsys-2026.2_h100x2_fastvideo-1s.sqlite");
        QString out = QString::fromStdString(wt::test::tempPath("imported.wt"));
        auto r = wt::test::runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        MainWindow w(false);
        w.resize(1600, 900);
        w.show();
        QVERIFY(w.openFile(out));
        QVERIFY(waitLoaded(w));
        const auto& run = w.viewState()->run();
        QCOMPARE(run->kernelCount, 3442);   // reference number of the shared trace
        TimelineWidget* tl = w.timeline();
        QCOMPARE(countRows(tl->layout(), Row::DeviceHeader), 2);   // two H100s
        checkTimeline(w, 1, 2);
        double span = tl->mapping().spanNs();
        QTest::keyClick(tl, Qt::Key_W);
        QVERIFY(tl->mapping().spanNs() < span);
#endif
    }
};

QTEST_MAIN(TstTimelineGui)
#include "tst_timelinegui.moc"
