// Windows of a run over the memory cap built on its stored scope lanes (schema 6,
// loadStoredSkeleton, issue 29 item 3): the skeleton holds nothing per instance, its lanes'
// figures give the fully loaded lanes' fold grids, every view inside a window draws the fully
// loaded run's draw list (zooms x pans, as tst_windoweddetail does for the skeleton read from
// the activities), the window's lanes equal those of a window on that skeleton, the loader
// takes the stored lanes over the cap, and a run without them falls back on the pass.
#include "app/gui/core/overviewrun.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/runloader.h"
#include "app/gui/core/timelinelayout.h"
#include "app/gui/core/windowedrun.h"
#include "storage/database.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/drawlistcompare.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QSignalSpy>
#include <QTest>

#include <filesystem>

using namespace wt;
using namespace wt::gui;

namespace {

constexpr int kWidth = 1200;

using test::compareDrawLists;

// A lane's items as (GPU start, end, node): what it draws, whatever the indices.
std::vector<std::tuple<int64_t, int64_t, uint32_t>> laneItems(const RunData& d, const LaneData& lane)
{
    std::vector<std::tuple<int64_t, int64_t, uint32_t>> out;
    for (uint32_t i : lane.items)
        out.emplace_back(d.instances.gpuStart(i), d.instances.gpuEnd(i), d.instances.node[i]);
    return out;
}

}  // namespace

class TestStoredLaneWindows : public QObject {
    Q_OBJECT
private:
    std::string m_file;
    std::shared_ptr<RunData> m_full, m_overview, m_stored, m_pass;
    DetailIndex m_index;

private slots:
    void initTestCase()
    {
        m_file = test::tempPath("stored-lane-windows.wt");
        {
            Database db(m_file, OpenMode::ReadWrite);
            Writer w(db);
            synth::Options o;
            o.kernels = 80000;
            o.streams = 2;
            o.layers = 4;
            o.memcpyEvery = 300;
            synth::generate(w, o);
        }
        m_full = loadRun(m_file, 1);
        m_overview = loadOverviewRun(m_file, 1);
        QVERIFY2(m_overview, "no stored summary");
        m_stored = loadStoredSkeleton(m_file, 1, *m_overview);
        QVERIFY2(m_stored, "no stored lanes");
        LoadCallbacks cb;
        cb.keepActivities = false;
        m_pass = loadRun(m_file, 1, cb);
        m_index = DetailIndex::load(m_file, 1);
    }

    void skeletonHoldsNothingPerInstance()
    {
        QVERIFY(m_stored->skeleton && m_stored->storedLanes);
        QCOMPARE(m_stored->instances.size(), size_t(0));
        QCOMPARE(m_stored->tracks.size(), m_full->tracks.size());
        // A few KiB whatever the run's size (the tree, strings and lanes' figures), against
        // the pass's ~18 bytes a kernel.
        QVERIFY2(m_stored->memoryBytes() * 20 < m_pass->memoryBytes(),
                 qPrintable(QStringLiteral("%1 B vs %2 B").arg(m_stored->memoryBytes()).arg(m_pass->memoryBytes())));
        // The stored figures are the fully loaded lanes': grid, level, longest span.
        QCOMPARE(m_stored->storedLaneFigures.size(), m_full->lanes.size());
        for (size_t l = 0; l < m_full->lanes.size(); ++l) {
            const LaneData& f = m_full->lanes[l];
            const ScopeLane& s = m_stored->storedLaneFigures[l];
            QCOMPARE(s.deviceId, m_full->devices[size_t(f.deviceIndex)].id);
            QCOMPARE(s.depth, f.depth);
            QCOMPARE(s.items, int64_t(f.items.size()));
            QCOMPARE(QString::fromStdString(s.level), f.level);
            QCOMPARE(s.maxDurationNs, f.maxDurationNs);
            QVERIFY(FoldIndex::gridFor(size_t(s.items), s.firstStartNs, s.lastStartNs, kFoldBucket) == f.index.grid());
        }
    }

    void sameDrawListAsTheLoadedRun_data()
    {
        QTest::addColumn<double>("center");
        QTest::addColumn<double>("width");
        QTest::newRow("45%") << 0.5 << 0.45;
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
        const int64_t budget = m_full->activityCount * 3 / 5;   // a cap of 60% of the run
        QVERIFY(!m_index.fits(budget * kLoadedBytesPerActivity));
        TimelineLayout lf, lw, lp;
        lf.build(*m_full, {});
        std::shared_ptr<RunData> window;
        for (double pan : {0.0, 0.3, -0.45, 1.5, -2.0}) {
            const double v0 = std::clamp(c - w / 2 + pan * w, double(m_full->spanStartNs), double(m_full->spanEndNs) - w);
            const double v1 = v0 + w;
            if (!window || double(window->detailStartNs) > v0 - w / kWidth * DetailIndex::kMarginPx ||
                double(window->detailEndNs) < v1 + w / kWidth * DetailIndex::kMarginPx) {
                auto range = m_index.chooseRange(v0, v1, kWidth, budget);
                QVERIFY2(range, "the window does not fit the cap");
                window = loadDetailWindow(m_file, 1, *m_overview, m_stored.get(), m_index, range->first, range->second);
                QVERIFY(window->windowed && window->detailLanes);
                lw.build(*window, {});
                QCOMPARE(lw.rows().size(), lf.rows().size());
                // The same window on the skeleton read from the activities: the same lanes.
                auto pass = loadDetailWindow(m_file, 1, *m_overview, m_pass.get(), m_index, range->first, range->second);
                QCOMPARE(window->lanes.size(), pass->lanes.size());
                for (size_t l = 0; l < pass->lanes.size(); ++l) {
                    QCOMPARE(window->lanes[l].level, pass->lanes[l].level);
                    QVERIFY2(laneItems(*window, window->lanes[l]) == laneItems(*pass, pass->lanes[l]),
                             qPrintable(QStringLiteral("lane %1: %2 items vs %3").arg(l).arg(window->lanes[l].items.size()).arg(pass->lanes[l].items.size())));
                    QVERIFY(window->lanes[l].index.grid() == pass->lanes[l].index.grid());
                }
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

    void windowHoldsOnlyItsInstances()
    {
        // Under a cap of a quarter of what the run needs whole, a window of 2% of the run holds
        // the instances that meet its range (and their ancestors), not the run's: what keeps
        // memory at the cap at any size (bench_gui measures it at 100M and more).
        const int64_t cap = m_full->activityCount * kLoadedBytesPerActivity / 4;
        const int64_t budget = windowBudget(cap, int64_t(m_stored->memoryBytes()));
        const double span = double(m_full->spanEndNs - m_full->spanStartNs);
        for (double at : {0.05, 0.5, 0.93}) {
            const double v0 = double(m_full->spanStartNs) + at * span, v1 = v0 + 0.02 * span;
            auto range = m_index.chooseRange(v0, v1, kWidth, budget);
            QVERIFY(range);
            auto window = loadDetailWindow(m_file, 1, *m_overview, m_stored.get(), m_index, range->first, range->second);
            const size_t real = window->instances.size() - m_overview->instances.size();
            size_t meeting = 0;
            for (size_t i = 0; i < m_full->instances.size(); ++i)
                meeting += m_full->instances.hasSpan(i) && m_full->instances.gpuStart(i) < range->second &&
                           std::max(m_full->instances.gpuEnd(i), m_full->instances.gpuStart(i) + 1) > range->first;
            QVERIFY(real > 0);
            QVERIFY2(real <= meeting + meeting / 10 + 8 && real * 4 < m_full->instances.size(),
                     qPrintable(QStringLiteral("%1 instances held, %2 meet the range, %3 in the run").arg(real).arg(meeting).arg(m_full->instances.size())));
        }
    }

    void loaderTakesTheStoredLanesOverTheCap()
    {
        RunLoader loader;
        QSignalSpy skeleton(&loader, &RunLoader::skeletonLoaded);
        LoadOptions o;
        o.detailCapBytes = m_full->activityCount * kLoadedBytesPerActivity / 4;
        loader.start(QString::fromStdString(m_file), 1, o);
        QTRY_COMPARE_WITH_TIMEOUT(skeleton.count(), 1, 60000);
        auto s = skeleton.at(0).at(0).value<std::shared_ptr<const RunData>>();
        QVERIFY(s->skeleton && s->storedLanes);
    }

    void fullLoadFromStoredLanesEqualsTheComputedOne()
    {
        // m_full read its spans and lanes from the file; a copy without stored lanes computes
        // them from the kernels: the same instances' spans, the same lanes.
        const std::string copy = test::tempPath("stored-lane-windows-computed.wt");
        std::filesystem::copy_file(m_file, copy);
        {
            Database db(copy, OpenMode::ReadWrite);
            db.exec("DELETE FROM scope_lane_sets");
        }
        auto computed = loadRun(copy, 1);
        QCOMPARE(computed->instances.size(), m_full->instances.size());
        for (size_t i = 0; i < computed->instances.size(); ++i) {
            QCOMPARE(m_full->instances.gpuStart(i), computed->instances.gpuStart(i));
            QCOMPARE(m_full->instances.gpuEnd(i), computed->instances.gpuEnd(i));
        }
        QCOMPARE(m_full->kernelCount, computed->kernelCount);
        QCOMPARE(m_full->lanes.size(), computed->lanes.size());
        for (size_t l = 0; l < computed->lanes.size(); ++l) {
            const LaneData &a = m_full->lanes[l], &b = computed->lanes[l];
            QCOMPARE(a.deviceIndex, b.deviceIndex);
            QCOMPARE(a.depth, b.depth);
            QCOMPARE(a.level, b.level);
            QCOMPARE(a.maxDurationNs, b.maxDurationNs);
            QVERIFY(a.items == b.items);
            QVERIFY(a.index.grid() == b.index.grid());
        }
        QCOMPARE(m_full->memoryBytes(), computed->memoryBytes());
    }

    void damagedStoredLanesAreRefused()
    {
        // The full load takes the stored lanes: a damaged chunk fails it in one line.
        const std::string copy = test::tempPath("stored-lane-windows-damaged.wt");
        std::filesystem::copy_file(m_file, copy);
        {
            Database db(copy, OpenMode::ReadWrite);
            db.exec("UPDATE scope_lane_chunks SET data = X'01050505' WHERE id = (SELECT max(id) FROM scope_lane_chunks)");
        }
        try {
            loadRun(copy, 1);
            QFAIL("a damaged lane chunk loaded");
        } catch (const StorageError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("damaged")), e.what());
            QVERIFY(!QString::fromUtf8(e.what()).contains(QLatin1Char('\n')));
        }
    }

    void runWithoutStoredLanesFallsBackOnThePass()
    {
        const std::string copy = test::tempPath("stored-lane-windows-none.wt");
        std::filesystem::copy_file(m_file, copy);
        {
            Database db(copy, OpenMode::ReadWrite);
            db.exec("DELETE FROM scope_lane_sets");   // as a run whose lanes were never stored
        }
        auto overview = loadOverviewRun(copy, 1);
        QVERIFY(overview);
        QVERIFY(!loadStoredSkeleton(copy, 1, *overview));
        {
            Database ro(copy, OpenMode::ReadOnly);   // read-only: nothing computed
        }
        RunLoader loader;
        QSignalSpy skeleton(&loader, &RunLoader::skeletonLoaded);
        LoadOptions o;
        o.detailCapBytes = m_full->activityCount * kLoadedBytesPerActivity / 4;
        loader.start(QString::fromStdString(copy), 1, o);
        QTRY_COMPARE_WITH_TIMEOUT(skeleton.count(), 1, 60000);
        auto s = skeleton.at(0).at(0).value<std::shared_ptr<const RunData>>();
        QVERIFY(s->skeleton && !s->storedLanes);
        QCOMPARE(s->lanes.size(), m_full->lanes.size());
    }
};

QTEST_MAIN(TestStoredLaneWindows)
#include "tst_storedlanewindows.moc"
