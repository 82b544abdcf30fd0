// The GEMM shape model of the predictor (analysis/gemmefficiency.h): the tile share and the
// transposes by hand; a fit on hand-made launches whose time follows a known slowdown law
// reproduces launches it was not fitted on; the clamps; the JSON round trip; and in the
// predictor, a GEMM of an op scope the fit has not seen is priced by its shape, not by the op
// name's one line through other shapes.
#include "analysis/gemmefficiency.h"
#include "analysis/predictor.h"
#include "tests/support/testdevice.h"

#include <QTest>

#include <cmath>

using namespace wt;

namespace {

DeviceSpec cpu() { return test::roundCpu(); }

LaunchSample gemmLaunch(const char* name, int64_t m, int64_t n, int64_t k, const char* scope = "proj")
{
    LaunchSample s;
    s.name = name;
    s.kind = "gemm";
    s.m = m, s.n = n, s.k = k, s.batch = 1;
    s.flops = 2.0 * double(m) * double(n) * double(k);
    s.bytesRead = 4.0 * double(m * k + k * n);
    s.bytesWritten = 4.0 * double(m * n);
    s.path = std::string("step/forward/layer/") + scope;
    s.layer = "layer";
    return s;
}

// The law the hand-made launches follow: slowdown 2^(3 - 0.25 log2 k) / full tile share^0.5,
// i.e. efficiency doubles for every 16x in k and drops with padded tiles.
double trueSlowdown(const LaunchSample& s)
{
    return std::pow(2.0, 3.0 - 0.25 * std::log2(double(s.k))) / std::sqrt(GemmEfficiency::fullTileShare(s.m, s.n));
}

double trueNs(const LaunchSample& s, const DeviceSpec& d) { return d.launchOverheadNs + s.flops / d.fp32Flops * 1e9 * trueSlowdown(s); }

}  // namespace

class TestPredictGemmShape : public QObject {
    Q_OBJECT
private slots:
    void tileShareAndTransposes();
    void fitReproducesHandMadeLaunches();
    void clampsToTheFit();
    void jsonRoundTrip();
    void unseenScopeIsPricedByShape();
};

void TestPredictGemmShape::tileShareAndTransposes()
{
    QCOMPARE(GemmEfficiency::fullTileShare(16, 64), 1.0);
    QCOMPARE(GemmEfficiency::fullTileShare(12, 32), 0.5);      // rows: 1 full of 2 tiles
    QCOMPARE(GemmEfficiency::fullTileShare(8, 48), 0.5);       // columns: 1 full of 2
    QCOMPARE(GemmEfficiency::fullTileShare(4, 16), 0.0);       // no full tile
    QCOMPARE(GemmEfficiency::fullTileShare(0, 16), 0.0);
    auto f = GemmEfficiency::features(gemmLaunch("sgemm_tn", 64, 256, 1024));
    QCOMPARE(f[1], 6.0);
    QCOMPARE(f[2], 8.0);
    QCOMPARE(f[3], 10.0);
    QCOMPARE(f[4], 0.0);   // batch 1
    QCOMPARE(f[6], 1.0);   // A transposed
    QCOMPARE(f[7], 0.0);
    f = GemmEfficiency::features(gemmLaunch("sgemm_batched_nt", 64, 256, 1024));
    QCOMPARE(f[6], 0.0);
    QCOMPARE(f[7], 1.0);
}

void TestPredictGemmShape::fitReproducesHandMadeLaunches()
{
    const DeviceSpec d = cpu();
    std::vector<LaunchSample> train;
    std::vector<double> t;
    for (int64_t m : {64, 100, 256, 1000})
        for (int64_t n : {32, 72, 512})
            for (int64_t k : {64, 256, 4096}) {
                LaunchSample s = gemmLaunch("sgemm_nn", m, n, k);
                train.push_back(s);
                t.push_back(trueNs(s, d));
            }
    const auto g = GemmEfficiency::fit(train, t, d);
    QVERIFY(g.has_value());
    QCOMPARE(g->samples, int64_t(36));
    // Shapes between the fitted ones: within 10% of the law (the tile share enters the law as a
    // power, the model as a linear term, so not exactly).
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{128, 128, 1024}, {512, 256, 128}, {200, 96, 2048}}) {
        const LaunchSample s = gemmLaunch("sgemm_nn", m, n, k);
        const double want = trueNs(s, d), got = g->predictNs(s, d);
        QVERIFY2(std::fabs(got - want) / want < 0.10, qPrintable(QString("%1x%2x%3: %4 ns against %5").arg(m).arg(n).arg(k).arg(got).arg(want)));
    }
    // Efficiency rises with k: the fitted slowdown falls.
    QVERIFY(g->slowdown(gemmLaunch("sgemm_nn", 256, 512, 4096)) < 0.7 * g->slowdown(gemmLaunch("sgemm_nn", 256, 512, 256)));
    QVERIFY(g->beta[3] < 0);
    // Fewer than three shapes: no model.
    QVERIFY(!GemmEfficiency::fit({train[0], train[1]}, {t[0], t[1]}, d).has_value());
}

void TestPredictGemmShape::clampsToTheFit()
{
    const DeviceSpec d = cpu();
    std::vector<LaunchSample> train;
    std::vector<double> t;
    for (int64_t k : {64, 128, 256, 512}) {
        LaunchSample s = gemmLaunch("sgemm_nn", 256, 256, k);
        train.push_back(s);
        t.push_back(trueNs(s, d));
    }
    const auto g = GemmEfficiency::fit(train, t, d);
    QVERIFY(g.has_value());
    // k far beyond the fit (2^20): taken at the fit's largest k, not extrapolated.
    const LaunchSample far = gemmLaunch("sgemm_nn", 256, 256, int64_t(1) << 20);
    QCOMPARE(g->slowdown(far), g->slowdown(gemmLaunch("sgemm_nn", 256, 256, 512)));
    QVERIFY(g->slowdown(far) >= std::exp(g->minLogSlowdown) * 0.999);
}

void TestPredictGemmShape::jsonRoundTrip()
{
    const DeviceSpec d = cpu();
    RunSamples r;
    r.run.id = 1;
    r.run.device = "CPU";
    r.steps = 1;
    for (int64_t m : {64, 256, 1024})
        for (int64_t k : {64, 512}) {
            LaunchSample s = gemmLaunch("sgemm_nt", m, 128, k);
            s.timeNs = int64_t(trueNs(s, d));
            r.launches.push_back(s);
        }
    const Predictor p = Predictor::fit({r}, "p", d);
    QVERIFY(p.gemm.has_value());
    std::string why;
    const auto back = Predictor::fromJson(p.toJson(), &why);
    QVERIFY2(back.has_value(), why.c_str());
    QVERIFY(back->gemm.has_value());
    const LaunchSample probe = gemmLaunch("sgemm_nt", 300, 100, 200, "other_scope");
    QCOMPARE(back->predictNs(probe), p.predictNs(probe));
    QCOMPARE(back->gemm->lo, p.gemm->lo);
    // A predictor stored before the shape model reads without it.
    std::string old = p.toJson();
    const size_t at = old.find(",\n\"gemm\":");
    QVERIFY(at != std::string::npos);
    old.erase(at, old.find(",\n\"", at + 1) - at);
    const auto oldP = Predictor::fromJson(old, &why);
    QVERIFY2(oldP.has_value(), why.c_str());
    QVERIFY(!oldP->gemm.has_value());
    // A wrong length is an error that says where.
    std::string bad = p.toJson();
    const size_t beta = bad.find("\"beta\":[") + 8;
    bad.erase(beta, bad.find(',', beta) + 1 - beta);
    QVERIFY(!Predictor::fromJson(bad, &why).has_value());
    QVERIFY2(why.find("beta") != std::string::npos, why.c_str());
}

void TestPredictGemmShape::unseenScopeIsPricedByShape()
{
    // One op name at many shapes in one op scope, each taking the law's time; the fitted op-name
    // class is a line through them. A GEMM of the same name in another op scope takes the shape
    // model's price, within 10% of the law, where the line misses it.
    const DeviceSpec d = cpu();
    RunSamples r;
    r.run.id = 1;
    r.run.device = "CPU";
    r.steps = 1;
    for (int64_t m : {64, 256, 1024})
        for (int64_t n : {64, 1024})
            for (int64_t k : {32, 512, 8192}) {
                LaunchSample s = gemmLaunch("sgemm_nt", m, n, k, "ffn");
                s.timeNs = int64_t(trueNs(s, d));
                for (int rep = 0; rep < 3; ++rep)
                    r.launches.push_back(s);
            }
    const Predictor p = Predictor::fit({r}, "p", d);
    QVERIFY(p.gemm.has_value());
    const LaunchSample unseen = gemmLaunch("sgemm_nt", 512, 512, 64, "conv_gemm");
    QVERIFY(p.classFor(unseen) == nullptr);   // not the op name's class
    QCOMPARE(p.predictNs(unseen), p.gemm->predictNs(unseen, d));
    const double want = trueNs(unseen, d);
    QVERIFY2(std::fabs(p.predictNs(unseen) - want) / want < 0.10, qPrintable(QString("%1 against %2").arg(p.predictNs(unseen)).arg(want)));
    // The op name's line (what predicted it before) is further off on this shape.
    const CostClass& line = p.classes.at("sgemm_nt");
    QVERIFY(std::fabs(line.predictNs(unseen.flops, unseen.bytes()) - want) > std::fabs(p.predictNs(unseen) - want));
    // Its own op scope keeps its class.
    QVERIFY(p.classFor(gemmLaunch("sgemm_nt", 256, 64, 512, "ffn")) != nullptr);
}

QTEST_APPLESS_MAIN(TestPredictGemmShape)
#include "tst_predictgemmshape.moc"
