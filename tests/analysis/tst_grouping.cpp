// The layer rule with steps (a step is never a layer; the layer depth counts below the
// steps), lane labels that name the level, and the category grouping (every kind, drill into
// kernel names, user rules through the tree).
#include "analysis/breakdown.h"
#include "analysis/grouping.h"
#include "analysis/runprofile.h"

#include <QTest>

using namespace wt;

namespace {

// An import-shaped tree: ProfilerStep#1 (step) > fwd (op) > linear (op) > addmm (op);
// ProfilerStep#2 (step) > fwd > linear; backward (op, top level: the autograd thread) > mm (op).
ScopeTree importTree(Strings& s)
{
    s = {{1, "ProfilerStep#1"}, {2, "ProfilerStep#2"}, {3, "fwd"}, {4, "linear"}, {5, "addmm"}, {6, "backward"}, {7, "mm"},
         {20, "step"}, {21, "op"}};
    return ScopeTree({ScopeNode{1, 0, 1, 20, 1}, ScopeNode{2, 1, 3, 21, 2}, ScopeNode{3, 2, 4, 21, 3}, ScopeNode{4, 3, 5, 21, 4},
                      ScopeNode{5, 0, 2, 20, 1}, ScopeNode{6, 5, 3, 21, 2}, ScopeNode{7, 6, 4, 21, 3}, ScopeNode{8, 0, 6, 21, 1},
                      ScopeNode{9, 8, 7, 21, 2}},
                     s);
}

}  // namespace

class TestGrouping : public QObject {
    Q_OBJECT
private slots:
    void layerBelowSteps();
    void layerDepth();
    void withoutSteps();
    void laneLabels();
    void categoryGrouping();
};

void TestGrouping::layerBelowSteps()
{
    Strings s;
    const ScopeTree t = importTree(s);
    QVERIFY(t.hasSteps());
    QCOMPARE(layerKey(t, 4), std::string("fwd"));   // addmm under step 1: the range below the step
    QCOMPARE(layerKey(t, 7), std::string("fwd"));   // the same layer in step 2
    QCOMPARE(layerKey(t, 9), std::string("backward"));
    QCOMPARE(layerKey(t, 1), std::string(kNoLayer));   // a kernel right in a step has no layer
    QCOMPARE(layerScope(t, 4), int64_t(2));
    QCOMPARE(layerScope(t, 1), int64_t(0));
    QCOMPARE(scopeGroupKey(t, 3, GroupBy::Phase), std::string("fwd"));
    QCOMPARE(scopeGroupKey(t, 1, GroupBy::Op), std::string(kNoOp));   // never a step
    QCOMPARE(scopeGroupKey(t, 4, GroupBy::Op), std::string("addmm"));
    QCOMPARE(t.depthBelowSteps(4), 3);
    QCOMPARE(t.maxDepthBelowSteps(), 3);
    // No step name is ever a layer key.
    for (const ScopeNode& n : t.nodes())
        QVERIFY(layerKey(t, n.id).rfind("ProfilerStep", 0) != 0);
}

void TestGrouping::layerDepth()
{
    Strings s;
    ScopeTree t = importTree(s);
    t.setLayerDepth(2);
    QCOMPARE(layerKey(t, 4), std::string("linear"));
    QCOMPARE(layerKey(t, 3), std::string("linear"));
    QCOMPARE(layerKey(t, 2), std::string("fwd"));   // shallower than the depth: itself
    QCOMPARE(layerKey(t, 9), std::string("mm"));
    QCOMPARE(layerScope(t, 4), int64_t(3));
    t.setLayerDepth(0);   // counts as 1
    QCOMPARE(t.layerDepth(), 1);

    // Through a profile: withLayerDepth, and the run's stored setting.
    RunProfile p;
    p.strings = s;
    p.tree = importTree(s);
    p.totals = {TotalRow{4, 5, ActivityKind::Kernel, 1, 100}, TotalRow{9, 7, ActivityKind::Kernel, 1, 50}};
    Breakdown b = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Layer, {}});
    QCOMPARE(b.groups.front().path, std::string("fwd"));
    auto deeper = withLayerDepth(p, 3);
    b = computeBreakdown(deeper->totals, deeper->tree, deeper->strings, GroupLevel{GroupBy::Layer, {}});
    QCOMPARE(b.groups.front().path, std::string("addmm"));
    QCOMPARE(b.groups.back().path, std::string("mm"));
    ScopeTree stored = importTree(s);
    applyRunSettings(stored, {{kLayerDepthKey, "2"}, {"other", "x"}});
    QCOMPARE(stored.layerDepth(), 2);
    applyRunSettings(stored, {{kLayerDepthKey, "2x"}});   // not a number: left as it was
    QCOMPARE(stored.layerDepth(), 2);
}

void TestGrouping::withoutSteps()
{
    Strings s{{1, "outer"}, {2, "inner"}, {20, "nvtx"}};
    ScopeTree t({ScopeNode{1, 0, 1, 20, 1}, ScopeNode{2, 1, 2, 20, 2}}, s);
    QVERIFY(!t.hasSteps());
    QCOMPARE(layerKey(t, 2), std::string("outer"));
    t.setLayerDepth(2);
    QCOMPARE(layerKey(t, 2), std::string("inner"));
}

void TestGrouping::laneLabels()
{
    Strings s;
    const ScopeTree t = importTree(s);
    // Depth 1 mixes steps and the autograd thread's ops: the step names it first.
    const std::vector<std::string> labels = wt::laneLabels(t);
    QCOMPARE(labels.size(), size_t(4));
    QCOMPARE(labels[0], std::string("step / op"));
    QCOMPARE(labels[1], std::string("op depth 1"));
    QCOMPARE(labels[2], std::string("op depth 2"));
    QCOMPARE(labels[3], std::string("op depth 3"));
    Strings n{{1, "a"}, {2, "b"}, {20, "nvtx"}, {21, "layer"}};
    const ScopeTree nv({ScopeNode{1, 0, 1, 20, 1}, ScopeNode{2, 1, 2, 20, 2}, ScopeNode{3, 2, 1, 21, 3}}, n);
    QCOMPARE(laneLabel(nv, 1), std::string("NVTX depth 1"));
    QCOMPARE(laneLabel(nv, 2), std::string("NVTX depth 2"));
    QCOMPARE(laneLabel(nv, 3), std::string("layer"));
    QCOMPARE(laneLabel(nv, 9), std::string("depth 9"));
}

void TestGrouping::categoryGrouping()
{
    Strings s;
    RunProfile p;
    p.tree = importTree(s);
    s[30] = "ncclDevKernel_AllReduce";
    s[31] = "volta_sgemm_128x64_nn";
    s[32] = "Memcpy HtoD";
    p.strings = s;
    p.totals = {TotalRow{4, 31, ActivityKind::Kernel, 4, 400}, TotalRow{9, 30, ActivityKind::Kernel, 1, 300},
                TotalRow{9, 31, ActivityKind::Kernel, 1, 100}, TotalRow{0, 32, ActivityKind::Memcpy, 2, 50}};
    Breakdown b = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {}});
    QCOMPARE(b.groups.size(), size_t(3));
    QCOMPARE(b.groups[0].path, std::string("gemm"));
    QCOMPARE(b.groups[0].timeNs, int64_t(500));
    QCOMPARE(b.groups[0].count, int64_t(5));
    QCOMPARE(b.groups[1].path, std::string("communication"));
    QCOMPARE(b.groups[2].path, std::string("memory"));   // memcpy counts in a category grouping
    QCOMPARE(b.totalNs, int64_t(850));
    QCOMPARE(drillTarget(GroupBy::Category), std::optional<GroupBy>(GroupBy::Kernel));
    QCOMPARE(groupByFromString("category"), std::optional<GroupBy>(GroupBy::Category));
    // Drill into a category: its kernel names; "memory" holds the memcpy names.
    b = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Kernel, {{GroupBy::Category, "memory"}}});
    QCOMPARE(b.groups.size(), size_t(1));
    QCOMPARE(b.groups[0].path, std::string("Memcpy HtoD"));
    // Within a layer, by category.
    b = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {{GroupBy::Layer, "backward"}}});
    QCOMPARE(b.groups.size(), size_t(2));
    QCOMPARE(b.groups[0].path, std::string("communication"));
    // User rules through the tree.
    p.tree.setCategories(std::make_shared<const KernelCategories>(KernelCategories::parse("sgemm -> fp32 gemm\n")));
    b = computeBreakdown(p.totals, p.tree, p.strings, GroupLevel{GroupBy::Category, {}});
    QCOMPARE(b.groups[0].path, std::string("fp32 gemm"));
    QCOMPARE(groupKey(ActivityKind::Kernel, 9, 31, p.tree, p.strings, GroupBy::Category), std::string("fp32 gemm"));
}

QTEST_GUILESS_MAIN(TestGrouping)
#include "tst_grouping.moc"
