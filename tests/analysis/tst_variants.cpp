// analysis/variants and analysis/sweep over real tiny CPU captures: the variants table equals
// compareRuns over the same runs, speedups are ratios of those numbers, runs differing in two
// settings are refused with both named, the settings of a run (full vs adaptive differ in the
// variant only), the run selection, and sweeps (tags, listing, numeric order, points per layer,
// one series per variant on a variant grid).
#include "analysis/breakdown.h"
#include "analysis/compare.h"
#include "analysis/sweep.h"
#include "analysis/variants.h"
#include "capture/capture.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <algorithm>
#include <map>

using namespace wt;

namespace {

int64_t captureTiny(const std::string& file, const std::string& variant,
                    std::vector<std::pair<std::string, std::string>> overrides = {},
                    std::vector<std::pair<std::string, std::string>> metadata = {}, int steps = 2)
{
    capture::CaptureOptions o;
    o.workload = "gcn";
    o.variant = variant;
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = steps;
    o.warmup = 0;
    o.output = file;
    o.overrides = std::move(overrides);
    o.metadata = std::move(metadata);
    return capture::runCapture(o).runId;
}

const CompareGroup* groupOf(const Comparison& c, const std::string& path)
{
    for (const CompareGroup& g : c.groups)
        if (g.path == path)
            return &g;
    return nullptr;
}

RunInfo info(int64_t id, const std::string& variant, const std::string& config, RunStatus status = RunStatus::Complete)
{
    RunInfo r;
    r.id = id;
    r.workload = "gcn";
    r.variant = variant;
    r.preset = "tiny";
    r.backend = "cpu";
    r.device = "CPU: test";
    r.configJson = config;
    r.status = status;
    return r;
}

std::string config(const std::string& variant, int hidden, const std::string& cutoffs)
{
    return "{\"workload\":\"gcn\",\"preset\":\"tiny\",\"variant\":\"" + variant +
           "\",\"backend\":\"cpu\",\"seed\":1,\"vocab\":64,\"hidden\":" + std::to_string(hidden) +
           ",\"layers\":2,\"kernel\":3,\"batch\":2,\"seq\":8,\"tokens\":16,\"cutoffs\":[" + cutoffs +
           "],\"lr\":0.5,\"momentum\":0.9,\"clip\":1,\"warmup\":20,\"zipf\":1,\"corpus\":\"\"}";
}

}  // namespace

class TestVariants : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void settingsOfARun();
    void differingSettingsNamesEach();
    void selectVariantRuns();
    void tableEqualsCompare();
    void speedupsAreRatios();
    void baselineFallsBackToFirst();
    void twoSettingsRefused();
    void oneSettingOtherThanVariant();
    void sweepTags();
    void sweepTable();
    void variantGrid();
    void unknownSweepAndLayer();

private:
    std::string m_file;                  // tiny gcn: adaptive, full, fused, bucketed
    std::vector<CompareRun> m_runs;
};

void TestVariants::initTestCase()
{
    m_file = test::tempPath("variants.wt");
    for (const char* v : {"full", "adaptive", "fused", "bucketed"})
        captureTiny(m_file, v);
    Database db(m_file, OpenMode::ReadOnly);
    Reader reader(db);
    for (const RunInfo& r : reader.runs())
        m_runs.push_back(loadCompareRun(reader, r.id, m_file));
    QCOMPARE(m_runs.size(), size_t(4));
}

void TestVariants::settingsOfARun()
{
    auto s = runSettings(info(1, "adaptive", config("adaptive", 16, "16,32")));
    std::map<std::string, std::string> m(s.begin(), s.end());
    QCOMPARE(m["hidden"], std::string("16"));
    QCOMPARE(m["cutoffs"], std::string("16,32"));
    QCOMPARE(m["variant"], std::string("adaptive"));
    QCOMPARE(m["device"], std::string("CPU: test"));
    QVERIFY(!m.count("tokens"));   // derived from batch * seq
    QVERIFY(std::is_sorted(s.begin(), s.end()));
    // full has no cutoffs: full vs adaptive differs in the variant alone.
    RunInfo a = info(1, "adaptive", config("adaptive", 16, "16,32"));
    RunInfo f = info(2, "full", config("full", 16, ""));
    auto d = differingSettings({&a, &f});
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0].key, std::string("variant"));
    QCOMPARE(d[0].values, (std::vector<std::string>{"adaptive", "full"}));
    // An import without a configuration still has its workload and device.
    RunInfo imp;
    imp.workload = "kineto";
    imp.backend = "import";
    imp.device = "H100";
    auto si = runSettings(imp);
    std::map<std::string, std::string> mi(si.begin(), si.end());
    QCOMPARE(mi["workload"], std::string("kineto"));
    QCOMPARE(mi["backend"], std::string("import"));
}

void TestVariants::differingSettingsNamesEach()
{
    RunInfo a = info(1, "adaptive", config("adaptive", 16, "16,32"));
    RunInfo b = info(2, "fused", config("fused", 32, "16,32"));
    RunInfo c = info(3, "adaptive", config("adaptive", 16, "16,48"));
    auto d = differingSettings({&a, &b, &c});
    std::vector<std::string> keys;
    for (const auto& x : d)
        keys.push_back(x.key);
    QCOMPARE(keys, (std::vector<std::string>{"cutoffs", "hidden", "variant"}));
    QCOMPARE(d[1].values, (std::vector<std::string>{"16", "32", "16"}));
    QVERIFY(differingSettings({&a, &a}).empty());
}

void TestVariants::selectVariantRuns()
{
    std::vector<RunInfo> runs{
        info(1, "adaptive", config("adaptive", 16, "16,32")),
        info(2, "full", config("full", 16, "")),
        info(3, "full", config("full", 16, "")),                       // newer full: wins over 2
        info(4, "fused", config("fused", 32, "16,32")),                // other hidden: left out
        info(5, "bucketed", config("bucketed", 16, "16,32"), RunStatus::Interrupted),   // not complete
        info(6, "fused", config("fused", 16, "16,32")),
        info(7, "adaptive", config("adaptive", 32, "16,32")),          // newest, hidden 32
    };
    auto anchor = newestCapture(runs);
    QVERIFY(anchor);
    QCOMPARE(anchor->id, int64_t(7));
    QCOMPARE(wt::selectVariantRuns(runs, *anchor), (std::vector<int64_t>{4, 7}));
    QCOMPARE(wt::selectVariantRuns(runs, runs[0]), (std::vector<int64_t>{1, 3, 6}));
    // Another setting: runs of adaptive that differ in hidden.
    QCOMPARE(wt::selectVariantRuns(runs, runs[0], "hidden"), (std::vector<int64_t>{1, 7}));
    QVERIFY(!newestCapture(runs, "transformer"));
}

void TestVariants::tableEqualsCompare()
{
    std::vector<const CompareRun*> ptrs;
    for (const CompareRun& r : m_runs)
        ptrs.push_back(&r);
    VariantsTable t = computeVariants(ptrs);
    QCOMPARE(t.setting, std::string("variant"));
    QCOMPARE(t.layer, std::string("softmax"));
    QCOMPARE(t.rows.size(), size_t(4));
    QCOMPARE(t.rows[t.baseline].value, std::string("adaptive"));

    CompareOptions co;
    co.groupBy = GroupBy::Layer;
    co.per = ComparePer::Step;
    Comparison all = compareRuns(ptrs, co);
    co.filters = {{GroupBy::Phase, "forward"}};
    Comparison fwd = compareRuns(ptrs, co);
    co.filters = {{GroupBy::Phase, "backward"}};
    Comparison bwd = compareRuns(ptrs, co);
    co.groupBy = GroupBy::Op;
    co.filters = {{GroupBy::Layer, "softmax"}};
    Comparison ops = compareRuns(ptrs, co);
    const CompareGroup* sm = groupOf(all, "softmax");
    QVERIFY(sm);
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const VariantRow& r = t.rows[i];
        QCOMPARE(r.value, m_runs[i].info.variant);
        QVERIFY(r.hasLayer);
        QVERIFY(r.layerNs > 0);
        QCOMPARE(r.layerNs, sm->cells[i].ns);
        QCOMPARE(r.stepNs, all.runs[i].total.ns);
        QCOMPARE(r.forwardNs, groupOf(fwd, "softmax")->cells[i].ns);
        QCOMPARE(r.backwardNs, groupOf(bwd, "softmax")->cells[i].ns);
        QVERIFY(r.forwardNs > 0 && r.backwardNs > 0);
        QCOMPARE(r.updateNs, r.layerNs - r.forwardNs - r.backwardNs);
        QCOMPARE(r.share, sm->cells[i].ns / all.runs[i].total.ns);
        QVERIFY(r.share > 0 && r.share < 1);
        QCOMPARE(r.steps, int64_t(2));
        // The step's wall time: the mean span of its step scopes, not the run's traced span per
        // step (which also holds the time between steps: writing each step's records).
        {
            Database db(m_file, OpenMode::ReadOnly);
            Reader reader(db);
            std::vector<int64_t> stepScopes;
            for (const ScopeNode& n : reader.scopes(m_runs[i].info.id))
                if (reader.strings().at(n.levelId) == "step")
                    stepScopes.push_back(n.id);
            QCOMPARE(stepScopes.size(), size_t(1));
            int64_t spans = 0, count = 0;
            for (const ScopeInstance& in : reader.scopeInstances(m_runs[i].info.id))
                if (in.scopeId == stepScopes.front()) {
                    spans += in.endNs - in.startNs;
                    ++count;
                }
            QCOMPARE(count, int64_t(2));
            QCOMPARE(r.stepWallNs, double(spans) / 2.0);
            QVERIFY(r.stepWallNs > 0 && r.stepWallNs <= double(m_runs[i].info.durationNs) / 2.0);
        }
        // The op stack adds up to the layer and matches compare's op rows.
        QCOMPARE(r.ops.size(), t.opNames.size());
        double sum = 0;
        for (size_t j = 0; j < r.ops.size(); ++j) {
            QCOMPARE(r.ops[j].name, t.opNames[j]);
            const CompareGroup* g = groupOf(ops, r.ops[j].name);
            QVERIFY(g);
            QCOMPARE(r.ops[j].ns, g->cells[i].ns);
            sum += r.ops[j].ns;
        }
        QVERIFY(std::abs(sum - r.layerNs) <= 1e-6 * r.layerNs);
    }
    // The op names of the variants differ (what a variant removes or fuses shows in the stack).
    auto has = [&](size_t row, const std::string& op) {
        for (const VariantOp& o : t.rows[row].ops)
            if (o.name == op)
                return o.ns > 0;
        return false;
    };
    bool someDiffer = false;
    for (const std::string& op : t.opNames)
        someDiffer |= has(0, op) != has(1, op);
    QVERIFY(someDiffer);
}

void TestVariants::speedupsAreRatios()
{
    std::vector<const CompareRun*> ptrs;
    for (const CompareRun& r : m_runs)
        ptrs.push_back(&r);
    VariantsOptions o;
    o.baseline = "full";
    VariantsTable t = computeVariants(ptrs, o);
    QCOMPARE(t.baseline, size_t(0));
    const VariantRow& b = t.rows[0];
    QCOMPARE(*b.speedup, 1.0);
    for (const VariantRow& r : t.rows) {
        QCOMPARE(*r.speedup, b.layerNs / r.layerNs);
        QCOMPARE(*r.forwardSpeedup, b.forwardNs / r.forwardNs);
        QCOMPARE(*r.backwardSpeedup, b.backwardNs / r.backwardNs);
        QCOMPARE(*r.stepSpeedup, b.stepNs / r.stepNs);
    }
    // Another baseline changes every ratio accordingly.
    o.baseline = "fused";
    VariantsTable f = computeVariants(ptrs, o);
    QCOMPARE(f.baseline, size_t(2));
    QCOMPARE(*f.rows[0].speedup, f.rows[2].layerNs / f.rows[0].layerNs);
}

void TestVariants::baselineFallsBackToFirst()
{
    std::vector<const CompareRun*> ptrs{&m_runs[0], &m_runs[2]};   // full, fused: no adaptive
    VariantsTable t = computeVariants(ptrs);
    QCOMPARE(t.baseline, size_t(0));
    QCOMPARE(t.notes.size(), size_t(1));
    QVERIFY(t.notes[0].find("adaptive") != std::string::npos);
}

void TestVariants::twoSettingsRefused()
{
    std::string file = test::tempPath("two-settings.wt");
    captureTiny(file, "adaptive");
    captureTiny(file, "full", {{"hidden", "32"}});
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    CompareRun a = loadCompareRun(reader, 1, file), b = loadCompareRun(reader, 2, file);
    try {
        computeVariants({&a, &b});
        QFAIL("runs differing in two settings were accepted");
    } catch (const VariantsError& e) {
        std::string m = e.what();
        QVERIFY2(m.find("hidden (16, 32)") != std::string::npos, e.what());
        QVERIFY2(m.find("variant (adaptive, full)") != std::string::npos, e.what());
        QVERIFY2(m.find("2 settings") != std::string::npos, e.what());
    }
}

void TestVariants::oneSettingOtherThanVariant()
{
    std::string file = test::tempPath("hidden.wt");
    captureTiny(file, "adaptive", {{"hidden", "8"}});
    captureTiny(file, "adaptive", {{"hidden", "32"}});
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    CompareRun a = loadCompareRun(reader, 1, file), b = loadCompareRun(reader, 2, file);
    VariantsTable t = computeVariants({&a, &b});
    QCOMPARE(t.setting, std::string("hidden"));
    QCOMPARE(t.rows[0].value, std::string("8"));
    QCOMPARE(t.rows[1].value, std::string("32"));
    QCOMPARE(t.baseline, size_t(0));
    QVERIFY(t.notes.empty());   // the default baseline (adaptive) is no hidden size: no note
}

void TestVariants::sweepTags()
{
    auto tag = sweepTagOf({{"seed", "1"}, {kSweepIdKey, "s1"}, {kSweepKeyKey, "hidden"}, {kSweepValueKey, "16"},
                           {kSweepIndexKey, "2"}});
    QVERIFY(tag);
    QCOMPARE(tag->id, std::string("s1"));
    QCOMPARE(tag->value, std::string("16"));
    QCOMPARE(tag->index, 2);
    QVERIFY(!tag->isGrid());
    QVERIFY(!sweepTagOf({{"seed", "1"}}));
    std::vector<std::string> v{"512", "64", "1e3", "128"};
    QVERIFY(sweepValueOrder(v));
    QCOMPARE(v, (std::vector<std::string>{"64", "128", "512", "1e3"}));
    std::vector<std::string> w{"fused", "adaptive"};
    QVERIFY(!sweepValueOrder(w));
    QCOMPARE(w, (std::vector<std::string>{"fused", "adaptive"}));
}

void TestVariants::sweepTable()
{
    std::string file = test::tempPath("sweep.wt");
    captureTiny(file, "adaptive");   // not part of the sweep
    const char* values[] = {"32", "8", "16"};
    for (int i = 0; i < 3; ++i)
        captureTiny(file, "adaptive", {{"hidden", values[i]}},
                    {{kSweepIdKey, "sw1"}, {kSweepKeyKey, "hidden"}, {kSweepValueKey, values[i]}, {kSweepIndexKey, std::to_string(i)}});
    {
        // A fourth run of the sweep without steps (as while it is being captured): left out, noted.
        Database db(file, OpenMode::ReadWrite);
        Writer writer(db);
        RunInfo r;
        r.name = "being captured";
        r.workload = "gcn";
        r.backend = "cpu";
        writer.beginRun(r);
        writer.setMetadata(kSweepIdKey, "sw1");
        writer.setMetadata(kSweepKeyKey, "hidden");
        writer.setMetadata(kSweepValueKey, "64");
        writer.setMetadata(kSweepIndexKey, "3");
        writer.finishRun(RunStatus::Failed, 0);
    }
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    auto sweeps = listSweeps(reader);
    QCOMPARE(sweeps.size(), size_t(1));
    QCOMPARE(sweeps[0].id, std::string("sw1"));
    QCOMPARE(sweeps[0].runIds, (std::vector<int64_t>{2, 3, 4, 5}));
    QCOMPARE(sweeps[0].values, (std::vector<std::string>{"8", "16", "32", "64"}));
    QCOMPARE(sweeps[0].workload, std::string("gcn"));

    SweepTable t = loadSweep(reader, "", {}, file);
    QCOMPARE(t.xKey, std::string("hidden"));
    QVERIFY(t.numeric);
    QCOMPARE(t.xValues, (std::vector<std::string>{"8", "16", "32", "64"}));
    QCOMPARE(t.notes.size(), size_t(1));
    QVERIFY2(t.notes[0].find("run 5 (64) has no steps") != std::string::npos, t.notes[0].c_str());
    QVERIFY(std::find(t.layers.begin(), t.layers.end(), "softmax") != t.layers.end());
    QVERIFY(t.layers.size() >= 3);   // embedding, conv1, conv2, softmax
    QCOMPARE(t.series.size(), t.layers.size());
    for (const SweepSeries& s : t.series) {
        QCOMPARE(s.points.size(), size_t(3));
        QCOMPARE(s.points[0].runId, int64_t(3));   // hidden 8
        QCOMPARE(*s.points[2].x, 32.0);
    }
    // Each point is the run's layer breakdown per step.
    for (const SweepSeries& s : t.series) {
        if (s.layer != "softmax")
            continue;
        for (const SweepPoint& p : s.points) {
            auto profile = RunProfile::load(reader, p.runId);
            Breakdown b = computeBreakdown(profile->totals, profile->tree, profile->strings, BreakdownOptions{});
            for (const Group& g : b.groups)
                if (g.path == "softmax") {
                    QCOMPARE(p.ns, double(g.timeNs) / 2.0);
                    QCOMPARE(p.share, g.share);
                }
            QCOMPARE(p.stepNs, double(b.totalNs) / 2.0);
        }
    }
    // --layer: one series.
    SweepOptions o;
    o.layer = "softmax";
    SweepTable one = loadSweep(reader, "sw1", o, file);
    QCOMPARE(one.series.size(), size_t(1));
    QCOMPARE(one.series[0].name, std::string("softmax"));
}

void TestVariants::variantGrid()
{
    std::string file = test::tempPath("grid.wt");
    int i = 0;
    for (const char* h : {"8", "16"})
        for (const char* v : {"adaptive", "fused"})
            captureTiny(file, v, {{"hidden", h}},
                        {{kSweepIdKey, "g"}, {kSweepKeyKey, "hidden"}, {kSweepValueKey, h}, {kSweepKey2Key, "variant"},
                         {kSweepValue2Key, v}, {kSweepIndexKey, std::to_string(i++)}});
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    SweepOptions o;
    o.layer = "softmax";
    SweepTable t = loadSweep(reader, "g", o, file);
    QCOMPARE(t.xKey, std::string("hidden"));
    QCOMPARE(t.groupKey, std::string("variant"));
    QCOMPARE(t.series.size(), size_t(2));
    QCOMPARE(t.series[0].name, std::string("softmax adaptive"));
    QCOMPARE(t.series[1].group, std::string("fused"));
    QCOMPARE(t.series[1].points.size(), size_t(2));
    QCOMPARE(t.series[1].points[1].runId, int64_t(4));   // hidden 16, fused
}

void TestVariants::unknownSweepAndLayer()
{
    Database db(m_file, OpenMode::ReadOnly);
    Reader reader(db);
    QVERIFY_THROWS_EXCEPTION(SweepError, loadSweep(reader, "", {}, m_file));   // no sweep in the file
    VariantsOptions o;
    o.layer = "nope";
    std::vector<const CompareRun*> ptrs{&m_runs[0], &m_runs[1]};
    VariantsTable t = computeVariants(ptrs, o);
    QVERIFY(!t.rows[0].hasLayer);
    QCOMPARE(t.rows[0].layerNs, 0.0);
    QVERIFY(!t.rows[0].speedup);
}

QTEST_GUILESS_MAIN(TestVariants)
#include "tst_variants.moc"
