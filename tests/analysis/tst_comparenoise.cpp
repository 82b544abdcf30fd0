// The noise of a comparison (analysis/compare.h over analysis/samplestats.h) on hand-written
// runs whose per-step times are chosen: the per-step samples read back exactly (they add up to
// the stored totals), Welch's interval of a layer computed here by hand, repeats pooled into one
// side (and refused when they are not one configuration), a 1-step run with not enough samples,
// per run with repeats as samples, and a noisy synthetic pair with +10% injected into one layer
// flagged slower in that layer and no other. The table's noise columns through the writer.
#include "analysis/compare.h"
#include "analysis/comparetable.h"
#include "analysis/variants.h"
#include "analysis/variantstable.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <cmath>
#include <functional>
#include <random>

using namespace wt;

namespace {

// A capture-like run: `steps` steps; in step s, layer L's one kernel takes ns(s, L) ns. The
// variant and a hidden size go into the configuration, so repeats can differ in them.
int64_t writeRun(Writer& w, const std::string& name, int steps, const std::vector<std::string>& layers,
                 const std::function<int64_t(int, size_t)>& ns, const std::string& variant = "adaptive", int hidden = 16,
                 int seed = 1)
{
    RunInfo info;
    info.name = name;
    info.workload = "gcn";
    info.variant = variant;
    info.backend = "cpu";
    info.device = "CPU: test";
    info.configJson = "{\"workload\":\"gcn\",\"variant\":\"" + variant + "\",\"hidden\":" + std::to_string(hidden) +
                      ",\"seed\":" + std::to_string(seed) + "}";
    const int64_t run = w.beginRun(info);
    const int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    const int64_t step = w.addScope(0, "step", "step");
    int64_t at = 0;
    for (int s = 0; s < steps; ++s) {
        const int64_t si = w.beginScopeInstance(step, 0, at);
        for (size_t l = 0; l < layers.size(); ++l) {
            const int64_t phase = w.addScope(step, "forward", "phase");
            const int64_t layer = w.addScope(phase, layers[l], "layer");
            const int64_t op = w.addScope(layer, "op", "op");
            const int64_t d = ns(s, l);
            const int64_t pi = w.addScopeInstance(phase, si, at, at + d);
            const int64_t li = w.addScopeInstance(layer, pi, at, at + d);
            Activity a;
            a.trackId = track;
            a.startNs = at;
            a.endNs = at + d;
            a.nameId = w.intern(layers[l] + "_kernel");
            a.scopeInstanceId = w.addScopeInstance(op, li, at, at + d);
            w.addActivity(a);
            at += d + 10;
        }
        w.endScopeInstance(si, at);
    }
    w.finishRun(RunStatus::Complete, at);
    return run;
}

const CompareGroup& group(const Comparison& c, const std::string& path)
{
    for (const CompareGroup& g : c.groups)
        if (g.path == path)
            return g;
    throw std::runtime_error("no group " + path);
}

bool near(double a, double b, double tol = 1e-6)
{
    return std::abs(a - b) <= tol;
}

}  // namespace

class TestCompareNoise : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void stepSamplesAddUp();
    void welchByHand();
    void tableColumns();
    void repeatsPool();
    void repeatsMustBeOneConfiguration();
    void oneStepNotEnough();
    void perRunRepeatsAreSamples();
    void injectedSlowdownFlaggedAlone();
    void variantsSpeedupInterval();

private:
    CompareRun load(int64_t id, bool steps = true)
    {
        Database db(m_file, OpenMode::ReadOnly);
        Reader r(db);
        return loadCompareRun(r, id, m_file, nullptr, steps);
    }
    std::string m_file;
    int64_t m_base = 0, m_other = 0, m_oneStep = 0, m_noisyBase = 0, m_noisyOther = 0;
    std::vector<int64_t> m_repA, m_repB;
    int64_t m_otherHidden = 0, m_otherSeed = 0, m_full = 0;
};

// BASE, 4 steps: a = 100, 110, 120, 130; b = 50 each step.
// OTHER, 4 steps: a = 150, 160, 170, 180; b = 50, 52, 48, 50.
void TestCompareNoise::initTestCase()
{
    m_file = test::tempPath("noise.wt");
    Database db(m_file, OpenMode::ReadWrite);
    Writer w(db);
    m_base = writeRun(w, "base", 4, {"a", "b"}, [](int s, size_t l) { return l == 0 ? 100 + 10 * s : 50; });
    m_other = writeRun(w, "other", 4, {"a", "b"}, [](int s, size_t l) {
        const int64_t b[] = {50, 52, 48, 50};
        return l == 0 ? 150 + 10 * s : b[s];
    });
    m_oneStep = writeRun(w, "one", 1, {"a", "b"}, [](int, size_t) { return 100; });
    // Repeats: 3 runs of 2 steps a side; a = 100 + run + step in A, 10 more in B.
    for (int r = 0; r < 3; ++r)
        m_repA.push_back(writeRun(w, "repA", 2, {"a"}, [r](int s, size_t) { return 100 + r + s; }, "adaptive", 16, r + 1));
    for (int r = 0; r < 3; ++r)
        m_repB.push_back(writeRun(w, "repB", 2, {"a"}, [r](int s, size_t) { return 110 + r + s; }));
    m_otherHidden = writeRun(w, "hidden", 2, {"a"}, [](int, size_t) { return 100; }, "adaptive", 32);
    // A variant of BASE: layer a as OTHER's (50 ns slower per step), b constant.
    m_full = writeRun(w, "full", 4, {"a", "b"}, [](int s, size_t l) { return l == 0 ? 150 + 10 * s : 50; }, "full");
    m_otherSeed = writeRun(w, "seed", 2, {"a"}, [](int, size_t) { return 100; }, "adaptive", 16, 9);
    // Noisy pair: 8 layers, 20 steps, each layer ~1000 ns with 2% noise per step; OTHER's layer
    // "l3" 10% slower.
    std::vector<std::string> layers;
    for (int l = 0; l < 8; ++l)
        layers.push_back("l" + std::to_string(l));
    std::mt19937_64 rng(42);
    std::normal_distribution<double> noise(0, 20);
    m_noisyBase = writeRun(w, "noisy-base", 20, layers, [&](int, size_t) { return int64_t(1000 + noise(rng)); });
    m_noisyOther = writeRun(w, "noisy-other", 20, layers, [&](int, size_t l) {
        return int64_t((l == 3 ? 1100 : 1000) + noise(rng));
    });
}

void TestCompareNoise::stepSamplesAddUp()
{
    const CompareRun r = load(m_base);
    QCOMPARE(r.steps, int64_t(4));
    QCOMPARE(r.stepTotals.size(), size_t(4));
    // Summed over the steps, the samples are the stored totals, row by row.
    std::map<std::tuple<int64_t, uint32_t, int>, std::pair<int64_t, int64_t>> sum, stored;
    for (const auto& step : r.stepTotals)
        for (const TotalRow& t : step) {
            auto& s = sum[{t.scopeId, t.nameId, int(t.kind)}];
            s.first += t.count;
            s.second += t.timeNs;
        }
    for (const TotalRow& t : r.totals)
        stored[{t.scopeId, t.nameId, int(t.kind)}] = {t.count, t.timeNs};
    QVERIFY(sum == stored);
    // In time order: layer a's samples are 100, 110, 120, 130.
    Comparison c = compareRuns({&r, &r}, {});
    const SampleStats& a = group(c, "a").cells[0].stats;
    QCOMPARE(a.n, size_t(4));
    QCOMPARE(a.mean, 115.0);
    QCOMPARE(a.median, 115.0);
    QCOMPARE(a.min, 100.0);
    QCOMPARE(a.max, 130.0);
    QVERIFY(near(a.stddev, std::sqrt(500.0 / 3)));   // (225 + 25 + 25 + 225) / 3
    QCOMPARE(group(c, "a").cells[0].ns, 115.0);       // the mean of the samples is the per-step time
    // Not read: no samples, so not enough of them.
    const CompareRun bare = load(m_base, false);
    QVERIFY(bare.stepTotals.empty());
    Comparison cb = compareRuns({&bare, &bare}, {});
    QCOMPARE(group(cb, "a").cells[0].stats.n, size_t(0));
    QVERIFY(group(cb, "a").verdict[1] == Verdict::NotEnoughSamples);
}

// Layer a: both sides have variance 500/3 over 4 samples, so se = sqrt(2 x 500/3 / 4) = 9.1287
// and Welch's df = 2 (n - 1) = 6; t(0.975, 6) = 2.446912 (t table); delta = 50.
void TestCompareNoise::welchByHand()
{
    const CompareRun b = load(m_base), o = load(m_other);
    const Comparison c = compareRuns({&b, &o}, {});
    const CompareGroup& a = group(c, "a");
    QVERIFY(a.interval[1]);
    const double se = std::sqrt(2 * (500.0 / 3) / 4), half = 2.446912 * se;
    QVERIFY(near(a.interval[1]->delta, 50));
    QVERIFY(near(a.interval[1]->df, 6, 1e-9));
    QVERIFY(near(a.interval[1]->low, 50 - half, 1e-4));
    QVERIFY(near(a.interval[1]->high, 50 + half, 1e-4));
    QVERIFY(a.verdict[1] == Verdict::Slower);
    // Layer b: BASE constant 50, OTHER 50, 52, 48, 50 (mean 50): no change; df = n - 1 = 3.
    const CompareGroup& lb = group(c, "b");
    QVERIFY(near(lb.interval[1]->delta, 0));
    QVERIFY(near(lb.interval[1]->df, 3, 1e-9));
    const double halfB = 3.182446 * std::sqrt((8.0 / 3) / 4);   // t(0.975, 3) x sqrt(var / n)
    QVERIFY(near(lb.interval[1]->high, halfB, 1e-4));
    QVERIFY(lb.verdict[1] == Verdict::WithinNoise);
    // Holm over the two groups: a's p doubled at most; the total (a + b per step) tested alone.
    QVERIFY(a.adjustedP[1] >= a.interval[1]->p && a.adjustedP[1] <= 2 * a.interval[1]->p + 1e-15);
    QVERIFY(c.runs[1].interval);
    QVERIFY(near(c.runs[1].interval->delta, 50));
    QVERIFY(c.runs[1].verdict == Verdict::Slower);
    QCOMPARE(c.runs[1].total.stats.n, size_t(4));
}

void TestCompareNoise::tableColumns()
{
    const CompareRun b = load(m_base), o = load(m_other);
    const Comparison c = compareRuns({&b, &o}, {});
    const Table t = compareTable(c);
    size_t row = 0;
    while (textOf(t.at(row, "path")) != "a")
        ++row;
    const WelchInterval& w = *group(c, "a").interval[1];
    QCOMPARE(numberOf(t.at(row, "ci_low_ns_2")), w.low);
    QCOMPARE(numberOf(t.at(row, "ci_high_ns_2")), w.high);
    QCOMPARE(numberOf(t.at(row, "pm_ns_2")), (w.high - w.low) / 2);
    QCOMPARE(textOf(t.at(row, "verdict_2")), std::string("slower"));
    QCOMPARE(numberOf(t.at(row, "n_1")), 4.0);
    QCOMPARE(numberOf(t.at(row, "median_2")), 165.0);
    QCOMPARE(numberOf(t.at(row, "min_1")), 100.0);
    QCOMPARE(numberOf(t.at(row, "max_2")), 180.0);
    QVERIFY(near(numberOf(t.at(row, "stddev_1")), std::sqrt(500.0 / 3)));
    QVERIFY(t.columns[t.column("verdict_2")].inText && t.columns[t.column("pm_ns_2")].inText);
    QVERIFY(!t.columns[t.column("stddev_1")].inText && !t.columns[t.column("ci_low_ns_2")].inText);
    QCOMPARE(t.columns[t.column("pm_ns_2")].title, std::string("\u00b1"));
    const std::string text = render::text(t, {});
    QVERIFY(text.find("noise: 95% Welch interval") != std::string::npos);
    QVERIFY(text.find("slower") != std::string::npos);
    const std::string csv = render::csv(t);
    QVERIFY(csv.find(",verdict_2,") != std::string::npos);
    QVERIFY(csv.find(",within_noise,") != std::string::npos);   // layer b
}

void TestCompareNoise::repeatsPool()
{
    std::vector<CompareRun> a, b;
    for (int64_t id : m_repA)
        a.push_back(load(id));
    for (int64_t id : m_repB)
        b.push_back(load(id));
    CompareSide sa, sb;
    for (const CompareRun& r : a)
        sa.push_back(&r);
    for (const CompareRun& r : b)
        sb.push_back(&r);
    const Comparison c = compareSides({sa, sb}, {});
    QCOMPARE(c.runs[0].steps, int64_t(6));
    QCOMPARE(c.runs[0].repeats.size(), size_t(3));
    const CompareGroup& g = group(c, "a");
    // A: 100 101 | 101 102 | 102 103 (mean 101.5); B the same plus 10.
    QCOMPARE(g.cells[0].stats.n, size_t(6));
    QCOMPARE(g.cells[0].ns, 101.5);
    QCOMPARE(g.cells[0].stats.mean, 101.5);
    QCOMPARE(g.cells[1].ns, 111.5);
    QVERIFY(near(g.deltaNs[1], 10));
    // Equal spreads (variance 1.1 over 6) give df = 10; t(0.975, 10) = 2.228139.
    QVERIFY(near(g.interval[1]->df, 10, 1e-9));
    QVERIFY(near(g.interval[1]->high - g.interval[1]->delta, 2.228139 * std::sqrt(2 * 1.1 / 6), 1e-4));
    QVERIFY(g.verdict[1] == Verdict::Slower);
    QVERIFY(std::find(c.notes.begin(), c.notes.end(),
                      "repeats pooled: a side's time is its runs' time over their steps together") != c.notes.end());
    // A run twice in one side.
    QVERIFY_THROWS_EXCEPTION(CompareError, compareSides({{sa[0], sa[0]}, sb}, {}));
    QVERIFY_THROWS_EXCEPTION(CompareError, compareSides({{}, sb}, {}));
}

void TestCompareNoise::repeatsMustBeOneConfiguration()
{
    const CompareRun a = load(m_repA[0]), hidden = load(m_otherHidden), seed = load(m_otherSeed), b = load(m_repB[0]);
    try {
        compareSides({{&a, &hidden}, {&b}}, {});
        QFAIL("runs of two hidden sizes pooled");
    } catch (const CompareError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("the runs of BASE are not repeats of one configuration: hidden differs (16 in run") != std::string::npos,
                 e.what());
        QVERIFY(what.find("32 in run") != std::string::npos);
    }
    // The seed is the data, not the configuration: such runs pool.
    const Comparison c = compareSides({{&a, &seed}, {&b}}, {});
    QCOMPARE(c.runs[0].repeats.size(), size_t(2));
}

void TestCompareNoise::oneStepNotEnough()
{
    const CompareRun b = load(m_base), one = load(m_oneStep);
    const Comparison c = compareRuns({&b, &one}, {});
    QCOMPARE(c.runs[1].total.stats.n, size_t(1));
    QVERIFY(!c.runs[1].interval);
    QVERIFY(c.runs[1].verdict == Verdict::NotEnoughSamples);
    for (const CompareGroup& g : c.groups) {
        QVERIFY(g.verdict[1] == Verdict::NotEnoughSamples);
        QVERIFY(!g.interval[1]);
    }
    const Table t = compareTable(c);
    QCOMPARE(textOf(t.at(0, "verdict_2")), std::string("not_enough_samples"));
    QVERIFY(isNone(t.at(0, "pm_ns_2")));
}

void TestCompareNoise::perRunRepeatsAreSamples()
{
    std::vector<CompareRun> a, b;
    for (int64_t id : m_repA)
        a.push_back(load(id));
    for (int64_t id : m_repB)
        b.push_back(load(id));
    CompareOptions o;
    o.per = ComparePer::Run;
    const Comparison c = compareSides({{&a[0], &a[1], &a[2]}, {&b[0], &b[1], &b[2]}}, o);
    const CompareGroup& g = group(c, "a");
    // Per run: A's runs total 201, 203, 205 (mean 203), B's 221, 223, 225.
    QCOMPARE(g.cells[0].stats.n, size_t(3));
    QCOMPARE(g.cells[0].ns, 203.0);
    QCOMPARE(g.cells[0].stats.median, 203.0);
    QVERIFY(near(g.deltaNs[1], 20));
    QVERIFY(near(g.interval[1]->df, 4, 1e-9));
    QVERIFY(near(g.interval[1]->high - 20, 2.776445 * std::sqrt(2 * 4.0 / 3), 1e-4));
}

void TestCompareNoise::injectedSlowdownFlaggedAlone()
{
    const CompareRun b = load(m_noisyBase), o = load(m_noisyOther);
    const Comparison c = compareRuns({&b, &o}, {});
    QCOMPARE(c.groups.size(), size_t(8));
    for (const CompareGroup& g : c.groups) {
        QVERIFY(g.interval[1]);
        if (g.path == "l3") {
            QVERIFY(g.verdict[1] == Verdict::Slower);
            QVERIFY(g.interval[1]->low > 50 && g.interval[1]->high < 150);   // +100 ns inside
        } else {
            QVERIFY2(g.verdict[1] == Verdict::WithinNoise, g.path.c_str());
        }
    }
}

// The speedup's interval maps Welch's interval of the delta: base / (base + hi) .. base / (base + lo).
void TestCompareNoise::variantsSpeedupInterval()
{
    const CompareRun b = load(m_base), f = load(m_full);
    VariantsOptions o;
    o.layer = "a";
    const VariantsTable v = computeVariants({&f, &b}, o);   // the baseline (adaptive) second
    QCOMPARE(v.baseline, size_t(1));
    const VariantRow& full = v.rows[0];
    const double half = 2.446912 * std::sqrt(2 * (500.0 / 3) / 4);   // as welchByHand: df 6
    QVERIFY(near(*full.speedup, 115.0 / 165));
    QVERIFY(near(*full.speedupLow, 115 / (115 + 50 + half), 1e-5));
    QVERIFY(near(*full.speedupHigh, 115 / (115 + 50 - half), 1e-5));
    QVERIFY(full.verdict == Verdict::Slower);
    QVERIFY(full.stepVerdict == Verdict::Slower);
    QVERIFY(!v.rows[1].speedupLow);
    const Table t = variantsTable(v);
    QCOMPARE(textOf(t.at(0, "verdict")), std::string("slower"));
    QVERIFY(isNone(t.at(1, "verdict")));
    QVERIFY(near(numberOf(t.at(0, "speedup_high")), *full.speedupHigh));
}

QTEST_APPLESS_MAIN(TestCompareNoise)
#include "tst_comparenoise.moc"
