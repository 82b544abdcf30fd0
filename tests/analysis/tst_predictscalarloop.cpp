// Scalar loops (ops without a vectorized CPU path, "scalar=1" in their sizes: kernels/launch.h)
// priced at the calibration's scalar-loop rate (DeviceSpec::scalarFlops): the tag is read from
// the launch's stored shapes, never from its op name; the roofline uses the scalar rate, and the
// predictor prices a scalar loop of an op kind never fitted at that roofline; a model fitted with one
// calibration and applied with another scales as the two scalar rates do.
#include "analysis/predictor.h"
#include "tests/support/testdevice.h"

#include <QTest>

#include <cmath>

using namespace wt;

namespace {

// 100 GFLOP/s vectorized, 2 GFLOP/s as a scalar loop, 20 GB/s, 100 ns a launch.
DeviceSpec cpu()
{
    DeviceSpec d = test::roundCpu();
    d.scalarFlops = 2e9;
    return d;
}

// An elementwise kernel over n floats: `flopsPer` FLOPs per element, 8 bytes read and 4 written.
LaunchSample kernel(const std::string& name, double n, double flopsPer, bool scalar)
{
    LaunchSample s;
    s.name = name;
    s.kind = "kernel";
    s.flops = n * flopsPer;
    s.bytesRead = 8 * n;
    s.bytesWritten = 4 * n;
    s.shapes = "n=" + std::to_string(int64_t(n)) + (scalar ? " scalar=1" : "");
    s.path = "step/forward/layer/" + name;
    s.layer = "layer";
    return s;
}

double rel(double a, double b) { return std::fabs(a - b) / b; }

// Vectorized kernels at their roofline bound and scalar loops at theirs (the scalar rate), each
// op at four sizes: what a machine whose scalar loops run at the calibrated rate measures.
RunSamples corpus(const DeviceSpec& d)
{
    RunSamples r;
    r.run.id = 1;
    r.run.device = "CPU";
    r.steps = 1;
    for (double n : {1 << 14, 1 << 16, 1 << 18, 1 << 20}) {
        for (const char* name : {"bias_add", "relu_forward"}) {
            LaunchSample s = kernel(name, n, 1, false);
            s.timeNs = int64_t(std::llround(rooflineNs(d, s)));
            r.launches.push_back(s);
        }
        for (const char* name : {"gather_rows", "stencil_forward"}) {
            LaunchSample s = kernel(name, n, 8, true);
            s.timeNs = int64_t(std::llround(rooflineNs(d, s)));
            r.launches.push_back(s);
        }
    }
    return r;
}

}  // namespace

class TestPredictScalarLoop : public QObject {
    Q_OBJECT
private slots:
    void tagIsReadFromTheShapesNotTheName();
    void rooflineAndFeaturesUseTheScalarRate();
    void unseenScalarLoopPricedAtTheScalarRate();
    void scalesAsTheCalibrationsScalarRates();
    void calibrationJsonCarriesTheScalarRate();
};

void TestPredictScalarLoop::tagIsReadFromTheShapesNotTheName()
{
    QVERIFY(isScalarLoop(kernel("anything", 64, 1, true)));
    // The grouped convolution's name without the tag (a capture made before it): not a scalar loop.
    QVERIFY(!isScalarLoop(kernel("grouped_conv_forward", 64, 1, false)));
    LaunchSample s = kernel("x", 64, 1, false);
    for (const char* shapes : {"scalar=10", "T=4 notscalar=1", "T=4 scalar=12", "scalar=0"}) {
        s.shapes = shapes;
        QVERIFY2(!isScalarLoop(s), shapes);
    }
    for (const char* shapes : {"scalar=1", "T=4 scalar=1", "scalar=1 T=4"}) {
        s.shapes = shapes;
        QVERIFY2(isScalarLoop(s), shapes);
    }
}

void TestPredictScalarLoop::rooflineAndFeaturesUseTheScalarRate()
{
    const DeviceSpec d = cpu();
    // 1 M elements x 8 FLOPs: 80 us at 100 GFLOP/s, 4 ms at 2 GFLOP/s; 12 MB at 20 GB/s: 600 us.
    const LaunchSample vec = kernel("k", 1 << 20, 8, false), sc = kernel("k", 1 << 20, 8, true);
    const double flops = double(1 << 20) * 8;
    QCOMPARE(rooflineTerms(d, vec).flopsNs, flops / 100e9 * 1e9);
    QCOMPARE(rooflineTerms(d, sc).flopsNs, flops / 2e9 * 1e9);
    QCOMPARE(rooflineTerms(d, sc).by(), RooflineBound::Flops);
    QCOMPARE(rooflineTerms(d, vec).by(), RooflineBound::Memory);
    // The cross-kind features stay in fp32 units (their weights are fitted on vectorized kernels).
    QCOMPARE(crossFeatures(sc, d).computeNs, flops / 100e9 * 1e9);
    QCOMPARE(crossFeatures(vec, d).computeNs, flops / 100e9 * 1e9);
    // A device without a scalar rate (the GPU table, calibrations made before it): the fp32 peak.
    const DeviceSpec old = test::roundCpu();
    QCOMPARE(rooflineTerms(old, sc).flopsNs, rooflineTerms(old, vec).flopsNs);
}

void TestPredictScalarLoop::unseenScalarLoopPricedAtTheScalarRate()
{
    const DeviceSpec d = cpu();
    const Predictor p = Predictor::fit({corpus(d)}, "p", d);
    // An op name no class has seen, as a scalar loop and as a vectorized kernel of the same work.
    const LaunchSample sc = kernel("conv_never_seen", 3 << 18, 8, true), vec = kernel("conv_never_seen", 3 << 18, 8, false);
    QVERIFY(p.classFor(sc) == nullptr);
    const double want = rooflineNs(d, sc);   // 3.1 ms: flop-bound at the scalar rate
    QVERIFY2(rel(p.predictNs(sc), want) < 1e-9, qPrintable(QString("%1 against %2").arg(p.predictNs(sc)).arg(want)));
    // Its untagged twin goes to the kernel models (fitted on both kinds of loop here), not to the
    // scalar roofline.
    QVERIFY2(rel(p.predictNs(vec), want) > 0.5, qPrintable(QString("%1 against %2").arg(p.predictNs(vec)).arg(want)));
    // Applied with a calibration without a scalar rate (made before it): the kernel models.
    DeviceSpec none = d;
    none.scalarFlops = 0;
    const Predictor q = p.rescaledTo(none);
    QVERIFY(rel(q.predictNs(sc), rooflineNs(d, sc)) > 0.5);
}

void TestPredictScalarLoop::scalesAsTheCalibrationsScalarRates()
{
    const DeviceSpec d = cpu();
    const Predictor p = Predictor::fit({corpus(d)}, "p", d);
    // The fitted scalar op's own class knows it was fitted on scalar loops (and says so in JSON).
    const LaunchSample seen = kernel("stencil_forward", 1 << 19, 8, true);
    const CostClass* c = p.classFor(seen);
    QVERIFY(c);
    QVERIFY(c->scalarLoop);
    QVERIFY(!p.classFor(kernel("bias_add", 1 << 19, 1, false))->scalarLoop);
    std::string why;
    const auto back = Predictor::fromJson(p.toJson(), &why);
    QVERIFY2(back.has_value(), why.c_str());
    QVERIFY(back->classFor(seen)->scalarLoop);

    // Another CPU whose scalar loops run at half the rate, everything else equal: a flop-bound
    // scalar loop (seen or not) takes about twice as long; a vectorized kernel does not move.
    DeviceSpec slow = d;
    slow.scalarFlops = d.scalarFlops / 2;
    const Predictor there = p.rescaledTo(slow);
    const LaunchSample unseen = kernel("conv_never_seen", 3 << 18, 8, true);
    for (const LaunchSample& s : {seen, unseen}) {
        const double here = p.predictNs(s), far = there.predictNs(s);
        const double want = rooflineNs(slow, s) / rooflineNs(d, s);   // 2x but for the fixed cost
        QVERIFY2(rel(far / here, want) < 0.05, qPrintable(QString::fromStdString(s.name) +
                                                          QString(": %1 -> %2, want x%3").arg(here).arg(far).arg(want)));
    }
    const LaunchSample vec = kernel("bias_add", 1 << 19, 1, false);
    QCOMPARE(there.predictNs(vec), p.predictNs(vec));
    // Fitted without scalar rates and applied with them: the fp32 peak's ratio, as before.
    DeviceSpec none = d;
    none.scalarFlops = 0;
    const Predictor q = Predictor::fit({corpus(none)}, "q", none);
    QCOMPARE(q.rescaledTo(none).predictNs(seen), q.predictNs(seen));
}

void TestPredictScalarLoop::calibrationJsonCarriesTheScalarRate()
{
    const DeviceSpec d = cpu();
    std::string why;
    const auto back = deviceFromJson(toJson(d), &why);
    QVERIFY2(back.has_value(), why.c_str());
    QCOMPARE(back->scalarFlops, 2e9);
    // A calibration stored before it: no scalar rate.
    const auto old = deviceFromJson(std::string(R"({"name":"cpu","fp32_flops":1e11,"memory_bytes_per_s":2e10})"), &why);
    QVERIFY2(old.has_value(), why.c_str());
    QCOMPARE(old->scalarFlops, 0.0);
}

QTEST_APPLESS_MAIN(TestPredictScalarLoop)
#include "tst_predictscalarloop.moc"
