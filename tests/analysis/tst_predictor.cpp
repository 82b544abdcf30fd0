// The calibrated predictor: the fit recovers known per-op-kind costs (efficiencies) from
// synthetic measurements the model itself made plus noise; JSON round trip; leave-one-run-out
// evaluation reports finite errors that beat the baselines on data the model can explain.
#include "analysis/predictor.h"
#include "tests/support/testdevice.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace wt;

namespace {

struct Truth { const char* name; const char* kind; double overheadNs, nsPerFlop, nsPerByte; };

// A device with 100 GFLOP/s and 20 GB/s: a GEMM at 60% of the peak, an elementwise op at 50%
// of the bandwidth, each with its fixed cost.
const Truth kGemm{"sgemm_nt", "gemm", 2000, 1.0 / (0.6 * 100), 0.0};
const Truth kGlu{"glu_forward", "kernel", 20000, 0.0, 1.0 / (0.5 * 20)};

LaunchSample sample(const Truth& t, double flops, double bytes, double noise, std::mt19937& rng)
{
    LaunchSample s;
    s.name = t.name;
    s.kind = t.kind;
    s.flops = flops;
    s.bytesRead = bytes * 0.75;
    s.bytesWritten = bytes * 0.25;
    std::normal_distribution<double> n(0.0, noise);
    const double ns = t.overheadNs + t.nsPerFlop * flops + t.nsPerByte * bytes;
    s.timeNs = int64_t(std::llround(ns * (1.0 + n(rng))));
    return s;
}

// One run per hidden size: a few layers, each with one GEMM and one GLU, three steps.
RunSamples syntheticRun(int64_t id, double hidden, double noise, std::mt19937& rng)
{
    RunSamples r;
    r.run.id = id;
    r.run.name = "run" + std::to_string(id);
    r.run.device = "CPU: synthetic";
    r.steps = 3;
    for (int step = 0; step < 3; ++step)
        for (int layer = 0; layer < 4; ++layer) {
            const double T = 256;
            LaunchSample g = sample(kGemm, 2 * T * hidden * hidden * (layer + 1), 4 * (T * hidden * 2 + hidden * hidden), noise, rng);
            LaunchSample e = sample(kGlu, 4 * T * hidden, 4 * 3 * T * hidden * (layer + 1), noise, rng);
            g.layer = e.layer = "layer" + std::to_string(layer);
            r.launches.push_back(g);
            r.launches.push_back(e);
        }
    return r;
}

}  // namespace

class TestPredictor : public QObject {
    Q_OBJECT
private slots:
    void fitRecoversEfficiencies();
    void fitCostClassExact();
    void jsonRoundTrip();
    void evaluateLeaveOneOut();
    void evaluateNeedsTwoRuns();
    void belowTheFitScalesDownToTheFixedCost();
};

void TestPredictor::fitRecoversEfficiencies()
{
    std::mt19937 rng(7);
    std::vector<RunSamples> runs;
    for (int i = 0; i < 6; ++i)
        runs.push_back(syntheticRun(i + 1, 128.0 * (1 << i), 0.03, rng));
    Predictor p = Predictor::fit(runs, "synthetic");
    QCOMPARE(p.device, std::string("CPU: synthetic"));
    const CostClass& g = p.classes.at("sgemm_nt");
    const CostClass& e = p.classes.at("glu_forward");
    QCOMPARE(g.samples, int64_t(6 * 3 * 4));
    // Efficiencies: achieved rate / peak. GEMM 60% of 100 GFLOP/s; GLU 50% of 20 GB/s.
    const double gemmEfficiency = (1.0 / g.nsPerFlop) / 100.0;
    const double gluEfficiency = (1.0 / e.nsPerByte) / 20.0;
    QVERIFY2(std::abs(gemmEfficiency - 0.6) < 0.03, qPrintable(QString::number(gemmEfficiency)));
    QVERIFY2(std::abs(gluEfficiency - 0.5) < 0.03, qPrintable(QString::number(gluEfficiency)));
    QVERIFY2(std::abs(e.overheadNs - 20000) < 2000, qPrintable(QString::number(e.overheadNs)));
    // The GEMM's bytes term is (close to) zero: it is compute-bound by construction.
    QVERIFY(g.nsPerByte * 4 * (256 * 1024 * 2 + 1024 * 1024) < 0.05 * g.nsPerFlop * 2 * 256 * 1024 * 1024);
    // Fallbacks: an unseen op has no class; the feature model of its launch kind predicts it,
    // that of all kinds for a launch kind never fitted.
    LaunchSample unseen;
    unseen.name = "new_op";
    unseen.kind = "kernel";
    QVERIFY(!p.classFor(unseen));
    QCOMPARE(p.features.weightsFor("kernel"), &p.features.byKind.at("kernel"));
    QCOMPARE(p.features.weightsFor("memset"), &p.features.byKind.at("*"));
    // A predictor stored before the feature model falls back on the kind's class, then the global one.
    Predictor old = p;
    old.features = {};
    old.kernelClasses = {};
    old.gemm.reset();
    QCOMPARE(old.classFor(unseen)->key, std::string("kind:kernel"));
    unseen.kind = "memset";
    QCOMPARE(old.classFor(unseen)->key, std::string("*"));
}

void TestPredictor::fitCostClassExact()
{
    // Noise-free data of t = 100 + 0.5 f + 0.25 b: recovered to rounding.
    std::vector<double> f{0, 1000, 2000, 500, 4000}, b{100, 0, 3000, 800, 100}, t;
    for (size_t i = 0; i < f.size(); ++i)
        t.push_back(100 + 0.5 * f[i] + 0.25 * b[i]);
    auto c = fitCostClass("x", f, b, t);
    QVERIFY(c);
    QVERIFY(std::abs(c->overheadNs - 100) < 1e-6);
    QVERIFY(std::abs(c->nsPerFlop - 0.5) < 1e-9);
    QVERIFY(std::abs(c->nsPerByte - 0.25) < 1e-9);
    // Coefficients never go negative: t falling with bytes is fitted without a bytes term.
    std::vector<double> t2;
    for (size_t i = 0; i < f.size(); ++i)
        t2.push_back(1000 + f[i] - 0.1 * b[i]);
    auto c2 = fitCostClass("y", f, b, t2);
    QVERIFY(c2->overheadNs >= 0 && c2->nsPerFlop >= 0 && c2->nsPerByte >= 0);
    QVERIFY(!fitCostClass("z", {}, {}, {}));
}

void TestPredictor::jsonRoundTrip()
{
    std::mt19937 rng(3);
    std::vector<RunSamples> runs{syntheticRun(1, 256, 0.02, rng), syntheticRun(2, 512, 0.02, rng)};
    Predictor p = Predictor::fit(runs, "name \"quoted\"");
    auto back = Predictor::fromJson(p.toJson());
    QVERIFY(back);
    QCOMPARE(back->name, p.name);
    QCOMPARE(back->device, p.device);
    QCOMPARE(back->classes.size(), p.classes.size());
    for (const auto& [key, c] : p.classes) {
        const CostClass& d = back->classes.at(key);
        QCOMPARE(d.samples, c.samples);
        QVERIFY(std::abs(d.nsPerFlop - c.nsPerFlop) <= 1e-12 * std::max(1.0, c.nsPerFlop));
        QVERIFY(std::abs(d.overheadNs - c.overheadNs) <= 1e-9 * std::max(1.0, c.overheadNs));
    }
    QVERIFY(!Predictor::fromJson("{}"));
    QVERIFY(!Predictor::fromJson("{\"classes\":[{\"key\":\"a\"}]}"));
}

void TestPredictor::evaluateLeaveOneOut()
{
    std::mt19937 rng(11);
    std::vector<RunSamples> runs;
    for (int i = 0; i < 5; ++i)
        runs.push_back(syntheticRun(i + 1, 192.0 + 160.0 * i, 0.02, rng));
    DeviceSpec d;
    d.name = "synthetic";
    d.fp32Flops = 100e9;
    d.memoryBytesPerS = 20e9;
    d.launchOverheadNs = 0;
    Evaluation ev = evaluate(runs, d);
    QCOMPARE(ev.runs.size(), size_t(5));
    QVERIFY(ev.hasRoofline);
    for (const RunEvaluation& r : ev.runs) {
        QVERIFY(std::isfinite(r.layerMapeModel) && std::isfinite(r.layerMapeFlops));
        QCOMPARE(r.layers, 4);
        QVERIFY(r.measuredStepNs > 0);
    }
    // The data follow the model: its errors are small, and the baselines are worse (the roofline
    // assumes 100% efficiency, FLOPs alone miss the memory-bound GLU).
    QVERIFY2(ev.stepMapeModel < 3, qPrintable(QString::number(ev.stepMapeModel)));
    QVERIFY2(ev.layerMapeModel < 5, qPrintable(QString::number(ev.layerMapeModel)));
    QVERIFY(ev.stepMapeRoofline > ev.stepMapeModel * 3);
    QVERIFY(ev.layerMapeFlops > ev.layerMapeModel * 2);
    // Roofline at 100% efficiency is faster than measured by about the efficiencies' factor.
    QVERIFY(ev.runs[0].rooflineStepNs < ev.runs[0].measuredStepNs);
}

void TestPredictor::evaluateNeedsTwoRuns()
{
    std::mt19937 rng(1);
    std::vector<RunSamples> runs{syntheticRun(1, 256, 0.02, rng)};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, evaluate(runs, std::nullopt));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Predictor::fit({}, "empty"));
}

void TestPredictor::belowTheFitScalesDownToTheFixedCost()
{
    // A class fitted on launches of 24 KB (3,000 ns) and 2.4 MB (100,000 ns): its line has a fixed
    // cost of about 2,000 ns. A launch of 6 KB (within its reach, a quarter of its smallest) is
    // priced at the class's time at 24 KB scaled by 1/4 toward the calibration's fixed cost, not
    // at the line's fixed cost; one at 24 KB or more keeps the line.
    const DeviceSpec d = test::roundCpu();
    RunSamples r;
    r.run.id = 1;
    r.steps = 1;
    auto launch = [](double bytes, int64_t ns) {
        LaunchSample s;
        s.name = "split_heads";
        s.kind = "kernel";
        s.bytesRead = s.bytesWritten = bytes / 2;
        s.path = "step/forward/attention";
        s.timeNs = ns;
        return s;
    };
    for (int i = 0; i < 3; ++i) {
        r.launches.push_back(launch(24000, 3000));
        r.launches.push_back(launch(2400000, 100000));
    }
    const Predictor p = Predictor::fit({r}, "p", d);
    const CostClass* c = p.classFor(launch(6000, -1));
    QVERIFY(c);
    QVERIFY2(c->overheadNs > 1500, qPrintable(QString::number(c->overheadNs)));
    const double at = c->predictNs(0, 24000);
    QVERIFY(std::fabs(at - 3000) < 30);
    QCOMPARE(p.predictNs(launch(6000, -1)), 100 + (at - 100) * 0.25);
    QCOMPARE(p.predictNs(launch(24000, -1)), at);
    QCOMPARE(p.predictNs(launch(240000, -1)), c->predictNs(0, 240000));
}

QTEST_GUILESS_MAIN(TestPredictor)
#include "tst_predictor.moc"
