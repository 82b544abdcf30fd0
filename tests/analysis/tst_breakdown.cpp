// Breakdown: stored totals against a brute-force sum over the activities, for random runs and
// every grouping; shares; drill-down filters; fallbacks for imports without levels; the
// breakdown as a table (the columns, none where a figure is unknown, the CSV).
#include "analysis/breakdown.h"
#include "analysis/breakdowntable.h"
#include "analysis/scopetree.h"
#include "tests/support/synthrun.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <cmath>
#include <map>

using namespace wt;

class TestBreakdown : public QObject {
    Q_OBJECT
private slots:
    void againstBruteForce_data();
    void againstBruteForce();
    void layerMergesPhasesAndDrillDown();
    void importWithoutLevels();
    void launchCostsPerGroup();
    void table();
};

void TestBreakdown::againstBruteForce_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<int>("streams");
    QTest::newRow("small-1stream") << 1 << 300 << 1;
    QTest::newRow("medium-4streams") << 2 << 5000 << 4;
    QTest::newRow("large-8streams") << 3 << 20000 << 8;
}

void TestBreakdown::againstBruteForce()
{
    QFETCH(int, seed);
    QFETCH(int, kernels);
    QFETCH(int, streams);
    std::string path = test::tempPath("bd.wt");
    synth::Result res;
    {
        Database db(path, OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        o.kernels = kernels;
        o.streams = streams;
        o.seed = uint64_t(seed);
        o.layers = 2 + seed;
        res = synth::generate(w, o);
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    ScopeTree tree = ScopeTree::load(r, res.runId);
    std::unordered_map<int64_t, int64_t> instanceScope;
    for (const ScopeInstance& si : r.scopeInstances(res.runId))
        instanceScope[si.id] = si.scopeId;
    std::vector<Activity> all;
    r.forEachActivity(res.runId, [&](const Activity& a) { all.push_back(a); return true; });
    QCOMPARE(int64_t(all.size()), res.kernels + res.memcpys);

    // Brute force, straight from the activities, with no shared code but the tree's names.
    auto brute = [&](GroupBy g, int depth) {
        std::map<std::string, std::pair<int64_t, int64_t>> m;
        for (const Activity& a : all) {
            if (g != GroupBy::Kind && a.kind != ActivityKind::Kernel)
                continue;
            std::string key;
            int64_t scope = a.scopeInstanceId ? instanceScope.at(a.scopeInstanceId) : 0;
            if (g == GroupBy::Kernel) {
                key = r.string(a.nameId);
            } else if (g == GroupBy::Kind) {
                key = std::string(toString(a.kind));
            } else if (g == GroupBy::Scope) {
                std::vector<std::string> parts;
                for (int64_t s = scope; s; s = tree.node(s).parentId)
                    parts.insert(parts.begin(), tree.name(s));
                if (int(parts.size()) > depth)
                    parts.resize(size_t(depth));
                for (size_t i = 0; i < parts.size(); ++i)
                    key += (i ? "/" : "") + parts[i];
            } else {
                const char* lvl = g == GroupBy::Layer ? "layer" : g == GroupBy::Phase ? "phase" : "op";
                for (int64_t s = scope; s; s = tree.node(s).parentId)
                    if (tree.level(s) == lvl)
                        key = tree.name(s);
            }
            m[key].first += a.endNs - a.startNs;
            m[key].second += 1;
        }
        return m;
    };

    for (GroupBy g : {GroupBy::Scope, GroupBy::Layer, GroupBy::Phase, GroupBy::Op, GroupBy::Kernel, GroupBy::Kind}) {
        for (int depth : {1, 2, 3, 4}) {
            if (g != GroupBy::Scope && depth > 1)
                continue;
            BreakdownOptions opt;
            opt.groupBy = g;
            opt.depth = depth;
            Breakdown stored = computeBreakdown(r.totals(res.runId), tree, r.strings(), opt);
            Breakdown fromActs = computeBreakdown(totalsOf(all, instanceScope), tree, r.strings(), opt);
            auto want = brute(g, depth);
            QCOMPARE(stored.groups.size(), want.size());
            QCOMPARE(fromActs.groups.size(), want.size());
            double shares = 0;
            int64_t total = 0;
            for (const Group& grp : stored.groups) {
                QVERIFY2(want.count(grp.path), grp.path.c_str());
                QCOMPARE(grp.timeNs, want[grp.path].first);
                QCOMPARE(grp.count, want[grp.path].second);
                shares += grp.share;
                total += grp.timeNs;
            }
            for (size_t i = 0; i < stored.groups.size(); ++i) {
                QCOMPARE(fromActs.groups[i].path, stored.groups[i].path);
                QCOMPARE(fromActs.groups[i].timeNs, stored.groups[i].timeNs);
            }
            for (size_t i = 1; i < stored.groups.size(); ++i)
                QVERIFY(stored.groups[i - 1].timeNs >= stored.groups[i].timeNs);
            QVERIFY(std::abs(shares - 1.0) < 1e-9);
            QCOMPARE(total, stored.totalNs);
            if (g != GroupBy::Kind)
                QCOMPARE(total, res.kernelTimeNs);
        }
    }
    // Summary numbers against brute force.
    RunStats stats = computeRunStats(r, res.runId, BreakdownOptions{});
    QCOMPARE(stats.kernels, res.kernels);
    QCOMPARE(stats.kernelTimeNs, res.kernelTimeNs);
    std::vector<std::pair<int64_t, int64_t>> iv;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const Activity& a : all)
        if (a.kind == ActivityKind::Kernel) {
            iv.emplace_back(a.startNs, a.endNs);
            first = std::min(first, a.startNs);
            last = std::max(last, a.endNs);
        }
    // Independent union: sweep over sorted starts.
    std::sort(iv.begin(), iv.end());
    int64_t busy = 0, cs = iv[0].first, ce = iv[0].second;
    for (auto [s, e] : iv) {
        if (s > ce) {
            busy += ce - cs;
            cs = s;
        }
        ce = std::max(ce, e);
    }
    busy += ce - cs;
    QCOMPARE(stats.kernelBusyNs, busy);
    QCOMPARE(stats.kernelSpanNs, last - first);
}

void TestBreakdown::layerMergesPhasesAndDrillDown()
{
    std::string path = test::tempPath("layers.wt");
    int64_t run = 0;
    {
        Database db(path, OpenMode::ReadWrite);
        Writer w(db);
        RunInfo info;
        info.backend = "cpu";
        run = w.beginRun(info);
        int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
        int64_t step = w.addScope(0, "step", "step");
        int64_t at = 0;
        auto kernel = [&](int64_t inst, const char* name, int64_t dur) {
            Activity a;
            a.trackId = t;
            a.startNs = at;
            a.endNs = at + dur;
            at += dur + 1;
            a.nameId = w.intern(name);
            a.scopeInstanceId = inst;
            w.addActivity(a);
        };
        int64_t si = w.beginScopeInstance(step, 0, 0);
        for (const char* phase : {"forward", "backward"}) {
            int64_t ph = w.addScope(step, phase, "phase");
            int64_t pi = w.beginScopeInstance(ph, si, at);
            int64_t sm = w.addScope(ph, "softmax", "layer");
            int64_t smi = w.beginScopeInstance(sm, pi, at);
            int64_t head = w.addScope(sm, "head_gemm", "op");
            int64_t tail = w.addScope(sm, "tail_gemm", "op");
            kernel(w.addScopeInstance(head, smi, at, at), "sgemm_tn", 100);
            int64_t ti = w.beginScopeInstance(tail, smi, at);
            kernel(ti, "sgemm_nn", 30);
            kernel(ti, "sgemm_nt", 20);
            w.endScopeInstance(ti, at);
            w.endScopeInstance(smi, at);
            int64_t c1 = w.addScope(ph, "conv1", "layer");
            kernel(w.addScopeInstance(w.addScope(c1, "glu", "op"), pi, at, at), "glu", 50);
            w.endScopeInstance(pi, at);
        }
        kernel(0, "stray", 7);   // no scope
        w.endScopeInstance(si, at);
        w.finishRun(RunStatus::Complete, at);
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    ScopeTree tree = ScopeTree::load(r, run);
    BreakdownOptions opt;
    opt.groupBy = GroupBy::Layer;
    Breakdown b = computeBreakdown(r.totals(run), tree, r.strings(), opt);
    QCOMPARE(b.groups.size(), size_t(3));
    QCOMPARE(b.groups[0].path, std::string("softmax"));   // forward + backward together
    QCOMPARE(b.groups[0].timeNs, int64_t(300));
    QCOMPARE(b.groups[0].count, int64_t(6));
    QCOMPARE(b.groups[1].path, std::string("conv1"));
    QCOMPARE(b.groups[1].timeNs, int64_t(100));
    QCOMPARE(b.groups[2].path, std::string(kNoScope));
    QCOMPARE(b.totalNs, int64_t(407));
    // Drill down: softmax -> ops -> kernels; each level's total equals its parent slice.
    opt.filters = {{GroupBy::Layer, "softmax"}};
    opt.groupBy = GroupBy::Op;
    Breakdown ops = computeBreakdown(r.totals(run), tree, r.strings(), opt);
    QCOMPARE(ops.totalNs, int64_t(300));
    QCOMPARE(ops.groups.size(), size_t(2));
    QCOMPARE(ops.groups[0].path, std::string("head_gemm"));
    QCOMPARE(ops.groups[0].timeNs, int64_t(200));
    opt.filters.push_back({GroupBy::Op, "tail_gemm"});
    opt.groupBy = GroupBy::Kernel;
    Breakdown ks = computeBreakdown(r.totals(run), tree, r.strings(), opt);
    QCOMPARE(ks.totalNs, int64_t(100));
    QCOMPARE(ks.groups.size(), size_t(2));
    QCOMPARE(ks.groups[0].path, std::string("sgemm_nn"));
    QCOMPARE(ks.groups[0].timeNs, int64_t(60));
    QCOMPARE(ks.groups[0].share, 0.6);
    // Scope paths at depth 2 keep phases apart.
    BreakdownOptions sc;
    sc.groupBy = GroupBy::Scope;
    sc.depth = 2;
    Breakdown byPhase = computeBreakdown(r.totals(run), tree, r.strings(), sc);
    QCOMPARE(byPhase.groups[0].path, std::string("step/backward"));
    QCOMPARE(byPhase.groups[0].name, std::string("backward"));
    QCOMPARE(byPhase.groups[0].timeNs, int64_t(200));
    // Drill by scope path: within step/backward, group at depth 3 (its layers).
    sc.filters = {{GroupBy::Scope, "step/backward"}};
    sc.depth = 3;
    Breakdown inBackward = computeBreakdown(r.totals(run), tree, r.strings(), sc);
    QCOMPARE(inBackward.totalNs, int64_t(200));
    QCOMPARE(inBackward.groups.size(), size_t(2));
    QCOMPARE(inBackward.groups[0].path, std::string("step/backward/softmax"));
    QCOMPARE(inBackward.groups[0].timeNs, int64_t(150));
    QCOMPARE(inBackward.groups[1].path, std::string("step/backward/conv1"));
    // One level further: the ops of step/backward/softmax.
    sc.filters.push_back({GroupBy::Scope, "step/backward/softmax"});
    sc.depth = 4;
    Breakdown ops2 = computeBreakdown(r.totals(run), tree, r.strings(), sc);
    QCOMPARE(ops2.totalNs, int64_t(150));
    QCOMPARE(ops2.groups[0].path, std::string("step/backward/softmax/head_gemm"));
}

void TestBreakdown::importWithoutLevels()
{
    // NVTX-like tree without layer levels: layers fall back to the top-level range.
    std::vector<ScopeNode> nodes = {{1, 0, 1, 3, 1}, {2, 1, 2, 3, 2}};
    std::unordered_map<uint32_t, std::string> strings = {{1, "iteration"}, {2, "aten::mm"}, {3, "nvtx"}, {4, "k"}};
    ScopeTree tree(nodes, strings);
    std::vector<TotalRow> totals = {{2, 4, ActivityKind::Kernel, 3, 30}, {0, 4, ActivityKind::Kernel, 1, 10},
                                    {1, 4, ActivityKind::Memcpy, 1, 5}};
    BreakdownOptions opt;
    opt.groupBy = GroupBy::Layer;
    Breakdown b = computeBreakdown(totals, tree, strings, opt);
    QCOMPARE(b.groups.size(), size_t(2));
    QCOMPARE(b.groups[0].path, std::string("iteration"));
    QCOMPARE(b.groups[0].share, 0.75);
    opt.groupBy = GroupBy::Kind;
    Breakdown k = computeBreakdown(totals, tree, strings, opt);
    QCOMPARE(k.totalNs, int64_t(45));
    QCOMPARE(k.groups[1].path, std::string("memcpy"));
    opt.groupBy = GroupBy::Op;
    Breakdown o = computeBreakdown(totals, tree, strings, opt);
    QCOMPARE(o.groups[0].path, std::string("aten::mm"));
}

void TestBreakdown::launchCostsPerGroup()
{
    // Two ops in two layers, one of them with two launches; a kernel without features.
    std::string path = test::tempPath("costs.wt");
    int64_t run = 0;
    {
        Database db(path, OpenMode::ReadWrite);
        Writer w(db);
        RunInfo info;
        info.backend = "cpu";
        run = w.beginRun(info);
        int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
        int64_t step = w.addScope(0, "step", "step");
        int64_t si = w.beginScopeInstance(step, 0, 0);
        int64_t at = 0;
        auto launch = [&](int64_t scope, const char* name, int64_t dur, double flops, double bytes, int64_t m) {
            const int64_t inst = w.addScopeInstance(scope, si, at, at + dur);
            Activity a;
            a.trackId = t;
            a.startNs = at;
            a.endNs = at + dur;
            at += dur + 1;
            a.nameId = w.intern(name);
            a.scopeInstanceId = inst;
            w.addActivity(a);
            if (flops < 0)
                return;   // no features for this one
            LaunchFeatures f;
            f.scopeInstanceId = inst;
            f.nameId = a.nameId;
            f.kind = m > 0 ? "gemm" : "kernel";
            f.flops = flops;
            f.bytesRead = bytes / 2;
            f.bytesWritten = bytes / 2;
            f.m = m;
            f.n = m;
            f.k = m;
            w.addLaunch(f);
        };
        int64_t sm = w.addScope(step, "softmax", "layer");
        int64_t head = w.addScope(sm, "head_gemm", "op");
        int64_t conv = w.addScope(step, "conv1", "layer");
        int64_t glu = w.addScope(conv, "glu", "op");
        launch(head, "sgemm_tn", 100, 2e6, 4e3, 100);
        launch(head, "sgemm_tn", 300, 6e6, 12e3, 100);
        launch(glu, "glu", 50, 1e3, 8e3, 0);
        launch(glu, "glu_extra", 20, -1, 0, 0);
        w.endScopeInstance(si, at);
        w.finishRun(RunStatus::Complete, at);
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    auto profile = RunProfile::load(r, run);
    QCOMPARE(profile->launchCosts.size(), size_t(3));
    Breakdown layers = computeBreakdown(*profile, GroupLevel{GroupBy::Layer, {}});
    QCOMPARE(layers.groups.size(), size_t(2));
    const Group& softmax = layers.groups[0];
    QCOMPARE(softmax.path, std::string("softmax"));
    QVERIFY(softmax.hasCost);
    QCOMPARE(softmax.flops, 8e6);
    QCOMPARE(softmax.bytes, 16e3);
    QCOMPARE(softmax.flopPerS(), 8e6 / 400e-9);   // over the group's kernel time (400 ns)
    const Group& conv = layers.groups[1];
    QCOMPARE(conv.path, std::string("conv1"));
    QVERIFY(conv.hasCost);   // glu has features; glu_extra (no launch record) adds time only
    QCOMPARE(conv.flops, 1e3);
    QCOMPARE(conv.timeNs, int64_t(70));
    // By kernel name: the launch's name is its kernel's; a kernel with no launch record has none.
    Breakdown kernels = computeBreakdown(*profile, GroupLevel{GroupBy::Kernel, {}});
    for (const Group& g : kernels.groups) {
        if (g.path == "glu_extra")
            QVERIFY(!g.hasCost);
        else if (g.path == "sgemm_tn")
            QCOMPARE(g.flops, 8e6);
    }
    // A time range has no costs (launches are not clipped).
    const ActivityView none;
    Breakdown range = computeBreakdown(*profile, GroupLevel{GroupBy::Layer, {}}, &none, TimeRange{0, 1000});
    for (const Group& g : range.groups)
        QVERIFY(!g.hasCost);
}

void TestBreakdown::table()
{
    Breakdown b;
    b.groupBy = GroupBy::Layer;
    Group softmax;
    softmax.name = softmax.path = "softmax";
    softmax.timeNs = 3000;
    softmax.share = 0.75;
    softmax.count = 2;
    softmax.meanNs = 1500;
    softmax.hasDistribution = true;
    softmax.medianNs = 1000;
    softmax.minNs = 1000;
    softmax.maxNs = 2000;
    softmax.hasCost = true;
    softmax.flops = 6e6;
    softmax.bytes = 3e3;
    Group embedding;   // no distribution, no op features
    embedding.name = "embedding";
    embedding.path = "model/embedding";
    embedding.timeNs = 1000;
    embedding.share = 0.25;
    embedding.count = 3;
    embedding.meanNs = 1000.0 / 3;
    Group idle = embedding;   // op features over no time: FLOPs known, rates not
    idle.name = idle.path = "idle";
    idle.timeNs = 0;
    idle.share = 0;
    idle.count = 1;
    idle.meanNs = 0;
    idle.hasCost = true;
    idle.flops = 10;
    b.groups = {softmax, embedding, idle};
    const Table t = breakdownTable(b);
    QCOMPARE(t.id, std::string("breakdown"));
    const char* ids[] = {"name", "path", "time_ns", "share", "count", "mean_ns", "median_ns", "min_ns", "max_ns",
                         "flops", "bytes", "flop_per_s", "bytes_per_s"};
    QCOMPARE(t.columns.size(), size_t(BreakdownColumn::NumColumns));
    for (size_t i = 0; i < t.columns.size(); ++i)
        QCOMPARE(t.columns[i].id, std::string(ids[i]));
    QCOMPARE(t.column("time_ns"), size_t(BreakdownColumn::Time));
    QCOMPARE(t.column("bytes_per_s"), size_t(BreakdownColumn::ByteRate));
    // The rates are Group's.
    QCOMPARE(std::get<double>(t.at(0, "flop_per_s")), softmax.flopPerS());
    QCOMPARE(std::get<double>(t.at(0, "bytes_per_s")), softmax.bytesPerS());
    QVERIFY(isNone(t.at(1, "median_ns")) && isNone(t.at(1, "flops")) && isNone(t.at(1, "flop_per_s")));
    QCOMPARE(std::get<double>(t.at(2, "flops")), 10.0);
    QVERIFY(isNone(t.at(2, "flop_per_s")) && isNone(t.at(2, "bytes_per_s")));
    QCOMPARE(render::csv(t), std::string("name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns,flops,bytes,flop_per_s,bytes_per_s\n"
                                         "softmax,softmax,3000,0.75,2,1500,1000,1000,2000,6e+06,3000,2e+12,1e+09\n"
                                         "embedding,model/embedding,1000,0.25,3,333.3333333333333,,,,,,,\n"
                                         "idle,idle,0,0,1,0,,,,10,0,,\n"));
    // The text table as `stats` prints it: the path titled by the grouping, time, share, count,
    // mean, median (some group has a distribution), FLOP/s and B/s (some has op features).
    const std::string text = render::text(t);
    QCOMPARE(text.substr(0, text.find('\n')), std::string("layer                time  share  count      mean    median        FLOP/s        B/s"));
    QVERIFY2(text.find("model/embedding") != std::string::npos, text.c_str());
    b.groups = {embedding};
    const Table plain = breakdownTable(b);
    QVERIFY(!plain.columns[size_t(BreakdownColumn::Median)].inText);
    QVERIFY(!plain.columns[size_t(BreakdownColumn::FlopRate)].inText);
    QVERIFY(!plain.columns[size_t(BreakdownColumn::Name)].inText);
    QVERIFY(plain.columns[size_t(BreakdownColumn::Path)].inText);
}

QTEST_GUILESS_MAIN(TestBreakdown)
#include "tst_breakdown.moc"
