// Range totals, distributions and range summaries against a brute-force clip over every
// activity of synthetic runs; the whole-run breakdown with distributions against the stored
// totals; the Grouper against groupKey; the layer rule for runs without a layer level; the
// 'other' rule of threshold and top-N slices; the kernel time under a scope instance against
// a walk up every kernel's scope chain.
#include "analysis/activitystats.h"
#include "analysis/breakdown.h"
#include "analysis/rangesummary.h"
#include "analysis/runprofile.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <random>

using namespace wt;

namespace {

struct Expected {
    int64_t timeNs = 0;
    std::vector<int64_t> durations;
};

}  // namespace

class TestActivityStats : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void rangesAgainstBruteForce();
    void wholeRunMatchesStoredTotals();
    void grouperMatchesGroupKey();
    void layerRuleWithoutLayerLevel();
    void slices();
    void kernelTimeUnderInstances();

private:
    std::string m_path;
    int64_t m_run = 0;
};

void TestActivityStats::initTestCase()
{
    m_path = test::tempPath("stats.wt");
    Database db(m_path, OpenMode::ReadWrite);
    Writer w(db);
    synth::Options o;
    o.kernels = 6000;
    o.streams = 3;
    o.layers = 3;
    o.memcpyEvery = 50;
    m_run = synth::generate(w, o).runId;
}

void TestActivityStats::rangesAgainstBruteForce()
{
    Database db(m_path, OpenMode::ReadOnly);
    Reader r(db);
    auto profile = RunProfile::load(r, m_run);
    ActivityColumns columns = ActivityColumns::load(r, m_run, profile->tree);
    const ActivityView view = columns.view();
    std::unordered_map<int64_t, int64_t> instanceScope;
    for (const ScopeInstance& si : r.scopeInstances(m_run))
        instanceScope[si.id] = si.scopeId;
    std::vector<Activity> all;
    r.forEachActivity(m_run, [&](const Activity& a) { all.push_back(a); return true; });
    QCOMPARE(columns.activityCount(), all.size());
    const RunInfo& run = profile->run;

    // Brute force: the clip written out again, and the layer by walking the levels.
    auto brute = [&](GroupBy g, int64_t t0, int64_t t1) {
        std::map<std::string, Expected> m;
        for (const Activity& a : all) {
            if (g != GroupBy::Kind && a.kind != ActivityKind::Kernel)
                continue;
            int64_t in = 0;
            if (a.endNs == a.startNs) {
                if (a.startNs < t0 || a.startNs >= t1)
                    continue;
            } else {
                in = std::min(a.endNs, t1) - std::max(a.startNs, t0);
                if (in <= 0)
                    continue;
            }
            std::string key;
            const int64_t scope = a.scopeInstanceId ? instanceScope.at(a.scopeInstanceId) : 0;
            if (g == GroupBy::Kernel)
                key = r.string(a.nameId);
            else if (g == GroupBy::Kind)
                key = std::string(toString(a.kind));
            else {
                key = scope ? kNoLayer : kNoScope;
                for (int64_t s = scope; s; s = profile->tree.node(s).parentId)
                    if (profile->tree.level(s) == "layer")
                        key = profile->tree.name(s);
            }
            m[key].timeNs += in;
            m[key].durations.push_back(in);
        }
        return m;
    };

    std::mt19937_64 rng(7);
    const int64_t span = run.spanEndNs - run.spanStartNs;
    std::vector<std::pair<int64_t, int64_t>> ranges = {{run.spanStartNs - 10, run.spanEndNs + 10},
                                                       {run.spanStartNs, run.spanStartNs + span / 2}};
    for (int i = 0; i < 6; ++i) {
        int64_t a = run.spanStartNs + int64_t(rng() % uint64_t(span)), b = run.spanStartNs + int64_t(rng() % uint64_t(span));
        ranges.emplace_back(b, a);   // possibly backwards: the analysis normalizes
    }
    for (auto [t0, t1] : ranges) {
        const TimeRange range = TimeRange{t0, t1}.normalized();
        for (GroupBy g : {GroupBy::Layer, GroupBy::Kernel, GroupBy::Kind}) {
            Breakdown b = computeBreakdown(*profile, GroupLevel{g, {}}, &view, TimeRange{t0, t1});
            QVERIFY(b.range.has_value());
            QCOMPARE(*b.range, range);
            auto want = brute(g, range.startNs, range.endNs);
            QCOMPARE(b.groups.size(), want.size());
            int64_t total = 0;
            for (const Group& grp : b.groups) {
                QVERIFY2(want.count(grp.path), grp.path.c_str());
                Expected& e = want[grp.path];
                QCOMPARE(grp.timeNs, e.timeNs);
                QCOMPARE(grp.count, int64_t(e.durations.size()));
                QVERIFY(grp.hasDistribution);
                std::sort(e.durations.begin(), e.durations.end());
                QCOMPARE(grp.minNs, e.durations.front());
                QCOMPARE(grp.maxNs, e.durations.back());
                QCOMPARE(grp.medianNs, e.durations[(e.durations.size() - 1) / 2]);
                QCOMPARE(grp.meanNs, double(e.timeNs) / double(e.durations.size()));
                total += grp.timeNs;
            }
            QCOMPARE(b.totalNs, total);
        }
        // The summary is the layer and kernel breakdowns of the range.
        RangeSummary s = summarizeRange(*profile, view, TimeRange{t0, t1}, 5);
        Breakdown layers = computeBreakdown(*profile, GroupLevel{GroupBy::Layer, {}}, &view, range);
        QCOMPARE(s.kernelTimeNs, layers.totalNs);
        QCOMPARE(s.layers.groups.size(), layers.groups.size());
        int64_t kernels = 0;
        for (size_t i = 0; i < layers.groups.size(); ++i) {
            QCOMPARE(s.layers.groups[i].path, layers.groups[i].path);
            QCOMPARE(s.layers.groups[i].timeNs, layers.groups[i].timeNs);
            kernels += layers.groups[i].count;
        }
        QCOMPARE(s.kernels, kernels);
        QVERIFY(s.kernelsByName.groups.size() <= 5);
    }
}

void TestActivityStats::wholeRunMatchesStoredTotals()
{
    Database db(m_path, OpenMode::ReadOnly);
    Reader r(db);
    auto profile = RunProfile::load(r, m_run);
    ActivityColumns columns = ActivityColumns::load(r, m_run, profile->tree);
    const ActivityView view = columns.view();
    for (GroupBy g : {GroupBy::Scope, GroupBy::Layer, GroupBy::Phase, GroupBy::Op, GroupBy::Kernel, GroupBy::Kind}) {
        Breakdown stored = computeBreakdown(*profile, GroupLevel{g, {}});
        Breakdown withDist = computeBreakdown(*profile, GroupLevel{g, {}}, &view);
        Breakdown wideRange = computeBreakdown(*profile, GroupLevel{g, {}}, &view,
                                               TimeRange{profile->run.spanStartNs - 1, profile->run.spanEndNs + 1});
        QVERIFY(!stored.groups.empty());
        QCOMPARE(withDist.groups.size(), stored.groups.size());
        QCOMPARE(wideRange.groups.size(), stored.groups.size());
        for (size_t i = 0; i < stored.groups.size(); ++i) {
            QVERIFY(!stored.groups[i].hasDistribution);
            QVERIFY(withDist.groups[i].hasDistribution);
            QCOMPARE(withDist.groups[i].path, stored.groups[i].path);
            QCOMPARE(withDist.groups[i].timeNs, stored.groups[i].timeNs);
            QCOMPARE(wideRange.groups[i].timeNs, stored.groups[i].timeNs);
            QCOMPARE(wideRange.groups[i].count, stored.groups[i].count);
            QCOMPARE(wideRange.groups[i].medianNs, withDist.groups[i].medianNs);
        }
    }
    // Drill-down filters: the op breakdown inside one layer covers exactly that layer's time.
    Breakdown layers = computeBreakdown(*profile, GroupLevel{GroupBy::Layer, {}});
    const Group& top = layers.groups.front();
    Breakdown ops = computeBreakdown(*profile, GroupLevel{GroupBy::Op, {{GroupBy::Layer, top.path}}}, &view);
    QCOMPARE(ops.totalNs, top.timeNs);
    int64_t count = 0;
    for (const Group& g : ops.groups)
        count += g.count;
    QCOMPARE(count, top.count);
}

void TestActivityStats::grouperMatchesGroupKey()
{
    Database db(m_path, OpenMode::ReadOnly);
    Reader r(db);
    auto profile = RunProfile::load(r, m_run);
    const ScopeTree& tree = profile->tree;
    const uint32_t someName = profile->totals.front().nameId;
    for (GroupBy g : {GroupBy::Scope, GroupBy::Layer, GroupBy::Phase, GroupBy::Op, GroupBy::Kernel}) {
        GroupLevel level{g, {}};
        if (g == GroupBy::Kernel)
            level.filters = {{GroupBy::Phase, "backward"}};
        Grouper grouper(tree, profile->strings, level);
        for (uint32_t n = 0; n <= tree.nodes().size(); ++n) {
            const uint32_t node = n == tree.nodes().size() ? ScopeTree::kNoNode : n;
            const int64_t scope = node == ScopeTree::kNoNode ? 0 : tree.nodes()[n].id;
            const int32_t idx = grouper.indexOf(ActivityKind::Kernel, node, someName);
            const bool pass = passesFilters(ActivityKind::Kernel, scope, someName, tree, profile->strings, level.filters);
            QCOMPARE(idx >= 0, pass);
            if (pass)
                QCOMPARE(grouper.keys()[size_t(idx)],
                         groupKey(ActivityKind::Kernel, scope, someName, tree, profile->strings, g));
            QCOMPARE(grouper.indexOf(ActivityKind::Memcpy, node, someName), -1);   // only kernels
        }
    }
}

void TestActivityStats::layerRuleWithoutLayerLevel()
{
    // An NVTX-like tree: iteration > forward > aten::mm, no "layer" level anywhere.
    std::vector<ScopeNode> nodes = {{10, 0, 1, 4, 1}, {11, 10, 2, 4, 2}, {12, 11, 3, 4, 3}, {13, 0, 5, 4, 1}};
    Strings strings = {{1, "iteration"}, {2, "forward"}, {3, "aten::mm"}, {4, "nvtx"}, {5, "optimizer"}};
    ScopeTree tree(nodes, strings);
    QCOMPARE(layerScope(tree, 12), int64_t(10));
    QCOMPARE(layerKey(tree, 12), std::string("iteration"));
    QCOMPARE(layerKey(tree, 13), std::string("optimizer"));
    QCOMPARE(layerKey(tree, 0), std::string(kNoScope));
    QCOMPARE(scopeGroupKey(tree, 12, GroupBy::Op), std::string("aten::mm"));
    // With a layer level, the "layer" ancestor names it, and nodes above it have none.
    std::vector<ScopeNode> leveled = {{1, 0, 1, 7, 1}, {2, 1, 2, 6, 2}, {3, 2, 3, 8, 3}};
    Strings s2 = {{1, "step"}, {2, "softmax"}, {3, "head_gemm"}, {6, "layer"}, {7, "step"}, {8, "op"}};
    ScopeTree t2(leveled, s2);
    QCOMPARE(layerKey(t2, 3), std::string("softmax"));
    QCOMPARE(layerScope(t2, 3), int64_t(2));
    QCOMPARE(layerKey(t2, 1), std::string(kNoLayer));
    QCOMPARE(layerScope(t2, 1), int64_t(0));
}

void TestActivityStats::slices()
{
    Breakdown b;
    for (auto [name, t] : std::vector<std::pair<std::string, int64_t>>{{"a", 500}, {"b", 300}, {"c", 150}, {"d", 40}, {"e", 10}})
        b.groups.push_back(Group{name, name, t, double(t) / 1000.0, 1});
    b.totalNs = 1000;
    auto pie = thresholdSlices(b, 0.05);
    QCOMPARE(pie.size(), size_t(4));
    QVERIFY(pie.back().other);
    QCOMPARE(pie.back().name, std::string("other (2)"));
    QCOMPARE(pie.back().timeNs, int64_t(50));
    QCOMPARE(pie.back().members, (std::vector<size_t>{3, 4}));
    QCOMPARE(thresholdSlices(b, 0.0).size(), size_t(5));
    auto bars = topSlices(b, 3);
    QCOMPARE(bars.size(), size_t(3));
    QCOMPARE(bars[1].path, std::string("b"));
    QVERIFY(bars[2].other);
    QCOMPARE(bars[2].timeNs, int64_t(200));
    QCOMPARE(topSlices(b, 5).size(), size_t(5));
    QVERIFY(!topSlices(b, 5).back().other);
}

void TestActivityStats::kernelTimeUnderInstances()
{
    Database db(m_path, OpenMode::ReadOnly);
    Reader r(db);
    auto profile = RunProfile::load(r, m_run);
    ActivityColumns columns = ActivityColumns::load(r, m_run, profile->tree);
    const ActivityView view = columns.view();
    QVERIFY(view.instanceParent && view.instanceCount > 10);
    // Brute force: each kernel counts for every instance up its parent chain (memcpys never).
    std::vector<int64_t> want(view.instanceCount, 0);
    int64_t memcpys = 0;
    for (const TrackActivities& t : view.tracks)
        for (size_t i = 0; i < t.size; ++i) {
            if (t.kindAt(i) != ActivityKind::Kernel) {
                ++memcpys;
                continue;
            }
            for (uint32_t at = t.instance[i]; at < view.instanceCount; at = view.instanceParent[at])
                want[at] += t.durationNs[i];
        }
    QVERIFY(memcpys > 0);   // o.memcpyEvery: memory operations that must not count
    const size_t stride = std::max<size_t>(1, view.instanceCount / 40);
    for (size_t inst = 0; inst < view.instanceCount; inst += stride)
        QCOMPARE(kernelTimeUnder(view, uint32_t(inst)), want[inst]);
    QCOMPARE(kernelTimeUnder(view, uint32_t(view.instanceCount)), int64_t(0));   // no such instance
    ActivityView noParents = view;
    noParents.instanceParent = nullptr;
    QCOMPARE(kernelTimeUnder(noParents, 0), int64_t(0));
}

QTEST_GUILESS_MAIN(TestActivityStats)
#include "tst_activitystats.moc"
