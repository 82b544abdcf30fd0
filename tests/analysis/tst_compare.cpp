// Compare: a run against itself (zero delta at every grouping), a hand-written pair with known
// per-layer changes (exact deltas and ratios, groups in one run only, per step against per run),
// the kernel-level diff (changed, added, removed, swaps paired), step counts of captures and of
// imports (profiler steps), traces of two formats compared by kernel name, and a real pair of
// imported ranks from ../shared/traces.
#include "analysis/breakdown.h"
#include "analysis/compare.h"
#include "tests/support/synthrun.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

#include <sqlite3.h>

#include <cmath>
#include <map>
#include <set>

using namespace wt;

// Enums compare by their names (readable failures).
#define QCOMPARE_NAME(a, b) QCOMPARE(std::string(toString(a)), std::string(toString(b)))

namespace {

// One kernel launch of a hand-written run: phase > layer > op > kernel, `ns` each time.
struct Launch {
    const char* phase;
    const char* layer;
    const char* op;
    const char* kernel;
    int64_t ns;
};

// A capture-like run: `steps` steps, each launching `launches` in order; `stray` kernels (no
// scope) once per run.
int64_t writeRun(Writer& w, const std::string& name, int steps, const std::vector<Launch>& launches,
                 const std::vector<std::pair<const char*, int64_t>>& stray = {})
{
    RunInfo info;
    info.name = name;
    info.workload = "gcn";
    info.variant = name;
    info.backend = "cpu";
    info.device = "CPU: test";
    int64_t run = w.beginRun(info);
    int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    int64_t step = w.addScope(0, "step", "step");
    int64_t at = 0;
    auto kernel = [&](int64_t instance, const char* k, int64_t ns) {
        Activity a;
        a.trackId = track;
        a.startNs = at;
        a.endNs = at + ns;
        at += ns + 10;
        a.nameId = w.intern(k);
        a.scopeInstanceId = instance;
        w.addActivity(a);
    };
    for (int s = 0; s < steps; ++s) {
        int64_t si = w.beginScopeInstance(step, 0, at);
        for (const Launch& l : launches) {
            int64_t phase = w.addScope(step, l.phase, "phase");
            int64_t layer = w.addScope(phase, l.layer, "layer");
            int64_t op = w.addScope(layer, l.op, "op");
            int64_t pi = w.addScopeInstance(phase, si, at, at + l.ns);
            int64_t li = w.addScopeInstance(layer, pi, at, at + l.ns);
            kernel(w.addScopeInstance(op, li, at, at + l.ns), l.kernel, l.ns);
        }
        w.endScopeInstance(si, at);
    }
    for (auto [k, ns] : stray)
        kernel(0, k, ns);
    w.finishRun(RunStatus::Complete, at);
    return run;
}

const CompareGroup* find(const Comparison& c, const std::string& path)
{
    for (const CompareGroup& g : c.groups)
        if (g.path == path)
            return &g;
    return nullptr;
}

const KernelDiffRow* findRow(const KernelDiff& d, const std::string& op, const std::string& baseName, const std::string& otherName)
{
    for (const KernelDiffRow& r : d.rows)
        if (r.op == op && r.baseName == baseName && r.otherName == otherName)
            return &r;
    return nullptr;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// The path of a shared trace; in CI a missing one fails the test, elsewhere it skips it.
#define REQUIRE_TRACE(var, name)                                                                          \
    QString var = test::sharedTrace(QStringLiteral(name));                                                \
    if (var.isEmpty()) {                                                                                  \
        if (qEnvironmentVariable("CI") == QLatin1String("true"))                                          \
            QFAIL("missing ../shared/traces/" name);                                                      \
        QSKIP("missing ../shared/traces/" name);                                                          \
    }

}  // namespace

class TestCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void selfCompareIsZero();
    void knownLayerChanges();
    void groupsInOneRunOnly();
    void perStepTimesSteps();
    void perStepNeedsSteps();
    void kernelDiffPairsSwaps();
    void kernelDiffMoves();
    void kernelStems();
    void nRunsAgainstBase();
    void stepsOfCaptures();
    void corruptInstancesFailCleanly();
    void profilerStepsOfImports();
    void twoFormatsByKernelName();
    void realRanksCompare();

private:
    std::string m_pair;            // BASE and OTHER with known changes
    int64_t m_base = 0, m_other = 0, m_third = 0;
    std::string m_synth;           // two synthetic runs with equal step counts
    synth::Result m_s1, m_s2;
};

// BASE (2 steps) and OTHER (2 steps), per step:
//   conv1:     glu 100                               | glu 100                    (unchanged)
//   softmax:   head_gemm sgemm_tn 200                | sgemm_tn 120, fill 5       (changed, added)
//              tail_gemm sgemm_128x64_nn 60          | sgemm_64x32_nn 50          (similar swap)
//              log_softmax cunn_SoftMaxForward<4, float> 40 | softmax_warp_forward 30 (swap)
//              nll memset_kernel 8                   | -                          (removed)
//   embedding: lookup 10                             | -                          (BASE only)
//   extra:     -                                     | extra_kernel 7             (OTHER only)
//   backward softmax: head_gemm sgemm_tn_backward 300 | 300                       (unchanged)
// plus one stray kernel (no scope) of 4 ns in BASE and 6 ns in OTHER, once per run.
void TestCompare::initTestCase()
{
    m_pair = test::tempPath("pair.wt");
    Database db(m_pair, OpenMode::ReadWrite);
    Writer w(db);
    m_base = writeRun(w, "base", 2,
                      {{"forward", "embedding", "lookup", "index_kernel", 10},
                       {"forward", "conv1", "glu", "glu", 100},
                       {"forward", "softmax", "head_gemm", "sgemm_tn", 200},
                       {"forward", "softmax", "tail_gemm", "sgemm_128x64_nn", 60},
                       {"forward", "softmax", "log_softmax", "cunn_SoftMaxForward<4, float>", 40},
                       {"forward", "softmax", "nll", "memset_kernel", 8},
                       {"backward", "softmax", "head_gemm", "sgemm_tn_backward", 300}},
                      {{"stray", 4}});
    m_other = writeRun(w, "other", 2,
                       {{"forward", "conv1", "glu", "glu", 100},
                        {"forward", "softmax", "head_gemm", "sgemm_tn", 120},
                        {"forward", "softmax", "head_gemm", "fill", 5},
                        {"forward", "softmax", "tail_gemm", "sgemm_64x32_nn", 50},
                        {"forward", "softmax", "log_softmax", "softmax_warp_forward", 30},
                        {"forward", "extra", "proj", "extra_kernel", 7},
                        {"backward", "softmax", "head_gemm", "sgemm_tn_backward", 300}},
                       {{"stray", 6}});
    // A third run for N-run tables: conv1 doubled, 4 steps.
    m_third = writeRun(w, "third", 4,
                       {{"forward", "conv1", "glu", "glu", 200},
                        {"forward", "softmax", "head_gemm", "sgemm_tn", 200},
                        {"backward", "softmax", "head_gemm", "sgemm_tn_backward", 300}});

    m_synth = test::tempPath("synth.wt");
    Database sdb(m_synth, OpenMode::ReadWrite);
    Writer sw(sdb);
    synth::Options o;
    o.kernels = 272 * 12;   // 12 whole steps of 272 kernels
    o.streams = 4;
    o.layers = 12;
    o.seed = 3;
    o.name = "s1";
    m_s1 = synth::generate(sw, o);
    o.seed = 4;
    o.name = "s2";
    m_s2 = synth::generate(sw, o);
}

void TestCompare::selfCompareIsZero()
{
    for (const std::string& file : {m_synth, m_pair}) {
        Database db(file, OpenMode::ReadOnly);
        Reader r(db);
        int64_t id = r.resolveRun({});
        CompareRun a = loadCompareRun(r, id, file);
        CompareRun b = loadCompareRun(r, id, file);
        QVERIFY(a.steps > 0);
        for (GroupBy g : {GroupBy::Scope, GroupBy::Layer, GroupBy::Phase, GroupBy::Op, GroupBy::Kernel, GroupBy::Kind}) {
            for (int depth : {1, 2, 3, 4}) {
                if (g != GroupBy::Scope && depth > 1)
                    continue;
                for (ComparePer per : {ComparePer::Step, ComparePer::Run}) {
                    CompareOptions o;
                    o.groupBy = g;
                    o.depth = depth;
                    o.per = per;
                    Comparison c = compareRuns({&a, &b}, o);
                    BreakdownOptions bo;
                    bo.groupBy = g;
                    bo.depth = depth;
                    Breakdown bd = computeBreakdown(r.totals(id), ScopeTree::load(r, id), r.strings(), bo);
                    QCOMPARE(c.groups.size(), bd.groups.size());
                    QVERIFY(!c.groups.empty());
                    double sum = 0;
                    for (const CompareGroup& grp : c.groups) {
                        QVERIFY(grp.inAll());
                        QCOMPARE(grp.deltaNs[1], 0.0);
                        QCOMPARE(grp.change, 0.0);
                        QVERIFY(grp.ratio[1].has_value());
                        QCOMPARE(*grp.ratio[1], 1.0);
                        QCOMPARE(grp.cells[0].totalNs, grp.cells[1].totalNs);
                        sum += grp.cells[0].ns;
                    }
                    // Same numbers as the breakdown (`wheretime stats`), group by group.
                    for (const Group& bg : bd.groups) {
                        const CompareGroup* cg = find(c, bg.path);
                        QVERIFY2(cg, bg.path.c_str());
                        QCOMPARE(cg->cells[0].totalNs, bg.timeNs);
                        QCOMPARE(cg->cells[0].totalCount, bg.count);
                        QCOMPARE(cg->name, bg.name);
                    }
                    QCOMPARE(c.runs[0].total.totalNs, bd.totalNs);
                    QVERIFY(close(sum, c.runs[0].total.ns));
                    QCOMPARE(c.runs[1].deltaNs, 0.0);
                    QCOMPARE_NAME(c.per, per);
                }
            }
        }
    }
}

void TestCompare::knownLayerChanges()
{
    Database db(m_pair, OpenMode::ReadOnly);
    Reader r(db);
    CompareRun a = loadCompareRun(r, m_base, "pair.wt");
    CompareRun b = loadCompareRun(r, m_other, "pair.wt");
    QCOMPARE(a.steps, int64_t(2));
    QCOMPARE(b.steps, int64_t(2));
    Comparison c = compareRuns({&a, &b}, CompareOptions{});
    QCOMPARE_NAME(c.groupBy, GroupBy::Layer);   // both have scopes
    QCOMPARE_NAME(c.per, ComparePer::Step);     // both have steps
    QVERIFY(!c.notes.empty() && c.notes[0].find("per step") != std::string::npos);
    // Per step: softmax 200+60+40+8+300 = 608 -> 120+5+50+30+300 = 505.
    const CompareGroup* sm = find(c, "softmax");
    QVERIFY(sm);
    QCOMPARE(sm->cells[0].ns, 608.0);
    QCOMPARE(sm->cells[1].ns, 505.0);
    QCOMPARE(sm->deltaNs[1], -103.0);
    QCOMPARE(*sm->ratio[1], 505.0 / 608.0);
    QCOMPARE(sm->cells[0].count, 5.0);
    QCOMPARE(sm->cells[1].count, 5.0);
    const CompareGroup* conv = find(c, "conv1");
    QCOMPARE(conv->cells[0].ns, 100.0);
    QCOMPARE(conv->deltaNs[1], 0.0);
    QCOMPARE(*conv->ratio[1], 1.0);
    // The stray kernel: 4 and 6 ns once per run, so 2 and 3 ns per step.
    const CompareGroup* none = find(c, kNoScope);
    QVERIFY(none);
    QCOMPARE(none->cells[0].ns, 2.0);
    QCOMPARE(none->cells[1].ns, 3.0);
    QCOMPARE(*none->ratio[1], 1.5);
    // Sorted by the size of the change: softmax (103) first, then embedding (10), extra (7).
    QCOMPARE(c.groups[0].path, std::string("softmax"));
    QCOMPARE(c.groups[1].path, std::string("embedding"));
    QCOMPARE(c.groups[2].path, std::string("extra"));
    // Totals: 718 + 2 and 612 + 3 per step; the deltas add up to the total's.
    QCOMPARE(c.runs[0].total.ns, 720.0);
    QCOMPARE(c.runs[1].total.ns, 615.0);
    double deltas = 0;
    for (const CompareGroup& g : c.groups)
        deltas += g.deltaNs[1];
    QCOMPARE(deltas, c.runs[1].deltaNs);
    QCOMPARE(c.runs[1].deltaNs, -105.0);
    // By op inside softmax (drill-down): head_gemm merges forward and backward.
    CompareOptions ops;
    ops.groupBy = GroupBy::Op;
    ops.filters = {{GroupBy::Layer, "softmax"}};
    Comparison co = compareRuns({&a, &b}, ops);
    QCOMPARE(find(co, "head_gemm")->cells[0].ns, 500.0);
    QCOMPARE(find(co, "head_gemm")->cells[1].ns, 425.0);
    QCOMPARE(find(co, "tail_gemm")->deltaNs[1], -10.0);
    QCOMPARE(*find(co, "tail_gemm")->ratio[1], 50.0 / 60.0);
    QVERIFY(!find(co, "nll")->cells[1].present);
    QCOMPARE(co.runs[0].total.ns, 608.0);
    QCOMPARE(co.runs[1].total.ns, 505.0);
    // Scope paths keep the phases apart.
    CompareOptions sc;
    sc.groupBy = GroupBy::Scope;
    sc.depth = 3;
    sc.per = ComparePer::Run;
    Comparison cs = compareRuns({&a, &b}, sc);
    const CompareGroup* fwd = find(cs, "step/forward/softmax");
    QCOMPARE(fwd->cells[0].totalNs, int64_t(2 * 308));
    QCOMPARE(fwd->cells[1].ns, double(2 * 205));
    QCOMPARE(find(cs, "step/backward/softmax")->deltaNs[1], 0.0);
}

void TestCompare::groupsInOneRunOnly()
{
    Database db(m_pair, OpenMode::ReadOnly);
    Reader r(db);
    CompareRun a = loadCompareRun(r, m_base);
    CompareRun b = loadCompareRun(r, m_other);
    Comparison c = compareRuns({&a, &b}, CompareOptions{});
    QCOMPARE(c.groups.size(), size_t(5));   // softmax, conv1, embedding, extra, (no scope)
    const CompareGroup* emb = find(c, "embedding");
    QVERIFY(emb);
    QVERIFY(emb->cells[0].present);
    QVERIFY(!emb->cells[1].present);
    QCOMPARE(emb->presentIn(), 1);
    QCOMPARE(emb->deltaNs[1], -10.0);
    QCOMPARE(*emb->ratio[1], 0.0);
    const CompareGroup* extra = find(c, "extra");
    QVERIFY(extra);
    QVERIFY(!extra->cells[0].present);
    QVERIFY(extra->cells[1].present);
    QCOMPARE(extra->deltaNs[1], 7.0);
    QVERIFY(!extra->ratio[1].has_value());   // undefined: nothing in BASE
    QVERIFY(!extra->ratio[0].has_value());
    // By kernel: the kernels of one run only are there too.
    CompareOptions k;
    k.groupBy = GroupBy::Kernel;
    Comparison ck = compareRuns({&a, &b}, k);
    QVERIFY(find(ck, "memset_kernel") && !find(ck, "memset_kernel")->cells[1].present);
    QVERIFY(find(ck, "fill") && !find(ck, "fill")->cells[0].present);
    QCOMPARE(find(ck, "sgemm_tn")->deltaNs[1], -80.0);
}

void TestCompare::perStepTimesSteps()
{
    Database db(m_synth, OpenMode::ReadOnly);
    Reader r(db);
    CompareRun a = loadCompareRun(r, m_s1.runId);
    CompareRun b = loadCompareRun(r, m_s2.runId);
    QCOMPARE(a.steps, int64_t(12));
    QCOMPARE(b.steps, a.steps);
    for (GroupBy g : {GroupBy::Layer, GroupBy::Scope, GroupBy::Op, GroupBy::Kernel}) {
        CompareOptions o;
        o.groupBy = g;
        o.per = ComparePer::Step;
        Comparison step = compareRuns({&a, &b}, o);
        o.per = ComparePer::Run;
        Comparison run = compareRuns({&a, &b}, o);
        QCOMPARE(step.groups.size(), run.groups.size());
        double sum0 = 0, sum1 = 0;
        for (const CompareGroup& gs : step.groups) {
            const CompareGroup* gr = find(run, gs.path);
            QVERIFY(gr);
            for (int i = 0; i < 2; ++i) {
                QVERIFY(close(gs.cells[size_t(i)].ns * double(a.steps), gr->cells[size_t(i)].ns));
                QCOMPARE(gr->cells[size_t(i)].ns, double(gr->cells[size_t(i)].totalNs));
            }
            QVERIFY(close(gs.deltaNs[1] * double(a.steps), gr->deltaNs[1]));
            sum0 += gs.cells[0].ns;
            sum1 += gs.cells[1].ns;
        }
        QVERIFY(close(sum0, step.runs[0].total.ns));
        QVERIFY(close(sum1, step.runs[1].total.ns));
        QVERIFY(close(step.runs[0].total.ns * 12, double(m_s1.kernelTimeNs)));
        QCOMPARE(run.runs[1].total.totalNs, m_s2.kernelTimeNs);
    }
}

void TestCompare::perStepNeedsSteps()
{
    // A run without steps (no step scope): per run by default; per step is refused.
    std::string path = test::tempPath("nosteps.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    RunInfo info;
    info.backend = "import";
    int64_t run = w.beginRun(info);
    int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
    int64_t layer = w.addScope(0, "model", "nvtx");
    int64_t inst = w.addScopeInstance(layer, 0, 0, 100);
    Activity act;
    act.trackId = t;
    act.endNs = 50;
    act.nameId = w.intern("k");
    act.scopeInstanceId = inst;
    w.addActivity(act);
    w.finishRun(RunStatus::Complete, 100);
    Reader r(db);
    CompareRun a = loadCompareRun(r, run);
    CompareRun b = loadCompareRun(r, run);
    QCOMPARE(a.steps, int64_t(0));
    Comparison c = compareRuns({&a, &b}, CompareOptions{});
    QCOMPARE_NAME(c.per, ComparePer::Run);
    QCOMPARE(c.groups.size(), size_t(1));
    QCOMPARE(c.groups[0].path, std::string("model"));   // an import's top-level range
    QCOMPARE(c.groups[0].cells[0].ns, 50.0);
    CompareOptions o;
    o.per = ComparePer::Step;
    QVERIFY_THROWS_EXCEPTION(CompareError, compareRuns({&a, &b}, o));
}

void TestCompare::kernelDiffPairsSwaps()
{
    Database db(m_pair, OpenMode::ReadOnly);
    Reader r(db);
    CompareRun a = loadCompareRun(r, m_base);
    CompareRun b = loadCompareRun(r, m_other);
    KernelDiffOptions o;
    o.filters = {{GroupBy::Layer, "softmax"}};
    KernelDiff d = diffKernels(a, b, o);
    QCOMPARE_NAME(d.per, ComparePer::Step);
    QCOMPARE(d.base.total.ns, 608.0);
    QCOMPARE(d.other.total.ns, 505.0);
    QCOMPARE(d.other.deltaNs, -103.0);
    QCOMPARE(d.unchanged, 1);   // sgemm_tn_backward
    QCOMPARE(d.changed, 1);     // sgemm_tn
    QCOMPARE(d.added, 1);       // fill (head_gemm lost nothing to pair it with)
    QCOMPARE(d.removed, 1);     // memset_kernel (nll gained nothing)
    QCOMPARE(d.swapped, 2);
    QCOMPARE(int(d.rows.size()), 6);
    const KernelDiffRow* tail = findRow(d, "tail_gemm", "sgemm_128x64_nn", "sgemm_64x32_nn");
    QVERIFY(tail);
    QCOMPARE_NAME(tail->change, KernelChange::Swapped);
    QVERIFY(tail->similarNames);
    QCOMPARE(tail->base.ns, 60.0);
    QCOMPARE(tail->other.ns, 50.0);
    QCOMPARE(tail->deltaNs, -10.0);
    const KernelDiffRow* sm = findRow(d, "log_softmax", "cunn_SoftMaxForward<4, float>", "softmax_warp_forward");
    QVERIFY(sm);
    QCOMPARE_NAME(sm->change, KernelChange::Swapped);
    QVERIFY(!sm->similarNames);
    QCOMPARE(*sm->ratio, 0.75);
    const KernelDiffRow* head = findRow(d, "head_gemm", "sgemm_tn", "sgemm_tn");
    QCOMPARE_NAME(head->change, KernelChange::Changed);
    QCOMPARE(head->deltaNs, -80.0);
    QCOMPARE(*head->ratio, 0.6);
    QCOMPARE(head->base.count, 1.0);
    const KernelDiffRow* fill = findRow(d, "head_gemm", "", "fill");
    QCOMPARE_NAME(fill->change, KernelChange::Added);
    QVERIFY(!fill->base.present);
    QCOMPARE(fill->other.ns, 5.0);
    QVERIFY(!fill->ratio);
    const KernelDiffRow* memset = findRow(d, "nll", "memset_kernel", "");
    QCOMPARE_NAME(memset->change, KernelChange::Removed);
    QCOMPARE(*memset->ratio, 0.0);
    QCOMPARE_NAME(findRow(d, "head_gemm", "sgemm_tn_backward", "sgemm_tn_backward")->change, KernelChange::Unchanged);
    // Rows by the size of the change; the deltas add up to the layer's.
    QCOMPARE(d.rows[0].baseName, std::string("sgemm_tn"));
    double deltas = 0;
    for (const KernelDiffRow& row : d.rows)
        deltas += row.deltaNs;
    QCOMPARE(deltas, d.other.deltaNs);
    // The same figures as the breakdown drilled to layer > op > kernel, per run.
    KernelDiffOptions perRun = o;
    perRun.per = ComparePer::Run;
    KernelDiff dr = diffKernels(a, b, perRun);
    BreakdownOptions bo;
    bo.groupBy = GroupBy::Kernel;
    bo.filters = {{GroupBy::Layer, "softmax"}, {GroupBy::Op, "head_gemm"}};
    Breakdown bd = computeBreakdown(r.totals(m_other), ScopeTree::load(r, m_other), r.strings(), bo);
    for (const Group& g : bd.groups)
        QCOMPARE(findRow(dr, "head_gemm", g.path == "fill" ? "" : g.path, g.path)->other.totalNs, g.timeNs);
    // A run against itself: every kernel unchanged.
    KernelDiff self = diffKernels(a, a, o);
    QCOMPARE(self.unchanged, 5);
    QCOMPARE(self.changed + self.added + self.removed + self.swapped, 0);
    // Kernels are matched inside ops, layers or phases only.
    KernelDiffOptions bad = o;
    bad.within = GroupBy::Kernel;
    QVERIFY_THROWS_EXCEPTION(CompareError, diffKernels(a, b, bad));
}

void TestCompare::kernelDiffMoves()
{
    // A kernel that runs in another op of the layer is paired by its name (moved); the rest of
    // an op pairs by time.
    std::string path = test::tempPath("moves.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    int64_t a = writeRun(w, "a", 1,
                         {{"forward", "softmax", "head", "log_softmax_forward", 10},
                          {"forward", "softmax", "head", "gather", 5},
                          {"forward", "softmax", "tail", "sgemm_nt", 3}});
    int64_t b = writeRun(w, "b", 1,
                         {{"forward", "softmax", "full", "log_softmax_forward", 12},
                          {"forward", "softmax", "head", "nll", 4},
                          {"forward", "softmax", "tail", "sgemm_nt", 3}});
    Reader r(db);
    CompareRun ra = loadCompareRun(r, a);
    CompareRun rb = loadCompareRun(r, b);
    KernelDiffOptions o;
    o.filters = {{GroupBy::Layer, "softmax"}};
    KernelDiff d = diffKernels(ra, rb, o);
    QCOMPARE(d.moved, 1);
    QCOMPARE(d.swapped, 1);
    QCOMPARE(d.unchanged, 1);
    QCOMPARE(d.added + d.removed + d.changed, 0);
    const KernelDiffRow* moved = findRow(d, "head", "log_softmax_forward", "log_softmax_forward");
    QVERIFY(moved);
    QCOMPARE_NAME(moved->change, KernelChange::Moved);
    QCOMPARE(moved->otherOp, std::string("full"));
    QCOMPARE(moved->deltaNs, 2.0);
    const KernelDiffRow* swap = findRow(d, "head", "gather", "nll");
    QVERIFY(swap);
    QCOMPARE_NAME(swap->change, KernelChange::Swapped);
    QCOMPARE(swap->otherOp, std::string("head"));
    QCOMPARE(*swap->ratio, 0.8);
}

void TestCompare::kernelStems()
{
    QCOMPARE(kernelStem("ampere_sgemm_128x64_nn"), kernelStem("ampere_sgemm_64x32_nn"));
    QCOMPARE(kernelStem("elementwise_kernel<128, 4>"), kernelStem("elementwise_kernel<256, 2>"));
    QCOMPARE(kernelStem("void foo<float>(float*, int)"), std::string("void foo"));
    QVERIFY(kernelStem("ampere_sgemm_128x64_nn") != kernelStem("ampere_sgemm_128x64_tn"));
    QVERIFY(kernelStem("softmax_warp_forward") != kernelStem("cunn_SoftMaxForward<4, float>"));
}

void TestCompare::nRunsAgainstBase()
{
    Database db(m_pair, OpenMode::ReadOnly);
    Reader r(db);
    CompareRun a = loadCompareRun(r, m_base);
    CompareRun b = loadCompareRun(r, m_other);
    CompareRun c3 = loadCompareRun(r, m_third);
    QCOMPARE(c3.steps, int64_t(4));
    Comparison c = compareRuns({&a, &b, &c3}, CompareOptions{});
    QCOMPARE(c.runs.size(), size_t(3));
    const CompareGroup* conv = find(c, "conv1");
    QCOMPARE(conv->cells.size(), size_t(3));
    QCOMPARE(conv->cells[2].ns, 200.0);   // per step of the third run's 4 steps
    QCOMPARE(*conv->ratio[2], 2.0);
    QCOMPARE(*conv->ratio[1], 1.0);
    QCOMPARE(conv->deltaNs[2], 100.0);
    const CompareGroup* extra = find(c, "extra");
    QCOMPARE(extra->presentIn(), 1);
    QVERIFY(extra->cells[1].present && !extra->cells[2].present);
    // softmax: 608, 505, 500.
    const CompareGroup* sm = find(c, "softmax");
    QCOMPARE(sm->cells[2].ns, 500.0);
    QCOMPARE(sm->change, 108.0);   // the largest |delta| over the runs
    QCOMPARE(c.groups[0].path, std::string("softmax"));
    for (size_t i = 0; i < 3; ++i) {
        double sum = 0;
        for (const CompareGroup& g : c.groups)
            sum += g.cells[i].ns;
        QCOMPARE(sum, c.runs[i].total.ns);
    }
}

void TestCompare::stepsOfCaptures()
{
    // The fast count equals the instances of the step scope, counted from every instance.
    Database db(m_synth, OpenMode::ReadOnly);
    Reader r(db);
    for (int64_t run : {m_s1.runId, m_s2.runId}) {
        ScopeTree tree = ScopeTree::load(r, run);
        int64_t brute = 0;
        for (const ScopeInstance& si : r.scopeInstances(run))
            brute += tree.level(si.scopeId) == "step" ? 1 : 0;
        QCOMPARE(countSteps(r, run, tree), brute);
        QCOMPARE(brute, int64_t(12));
    }
}

void TestCompare::corruptInstancesFailCleanly()
{
    // A damaged scope-instance chunk: the step count of a run without stored step totals (an
    // older file's) fails with a StorageError (the CLI's one-line error), it does not read past
    // the blob; so does a damaged stored step-totals blob.
    std::string path = test::tempPath("corrupt.wt");
    int64_t run = 0;
    {
        Database db(path, OpenMode::ReadWrite);
        Writer w(db);
        run = writeRun(w, "c", 3, {{"forward", "conv1", "glu", "glu", 100}});
    }
    for (const char* blob : {"x'01'", "x'01ffffffff'", "x'0105010203'", "x'07'"}) {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        std::string sql = std::string("UPDATE step_totals SET data=") + blob;
        QCOMPARE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        QVERIFY_THROWS_EXCEPTION(StorageError, loadCompareRun(r, run));
    }
    {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        QCOMPARE(sqlite3_exec(h, "DELETE FROM step_totals", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
    }
    for (const char* blob : {"x'01'", "x'01ffffffff'", "x'0105010203'", "x'07'"}) {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        std::string sql = std::string("UPDATE scope_instance_chunks SET data=") + blob;
        QCOMPARE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        QVERIFY_THROWS_EXCEPTION(StorageError, loadCompareRun(r, run));
    }
}

void TestCompare::profilerStepsOfImports()
{
    // Two ranks' worth of ProfilerStep#N ranges: steps are counted by name, and all steps are
    // one group, so two traces with other step numbers match.
    std::string path = test::tempPath("profsteps.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    int64_t runs[2];
    for (int k = 0; k < 2; ++k) {
        RunInfo info;
        info.backend = "import";
        info.name = k == 0 ? "first" : "second";
        runs[k] = w.beginRun(info);
        int64_t t = w.addTrack(0, 7, TrackKind::Kernel);
        int64_t at = 0;
        for (int s = 0; s < 3; ++s) {
            std::string name = "ProfilerStep#" + std::to_string(k == 0 ? 551 + s : 4 + s);
            int64_t step = w.addScope(0, name, "annotation");
            int64_t op = w.addScope(step, "aten::mm", "op");
            for (int rank = 0; rank < 2; ++rank) {
                int64_t si = w.addScopeInstance(step, 0, at, at + 100);
                int64_t oi = w.addScopeInstance(op, si, at, at + 100);
                Activity a;
                a.trackId = t;
                a.startNs = at;
                a.endNs = at + (k == 0 ? 30 : 45);
                a.nameId = w.intern("gemm");
                a.scopeInstanceId = oi;
                w.addActivity(a);
                at += 200;
            }
        }
        w.finishRun(RunStatus::Complete, at);
    }
    Reader r(db);
    CompareRun a = loadCompareRun(r, runs[0]);
    CompareRun b = loadCompareRun(r, runs[1]);
    QCOMPARE(a.steps, int64_t(3));
    QCOMPARE(b.steps, int64_t(3));
    Comparison c = compareRuns({&a, &b}, CompareOptions{});
    QCOMPARE_NAME(c.per, ComparePer::Step);
    QCOMPARE(c.groups.size(), size_t(1));
    QCOMPARE(c.groups[0].path, std::string(kImportStepName));
    QCOMPARE(c.groups[0].cells[0].ns, 60.0);   // two ranks x 30 ns per step
    QCOMPARE(c.groups[0].cells[1].ns, 90.0);
    CompareOptions sc;
    sc.groupBy = GroupBy::Scope;
    sc.depth = 2;
    Comparison cs = compareRuns({&a, &b}, sc);
    QCOMPARE(cs.groups.size(), size_t(1));
    QCOMPARE(cs.groups[0].path, std::string("ProfilerStep#*/aten::mm"));
    QCOMPARE(*cs.groups[0].ratio[1], 1.5);
}

void TestCompare::twoFormatsByKernelName()
{
    // The same three kernels as a Kineto JSON trace and as an Nsight Systems export, with other
    // durations; neither has scopes, so they compare by kernel name.
    std::string json = test::tempPath("k.json");
    {
        QFile f(QString::fromStdString(json));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 1000, "dur": 10, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 1020, "dur": 10, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "softmax_k", "pid": 0, "tid": 7, "ts": 1040, "dur": 5, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "only_kineto", "pid": 0, "tid": 7, "ts": 1050, "dur": 1, "args": {"device": 0, "stream": 7}}
]})");
    }
    std::string nsys = test::tempPath("n.sqlite");
    {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(nsys.c_str(), &h), SQLITE_OK);
        const char* sql =
            "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
            "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
            "INSERT INTO StringIds VALUES (1, 'gemm_a'), (2, 'softmax_k'), (3, 'only_nsys');"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
            " demangledName INTEGER, shortName INTEGER);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 9000, 0, 7, 1, 1), (10000, 18000, 0, 7, 1, 1),"
            " (20000, 27500, 0, 7, 2, 2), (30000, 30500, 0, 7, 3, 3);";
        QCOMPARE(sqlite3_exec(h, sql, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
    }
    std::string out = test::tempPath("formats.wt");
    Database db(out, OpenMode::ReadWrite);
    int64_t k = interop::importTrace(db, json).written.runId;
    int64_t n = interop::importTrace(db, nsys).written.runId;
    Reader r(db);
    CompareRun a = loadCompareRun(r, k);
    CompareRun b = loadCompareRun(r, n);
    QVERIFY(!a.hasScopes() && !b.hasScopes());
    Comparison c = compareRuns({&a, &b}, CompareOptions{});
    QCOMPARE_NAME(c.groupBy, GroupBy::Kernel);
    QCOMPARE_NAME(c.per, ComparePer::Run);
    QCOMPARE(c.groups.size(), size_t(4));
    const CompareGroup* gemm = find(c, "gemm_a");
    QCOMPARE(gemm->cells[0].ns, 20000.0);   // 2 x 10 us
    QCOMPARE(gemm->cells[1].ns, 16000.0);   // 2 x 8 us
    QCOMPARE(*gemm->ratio[1], 0.8);
    QCOMPARE(gemm->cells[1].count, 2.0);
    QCOMPARE(find(c, "softmax_k")->deltaNs[1], 2500.0);
    QVERIFY(!find(c, "only_kineto")->cells[1].present);
    QVERIFY(!find(c, "only_nsys")->cells[0].present);
    QCOMPARE(c.groups[0].path, std::string("gemm_a"));   // largest change first
    // Without op scopes the kernel diff matches by name across the whole run.
    KernelDiff d = diffKernels(a, b, KernelDiffOptions{});
    QCOMPARE(d.changed, 2);
    QCOMPARE(d.swapped, 1);   // only_kineto -> only_nsys: one lost, one gained in the same (no) scope
    QVERIFY(findRow(d, kNoScope, "only_kineto", "only_nsys"));
}

void TestCompare::realRanksCompare()
{
    // Two ranks of one job (the same two profiler steps), imported apart and compared.
    REQUIRE_TRACE(rank0, "kineto-hta_2ranks_rank-0.json.gz");
    REQUIRE_TRACE(rank1, "kineto-hta_2ranks_rank-1.json.gz");
    std::string out = test::tempPath("ranks.wt");
    Database db(out, OpenMode::ReadWrite);
    int64_t r0 = interop::importTrace(db, rank0.toStdString()).written.runId;
    int64_t r1 = interop::importTrace(db, rank1.toStdString()).written.runId;
    Reader r(db);
    CompareRun a = loadCompareRun(r, r0);
    CompareRun b = loadCompareRun(r, r1);
    QCOMPARE(a.steps, int64_t(2));   // ProfilerStep#551 and #552
    QCOMPARE(b.steps, int64_t(2));
    CompareOptions o;
    o.groupBy = GroupBy::Kernel;
    o.per = ComparePer::Run;
    Comparison c = compareRuns({&a, &b}, o);
    // Reference numbers (../shared/traces/README.md): kernel sums 606,519 us and 651,026 us.
    QCOMPARE(c.runs[0].total.totalNs, a.info.kernelTimeNs);
    QCOMPARE(c.runs[1].total.totalNs, b.info.kernelTimeNs);
    QVERIFY(std::abs(double(c.runs[0].total.totalNs) - 606519e3) < 1e3);
    QVERIFY(std::abs(double(c.runs[1].total.totalNs) - 651026e3) < 1e3);
    int matched = 0, oneSided = 0;
    for (const CompareGroup& g : c.groups)
        (g.inAll() ? matched : oneSided)++;
    QVERIFY(matched > 50);   // most kernel names run on both ranks
    QVERIFY(oneSided > 0);   // 194 and 183 distinct names: some on one rank only
    // Per step: half of the whole run, group by group.
    o.per = ComparePer::Step;
    Comparison cs = compareRuns({&a, &b}, o);
    for (const CompareGroup& g : cs.groups)
        QVERIFY(close(g.cells[0].ns * 2, double(g.cells[0].totalNs)));
    // By layer: a step is never a layer; the ranges below the steps match across the ranks.
    Comparison cl = compareRuns({&a, &b}, CompareOptions{});
    QVERIFY(!find(cl, kImportStepName));
    for (const CompareGroup& g : cl.groups)
        QVERIFY2(g.path.rfind("ProfilerStep", 0) != 0, g.path.c_str());
    QVERIFY(find(cl, "## forward ##"));
    QVERIFY(find(cl, "## forward ##")->inAll());
    // By scope path at depth 1: the steps of both ranks are one group.
    CompareOptions byStep;
    byStep.groupBy = GroupBy::Scope;
    byStep.depth = 1;
    Comparison cp = compareRuns({&a, &b}, byStep);
    QVERIFY(find(cp, kImportStepName));
    QVERIFY(find(cp, kImportStepName)->inAll());
}

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
