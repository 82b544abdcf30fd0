// The hand-written MLP (analysis/mlp.h) and the per-launch MLP predictor (analysis/mlppredictor.h):
// the back-propagated gradient matches central finite differences; training with Adam is
// deterministic for a seed (and another seed trains another net); it fits a smooth function;
// the predictor's JSON round trip predicts the same; a held-out evaluation with --model mlp's
// kind gives finite errors for every workload (issue 30).
#include "analysis/mlp.h"
#include "analysis/predictor.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace wt;

namespace {

// Synthetic runs of three workloads: a GEMM and a kernel per layer, times from fixed costs.
std::vector<RunSamples> corpus()
{
    std::mt19937 rng(9);
    std::normal_distribution<double> noise(0.0, 0.02);
    std::vector<RunSamples> runs;
    int64_t id = 1;
    for (const char* w : {"gcn", "transformer", "bert"})
        for (double h : {128.0, 256.0, 384.0}) {
            RunSamples r;
            r.run.id = id++;
            r.run.name = std::string(w) + "-" + std::to_string(int(h));
            r.run.workload = w;
            r.steps = 1;
            for (int layer = 0; layer < 3; ++layer) {
                LaunchSample g;
                g.name = "sgemm_nt";
                g.kind = "gemm";
                g.m = 128, g.n = int64_t(h), g.k = int64_t(h) * (layer + 1), g.batch = 1;
                g.flops = 2.0 * g.m * g.n * g.k;
                g.bytesRead = 4.0 * (g.m * g.k + g.k * g.n);
                g.bytesWritten = 4.0 * g.m * g.n;
                g.timeNs = std::llround((300 + g.flops / 60.0) * (1 + noise(rng)));
                LaunchSample e;
                e.name = std::string(w) + "_op";
                e.kind = "kernel";
                e.flops = 4 * 128 * h;
                e.bytesRead = 12 * 128 * h * (layer + 1);
                e.shapes = "rows=128 cols=" + std::to_string(int(h));
                e.timeNs = std::llround((300 + e.bytes() / 10.0) * (1 + noise(rng)));
                g.layer = e.layer = "layer" + std::to_string(layer);
                r.launches.insert(r.launches.end(), {g, e});
            }
            runs.push_back(r);
        }
    return runs;
}

DeviceSpec cal()
{
    DeviceSpec d;
    d.name = "cal";
    d.fp32Flops = 100e9;
    d.memoryBytesPerS = d.hostLinkBytesPerS = 20e9;
    d.launchOverheadNs = 100;
    return d;
}

}  // namespace

class TestMlp : public QObject {
    Q_OBJECT
private slots:
    void gradientMatchesFiniteDifferences();
    void trainingIsDeterministic();
    void fitsASmoothFunction();
    void predictorJsonRoundTrip();
    void heldOutEvaluation();
    void badShapes();
    void predictsASlowdownOverTheBound();
};

void TestMlp::gradientMatchesFiniteDifferences()
{
    Mlp net({3, 5, 4, 1}, 42);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-2, 2);
    std::vector<double> rows(7 * 3), ys(7);
    for (double& v : rows)
        v = u(rng);
    for (double& v : ys)
        v = u(rng);
    std::vector<const double*> xs;
    for (int r = 0; r < 7; ++r)
        xs.push_back(&rows[size_t(r) * 3]);
    std::vector<double> g, unused;
    net.lossAndGradient(xs, ys, g);
    QCOMPARE(g.size(), net.parameters().size());
    QCOMPARE(g.size(), size_t(3 * 5 + 5 + 5 * 4 + 4 + 4 + 1));
    double worst = 0;
    for (size_t p = 0; p < g.size(); ++p) {
        const double keep = net.parameters()[p], h = 1e-6;
        net.parameters()[p] = keep + h;
        const double up = net.lossAndGradient(xs, ys, unused);
        net.parameters()[p] = keep - h;
        const double down = net.lossAndGradient(xs, ys, unused);
        net.parameters()[p] = keep;
        const double numeric = (up - down) / (2 * h);
        worst = std::max(worst, std::fabs(numeric - g[p]) / std::max(1e-6, std::fabs(numeric) + std::fabs(g[p])));
    }
    QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
}

void TestMlp::trainingIsDeterministic()
{
    std::vector<double> x, y;
    for (int i = 0; i < 50; ++i) {
        x.push_back(i / 25.0 - 1);
        x.push_back(std::cos(i));
        y.push_back(x[x.size() - 2] * 0.5 + x.back());
    }
    Mlp::TrainOptions o;
    o.epochs = 20;
    o.batch = 8;
    Mlp a({2, 6, 1}, 3), b({2, 6, 1}, 3), c({2, 6, 1}, 4);
    a.train(x, y, o);
    b.train(x, y, o);
    QCOMPARE(a.parameters(), b.parameters());
    c.train(x, y, o);
    QVERIFY(a.parameters() != c.parameters());
    Mlp d({2, 6, 1}, 3);
    o.seed = 2;   // another minibatch order
    d.train(x, y, o);
    QVERIFY(a.parameters() != d.parameters());
}

void TestMlp::fitsASmoothFunction()
{
    std::vector<double> x, y;
    for (int i = 0; i < 200; ++i) {
        const double a = -1.5 + 3.0 * i / 199.0, b = std::sin(i * 0.37);
        x.insert(x.end(), {a, b});
        y.push_back(std::sin(a) + 0.5 * b * b);
    }
    Mlp net({2, 16, 16, 1}, 1);
    std::vector<const double*> xs;
    for (size_t r = 0; r < y.size(); ++r)
        xs.push_back(&x[r * 2]);
    std::vector<double> g;
    const double before = net.lossAndGradient(xs, y, g);
    Mlp::TrainOptions o;
    o.epochs = 150;
    o.batch = 32;
    o.learningRate = 1e-2;
    const double after = net.train(x, y, o);
    QVERIFY2(after < 0.02 * before && after < 2e-3, qPrintable(QString::number(before) + " -> " + QString::number(after)));
}

void TestMlp::predictorJsonRoundTrip()
{
    const std::vector<RunSamples> runs = corpus();
    const Predictor p = Predictor::fitMlp(runs, "mlp", cal(), 5, 600);
    QVERIFY(p.mlp);
    QVERIFY(p.classes.empty());
    std::string why;
    auto back = Predictor::fromJson(p.toJson(), &why);
    QVERIFY2(back && back->mlp, why.c_str());
    for (const LaunchSample& s : runs[4].launches) {
        const double a = p.predictNs(s), b = back->predictNs(s);
        QVERIFY(std::isfinite(a) && a > 0);
        QVERIFY2(std::fabs(a - b) <= 1e-9 * a, qPrintable(QString::number(a) + " " + QString::number(b)));
    }
    // The same seed fits the same net; the fit follows the data (within 2x on a training launch).
    const Predictor q = Predictor::fitMlp(runs, "mlp", cal(), 5, 600);
    QCOMPARE(q.mlp->net.parameters(), p.mlp->net.parameters());
    const LaunchSample& s = runs[4].launches[0];
    QVERIFY(p.predictNs(s) > 0.5 * double(s.timeNs) && p.predictNs(s) < 2.0 * double(s.timeNs));
    // A damaged net: one line naming it.
    std::string text = p.toJson();
    text.replace(text.find("\"sizes\":[15"), 11, "\"sizes\":[14");
    QVERIFY(!Predictor::fromJson(text, &why));
    QVERIFY2(why.find("mlp.sizes") != std::string::npos, why.c_str());
}

void TestMlp::heldOutEvaluation()
{
    EvaluationOptions o;
    o.holdOut = HoldOut::Workload;
    o.model = PredictorKind::Mlp;
    o.calibration = o.roofline = cal();
    o.mlpSteps = 300;   // a fast test: the errors only need to be finite
    const Evaluation ev = evaluate(corpus(), o);
    QCOMPARE(ev.model, PredictorKind::Mlp);
    QCOMPARE(ev.groups.size(), size_t(3));
    for (const GroupEvaluation& g : ev.groups)
        QVERIFY(std::isfinite(g.stepMapeModel) && std::isfinite(g.layerMapeModel) && g.stepMapeModel >= 0);
    // Poisoning a held-out run leaves its prediction alone here too.
    std::vector<RunSamples> poisoned = corpus();
    for (LaunchSample& s : poisoned[0].launches)
        s.timeNs = std::max<int64_t>(1, s.timeNs / 1000);
    const Evaluation after = evaluate(poisoned, o);
    QCOMPARE(after.runs[0].modelStepNs, ev.runs[0].modelStepNs);
    QVERIFY(after.runs[3].modelStepNs != ev.runs[3].modelStepNs);
}

void TestMlp::badShapes()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Mlp({3}, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Mlp({3, 4, 2}, 1));
    QVERIFY(!Mlp::fromJsonSizesAndParameters({2, 1}, {1.0}));
    QVERIFY(Mlp::fromJsonSizesAndParameters({2, 1}, {1.0, 2.0, 0.5}));
}

// The MLP's target is log(time / roofline bound): a kernel 1,000x larger than any it was fitted on
// costs at most the largest trained slowdown (widened by e) over its own bound, where a target
// of log time capped it at the largest trained time; an MLP stored before the target reads its
// output as log time.
void TestMlp::predictsASlowdownOverTheBound()
{
    const std::vector<RunSamples> runs = corpus();
    const Predictor p = Predictor::fitMlp(runs, "mlp", cal(), 5, 600);
    QVERIFY(p.mlp && p.mlp->overBound);
    double most = 0, least = 1e300;
    for (const RunSamples& r : runs)
        for (const LaunchSample& s : r.launches) {
            most = std::max(most, double(s.timeNs) / rooflineNs(cal(), s));
            least = std::min(least, double(s.timeNs) / rooflineNs(cal(), s));
        }
    LaunchSample big = runs[8].launches[1];
    big.flops *= 1000;
    big.bytesRead *= 1000;
    const double bound = rooflineNs(cal(), big), ns = p.predictNs(big);
    QVERIFY2(ns <= bound * most * std::exp(1.0) * 1.0001 && ns >= bound * least / std::exp(1.0) * 0.9999,
             qPrintable(QString::number(ns / bound) + " not in " + QString::number(least) + ".." + QString::number(most)));
    // 1,000x the work: far above every trained time (at most about 65 us here).
    double longest = 0;
    for (const RunSamples& r : runs)
        for (const LaunchSample& s : r.launches)
            longest = std::max(longest, double(s.timeNs));
    QVERIFY2(ns > 10 * longest, qPrintable(QString::number(ns) + " vs " + QString::number(longest)));
    // Stored before the target: "target" absent reads as log time; an unknown target is refused.
    std::string text = p.toJson();
    const size_t at = text.find(",\"target\":\"log_time_over_bound\"");
    QVERIFY(at != std::string::npos);
    std::string legacy = text;
    legacy.erase(at, std::string(",\"target\":\"log_time_over_bound\"").size());
    auto old = Predictor::fromJson(legacy);
    QVERIFY(old && old->mlp && !old->mlp->overBound);
    QVERIFY(old->predictNs(big) <= std::exp(old->mlp->yMax + 1) * 1.0001);
    std::string bad = text;
    bad.replace(at, std::string(",\"target\":\"log_time_over_bound\"").size(), ",\"target\":\"seconds\"");
    std::string why;
    QVERIFY(!Predictor::fromJson(bad, &why));
    QVERIFY2(why.find("mlp.target") != std::string::npos, why.c_str());
}

QTEST_GUILESS_MAIN(TestMlp)
#include "tst_mlp.moc"
