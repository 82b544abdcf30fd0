// The ranks of a job in the GUI, offscreen: the HTA two-rank pair imported as one run opens
// with a device group per rank (foldable), lane labels that never repeat, the per-rank table
// (steps, mean and slowest step, kernel time: the README's numbers); the window gives the
// timeline >= 55% of 1400 px in both panel placements and remembers the choice (a test
// organisation's settings, cleared first); long names in the breakdown table are elided in the
// middle with the whole name in the tooltip, and its columns can be resized.
#include "app/gui/breakdown/breakdownactions.h"
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/core/timeformat.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/timelinewidget.h"
#include "analysis/breakdown.h"
#include "analysis/gputime.h"
#include "analysis/grouping.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "tests/support/testsupport.h"

#include <QHeaderView>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTreeWidget>
#include <QTest>

#include <map>
#include <set>

using namespace wt::gui;

class TstMultiRank : public QObject {
    Q_OBJECT
private:
    std::string m_file;

    bool waitLoaded(MainWindow& w)
    {
        QSignalSpy loaded(&w, &MainWindow::runLoaded);
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        for (int i = 0; i < 600 && loaded.isEmpty() && failed.isEmpty(); ++i)
            QTest::qWait(50);
        return !loaded.isEmpty();
    }
    void importPair()
    {
        if (!m_file.empty())
            return;
        const QString a = wt::test::sharedTrace("kineto-hta_2ranks_rank-0.json.gz");
        const QString b = wt::test::sharedTrace("kineto-hta_2ranks_rank-1.json.gz");
        if (a.isEmpty() || b.isEmpty())
            WT_MISSING_TRACE(a.isEmpty() ? "kineto-hta_2ranks_rank-0.json.gz" : "kineto-hta_2ranks_rank-1.json.gz");
        m_file = wt::test::tempPath("multirank-gui.wt");
        wt::Database db(m_file, wt::OpenMode::ReadWrite);
        wt::interop::importRanks(db, {a.toStdString(), b.toStdString()});
    }
    // The pie's largest slice colour appears in the rendered plot (a blank plot has none).
    static bool pieDrawn(BreakdownView* view)
    {
        QCoreApplication::processEvents();
        const auto& slices = view->piePlot()->slices();
        if (slices.empty())
            return false;
        const QImage img = view->piePlot()->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const QRgb want = slices.front().color & 0xffffff;
        int hits = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                hits += (img.pixel(x, y) & 0xffffff) == want;
        if (hits < 200)
            qWarning("pie: %d pixels of the first slice's colour in a %dx%d plot", hits, img.width(), img.height());
        return hits >= 200;
    }
    static double timelineShare(MainWindow& w) { return double(w.timeline()->width()) / double(w.width()); }

private slots:
    void initTestCase()
    {
        // Settings of a test organisation, never the user's.
        QCoreApplication::setOrganizationName(QStringLiteral("wheretime-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_multirank"));
        QSettings().clear();
    }
    void cleanupTestCase() { QSettings().clear(); }

    void ranksAsDeviceGroups()
    {
        importPair();
        MainWindow w(false);
        BreakdownActions::install(&w);
        w.resize(1400, 800);
        w.show();
        QVERIFY(w.openFile(QString::fromStdString(m_file)));
        QVERIFY(waitLoaded(w));
        TimelineWidget* tl = w.timeline();
        QStringList headers;
        std::map<int, std::set<QString>> laneLabels;
        std::map<int, int> lanes;
        for (const Row& r : tl->layout().rows()) {
            if (r.kind == Row::DeviceHeader)
                headers << r.label;
            if (r.kind == Row::Lane) {
                laneLabels[r.deviceIndex].insert(r.label);
                ++lanes[r.deviceIndex];
            }
        }
        QCOMPARE(headers, (QStringList{QStringLiteral("rank 0: GPU 0"), QStringLiteral("rank 1: GPU 1")}));
        QVERIFY(lanes[0] >= 2);
        for (auto& [dev, labels] : laneLabels)
            QCOMPARE(int(labels.size()), lanes[dev]);   // no label twice within a rank
        // A rank folds to its header.
        const size_t all = tl->layout().rows().size();
        tl->setCollapsedDepth(0, -1);
        size_t rank0 = 0;
        for (const Row& r : tl->layout().rows())
            rank0 += r.deviceIndex == 0;
        QCOMPARE(rank0, size_t(1));
        QVERIFY(tl->layout().rows().size() < all);
        tl->setCollapsedDepth(0, 0);
        QCOMPARE(tl->layout().rows().size(), all);

        // The per-rank table: the README's kernel time per rank, both steps on both ranks.
        w.details()->waitForFigures();   // computed on a worker after the load
        QVERIFY(w.details()->figures());
        QTableView* t = w.details()->ranksTable();
        TableModel* m = w.details()->ranksModel();
        QVERIFY(!t->isHidden());
        QTRY_VERIFY(t->height() > 40);   // shown after the layout, it still gets room
        QTRY_VERIFY(w.details()->devicesTable()->height() > 40);
        QCOMPARE(m->rowCount(), 2);
        auto text = [m](int row, const char* id) { return m->data(m->index(row, m->columnOf(id))).toString(); };
        auto raw = [m](int row, const char* id) { return m->data(m->index(row, m->columnOf(id)), TableModel::RawRole).toLongLong(); };
        QCOMPARE(text(0, "name"), QStringLiteral("rank 0: GPU 0"));
        QCOMPARE(text(0, "steps"), QStringLiteral("2"));
        QCOMPARE(text(1, "steps"), QStringLiteral("2"));
        QCOMPARE(text(0, "time_ns"), formatDuration(606519000.0));
        QCOMPARE(text(1, "time_ns"), formatDuration(651026000.0));
        QVERIFY(text(0, "slowest_step").startsWith(QStringLiteral("ProfilerStep#55")));
        QVERIFY(t->isColumnHidden(m->columnOf("device_id")));   // CSV/JSON-only columns stay hidden
        for (int row = 0; row < 2; ++row) {
            const qint64 mean = raw(row, "mean_step_ns");
            const qint64 slowest = raw(row, "slowest_step_ns");
            QVERIFY(mean > 0 && slowest >= mean);
            // Two steps: the mean lies between the faster and the slower.
            QVERIFY(slowest < 2 * mean);
        }
        // Exactly one straggler (bold), the rank with the larger mean step.
        const qint64 m0 = raw(0, "mean_step_ns");
        const qint64 m1 = raw(1, "mean_step_ns");
        QCOMPARE(m->data(m->index(0, 0), Qt::FontRole).value<QFont>().bold(), m0 > m1);
        QCOMPARE(m->data(m->index(1, 0), Qt::FontRole).value<QFont>().bold(), m1 >= m0);

        // One step count everywhere (issue 27 item 7: the run details said 4, two steps on two
        // ranks): the details' run summary, each rank's row and `stats --group-by step`.
        TableModel* runModel = w.details()->runModel();
        QCOMPARE(runModel->data(runModel->index(0, runModel->columnOf("steps")), TableModel::RawRole).toLongLong(), 2);
        QString detailsSteps;
        QTreeWidgetItem* top = w.details()->tree()->topLevelItem(0);
        QCOMPARE(top->text(0), QStringLiteral("Run"));
        for (int i = 0; i < top->childCount(); ++i)
            if (top->child(i)->text(0) == QLatin1String("steps"))
                detailsSteps = top->child(i)->text(1);
        QCOMPARE(detailsSteps, QStringLiteral("2"));
        QString err;
        const QByteArray steps = wt::test::cliBytes({QStringLiteral("stats"), QString::fromStdString(m_file),
                                                     QStringLiteral("--group-by"), QStringLiteral("step"), QStringLiteral("--csv")}, &err);
        QVERIFY2(!steps.isEmpty(), qPrintable(err));
        QCOMPARE(steps.count('\n') - 1, 2);   // header + one line per step
        const QByteArray summary = wt::test::cliBytes({QStringLiteral("stats"), QString::fromStdString(m_file), QStringLiteral("--summary"),
                                                       QStringLiteral("--csv")}, &err);
        QVERIFY2(summary == w.details()->runCsv().toUtf8(), qPrintable(wt::test::firstDifference(summary, w.details()->runCsv().toUtf8())));

        // A kernel of rank 1 names its rank (device) and its track with it.
        const auto& loaded = w.viewState()->run();
        size_t track = loaded->tracks.size();
        for (size_t k = 0; k < loaded->tracks.size(); ++k)   // rank 1's last kernel track: the lowest row
            if (loaded->tracks[k].deviceIndex == 1 && loaded->tracks[k].kind == wt::TrackKind::Kernel && loaded->tracks[k].size() > 0)
                track = k;
        QVERIFY(track < loaded->tracks.size());
        w.viewState()->setSelection(Selection{Selection::Activity, uint32_t(track), 0});
        top = w.details()->tree()->topLevelItem(0);
        QMap<QString, QString> fields;
        for (int i = 0; i < top->childCount(); ++i)
            fields[top->child(i)->text(0)] = top->child(i)->text(1);
        QCOMPARE(fields.value(QStringLiteral("device")), QStringLiteral("rank 1: GPU 1"));
        // A selection made elsewhere (a breakdown slice's representative) is scrolled into view.
        TimelineWidget* tl2 = w.timeline();
        const int viewH = tl2->height() - (tl2->plotRect().top());
        int rowY = -1, rowH = 0;
        for (const Row& r : tl2->layout().rows())
            if (r.kind == Row::Track && r.index == int(track)) {
                rowY = r.y;
                rowH = r.height;
            }
        QVERIFY(rowY >= 0);
        QVERIFY(rowY + rowH > viewH);   // below the first screen: only a scroll shows it
        QVERIFY2(rowY >= tl2->scrollY() && rowY + rowH <= tl2->scrollY() + viewH,
                 qPrintable(QStringLiteral("row %1..%2, view %3..%4").arg(rowY).arg(rowY + rowH).arg(tl2->scrollY()).arg(tl2->scrollY() + viewH)));
        const TrackData& sel = loaded->tracks[track];
        QVERIFY(double(sel.endNs(0)) >= tl2->mapping().startNs() && double(sel.startNs[0]) <= tl2->mapping().endNs());
        QVERIFY2(fields.value(QStringLiteral("track")).startsWith(QStringLiteral("rank 1: GPU 1 / ")), qPrintable(fields.value(QStringLiteral("track"))));
    }

    void timelineGetsMostOfTheWidth()
    {
        importPair();
        for (auto placement : {MainWindow::PanelPlacement::Below, MainWindow::PanelPlacement::Beside}) {
            MainWindow w(false);
            BreakdownActions::install(&w);
            w.setPanelPlacement(placement);
            w.resize(1400, 800);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.openFile(QString::fromStdString(m_file)));
            QVERIFY(waitLoaded(w));
            QTest::qWait(50);
            QVERIFY2(timelineShare(w) >= 0.55, qPrintable(QStringLiteral("%3: timeline %1 of %2 px, details %4 px")
                                                            .arg(w.timeline()->width())
                                                            .arg(w.width())
                                                            .arg(placement == MainWindow::PanelPlacement::Beside ? QStringLiteral("beside") : QStringLiteral("below"))
                                                            .arg(w.details()->width())));
            QVERIFY2(w.timeline()->height() >= 250, qPrintable(QStringLiteral("timeline %1 px high of %2").arg(w.timeline()->height()).arg(w.height())));
        }
    }

    void placementRemembered()
    {
        QSettings().clear();
        {
            MainWindow w(true);
            QCOMPARE(w.panelPlacement(), MainWindow::PanelPlacement::Below);
            w.setPanelPlacement(MainWindow::PanelPlacement::Beside);
        }
        {
            MainWindow w(true);
            QCOMPARE(w.panelPlacement(), MainWindow::PanelPlacement::Beside);
            w.resize(1400, 800);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(timelineShare(w) >= 0.55);
        }
        QSettings().clear();
    }

    // Issue 13 in the GUI: the imported pair opens on the pie by kernel category (the numbers
    // of analysis's category grouping, communication = the NCCL kernels); lane labels are
    // analysis's laneLabels (none twice on a device); the details show per device the time on
    // the GPU, whose stacked bar is deviceBarSegments of computeDeviceTimes (summing to the span).
    void importedOpensOnCategoriesWithDeviceBars()
    {
        importPair();
        MainWindow w(false);
        BreakdownActions* actions = BreakdownActions::install(&w);
        w.resize(1400, 800);
        w.show();
        QVERIFY(w.openFile(QString::fromStdString(m_file)));
        QVERIFY(waitLoaded(w));
        BreakdownView* view = actions->view();
        QTRY_VERIFY_WITH_TIMEOUT(view->source() != nullptr, 20000);
        view->waitForResult();
        QVERIFY(view->result().level.groupBy == wt::GroupBy::Category);
        const auto run = view->source()->runData();
        QVERIFY(run);
        const wt::Breakdown cats = wt::computeBreakdown(*run->profile, {wt::GroupBy::Category, {}});
        QCOMPARE(view->result().totalNs, cats.totalNs);
        QCOMPARE(view->result().rows.size(), cats.groups.size());
        bool comm = false;
        for (const wt::Group& g : cats.groups)
            comm = comm || g.path == "communication";
        QVERIFY(comm);
        QVERIFY(!view->piePlot()->slices().empty());
        QVERIFY2(pieDrawn(view), "category pie");

        // Lane labels: analysis's, never twice on a device.
        const std::vector<std::string> want = wt::laneLabels(run->profile->tree);
        std::map<int, std::set<QString>> seen;
        for (const Row& r : w.timeline()->layout().rows()) {
            if (r.kind != Row::Lane)
                continue;
            const wt::gui::LaneData& lane = run->lanes[size_t(r.index)];
            QCOMPARE(r.label.toStdString(), want.at(size_t(lane.depth) - 1));
            QVERIFY2(seen[r.deviceIndex].insert(r.label).second, qPrintable(r.label));
        }
        QVERIFY(!seen.empty());

        // Device bars.
        w.details()->waitForFigures();
        QVERIFY(w.details()->figures());
        QTableView* t = w.details()->devicesTable();
        TableModel* m = w.details()->devicesModel();
        const std::vector<wt::DeviceTime> times = wt::computeDeviceTimes(*run->profile, run->activities());
        QCOMPARE(times.size(), size_t(2));
        QCOMPARE(w.details()->figures()->devices.size(), size_t(2));   // the worker's figures
        QVERIFY(!t->isHidden());
        QCOMPARE(m->rowCount(), 2);
        auto text = [m](int row, const char* id) { return m->data(m->index(row, m->columnOf(id))).toString(); };
        for (int row = 0; row < 2; ++row) {
            const wt::GpuTime& g = times[size_t(row)].time;
            QCOMPARE(w.details()->figures()->devices[size_t(row)].time.busyNs, g.busyNs);
            QCOMPARE(text(row, "name").toStdString(), times[size_t(row)].name);
            QCOMPARE(text(row, "busy_ns"), formatDuration(double(g.busyNs)));
            QCOMPARE(text(row, "idle_ns"), formatDuration(double(g.idleNs)));
            QCOMPARE(text(row, "comm_exposed_ns"), formatDuration(double(g.commExposedNs())));
            QCOMPARE(text(row, "compute_ns"), formatDuration(double(g.computeNs)));
            QCOMPARE(text(row, "memory_ns"), formatDuration(double(g.memoryNs)));
            QCOMPARE(text(row, "memory_exposed_ns"), formatDuration(double(g.memoryExposedNs)));
            QVERIFY(g.commNs > 0);
            QVERIFY(g.memoryNs > 0);   // both ranks ran memcpys: busy counts them (docs/definitions.md)
            const std::vector<DeviceBarSegment> bar = w.details()->deviceBar(row);
            const std::vector<wt::BarSegment> segs = wt::deviceBarSegments(g);
            QCOMPARE(bar.size(), segs.size());
            int64_t sum = 0;
            for (size_t i = 0; i < segs.size(); ++i) {
                QCOMPARE(bar[i].ns, segs[i].ns);
                QCOMPARE(bar[i].label, QString::fromLatin1(segs[i].label));
                sum += bar[i].ns;
            }
            QCOMPARE(sum, g.spanNs);
        }

        // The layer-depth control (imported runs): depth 2 re-groups the breakdown's layers
        // and the timeline's layer colours as analysis's withLayerDepth does.
        QSpinBox* depth = view->layerDepthBox();
        QVERIFY(!depth->isHidden());
        QCOMPARE(depth->value(), 1);
        QVERIFY(depth->maximum() >= 2);
        view->setGroupBy(wt::GroupBy::Layer);
        view->waitForResult();
        QVERIFY2(pieDrawn(view), "layer pie");   // docs/images/multirank.png once showed it blank
        const size_t layersAt1 = view->result().rows.size();
        depth->setValue(2);
        view->waitForResult();
        const auto run2 = w.viewState()->run();
        QCOMPARE(run2->profile->tree.layerDepth(), 2);
        QVERIFY(view->result().level.groupBy == wt::GroupBy::Layer);
        const wt::Breakdown layers2 =
            wt::computeBreakdown(*wt::withLayerDepth(*run->profile, 2), {wt::GroupBy::Layer, {}});
        QCOMPARE(view->result().rows.size(), layers2.groups.size());
        QVERIFY(layers2.groups.size() != layersAt1);
        for (size_t i = 0; i < layers2.groups.size(); ++i)
            QCOMPARE(view->result().rows[i].timeNs, layers2.groups[i].timeNs);
        // Timeline layers: every node's layer name is analysis's layer key at depth 2.
        for (size_t n = 0; n < run2->nodes.size(); ++n)
            QCOMPARE(run2->layerNames[run2->nodes[n].layerIndex].toStdString(),
                     wt::layerKey(run2->profile->tree, run2->nodes[n].id));
    }

    void longNamesElidedInTheMiddle()
    {
        importPair();
        MainWindow w(false);
        BreakdownActions* actions = BreakdownActions::install(&w);
        w.resize(1400, 800);
        w.show();
        QVERIFY(w.openFile(QString::fromStdString(m_file)));
        QVERIFY(waitLoaded(w));
        BreakdownView* view = actions->view();
        QTableView* table = view->table();
        QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() > 0, 20000);
        view->setGroupBy(wt::GroupBy::Kernel);
        view->waitForResult();
        QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() > 10, 20000);
        QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(table->horizontalHeader()->sectionResizeMode(BreakdownModel::TimeColumn), QHeaderView::Interactive);
        // The longest name: wider than its column, so the view elides it; the tooltip is whole.
        QAbstractItemModel* m = table->model();
        int longest = -1;
        for (int r = 0; r < m->rowCount(); ++r)
            if (longest < 0 || m->index(r, BreakdownModel::NameColumn).data().toString().size() >
                                   m->index(longest, BreakdownModel::NameColumn).data().toString().size())
                longest = r;
        QVERIFY(longest >= 0);
        const QModelIndex idx = m->index(longest, BreakdownModel::NameColumn);
        const QString name = idx.data().toString();
        QVERIFY2(name.size() > 80, qPrintable(name));
        QCOMPARE(idx.data(Qt::ToolTipRole).toString().contains(name), true);
        const int colW = table->columnWidth(BreakdownModel::NameColumn);
        QVERIFY(table->fontMetrics().horizontalAdvance(name) > colW);
        const QString shown = table->fontMetrics().elidedText(name, table->textElideMode(), colW - 8);
        QVERIFY(shown.startsWith(name.left(5)) && shown.endsWith(name.right(5)) && shown.contains(QChar(0x2026)));
    }
};

QTEST_MAIN(TstMultiRank)
#include "tst_multirank.moc"
