// The numbers of the breakdown view: shares sum to 1, a drilled-down level's total equals its
// parent slice, "other" holds exactly the slices under the threshold, distributions agree
// with the totals, a range breakdown of the whole span equals the run's, the GUI's numbers
// equal `wheretime stats --json` for the same run, the table model passes
// QAbstractItemModelTester, and the view drills, goes back up and shares the selection.
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/timelinelayout.h"
#include "app/gui/widgets/timelinewidget.h"
#include "analysis/kernelcategory.h"
#include "tests/support/synthrun.h"
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

// Brute force: does the instance (or an ancestor instance) belong to a node with this level
// and name? Walks the instance parents, comparing strings.
bool underNamed(const RunData& run, uint32_t inst, const QString& level, const QString& name)
{
    for (; inst != kNone; inst = run.instances.parent[inst]) {
        const ScopeNodeData& n = run.nodes[run.instances.node[inst]];
        if (n.level == level && n.name == name)
            return true;
    }
    return false;
}

// Every activity's mark equals pred(track, i); returns the number of members.
template <class Pred>
int64_t checkMarks(const RunData& run, const GroupMarks& marks, Pred&& pred)
{
    int64_t members = 0;
    for (size_t t = 0; t < run.tracks.size(); ++t) {
        const TrackData& track = run.tracks[t];
        for (size_t i = 0; i < track.size(); ++i) {
            const bool want = pred(track, i);
            if (marks.tracks[t].test(i) != want) {
                qWarning("track %zu activity %zu: marked %d, expected %d", t, i, int(marks.tracks[t].test(i)), int(want));
                return -1;
            }
            members += want;
        }
    }
    return members;
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
                QVERIFY2(row.hasDistribution, row.path.c_str());
                // The durations behind the distribution are the ones the totals sum.
                QVERIFY(row.minNs * row.count <= row.timeNs && row.timeNs <= row.maxNs * row.count);
                QVERIFY(row.minNs <= row.medianNs && row.medianNs <= row.maxNs);
                QVERIFY(double(row.minNs) <= row.meanNs + 1e-9 && row.meanNs <= double(row.maxNs) + 1e-9);
            }
        }
        // Drilled levels filter the distributions too.
        BreakdownResult ops = m_source->compute({GroupBy::Op, {{GroupBy::Layer, "softmax"}}});
        for (const BreakdownRow& row : ops.rows) {
            QVERIFY(row.hasDistribution);
            QVERIFY(row.minNs * row.count <= row.timeNs && row.timeNs <= row.maxNs * row.count);
        }
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
        QCOMPARE(o.value(QStringLiteral("kernel_busy_ns")).toInteger(), m_source->stats().kernelBusyNs);
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
        // CSV: header + one line per row, raw numbers (byte for byte `stats --csv`: tst_breakdowncsv).
        QStringList lines = model.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), model.rowCount() + 1);
        QCOMPARE(lines[0], QStringLiteral("name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns,flops,bytes,flop_per_s,bytes_per_s"));
        QCOMPARE(lines[1].split(QLatin1Char(','))[2].toLongLong(), model.result().rows[0].timeNs);
        // The columns are the table's, named by analysis's BreakdownColumn.
        for (auto [c, id] : {std::pair{BreakdownModel::NameColumn, "name"}, std::pair{BreakdownModel::PathColumn, "path"},
                             std::pair{BreakdownModel::TimeColumn, "time_ns"}, std::pair{BreakdownModel::CountColumn, "count"},
                             std::pair{BreakdownModel::MedianColumn, "median_ns"}, std::pair{BreakdownModel::FlopsColumn, "flops"},
                             std::pair{BreakdownModel::FlopRateColumn, "flop_per_s"}, std::pair{BreakdownModel::ByteRateColumn, "bytes_per_s"}})
            QCOMPARE(model.headerData(c, Qt::Horizontal, BreakdownModel::ColumnIdRole).toString(), QString::fromLatin1(id));
        // The row's group and index.
        QCOMPARE(model.index(0, BreakdownModel::TimeColumn).data(BreakdownModel::PathRole).toString().toStdString(),
                 model.result().rows[0].path);
        QCOMPARE(model.index(1, BreakdownModel::ShareColumn).data(BreakdownModel::RowRole).toInt(), 1);
    }

    void layerGroupMarksExactlyItsKernels()
    {
        auto run = m_source->runData();
        const BreakdownLevel top{GroupBy::Layer, {}};
        GroupSelection g = m_source->groupSelection(top, {"softmax"});
        QVERIFY(!g.anyScope && g.anyName);
        auto marks = GroupMarks::compute(*run, g);
        const int64_t members = checkMarks(*run, *marks, [&](const TrackData& t, size_t i) {
            return t.kind == TrackKind::Kernel && t.instance[i] != kNone &&
                   underNamed(*run, t.instance[i], QStringLiteral("layer"), QStringLiteral("softmax"));
        });
        QVERIFY(members > 0);
        QVERIFY(members < run->kernelCount);
        QCOMPARE(marks->activityCount, members);
        QCOMPARE(marks->activityCount, findRow(m_source->compute(top), "softmax")->count);
        // Scope instances: marked exactly when they are, or are under, a softmax layer.
        QVERIFY(marks->marksLanes());
        int64_t instances = 0;
        for (uint32_t i = 0; i < run->instances.size(); ++i) {
            const bool want = underNamed(*run, i, QStringLiteral("layer"), QStringLiteral("softmax"));
            QCOMPARE(marks->instances.test(i), want);
            instances += want;
        }
        QCOMPARE(marks->instanceCount, instances);
        for (size_t l = 0; l < run->lanes.size(); ++l)
            for (size_t k = 0; k < run->lanes[l].items.size(); ++k)
                QCOMPARE(marks->lanes[l].test(k), marks->instances.test(run->lanes[l].items[k]));
        // Every layer row: the marked count is the row's count (the numbers' code path).
        for (const BreakdownRow& row : m_source->compute(top).rows)
            QCOMPARE(GroupMarks::compute(*run, m_source->groupSelection(top, {row.path}))->activityCount, row.count);
    }

    void kernelNameGroupMarksExactlyThoseKernels()
    {
        auto run = m_source->runData();
        const BreakdownResult names = m_source->compute({GroupBy::Kernel, {}});
        QVERIFY(names.rows.size() >= 2);
        const std::string k = names.rows[1].path;
        GroupSelection g = m_source->groupSelection({GroupBy::Kernel, {}}, {k});
        QVERIFY(g.anyScope && !g.anyName);
        auto marks = GroupMarks::compute(*run, g);
        QVERIFY(!marks->marksLanes());   // a name group leaves the scope lanes as they are
        const int64_t members = checkMarks(*run, *marks, [&](const TrackData& t, size_t i) {
            return t.kind == TrackKind::Kernel && run->name(t.nameId[i]).toStdString() == k;
        });
        QCOMPARE(members, names.rows[1].count);
        QCOMPARE(marks->activityCount, members);
        // Drill-down filters: layer softmax > op X > kernel K marks only K under that op.
        const BreakdownLevel ops{GroupBy::Op, {{GroupBy::Layer, "softmax"}}};
        const std::string op = m_source->compute(ops).rows.at(0).path;
        const BreakdownLevel kernels{GroupBy::Kernel, {{GroupBy::Layer, "softmax"}, {GroupBy::Op, op}}};
        const BreakdownResult drilledLevel = m_source->compute(kernels);
        const BreakdownRow& kr = drilledLevel.rows.at(0);
        auto drilled = GroupMarks::compute(*run, m_source->groupSelection(kernels, {kr.path}));
        const QString opName = QString::fromStdString(op).section(QLatin1Char('/'), -1);
        const int64_t drilledMembers = checkMarks(*run, *drilled, [&](const TrackData& t, size_t i) {
            return t.kind == TrackKind::Kernel && t.instance[i] != kNone &&
                   run->name(t.nameId[i]).toStdString() == kr.path &&
                   underNamed(*run, t.instance[i], QStringLiteral("layer"), QStringLiteral("softmax")) &&
                   underNamed(*run, t.instance[i], QStringLiteral("op"), opName);
        });
        QVERIFY(drilledMembers > 0);
        QCOMPARE(drilledMembers, kr.count);
        // Several keys ("other"): the union.
        auto two = GroupMarks::compute(*run, m_source->groupSelection({GroupBy::Kernel, {}}, {names.rows[0].path, k}));
        QCOMPARE(two->activityCount, names.rows[0].count + names.rows[1].count);
    }

    // Issue 13: a category slice marks exactly the activities of that category (kernels by
    // name, memcpy and memset as "memory"), checked against the built-in rules name by name,
    // and its marked count is analysis's count for the row; drilling a category into kernel
    // names marks only those names of that category.
    void categoryGroupMarksExactlyThoseActivities()
    {
        auto run = m_source->runData();
        const BreakdownLevel top{GroupBy::Category, {}};
        const BreakdownResult cats = m_source->compute(top);
        QVERIFY(cats.rows.size() >= 3);   // gemm, memory and more in the synthetic run
        QVERIFY(findRow(cats, "memory"));
        const KernelCategories rules;
        auto activityCategory = [&](const TrackData& t, size_t i) {
            const ActivityKind kind = t.kind == TrackKind::Kernel ? ActivityKind::Kernel : ActivityKind(t.activityKind[i]);
            return rules.categoryOf(kind, run->name(t.nameId[i]).toStdString());
        };
        for (const BreakdownRow& row : cats.rows) {
            auto marks = GroupMarks::compute(*run, m_source->groupSelection(top, {row.path}));
            QVERIFY(!marks->marksLanes());
            const int64_t members =
                checkMarks(*run, *marks, [&](const TrackData& t, size_t i) { return activityCategory(t, i) == row.path; });
            QCOMPARE(members, row.count);
            QCOMPARE(marks->activityCount, row.count);
        }
        // Drill-down: category X > kernel K.
        const std::string cat = cats.rows.at(0).path;
        const BreakdownLevel names{GroupBy::Kernel, {{GroupBy::Category, cat}}};
        const BreakdownResult drilled = m_source->compute(names);
        QVERIFY(!drilled.rows.empty());
        QCOMPARE(drilled.totalNs, cats.rows.at(0).timeNs);
        const BreakdownRow& kr = drilled.rows.at(0);
        auto marks = GroupMarks::compute(*run, m_source->groupSelection(names, {kr.path}));
        const int64_t members = checkMarks(*run, *marks, [&](const TrackData& t, size_t i) {
            return activityCategory(t, i) == cat && run->name(t.nameId[i]).toStdString() == kr.path;
        });
        QCOMPARE(members, kr.count);
        // The representative of a category is one of its activities.
        const Selection sel = m_source->representative(top, cat, double(run->spanStartNs), double(run->spanEndNs));
        QCOMPARE(sel.kind, Selection::Activity);
        QCOMPARE(activityCategory(run->tracks[sel.track], sel.index), cat);
        QCOMPARE(m_source->keyOfSelection(top, sel), cat);
    }

    // Issue 13: an imported trace opens on the pie by kernel category; a capture on layers.
    void importedRunOpensOnCategories()
    {
        const std::string path = test::tempPath("breakdown-imported.wt");
        {
            Database db(path, OpenMode::ReadWrite);
            Writer writer(db);
            synth::Options o;
            o.kernels = 3000;
            o.seed = 11;
            o.layers = 2;
            synth::generate(writer, o);
            db.exec("UPDATE runs SET backend = 'import'");
        }
        auto run = loadRun(path, 1);
        QVERIFY(run);
        QCOMPARE(run->profile->run.backend, std::string("import"));
        ViewState state;
        BreakdownView view(&state);
        view.resize(900, 700);
        QSignalSpy ready(&view, &BreakdownView::sourceReady);
        state.setRun(std::shared_ptr<const RunData>(run));
        QVERIFY(ready.wait(20000));
        QVERIFY(view.result().level.groupBy == GroupBy::Category);
        QVERIFY(!view.piePlot()->slices().empty());
        QVERIFY(findRow(view.result(), "memory"));
        // A capture (the fixture's run) in a fresh view opens on layers.
        ViewState state2;
        BreakdownView view2(&state2);
        QSignalSpy ready2(&view2, &BreakdownView::sourceReady);
        state2.setRun(m_source->runData());
        QVERIFY(ready2.wait(20000));
        QVERIFY(view2.result().level.groupBy == GroupBy::Layer);
    }

    void foldsShowTheirMembers_data()
    {
        QTest::addColumn<double>("fraction");   // of the run's span shown
        QTest::newRow("whole run") << 1.0;
        QTest::newRow("1%") << 0.01;
        QTest::newRow("0.01%") << 0.0001;
    }

    void foldsShowTheirMembers()
    {
        QFETCH(double, fraction);
        auto run = m_source->runData();
        auto marks = GroupMarks::compute(*run, m_source->groupSelection({GroupBy::Layer, {}}, {"softmax"}));
        TimelineLayout layout;
        layout.build(*run, {});
        const double span = double(run->spanEndNs - run->spanStartNs);
        const double t0 = double(run->spanStartNs) + span * (1 - fraction) / 2;
        TimeMapping m(t0, t0 + span * fraction, 1200);
        DrawList dl;
        buildDrawList(*run, layout, m, {}, dl, {}, marks.get());
        QVERIFY(dl.grouped);
        size_t foldsWithMembers = 0, marked = 0;
        for (size_t r = 0; r < layout.rows().size(); ++r) {
            const Row& row = layout.rows()[r];
            if (row.kind == Row::DeviceHeader)
                continue;
            QVERIFY(dl.groupedRows[r]);   // a layer group has a scope condition: lanes take part
            const bool lane = row.kind == Row::Lane;
            const MemberBits& bits = lane ? marks->lanes[size_t(row.index)] : marks->tracks[size_t(row.index)];
            auto startOf = [&](size_t i) {
                return lane ? run->instances.gpuStart(run->lanes[size_t(row.index)].items[i])
                            : run->tracks[size_t(row.index)].startNs[i];
            };
            auto endOf = [&](size_t i) {
                return lane ? run->instances.gpuEnd(run->lanes[size_t(row.index)].items[i])
                            : run->tracks[size_t(row.index)].endNs(i);
            };
            const auto& ms = dl.marks[r];
            for (size_t k = 1; k < ms.size(); ++k)
                QVERIFY(ms[k - 1].x1 < ms[k].x0 && ms[k].x0 < ms[k].x1);   // sorted, disjoint, merged
            auto markedIn = [&](int x0, int x1) {
                int n = 0;
                for (const MarkSpan& s : ms)
                    n += std::max(0, std::min(x1, s.x1) - std::max(x0, s.x0));
                return n;
            };
            int inSpans = 0;
            for (const PaintSpan& sp : dl.spans[r]) {
                const DrawItem& d = dl.rows[r][sp.item];
                size_t members = 0;
                bool near = false;   // a member painted in or next to the span's columns
                for (uint32_t i = d.first; i < d.first + d.count; ++i) {
                    if (!bits.test(i))
                        continue;
                    ++members;
                    const double xs = m.x(double(startOf(i))), xe = m.x(double(std::max(endOf(i), startOf(i) + 1)));
                    const int c0 = int(std::floor(xs)), c1 = std::max(int(std::ceil(xe)), c0 + 1);
                    near = near || (c0 <= sp.x1 && c1 >= sp.x0);
                }
                QCOMPARE(bits.count(d.first, size_t(d.first) + d.count), members);   // the rank agrees
                const int n = markedIn(sp.x0, sp.x1);
                inSpans += n;
                if (members == 0)
                    QCOMPARE(n, 0);   // nothing marked where no member is
                else if (members == d.count)
                    QCOMPARE(n, sp.x1 - sp.x0);
                else
                    QCOMPARE(n > 0, near);   // a fold holding members shows them
                foldsWithMembers += d.isFold() && members > 0 && members < d.count;
            }
            QCOMPARE(size_t(inSpans), size_t(markedIn(0, m.widthPx())));   // marks only on painted spans
            marked += size_t(inSpans);
        }
        QVERIFY(marked > 0);
        if (fraction == 1.0)
            QVERIFY(foldsWithMembers > 0);
        QCOMPARE(dl.markedColumns(), marked);
    }

    // Large runs: the view computes on a worker thread and shows the same figures.
    void largeRunComputesOffTheGuiThread()
    {
        ViewState state;
        BreakdownView view(&state);
        view.setAsyncThreshold(0);   // every run counts as large
        QSignalSpy ready(&view, &BreakdownView::sourceReady);
        state.setRun(m_source->runData());
        QVERIFY(ready.wait(20000));
        view.waitForResult();
        QVERIFY(!view.isComputing());
        QCOMPARE(view.result().rows.size(), m_source->compute({GroupBy::Layer, {}}).rows.size());
        QSignalSpy updated(&view, &BreakdownView::updated);
        view.setGroupBy(GroupBy::Kernel);
        QVERIFY(view.isComputing());                       // not computed on the caller's thread
        QVERIFY(view.result().level.groupBy == GroupBy::Layer);   // old figures until it lands
        QVERIFY(updated.wait(20000));
        const BreakdownResult want = m_source->compute({GroupBy::Kernel, {}});
        QVERIFY(view.result().level.groupBy == GroupBy::Kernel);
        QCOMPARE(view.result().rows.size(), want.rows.size());
        for (size_t i = 0; i < want.rows.size(); ++i) {
            QCOMPARE(view.result().rows[i].path, want.rows[i].path);
            QCOMPARE(view.result().rows[i].timeNs, want.rows[i].timeNs);
            QCOMPARE(view.result().rows[i].medianNs, want.rows[i].medianNs);
        }
        // A newer request supersedes one in flight: only its figures are shown.
        view.setGroupBy(GroupBy::Op);
        view.setGroupBy(GroupBy::Phase);
        view.waitForResult();
        QVERIFY(view.result().level.groupBy == GroupBy::Phase);
        QTest::qWait(50);   // the superseded result's late delivery changes nothing
        QVERIFY(view.result().level.groupBy == GroupBy::Phase);
    }

    void viewDrillsAndSharesSelection()
    {
        ViewState state;
        auto run = m_source->runData();
        BreakdownView view(&state);
        view.resize(900, 700);
        TimelineWidget timeline(&state);
        timeline.resize(1200, 500);
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
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
        // ... and marks every softmax kernel in the timeline, not only that instance.
        QVERIFY(timeline.groupMarks());
        int64_t underSoftmax = 0;
        for (const TrackData& t : run->tracks)
            for (size_t i = 0; i < t.size(); ++i)
                underSoftmax += t.kind == TrackKind::Kernel && t.instance[i] != kNone &&
                                underNamed(*run, t.instance[i], QStringLiteral("layer"), QStringLiteral("softmax"));
        QCOMPARE(timeline.groupMarks()->activityCount, underSoftmax);
        int64_t drilledCount = 0;   // the softmax slice's kernels, as the drilled level counts them
        for (const BreakdownRow& r : view.result().rows)
            drilledCount += r.count;
        QCOMPARE(timeline.groupMarks()->activityCount, drilledCount);
        QVERIFY(timeline.drawList().grouped);
        QVERIFY(timeline.drawList().markedColumns() > 0);
        QVERIFY(timeline.toolTipAt(QPoint(-1, -1)).isEmpty());
        // A row at the drilled level: layer softmax > that op.
        view.selectRow(0);
        QCOMPARE(timeline.groupMarks()->activityCount, view.result().rows[0].count);
        QVERIFY(state.groupSelection().label.contains(QStringLiteral("softmax")));
        // A pick in the timeline replaces the group.
        timeline.selectAt(QPoint(-1, -1));
        QVERIFY(!timeline.groupMarks());
        QVERIFY(!timeline.drawList().grouped);
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
