// A run opened under a memory cap smaller than its activities (windowedrun.h, issue 29 item 3):
// every view inside a loaded window draws exactly the fully loaded run's draw list (row by row:
// position, width, fold count, colour, flags; the painted spans), at several zooms and pans on a
// synthetic run with a tiny cap; views the cap cannot hold stay on the summary; a range's
// breakdown from that range's chunks alone equals the fully loaded run's; and the loader draws
// the visible window's chunks before the rest of the run.
#include "analysis/breakdown.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/overviewrun.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/runloader.h"
#include "app/gui/core/timelinelayout.h"
#include "app/gui/core/windowedrun.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/timelinewidget.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/drawlistcompare.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace wt;
using namespace wt::gui;

namespace {

constexpr int kWidth = 1200;

// The activities a window holds: its items inside the detail range (the summary's are clipped
// outside it).
size_t detailItems(const RunData& w)
{
    size_t n = 0;
    for (const TrackData& t : w.tracks)
        for (size_t i = 0; i < t.size(); ++i)
            n += t.startNs[i] < w.detailEndNs && std::max(t.endNs(i), t.startNs[i] + 1) > w.detailStartNs;
    return n;
}

using test::compareDrawLists;

}  // namespace

class TestWindowedDetail : public QObject {
    Q_OBJECT
private:
    std::string m_file;
    std::shared_ptr<RunData> m_full, m_overview, m_skeleton;
    DetailIndex m_index;

private slots:
    void initTestCase()
    {
        m_file = test::tempPath("windowed.wt");
        Database db(m_file, OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        // Two streams of 40k: the FoldIndex's coarse levels fold whole buckets at the wider
        // zooms below (a bucket of 64 items is 3-6 px there), where only the full run's grid
        // gives the full run's folds.
        o.kernels = 80000;
        o.streams = 2;
        o.layers = 4;
        o.memcpyEvery = 300;
        synth::generate(w, o);
        m_full = loadRun(m_file, 1);
        m_overview = loadOverviewRun(m_file, 1);
        QVERIFY2(m_overview, "no stored summary");
        LoadCallbacks cb;
        cb.keepActivities = false;
        m_skeleton = loadRun(m_file, 1, cb);
        m_index = DetailIndex::load(m_file, 1);
    }

    void skeletonKeepsNoActivities()
    {
        QVERIFY(m_skeleton->skeleton);
        QCOMPARE(m_skeleton->tracks.size(), m_full->tracks.size());
        for (const TrackData& t : m_skeleton->tracks)
            QCOMPARE(t.size(), size_t(0));
        QCOMPARE(m_skeleton->instances.size(), m_full->instances.size());
        QCOMPARE(m_skeleton->lanes.size(), m_full->lanes.size());
        QCOMPARE(m_skeleton->kernelCount, m_full->kernelCount);
        QVERIFY(m_skeleton->memoryBytes() < m_full->memoryBytes());
        QCOMPARE(m_index.activities(), m_full->activityCount);
        // The grid a window indexes a track on is the one the full load built.
        for (const TrackData& t : m_full->tracks)
            QVERIFY(m_index.trackGrid(t.id) == t.index.grid());
    }

    void byteSizes()
    {
        QCOMPARE(parseByteSize(QStringLiteral("4G")).value_or(0), int64_t(4) << 30);
        QCOMPARE(parseByteSize(QStringLiteral("512MiB")).value_or(0), int64_t(512) << 20);
        QCOMPARE(parseByteSize(QStringLiteral("100000")).value_or(0), int64_t(100000));
        QVERIFY(!parseByteSize(QStringLiteral("0")));
        QVERIFY(!parseByteSize(QStringLiteral("4 apples")));
        QVERIFY(!parseByteSize(QStringLiteral("")));
    }

    void sameDrawListAsTheLoadedRun_data()
    {
        QTest::addColumn<double>("center");   // fraction of the run's span
        QTest::addColumn<double>("width");    // fraction of the run's span
        QTest::newRow("45%") << 0.5 << 0.45;
        QTest::newRow("30%") << 0.4 << 0.3;
        QTest::newRow("10% left") << 0.12 << 0.10;
        QTest::newRow("10% right") << 0.9 << 0.10;
        QTest::newRow("1%") << 0.37 << 0.01;
        QTest::newRow("0.1%") << 0.61 << 0.001;
        QTest::newRow("0.01%") << 0.23 << 0.0001;
        QTest::newRow("1e-5 at the start") << 0.00001 << 0.00001;
        QTest::newRow("0.5% at the end") << 0.998 << 0.005;
    }

    void sameDrawListAsTheLoadedRun()
    {
        QFETCH(double, center);
        QFETCH(double, width);
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        const double c = double(m_full->spanStartNs) + center * span, w = width * span;
        // A cap of 60% of the run's activities: never loaded whole, windows up to that.
        const int64_t budget = m_full->activityCount * 3 / 5;
        QVERIFY(!m_index.fits(budget * kLoadedBytesPerActivity));
        TimelineLayout lf, lw;
        lf.build(*m_full, {});
        // Pans inside one loaded window (as the user drags), then the next window.
        std::shared_ptr<RunData> window;
        for (double pan : {0.0, 0.3, -0.45, 1.5, -2.0}) {
            const double v0 = std::clamp(c - w / 2 + pan * w, double(m_full->spanStartNs), double(m_full->spanEndNs) - w);
            const double v1 = v0 + w;
            if (!window || double(window->detailStartNs) > v0 - w / kWidth * DetailIndex::kMarginPx ||
                double(window->detailEndNs) < v1 + w / kWidth * DetailIndex::kMarginPx) {
                auto range = m_index.chooseRange(v0, v1, kWidth, budget);
                QVERIFY2(range, "the window does not fit the cap");
                window = loadDetailWindow(m_file, 1, *m_overview, m_skeleton.get(), m_index, range->first, range->second);
                QVERIFY(window->windowed && window->detailLanes);
                // Bounded by the window, not by the run (the summary's buckets aside).
                QVERIFY(detailItems(*window) <= size_t(budget + budget / 4));   // countIn estimates edge chunks
                lw.build(*window, {});
                QCOMPARE(lw.rows().size(), lf.rows().size());
                for (size_t r = 0; r < lf.rows().size(); ++r)
                    QCOMPARE(int(lw.rows()[r].kind), int(lf.rows()[r].kind));
            }
            TimeMapping m(v0, v1, kWidth);
            DrawList df, dw;
            buildDrawList(*m_full, lf, m, Selection{}, df);
            buildDrawList(*window, lw, m, Selection{}, dw);
            const QString diff = compareDrawLists(df, dw);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("pan %1: %2").arg(pan).arg(diff)));
            QVERIFY(df.itemCount() > 0);
        }
    }

    void summaryWhereTheCapCannotHoldTheWindow()
    {
        // The whole run under a cap of a quarter of it: no range fits; the overview stays.
        const int64_t budget = m_full->activityCount / 4;
        QVERIFY(!m_index.chooseRange(double(m_full->spanStartNs), double(m_full->spanEndNs), kWidth, budget));
        // A window outside the loaded range draws the summary there: the loaded range is small.
        auto range = m_index.chooseRange(double(m_full->spanStartNs), double(m_full->spanStartNs) + 1e5, kWidth, budget);
        QVERIFY(range);
        auto window = loadDetailWindow(m_file, 1, *m_overview, m_skeleton.get(), m_index, range->first, range->second);
        QVERIFY(detailItems(*window) <= size_t(budget + budget / 4));
        QVERIFY(detailItems(*window) > 0);
    }

    void windowWithoutSkeletonHasExactTracks()
    {
        // Before the skeleton is read (the visible window first): the tracks' items inside the
        // window are the loaded run's, lanes are the summary's.
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        const int64_t t0 = m_full->spanStartNs + int64_t(0.3 * span), t1 = t0 + int64_t(0.02 * span);
        auto window = loadDetailWindow(m_file, 1, *m_overview, nullptr, m_index, t0, t1);
        QVERIFY(!window->detailLanes);
        QCOMPARE(window->lanes.size(), m_overview->lanes.size());
        QCOMPARE(window->tracks.size(), m_full->tracks.size());
        for (size_t k = 0; k < m_full->tracks.size(); ++k) {
            const TrackData& f = m_full->tracks[k];
            const TrackData& wt = window->tracks[k];
            std::vector<std::tuple<int64_t, uint32_t, uint32_t, QRgb>> a, b;
            for (size_t i = 0; i < f.size(); ++i)
                if (f.startNs[i] < t1 && std::max(f.endNs(i), f.startNs[i] + 1) > t0)
                    a.emplace_back(f.startNs[i], f.durationNs[i], f.nameId[i], m_full->activityColor(f, i));
            // Summary items are clipped outside [t0, t1): whatever overlaps it is an activity.
            for (size_t i = 0; i < wt.size(); ++i)
                if (wt.startNs[i] < t1 && std::max(wt.endNs(i), wt.startNs[i] + 1) > t0)
                    b.emplace_back(wt.startNs[i], wt.durationNs[i], wt.nameId[i], window->activityColor(wt, i));
            QVERIFY(!a.empty());
            QCOMPARE(b.size(), a.size());
            QVERIFY(a == b);
        }
    }

    void rangeBreakdownReadsOnlyTheRange()
    {
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        const int64_t t0 = m_full->spanStartNs + int64_t(0.55 * span), t1 = t0 + int64_t(0.05 * span);
        auto range = loadRangeRun(m_file, 1, *m_overview, t0, t1);
        size_t held = 0;
        for (const TrackData& t : range->tracks)
            held += t.size();
        QVERIFY(held > 0 && held < size_t(m_full->activityCount) / 5);
        const TimeRange r{t0, t1};
        const GroupLevel level{GroupBy::Layer, {}, kDefaultScopeDepth};
        ActivityView fv = m_full->activities(), rv = range->activities();
        Breakdown bf = computeBreakdown(*m_full->profile, level, &fv, r);
        Breakdown br = computeBreakdown(*m_full->profile, level, &rv, r);
        QCOMPARE(br.groups.size(), bf.groups.size());
        QVERIFY(!bf.groups.empty());
        for (size_t g = 0; g < bf.groups.size(); ++g) {
            QCOMPARE(br.groups[g].path, bf.groups[g].path);
            QCOMPARE(br.groups[g].timeNs, bf.groups[g].timeNs);
            QCOMPARE(br.groups[g].count, bf.groups[g].count);
        }
    }

    void rangeBreakdownOverTheCapFromTheFile()
    {
        // The breakdown view's source over the cap is the overview's stored totals; a time
        // range on it reads that range's chunks from the file (loadRangeRun) and gives the
        // fully loaded run's figures.
        auto stored = BreakdownSource::loadStored(std::shared_ptr<const RunData>(m_overview));
        auto full = BreakdownSource::load(std::shared_ptr<const RunData>(m_full));
        QVERIFY(stored->hasRanges());
        QVERIFY(!BreakdownSource::loadStored(*m_overview)->hasRanges());   // no file kept: totals only
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        const double t0 = double(m_full->spanStartNs) + 0.31 * span, t1 = t0 + 0.07 * span;
        for (GroupBy g : {GroupBy::Layer, GroupBy::Kernel}) {
            const BreakdownLevel level{g, {}, kDefaultScopeDepth};
            const BreakdownResult a = full->computeRange(level, t0, t1), b = stored->computeRange(level, t0, t1);
            QVERIFY(a.range && b.range);
            QVERIFY(!a.rows.empty());
            QCOMPARE(b.totalNs, a.totalNs);
            QCOMPARE(b.rows.size(), a.rows.size());
            for (size_t r = 0; r < a.rows.size(); ++r) {
                QCOMPARE(b.rows[r].name, a.rows[r].name);
                QCOMPARE(b.rows[r].timeNs, a.rows[r].timeNs);
                QCOMPARE(b.rows[r].count, a.rows[r].count);
            }
        }
    }

    void visibleWindowLoadsFirst()
    {
        // The loader's window stage comes after the overview and before the whole run, and
        // holds the window's activities only.
        RunLoader loader;
        QSignalSpy overview(&loader, &RunLoader::overviewLoaded);
        QSignalSpy window(&loader, &RunLoader::windowLoaded);
        QSignalSpy loaded(&loader, &RunLoader::loaded);
        std::vector<int> order;
        connect(&loader, &RunLoader::overviewLoaded, this, [&] { order.push_back(0); });
        connect(&loader, &RunLoader::windowLoaded, this, [&] { order.push_back(1); });
        connect(&loader, &RunLoader::loaded, this, [&] { order.push_back(2); });
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        LoadOptions o;
        o.windowStartNs = double(m_full->spanStartNs) + 0.4 * span;
        o.windowEndNs = o.windowStartNs + 0.01 * span;
        o.widthPx = kWidth;
        loader.start(QString::fromStdString(m_file), 1, o);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(order, (std::vector<int>{0, 1, 2}));
        auto w = window.at(0).at(0).value<std::shared_ptr<const RunData>>();
        QVERIFY(w->windowed);
        QVERIFY(double(w->detailStartNs) <= o.windowStartNs && double(w->detailEndNs) >= o.windowEndNs);
        QVERIFY(detailItems(*w) > 0 && detailItems(*w) < size_t(m_full->activityCount) / 5);
        QVERIFY(!loaded.at(0).at(0).value<std::shared_ptr<const RunData>>()->windowed);
    }

    void overTheCapTheLoaderStopsAtTheSkeleton()
    {
        RunLoader loader;
        QSignalSpy skeleton(&loader, &RunLoader::skeletonLoaded);
        QSignalSpy loaded(&loader, &RunLoader::loaded);
        LoadOptions o;
        o.detailCapBytes = m_full->activityCount * kLoadedBytesPerActivity / 4;
        loader.start(QString::fromStdString(m_file), 1, o);
        QTRY_COMPARE_WITH_TIMEOUT(skeleton.count(), 1, 60000);
        QTest::qWait(50);
        QCOMPARE(loaded.count(), 0);
        auto s = skeleton.at(0).at(0).value<std::shared_ptr<const RunData>>();
        QVERIFY(s->skeleton);
        QVERIFY(loader.detailIndex());
    }

    void mainWindowBrowsesWindowByWindow()
    {
        // The window under a cap of a quarter of the run: the summary, then the skeleton, then
        // the visible window's detail drawn as the loaded run draws it; zooming out past what
        // the cap holds says so.
        MainWindow w(false);
        w.resize(1400, 800);
        w.show();
        // Just under what the run needs whole: the skeleton takes about half of it, a window of
        // about 15% of the run fits what is left.
        const int64_t cap = m_full->activityCount * kLoadedBytesPerActivity * 9 / 10;
        w.setDetailCap(cap);
        QSignalSpy ready(&w, &MainWindow::windowedReady);
        QSignalSpy shown(&w, &MainWindow::detailWindowShown);
        QVERIFY(w.openFile(QString::fromStdString(m_file)));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
        QVERIFY(w.timeline()->showsOverview());
        QVERIFY(!w.viewState()->run());   // never loaded whole
        QVERIFY(!w.timeline()->caption().isEmpty());   // the whole run: the summary, said so
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        const double v0 = double(m_full->spanStartNs) + 0.3 * span, v1 = v0 + 0.01 * span;
        const int64_t budget = windowBudget(cap, int64_t(m_skeleton->memoryBytes()));
        QVERIFY2(m_index.chooseRange(v0, v1, w.timeline()->plotWidth(), budget),
                 qPrintable(QStringLiteral("budget %1, skeleton %2 B").arg(budget).arg(m_skeleton->memoryBytes())));
        const int before = int(shown.count());
        w.timeline()->setViewRange(v0, v1);
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > before && w.detailWindow() && w.detailWindow()->detailLanes, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w.timeline()->caption().isEmpty(), 10000);
        TimelineLayout lf;
        lf.build(*m_full, {});
        DrawList df;
        buildDrawList(*m_full, lf, w.timeline()->mapping(), Selection{}, df);
        const QString diff = compareDrawLists(df, w.timeline()->drawList());
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        w.timeline()->fit();
        QVERIFY(w.timeline()->caption().contains(QStringLiteral("memory cap")));
    }
};

QTEST_MAIN(TestWindowedDetail)
#include "tst_windoweddetail.moc"
