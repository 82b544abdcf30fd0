// The first frame comes from the file's stored level-of-detail summary (loadOverviewRun): the
// same rows as the loaded run, a draw list whose painted columns and colours match the fully
// loaded overview, and in the main window the timeline draws it before the activities load.
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/overviewrun.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/runloader.h"
#include "app/gui/core/timelinelayout.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/timelinewidget.h"
#include "storage/database.h"
#include "storage/runoverview.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QImage>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <map>
#include <set>

using namespace wt;
using namespace wt::gui;

namespace {

// Per column of a row: the colour painted there (0 = nothing).
std::vector<QRgb> columns(const DrawList& draw, size_t row, int width)
{
    std::vector<QRgb> c(size_t(width), 0);
    for (const PaintSpan& s : draw.spans[row])
        for (int x = std::max(s.x0, 0); x < std::min(s.x1, width); ++x)
            c[size_t(x)] = draw.rows[row][s.item].color | 0xff000000u;
    return c;
}

}  // namespace

class TestOverviewFirstFrame : public QObject {
    Q_OBJECT
private:
    std::string m_file;

private slots:
    void initTestCase()
    {
        m_file = test::tempPath("overview.wt");
        Database db(m_file, OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        o.kernels = 60000;
        o.layers = 6;
        o.name = "big";
        synth::generate(w, o);
    }

    void overviewMatchesLoadedRun()
    {
        std::shared_ptr<RunData> ov = loadOverviewRun(m_file, 1);
        QVERIFY2(ov, "no stored summary");
        QVERIFY(ov->overviewOnly);
        std::shared_ptr<RunData> full = loadRun(m_file, 1);
        QVERIFY(!full->overviewOnly);
        QCOMPARE(ov->spanStartNs, full->spanStartNs);
        QCOMPARE(ov->spanEndNs, full->spanEndNs);
        QCOMPARE(ov->activityCount, full->activityCount);
        // Items are the summary's buckets, at most its grid per row whatever the run's size.
        for (const TrackData& t : ov->tracks)
            QVERIFY(t.size() <= RunOverview::kBuckets);

        TimelineLayout lo, lf;
        lo.build(*ov, {});
        lf.build(*full, {});
        QCOMPARE(lo.rows().size(), lf.rows().size());
        for (size_t r = 0; r < lo.rows().size(); ++r) {
            QCOMPARE(int(lo.rows()[r].kind), int(lf.rows()[r].kind));
            QCOMPARE(lo.rows()[r].label, lf.rows()[r].label);
        }
        const int width = 1600;
        TimeMapping m(double(full->spanStartNs), double(full->spanEndNs), width);
        DrawList dov, dfull;
        buildDrawList(*ov, lo, m, Selection{}, dov);
        buildDrawList(*full, lf, m, Selection{}, dfull);
        // Column by column: painted where the loaded run paints, and in the colour of an item
        // the loaded run has in that column (a column holds several layers when zoomed out, so
        // which one a fold shows is the drawing's choice, not the data's).
        int64_t painted = 0, coverageDiff = 0, present = 0;
        for (size_t r = 0; r < lo.rows().size(); ++r) {
            const Row& row = lf.rows()[r];
            if (row.isHeader())
                continue;
            std::vector<std::set<QRgb>> there;
            there.resize(size_t(width));
            auto mark = [&](const auto& seq) {
                for (size_t i = 0; i < seq.size(); ++i) {
                    const int c0 = std::max(0, int(std::floor(m.x(double(seq.start(i))))) - 1);
                    const int c1 = std::min(width, int(std::ceil(m.x(double(std::max(seq.end(i), seq.start(i) + 1))))) + 1);
                    for (int c = c0; c < c1; ++c)
                        there[size_t(c)].insert(seq.color(i) | 0xff000000u);
                }
            };
            if (row.kind == Row::Track)
                mark(TrackSequence{full.get(), &full->tracks[size_t(row.index)]});
            else if (row.kind == Row::Lane)
                mark(LaneSequence{full.get(), &full->lanes[size_t(row.index)]});
            const std::vector<QRgb> a = columns(dov, r, width), b = columns(dfull, r, width);
            for (int x = 0; x < width; ++x) {
                const bool pa = a[size_t(x)] != 0, pb = b[size_t(x)] != 0;
                painted += pb;
                coverageDiff += pa != pb;
                present += pa && there[size_t(x)].count(a[size_t(x)]);
            }
        }
        QVERIFY(painted > 1000);
        QVERIFY2(coverageDiff * 100 <= painted, qPrintable(QStringLiteral("%1 of %2 columns differ in coverage").arg(coverageDiff).arg(painted)));
        QVERIFY2(present * 100 >= painted * 99, qPrintable(QStringLiteral("%1 of %2 columns in a colour of the run there").arg(present).arg(painted)));
    }

    void breakdownFromStoredTotalsAtOnce()
    {
        // The overview's breakdown (stored totals) is the loaded run's whole-run breakdown.
        std::shared_ptr<RunData> ov = loadOverviewRun(m_file, 1);
        QVERIFY(ov);
        std::shared_ptr<const RunData> full = loadRun(m_file, 1);
        for (GroupBy by : {GroupBy::Layer, GroupBy::Kernel}) {
            BreakdownLevel level{by, {}};
            const BreakdownResult a = BreakdownSource::loadStored(*ov)->compute(level);
            const BreakdownResult b = BreakdownSource::load(full)->compute(level);
            QVERIFY(a.rows.size() > 1);
            QCOMPARE(a.totalNs, b.totalNs);
            QCOMPARE(a.rows.size(), b.rows.size());
            for (size_t i = 0; i < a.rows.size(); ++i) {
                QCOMPARE(a.rows[i].name, b.rows[i].name);
                QCOMPARE(a.rows[i].timeNs, b.rows[i].timeNs);
                QCOMPARE(a.rows[i].count, b.rows[i].count);
            }
        }
    }

    void windowDrawsOverviewBeforeDetail()
    {
        MainWindow w(false);
        w.resize(1400, 800);
        w.show();
        bool seen = false, beforeDetail = false, drawn = false;
        QImage first;
        // Connected after the window's own handler, so this sees the timeline after it took the overview.
        connect(w.loader(), &RunLoader::overviewLoaded, this, [&](std::shared_ptr<const RunData> o) {
            seen = true;
            beforeDetail = !w.viewState()->run() && w.timeline()->showsOverview() && o->overviewOnly;
            drawn = w.timeline()->drawList().itemCount() > 0;
            first = w.timeline()->grab().toImage();
        });
        QSignalSpy loaded(&w, &MainWindow::runLoaded);
        QVERIFY(w.openFile(QString::fromStdString(m_file)));
        for (int i = 0; i < 600 && loaded.isEmpty(); ++i)
            QTest::qWait(50);
        QVERIFY(!loaded.isEmpty());
        QVERIFY2(seen, "no overview before the run");
        QVERIFY(beforeDetail);
        QVERIFY(drawn);
        QVERIFY(!first.isNull());
        QVERIFY(!w.timeline()->showsOverview());   // replaced by the loaded run
        QVERIFY(w.viewState()->run() && !w.viewState()->run()->overviewOnly);
        // The overview's plot shows colours (the layers'), not an empty widget.
        const QRect plot = w.timeline()->plotRect();
        std::map<QRgb, int> colours;
        for (int y = plot.top(); y < plot.bottom(); y += 3)
            for (int x = plot.left(); x < plot.right(); x += 3)
                ++colours[first.pixel(x, y)];
        QVERIFY2(colours.size() > 6, qPrintable(QString::number(colours.size())));
    }
};

QTEST_MAIN(TestOverviewFirstFrame)
#include "tst_overviewfirstframe.moc"
