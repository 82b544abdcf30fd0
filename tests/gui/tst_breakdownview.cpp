// The numbers of the breakdown view: shares sum to 1, a drilled-down level's total equals its
// parent slice, "other" holds exactly the slices under the threshold, distributions agree
// with the totals, a range breakdown of the whole span equals the run's, the GUI's numbers
// equal `wheretime stats --json` for the same run, the table model passes
// QAbstractItemModelTester, and the view drills, goes back up and shares the selection.
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/core/layerpalette.h"
#include "bench/synth/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <cmath>
#include <map>

using namespace wt;
using namespace wt::gui;

namespace {

std::string makeRun(int64_t kernels, uint64_t seed)
{
    std::string path = test::tempPath("breakdown-" + std::to_string(seed) + ".wt");
    Database db(path, OpenMode::ReadWrite);
    Writer writer(db);
    synth::Options o;
    o.kernels = kernels;
    o.seed = seed;
    o.layers = 4;
    synth::generate(writer, o);
    return path;
}

double shareSum(const BreakdownResult& r)
{
    double s = 0;
    for (const BreakdownRow& row : r.rows)
        s += row.share;
    return s;
}

const BreakdownRow* findRow(const BreakdownResult& r, const std::string& path)
{
    for (const BreakdownRow& row : r.rows)
        if (row.path == path)
            return &row;
    return nullptr;
}

}  // namespace

class TstBreakdownView : public QObject {
    Q_OBJECT
    std::string m_path;
    std::shared_ptr<BreakdownSource> m_source;

private slots:
    void initTestCase()
    {
        m_path = makeRun(20000, 7);
        auto run = loadRun(m_path, 1);
        QVERIFY(run);
        m_source = BreakdownSource::load(std::shared_ptr<const RunData>(run));
    }

    void sharesSumToOne_data()
    {
        QTest::addColumn<int>("groupBy");
        QTest::newRow("layer") << int(GroupBy::Layer);
        QTest::newRow("phase") << int(GroupBy::Phase);
        QTest::newRow("op") << int(GroupBy::Op);
        QTest::newRow("kernel") << int(GroupBy::Kernel);
        QTest::newRow("kind") << int(GroupBy::Kind);
    }
    void sharesSumToOne()
    {
        QFETCH(int, groupBy);
        BreakdownResult r = m_source->compute({GroupBy(groupBy), {}});
        QVERIFY(r.rows.size() >= 2);
        QVERIFY(std::abs(shareSum(r) - 1.0) <= 1e-9);
        int64_t t = 0;
        for (const BreakdownRow& row : r.rows)
            t += row.timeNs;
        QCOMPARE(t, r.totalNs);
        // Largest first.
        for (size_t i = 1; i < r.rows.size(); ++i)
            QVERIFY(r.rows[i - 1].timeNs >= r.rows[i].timeNs);
    }

    void drillDownTotalsEqualParent()
    {
        BreakdownResult layers = m_source->compute({GroupBy::Layer, {}});
        for (const BreakdownRow& layer : layers.rows) {
            BreakdownLevel opLevel{GroupBy::Op, {{GroupBy::Layer, layer.path}}};
            BreakdownResult ops = m_source->compute(opLevel);
            QCOMPARE(ops.totalNs, layer.timeNs);
            QVERIFY(std::abs(shareSum(ops) - 1.0) <= 1e-9);
            int64_t count = 0;
            for (const BreakdownRow& op : ops.rows) {
                count += op.count;
                BreakdownLevel kLevel{GroupBy::Kernel, {{GroupBy::Layer, layer.path}, {GroupBy::Op, op.path}}};
                BreakdownResult ks = m_source->compute(kLevel);
                QCOMPARE(ks.totalNs, op.timeNs);
            }
            QCOMPARE(count, layer.count);
        }
        // The softmax layer is there and drills into its ops.
        QVERIFY(findRow(layers, "softmax"));
        QVERIFY(m_source->compute({GroupBy::Op, {{GroupBy::Layer, "softmax"}}}).rows.size() >= 1);
    }

    void otherHoldsExactlyTheSmallSlices_data()
    {
        QTest::addColumn<double>("threshold");
        QTest::newRow("0") << 0.0;
        QTest::newRow("2%") << 0.02;
        QTest::newRow("5%") << 0.05;
        QTest::newRow("30%") << 0.30;
        QTest::newRow("all") << 1.01;
    }
    void otherHoldsExactlyTheSmallSlices()
    {
        QFETCH(double, threshold);
        BreakdownResult r = m_source->compute({GroupBy::Kernel, {}});
        std::vector<PieSlice> slices = pieSlices(r, threshold);
        std::vector<size_t> expectOther;
        for (size_t i = 0; i < r.rows.size(); ++i)
            if (r.rows[i].share < threshold)
                expectOther.push_back(i);
        const PieSlice* other = nullptr;
        size_t plain = 0;
        int64_t total = 0;
        for (const PieSlice& s : slices) {
            total += s.timeNs;
            if (s.other) {
                QVERIFY(!other);
                other = &s;
            } else {
                ++plain;
                QCOMPARE(s.members.size(), size_t(1));
                QVERIFY(r.rows[s.members[0]].share >= threshold);
            }
        }
        QCOMPARE(total, r.totalNs);
        QCOMPARE(plain + expectOther.size(), r.rows.size());
        if (expectOther.empty()) {
            QVERIFY(!other);
        } else {
            QVERIFY(other);
            QCOMPARE(other->members, expectOther);
            int64_t t = 0;
            for (size_t i : expectOther)
                t += r.rows[i].timeNs;
            QCOMPARE(other->timeNs, t);
            QCOMPARE(slices.back().other, true);   // "other" comes last
        }
    }

    void distributionsAgreeWithTotals()
    {
        for (GroupBy g : {GroupBy::Layer, GroupBy::Kernel, GroupBy::Op}) {
            BreakdownResult r = m_source->compute({g, {}});
            for (const BreakdownRow& row : r.rows) {
                QVERIFY2(row.hasStats, row.path.c_str());
                QCOMPARE(row.stats.count, row.count);
                QVERIFY(row.stats.minNs <= row.stats.medianNs && row.stats.medianNs <= row.stats.maxNs);
                QVERIFY(double(row.stats.minNs) <= row.meanNs + 1e-9 && row.meanNs <= double(row.stats.maxNs) + 1e-9);
            }
        }
        // Drilled levels filter the distributions too.
        BreakdownResult ops = m_source->compute({GroupBy::Op, {{GroupBy::Layer, "softmax"}}});
        for (const BreakdownRow& row : ops.rows)
            QCOMPARE(row.stats.count, row.count);
    }

    void rangeOfWholeSpanEqualsRun()
    {
        const RunData& run = *m_source->runData();
        for (GroupBy g : {GroupBy::Layer, GroupBy::Kernel, GroupBy::Kind}) {
            BreakdownResult whole = m_source->compute({g, {}});
            BreakdownResult range = m_source->computeRange({g, {}}, double(run.spanStartNs) - 1, double(run.spanEndNs) + 1);
            QVERIFY(range.range);
            QCOMPARE(range.totalNs, whole.totalNs);
            QCOMPARE(range.rows.size(), whole.rows.size());
            for (size_t i = 0; i < whole.rows.size(); ++i) {
                QCOMPARE(range.rows[i].path, whole.rows[i].path);
                QCOMPARE(range.rows[i].timeNs, whole.rows[i].timeNs);
                QCOMPARE(range.rows[i].count, whole.rows[i].count);
            }
        }
        // Half the span holds less, and still sums to one.
        double mid = double(run.spanStartNs + run.spanEndNs) / 2;
        BreakdownResult half = m_source->computeRange({GroupBy::Layer, {}}, double(run.spanStartNs), mid);
        QVERIFY(half.totalNs > 0 && half.totalNs < m_source->compute({GroupBy::Layer, {}}).totalNs);
        QVERIFY(std::abs(shareSum(half) - 1.0) <= 1e-9);
    }

    void sameNumbersAsStatsJson_data()
    {
        QTest::addColumn<QString>("groupBy");
        QTest::addColumn<QString>("within");
        QTest::newRow("layer") << "layer" << "";
        QTest::newRow("kernel") << "kernel" << "";
        QTest::newRow("phase") << "phase" << "";
        QTest::newRow("kind") << "kind" << "";
        QTest::newRow("softmax ops") << "op" << "layer=softmax";
    }
    void sameNumbersAsStatsJson()
    {
        QFETCH(QString, groupBy);
        QFETCH(QString, within);
        QStringList args{QStringLiteral("stats"), QString::fromStdString(m_path) + QStringLiteral(":1"),
                         QStringLiteral("--group-by"), groupBy, QStringLiteral("--json")};
        BreakdownLevel level{*groupByFromString(groupBy.toStdString()), {}};
        if (!within.isEmpty()) {
            args << QStringLiteral("--within") << within;
            QStringList kv = within.split(QLatin1Char('='));
            level.filters.emplace_back(*groupByFromString(kv[0].toStdString()), kv[1].toStdString());
        }
        test::ProcessResult p = test::runCli(args);
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        QJsonObject o = QJsonDocument::fromJson(p.out.toUtf8()).object();
        QVERIFY(!o.isEmpty());
        BreakdownResult r = m_source->compute(level);
        QCOMPARE(o.value(QStringLiteral("total_ns")).toInteger(), r.totalNs);
        QCOMPARE(o.value(QStringLiteral("kernels")).toInteger(), m_source->stats().kernels);
        QCOMPARE(o.value(QStringLiteral("kernel_time_ns")).toInteger(), m_source->stats().kernelTimeNs);
        QCOMPARE(o.value(QStringLiteral("busy_ns")).toInteger(), m_source->stats().busyNs);
        QJsonArray groups = o.value(QStringLiteral("groups")).toArray();
        QCOMPARE(size_t(groups.size()), r.rows.size());
        for (qsizetype i = 0; i < groups.size(); ++i) {
            QJsonObject g = groups[i].toObject();
            const BreakdownRow& row = r.rows[size_t(i)];
            QCOMPARE(g.value(QStringLiteral("path")).toString().toStdString(), row.path);
            QCOMPARE(g.value(QStringLiteral("time_ns")).toInteger(), row.timeNs);
            QCOMPARE(g.value(QStringLiteral("count")).toInteger(), row.count);
            QVERIFY(std::abs(g.value(QStringLiteral("share")).toDouble() - row.share) <= 1e-9);
        }
    }

    void modelPassesTester()
    {
        BreakdownModel model;
        BreakdownProxyModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(m_source->compute({GroupBy::Kernel, {}}));
        QCOMPARE(model.rowCount(), int(model.result().rows.size()));
        QCOMPARE(model.columnCount(), int(BreakdownModel::NUM_COLUMNS));
        proxy.sort(BreakdownModel::CountColumn, Qt::AscendingOrder);
        for (int i = 1; i < proxy.rowCount(); ++i)
            QVERIFY(proxy.index(i - 1, BreakdownModel::CountColumn).data(BreakdownModel::SortRole).toLongLong() <=
                    proxy.index(i, BreakdownModel::CountColumn).data(BreakdownModel::SortRole).toLongLong());
        proxy.setFilterText(QStringLiteral("gemm"));
        QVERIFY(proxy.rowCount() > 0 && proxy.rowCount() < model.rowCount());
        for (int i = 0; i < proxy.rowCount(); ++i)
            QVERIFY(proxy.index(i, 0).data().toString().contains(QStringLiteral("gemm"), Qt::CaseInsensitive));
        model.setResult(m_source->compute({GroupBy::Layer, {}}));
        proxy.setFilterText({});
        QCOMPARE(proxy.rowCount(), model.rowCount());
        // CSV: header + one line per row, raw numbers.
        QStringList lines = model.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), model.rowCount() + 1);
        QVERIFY(lines[0].startsWith(QStringLiteral("name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns")));
        QCOMPARE(lines[1].split(QLatin1Char(','))[2].toLongLong(), model.result().rows[0].timeNs);
        QCOMPARE(csvField(QStringLiteral("a,\"b\"")), QStringLiteral("\"a,\"\"b\"\"\""));
    }

    void viewDrillsAndSharesSelection()
    {
        ViewState state;
        auto run = m_source->runData();
        BreakdownView view(&state);
        view.resize(900, 700);
        QSignalSpy ready(&view, &BreakdownView::sourceReady);
        state.setRun(run);
        QVERIFY(ready.wait(20000));
        QCOMPARE(view.levels().size(), size_t(1));
        QVERIFY(view.result().level.groupBy == GroupBy::Layer);
        // Click the softmax slice: drills into its ops and selects a softmax scope in the timeline.
        const auto& slices = view.piePlot()->slices();
        int softmax = -1;
        for (size_t i = 0; i < slices.size(); ++i)
            if (slices[i].path == "softmax")
                softmax = int(i);
        QVERIFY(softmax >= 0);
        const int64_t softmaxNs = slices[size_t(softmax)].timeNs;
        emit view.piePlot()->sliceClicked(softmax);
        QCOMPARE(view.levels().size(), size_t(2));
        QVERIFY(view.result().level.groupBy == GroupBy::Op);
        QCOMPARE(view.result().totalNs, softmaxNs);
        QCOMPARE(state.selection().kind, Selection::Scope);
        QCOMPARE(run->nodes[run->instances.node[state.selection().index]].name, QStringLiteral("softmax"));
        // A second level, then back to the top through the breadcrumb.
        QVERIFY(view.drillInto(0));
        QVERIFY(view.result().level.groupBy == GroupBy::Kernel);
        QVERIFY(!view.drillInto(0));   // kernels are leaves
        view.goUp(0);
        QCOMPARE(view.levels().size(), size_t(1));
        QVERIFY(view.result().level.groupBy == GroupBy::Layer);
        // Timeline -> view: selecting a kernel highlights its layer's row and slice.
        const TrackData& t = run->tracks[0];
        uint32_t k = 0;
        while (k < t.size() && t.instance[k] == kNone)
            ++k;
        QVERIFY(k < t.size());
        state.setSelection(Selection{Selection::Activity, 0, k});
        QString layer = run->layerNames[run->layerOf(t, k)];
        QModelIndexList sel = view.table()->selectionModel()->selectedRows();
        QCOMPARE(sel.size(), 1);
        QCOMPARE(sel[0].data(BreakdownModel::PathRole).toString(), layer);
        QVERIFY(view.piePlot()->highlighted() >= 0);
        // Kernel grouping: a row selects an activity of that name.
        view.setGroupBy(GroupBy::Kernel);
        view.selectRow(0);
        QCOMPARE(state.selection().kind, Selection::Activity);
        const TrackData& st = run->tracks[state.selection().track];
        QCOMPARE(run->name(st.nameId[state.selection().index]).toStdString(), view.result().rows[0].path);
        // A range selection is broken down once it rests.
        view.setGroupBy(GroupBy::Layer);
        state.setRangeSelection(double(run->spanStartNs), double(run->spanStartNs + run->spanEndNs) / 2);
        QTRY_VERIFY(view.usesRange());
        QTRY_VERIFY(view.result().range);
        QVERIFY(view.result().totalNs < m_source->compute({GroupBy::Layer, {}}).totalNs);
        state.clearRangeSelection();
        QTRY_VERIFY(!view.result().range);
        // Copy as CSV with nothing selected: every row.
        view.table()->clearSelection();
        QCOMPARE(view.selectedCsv().count(QLatin1Char('\n')), qsizetype(view.result().rows.size() + 1));
    }

    void badFileFailsWithOneLine()
    {
        std::string bad = test::tempPath("not-a-db.wt");
        {
            QFile f(QString::fromStdString(bad));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("garbage, not sqlite");
        }
        try {
            BreakdownSource::load(bad, 1);
            QFAIL("expected an error");
        } catch (const std::exception& e) {
            QVERIFY(!QString::fromUtf8(e.what()).contains(QLatin1Char('\n')));
        }
        try {
            BreakdownSource::load(m_path, 99);
            QFAIL("expected an error for a missing run");
        } catch (const std::exception& e) {
            QVERIFY(!QString::fromUtf8(e.what()).isEmpty());
        }
    }
};

QTEST_MAIN(TstBreakdownView)
#include "tst_breakdownview.moc"
