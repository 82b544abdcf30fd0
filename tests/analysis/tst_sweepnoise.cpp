// The noise of sweeps (analysis/sweep.h, sweeptable.h) on hand-written runs tagged as
// `capture --sweep hidden=8,16 --repeat 3` tags them, with chosen per-step layer times: a point
// pools its repeats (time over their steps together, every step a sample), its 95% t interval
// against a hand computation with the t table, a sweep without repeats (n = the run's steps), a
// 1-step point without an interval, constant samples, and a predicted twin inside the interval
// at one point and outside at the other (predicted_inside), through the table and the writer.
#include "analysis/sweep.h"
#include "analysis/sweeptable.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <cmath>
#include <functional>

using namespace wt;

namespace {

struct Tags {
    std::string sweepId, value;
    int index = 0;
    std::string repeatId;   // empty: no repeat tags
    int repeatIndex = 0;
};

// A capture-like run of one sweep point: `steps` steps; in step s, layer L's one kernel takes
// ns(s, L) ns (0: not launched in that step).
int64_t writeRun(Writer& w, const Tags& tags, int steps, const std::vector<std::string>& layers,
                 const std::function<int64_t(int, size_t)>& ns, const std::string& backend = "cpu")
{
    RunInfo info;
    info.name = "gcn-" + tags.value;
    info.workload = "gcn";
    info.variant = "adaptive";
    info.preset = "tiny";
    info.backend = backend;
    info.device = "CPU: test";
    info.configJson = "{\"workload\":\"gcn\",\"variant\":\"adaptive\",\"hidden\":" + tags.value + "}";
    const int64_t run = w.beginRun(info);
    w.setMetadata(kSweepIdKey, tags.sweepId);
    w.setMetadata(kSweepKeyKey, "hidden");
    w.setMetadata(kSweepValueKey, tags.value);
    w.setMetadata(kSweepIndexKey, std::to_string(tags.index));
    if (!tags.repeatId.empty()) {
        w.setMetadata(kRepeatIdKey, tags.repeatId);
        w.setMetadata(kRepeatIndexKey, std::to_string(tags.repeatIndex));
        w.setMetadata(kRepeatCountKey, "3");
    }
    const int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    const int64_t step = w.addScope(0, "step", "step");
    const int64_t phase = w.addScope(step, "forward", "phase");
    int64_t at = 0;
    for (int s = 0; s < steps; ++s) {
        const int64_t si = w.beginScopeInstance(step, 0, at);
        const int64_t pi = w.beginScopeInstance(phase, si, at);
        for (size_t l = 0; l < layers.size(); ++l) {
            const int64_t d = ns(s, l);
            if (d <= 0)
                continue;
            const int64_t layer = w.addScope(phase, layers[l], "layer");
            const int64_t op = w.addScope(layer, "op", "op");
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
        w.endScopeInstance(pi, at);
        w.endScopeInstance(si, at);
    }
    w.finishRun(RunStatus::Complete, at);
    return run;
}

const SweepPoint& pointOf(const SweepTable& t, const std::string& series, const std::string& value)
{
    for (const SweepSeries& s : t.series)
        if (s.name == series)
            for (const SweepPoint& p : s.points)
                if (p.value == value)
                    return p;
    throw std::runtime_error("no point " + series + " " + value);
}

size_t rowOf(const Table& t, const std::string& series, const std::string& value, const std::string& source = "measured")
{
    for (size_t r = 0; r < t.rows.size(); ++r)
        if (textOf(t.at(r, "series")) == series && textOf(t.at(r, "hidden")) == value && textOf(t.at(r, "source")) == source)
            return r;
    throw std::runtime_error("no row " + series + " " + value);
}

bool near(double a, double b, double tol = 1e-6)
{
    return std::abs(a - b) <= tol;
}

// The sample standard deviation, by hand.
double stddevOf(const std::vector<double>& v)
{
    double mean = 0;
    for (double x : v)
        mean += x / double(v.size());
    double ss = 0;
    for (double x : v)
        ss += (x - mean) * (x - mean);
    return std::sqrt(ss / double(v.size() - 1));
}

// t(0.975, df) from a t table.
constexpr double kT5 = 2.570582, kT3 = 3.182446;

}  // namespace

class TestSweepNoise : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void repeatsPoolIntoPoints();
    void intervalByHand();
    void withoutRepeats();
    void predictedInsideAndOutside();
    void tableColumns();

private:
    SweepTable load(const std::string& id)
    {
        Database db(m_file, OpenMode::ReadOnly);
        Reader r(db);
        return loadSweep(r, id, {}, m_file);
    }
    std::string m_file;
    std::vector<int64_t> m_at8, m_at16;
};

// Sweep "rep": hidden=8,16, 3 repeats each (round robin, as capture --repeat), 2 steps a run.
//   hidden 8:  softmax = 100 + r + s  -> 100 101 | 101 102 | 102 103 (mean 101.5)
//   hidden 16: softmax = 200 + 2r + 3s -> 200 203 | 202 205 | 204 207 (mean 203.5)
//   conv: 50 every step (no spread).
// Sweep "one": hidden=8 one run of 4 steps (softmax 100, 110, 120, 130), hidden=16 one of 1 step.
// Sweep "pred" (backend model): softmax 102 at 8 (inside 8's interval), 190 at 16 (outside).
void TestSweepNoise::initTestCase()
{
    m_file = test::tempPath("sweepnoise.wt");
    Database db(m_file, OpenMode::ReadWrite);
    Writer w(db);
    const std::vector<std::string> layers = {"softmax", "conv"};
    for (int r = 0; r < 3; ++r) {
        m_at8.push_back(writeRun(w, {"rep", "8", 2 * r, "rep-8", r}, 2, layers,
                                 [r](int s, size_t l) { return l == 0 ? 100 + r + s : 50; }));
        m_at16.push_back(writeRun(w, {"rep", "16", 2 * r + 1, "rep-16", r}, 2, layers,
                                  [r](int s, size_t l) { return l == 0 ? 200 + 2 * r + 3 * s : 50; }));
    }
    writeRun(w, {"one", "8", 0}, 4, layers, [](int s, size_t l) { return l == 0 ? 100 + 10 * s : 50; });
    writeRun(w, {"one", "16", 1}, 1, layers, [](int, size_t l) { return l == 0 ? 200 : 50; });
    writeRun(w, {"pred", "8", 0}, 1, layers, [](int, size_t l) { return l == 0 ? 102 : 50; }, "model");
    writeRun(w, {"pred", "16", 1}, 1, layers, [](int, size_t l) { return l == 0 ? 190 : 50; }, "model");
}

void TestSweepNoise::repeatsPoolIntoPoints()
{
    const SweepTable t = load("rep");
    const SweepPoint& p8 = pointOf(t, "softmax", "8");
    QCOMPARE(p8.repeatRunIds, m_at8);
    QCOMPARE(p8.runId, m_at8.back());    // clicks open the newest repeat
    QCOMPARE(p8.stats.n, size_t(6));     // 3 repeats x 2 steps
    QCOMPARE(p8.ns, 101.5);              // the time over the steps of every repeat
    QCOMPARE(p8.stats.mean, p8.ns);
    QCOMPARE(p8.stats.min, 100.0);
    QCOMPARE(p8.stats.max, 103.0);
    QCOMPARE(p8.stepNs, 151.5);          // softmax + conv per step
    QCOMPARE(pointOf(t, "softmax", "16").ns, 203.5);
    QVERIFY(std::find(t.notes.begin(), t.notes.end(),
                      "repeats pooled: 3 runs a point (capture --repeat); a point's time is its runs' time over their steps "
                      "together") != t.notes.end());
}

// mean -+ t(0.975, n - 1) x s / sqrt(n), n = 6: df 5.
void TestSweepNoise::intervalByHand()
{
    const SweepTable t = load("rep");
    const std::vector<double> s8 = {100, 101, 101, 102, 102, 103}, s16 = {200, 203, 202, 205, 204, 207};
    const SweepPoint& p8 = pointOf(t, "softmax", "8");
    QVERIFY(p8.interval);
    QVERIFY(near(p8.stats.stddev, std::sqrt(1.1)));   // (2.25 + 0.25 x 4 + 2.25) / 5
    QVERIFY(near(stddevOf(s8), std::sqrt(1.1)));
    const double half8 = kT5 * std::sqrt(1.1) / std::sqrt(6.0);
    QVERIFY(near(p8.interval->halfWidth, half8, 1e-5));
    QVERIFY(near(p8.interval->low, 101.5 - half8, 1e-5));
    QVERIFY(near(p8.interval->high, 101.5 + half8, 1e-5));
    QCOMPARE(p8.interval->df, 5.0);
    const SweepPoint& p16 = pointOf(t, "softmax", "16");
    const double half16 = kT5 * stddevOf(s16) / std::sqrt(6.0);
    QVERIFY(near(p16.stats.stddev, std::sqrt(5.9)));
    QVERIFY(near(p16.interval->low, 203.5 - half16, 1e-5));
    QVERIFY(near(p16.interval->high, 203.5 + half16, 1e-5));
    // A layer without spread: the interval is the point.
    const SweepPoint& conv = pointOf(t, "conv", "8");
    QCOMPARE(conv.stats.stddev, 0.0);
    QVERIFY(conv.interval && conv.interval->low == 50 && conv.interval->high == 50);
}

void TestSweepNoise::withoutRepeats()
{
    const SweepTable t = load("one");
    const SweepPoint& p8 = pointOf(t, "softmax", "8");
    QCOMPARE(p8.repeatRunIds.size(), size_t(1));
    QCOMPARE(p8.stats.n, size_t(4));   // the steps of its one run
    QCOMPARE(p8.ns, 115.0);
    const double half = kT3 * std::sqrt(500.0 / 3) / 2;   // s^2 = (225 + 25 + 25 + 225) / 3, sqrt(4) = 2
    QVERIFY(near(p8.interval->high, 115 + half, 1e-4));
    QVERIFY(near(p8.interval->low, 115 - half, 1e-4));
    // One step: not enough samples for an interval.
    const SweepPoint& p16 = pointOf(t, "softmax", "16");
    QCOMPARE(p16.stats.n, size_t(1));
    QVERIFY(!p16.interval);
    const Table table = sweepTable(t);
    const size_t r16 = rowOf(table, "softmax", "16");
    QCOMPARE(numberOf(table.at(r16, "n")), 1.0);
    QVERIFY(isNone(table.at(r16, "pm_ns")) && isNone(table.at(r16, "ci_low_ns")));
    QVERIFY(std::none_of(t.notes.begin(), t.notes.end(), [](const std::string& n) { return n.rfind("repeats pooled", 0) == 0; }));
    // Not a repeat-tagged sweep: no repeats note, one run a point.
    QCOMPARE(numberOf(table.at(rowOf(table, "softmax", "8"), "repeats")), 1.0);
}

// 102 lies in 101.5 -+ 1.10; 190 below 203.5 -+ 2.55.
void TestSweepNoise::predictedInsideAndOutside()
{
    Database db(m_file, OpenMode::ReadOnly);
    Reader reader(db);
    const SweepTable m = loadSweep(reader, "rep", {}, m_file);
    const auto twin = predictedTwin(listSweeps(reader), m.sweep);
    QVERIFY(twin);
    QCOMPARE(twin->id, std::string("pred"));
    const SweepTable p = loadSweep(reader, twin->id, {}, m_file);
    QVERIFY(sweepPredictionInside(pointOf(m, "softmax", "8"), pointOf(p, "softmax", "8")));
    QVERIFY(!sweepPredictionInside(pointOf(m, "softmax", "16"), pointOf(p, "softmax", "16")));
    const Table t = sweepTable(m, &p);
    QCOMPARE(textOf(t.at(rowOf(t, "softmax", "8"), "predicted_inside")), std::string("yes"));
    QCOMPARE(textOf(t.at(rowOf(t, "softmax", "16"), "predicted_inside")), std::string("no"));
    QCOMPARE(textOf(t.at(rowOf(t, "conv", "8"), "predicted_inside")), std::string("yes"));   // 50 in [50, 50]
    // The twin's own rows carry no noise and no verdict of their own.
    const size_t pr = rowOf(t, "softmax", "8", "predicted");
    QVERIFY(isNone(t.at(pr, "predicted_inside")) && isNone(t.at(pr, "pm_ns")) && isNone(t.at(pr, "n")));
    QVERIFY(std::find(t.notes.begin(), t.notes.end(), "prediction inside the measured 95% interval at 3 of 4 points (inside)") !=
            t.notes.end());
    // Without an interval (a 1-step point) there is nothing to be inside of: none.
    const SweepTable one = loadSweep(reader, "one", {}, m_file);
    const Table to = sweepTable(one, &p);
    QVERIFY(isNone(to.at(rowOf(to, "softmax", "16"), "predicted_inside")));
    QCOMPARE(textOf(to.at(rowOf(to, "softmax", "8"), "predicted_inside")), std::string("yes"));   // 102 in 115 -+ 20.5
    QVERIFY(to.columns[to.column("predicted_inside")].inText);
}

void TestSweepNoise::tableColumns()
{
    const SweepTable m = load("rep");
    const Table t = sweepTable(m);
    const QStringList head = QString::fromStdString(render::csv(t)).section(QLatin1Char('\n'), 0, 0).split(QLatin1Char(','));
    QCOMPARE(head, QStringList({"series", "layer", "hidden", "run", "repeats", "source", "layer_ns", "pm_ns", "n", "stddev_ns",
                                "ci_low_ns", "ci_high_ns", "share", "step_ns", "predicted_ns", "predicted_run", "error_pct",
                                "predicted_inside"}));
    const size_t r = rowOf(t, "softmax", "8");
    const SweepPoint& p = pointOf(m, "softmax", "8");
    QCOMPARE(numberOf(t.at(r, "ci_low_ns")), p.interval->low);
    QCOMPARE(numberOf(t.at(r, "ci_high_ns")), p.interval->high);
    QCOMPARE(numberOf(t.at(r, "pm_ns")), p.interval->halfWidth);
    QCOMPARE(numberOf(t.at(r, "stddev_ns")), p.stats.stddev);
    QCOMPARE(numberOf(t.at(r, "n")), 6.0);
    QCOMPARE(numberOf(t.at(r, "repeats")), 3.0);
    QVERIFY(t.columns[t.column("pm_ns")].inText && t.columns[t.column("n")].inText);
    QVERIFY(!t.columns[t.column("ci_low_ns")].inText && !t.columns[t.column("stddev_ns")].inText);
    QVERIFY(!t.columns[t.column("predicted_inside")].inText);   // no twin
    const std::string text = render::text(t, {});
    QVERIFY2(text.find("noise: \u00b1 the 95% t interval of each point's mean per step over its samples (each step of each "
                       "repeat: n = 6)") != std::string::npos,
             text.c_str());
    QVERIFY(text.find("\u00b1") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestSweepNoise)
#include "tst_sweepnoise.moc"
