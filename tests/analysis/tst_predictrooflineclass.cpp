// Kernels of op kinds the fit has not seen (analysis/rooflineclasses.h): priced by their
// roofline bound times the fitted efficiency of their class, not at near zero. The class keys,
// the time-weighted median, the fallback from a class of one op to the wider class, the JSON
// round trip, and the predictor's price for an unseen kernel.
#include "analysis/predictor.h"
#include "analysis/rooflineclasses.h"
#include "tests/support/testdevice.h"

#include <QTest>

#include <cmath>

using namespace wt;

namespace {

DeviceSpec cpu() { return test::roundCpu(); }

// An elementwise kernel: 1 FLOP per 12 bytes, memory-bound on cpu().
LaunchSample elementwise(const std::string& name, double elements)
{
    LaunchSample s;
    s.name = name;
    s.kind = "kernel";
    s.flops = elements;
    s.bytesRead = 8 * elements;
    s.bytesWritten = 4 * elements;
    s.shapes = "n=" + std::to_string(int64_t(elements));
    s.path = "step/forward/layer/" + name;
    s.layer = "layer";
    return s;
}

// A row kernel (its shapes name rows): the softmax and norm kernels.
LaunchSample rowKernel(const std::string& name, double rows, double cols)
{
    LaunchSample s = elementwise(name, rows * cols);
    s.shapes = "rows=" + std::to_string(int64_t(rows)) + " cols=" + std::to_string(int64_t(cols));
    return s;
}

}  // namespace

class TestPredictRooflineClass : public QObject {
    Q_OBJECT
private slots:
    void classKeys();
    void weightedMedianRatio();
    void classOfOneOpFallsBack();
    void unseenKernelGetsItsClassPrice();
    void jsonRoundTrip();
};

void TestPredictRooflineClass::classKeys()
{
    const DeviceSpec d = cpu();
    const auto keys = RooflineClasses::keysOf(elementwise("relu", 1 << 20), d);
    QCOMPARE(keys, (std::vector<std::string>{"mem/elements", "mem", "*"}));
    QCOMPARE(RooflineClasses::keysOf(rowKernel("softmax", 1024, 1024), d).front(), std::string("mem/rows"));
    // A tiny kernel: its fixed cost is above every other term.
    QCOMPARE(RooflineClasses::keysOf(elementwise("relu", 4), d).front(), std::string("launch/elements"));
}

void TestPredictRooflineClass::weightedMedianRatio()
{
    // Two ops at 3x their bound: 10 large launches; one op at 1x: 30 small ones. Weighted by
    // time the class runs at 3x (a plain median over launches would say 1x).
    const DeviceSpec d = cpu();
    std::vector<LaunchSample> l;
    std::vector<double> t;
    for (int i = 0; i < 5; ++i)
        for (const char* name : {"relu", "add"}) {
            l.push_back(elementwise(name, 1 << 22));
            t.push_back(3 * rooflineNs(d, l.back()));
        }
    for (int i = 0; i < 30; ++i) {
        l.push_back(elementwise("mul", 1 << 18));
        t.push_back(rooflineNs(d, l.back()));
    }
    const RooflineClasses c = RooflineClasses::fit(l, t, d);
    const auto* cls = c.classFor(elementwise("never_seen", 1 << 21), d);
    QVERIFY(cls);
    QCOMPARE(cls->ops, 3);
    QCOMPARE(cls->samples, int64_t(40));
    QCOMPARE(cls->ratio, 3.0);
}

void TestPredictRooflineClass::classOfOneOpFallsBack()
{
    // The row class has one op (at 10x): an unseen row kernel takes the memory class of both
    // ops (the weighted median of 2x and 10x by time: the row op's launches are the larger share).
    const DeviceSpec d = cpu();
    std::vector<LaunchSample> l;
    std::vector<double> t;
    for (int i = 0; i < 4; ++i) {
        l.push_back(rowKernel("layernorm", 1024, 1024));
        t.push_back(10 * rooflineNs(d, l.back()));
        l.push_back(elementwise("relu", 1 << 20));
        t.push_back(2 * rooflineNs(d, l.back()));
    }
    const RooflineClasses c = RooflineClasses::fit(l, t, d);
    QCOMPARE(c.byKey.at("mem/rows").ops, 1);
    const auto* cls = c.classFor(rowKernel("softmax", 512, 512), d);
    QVERIFY(cls);
    QCOMPARE(cls, &c.byKey.at("mem"));
    QCOMPARE(cls->ratio, 10.0);
    // No kernel in the fit: no class, no price.
    QVERIFY(!RooflineClasses::fit({}, {}, d).predictNs(elementwise("relu", 1 << 20), d).has_value());
}

void TestPredictRooflineClass::unseenKernelGetsItsClassPrice()
{
    // Two elementwise ops at 4x their roofline bound at every size. A kernel of a name never
    // fitted is priced at 4x its own bound (the feature model, which sees the same launches, agrees
    // here, so their geometric mean is the same), not at near zero.
    const DeviceSpec d = cpu();
    RunSamples r;
    r.run.id = 1;
    r.run.device = "CPU";
    r.steps = 1;
    for (double n : {1 << 16, 1 << 18, 1 << 20, 1 << 22})
        for (const char* name : {"relu_forward", "bias_add"}) {
            LaunchSample s = elementwise(name, n);
            s.timeNs = int64_t(std::llround(4 * rooflineNs(d, s)));
            r.launches.push_back(s);
        }
    const Predictor p = Predictor::fit({r}, "p", d);
    const LaunchSample unseen = elementwise("block_sparse_forward", 3e6);
    QVERIFY(p.classFor(unseen) == nullptr);
    const double want = 4 * rooflineNs(d, unseen);
    QVERIFY2(std::fabs(p.predictNs(unseen) - want) / want < 0.02, qPrintable(QString("%1 against %2").arg(p.predictNs(unseen)).arg(want)));
    QVERIFY2(std::fabs(*p.kernelClasses.predictNs(unseen, d) - want) / want < 0.01, "the class alone");
    // On another device with its calibration: 4x that device's bound.
    DeviceSpec fast = d;
    fast.memoryBytesPerS *= 2;
    fast.launchOverheadNs /= 2;
    const Predictor there = p.rescaledTo(fast);
    const double wantThere = 4 * rooflineNs(fast, unseen);
    QVERIFY2(std::fabs(there.predictNs(unseen) - wantThere) / wantThere < 0.02,
             qPrintable(QString("%1 against %2").arg(there.predictNs(unseen)).arg(wantThere)));
}

void TestPredictRooflineClass::jsonRoundTrip()
{
    const DeviceSpec d = cpu();
    RunSamples r;
    r.run.id = 1;
    r.run.device = "CPU";
    r.steps = 1;
    for (double n : {1 << 16, 1 << 20})
        for (const char* name : {"relu_forward", "bias_add", "gelu"}) {
            LaunchSample s = elementwise(name, n);
            s.timeNs = int64_t(std::llround(3 * rooflineNs(d, s)));
            r.launches.push_back(s);
        }
    const Predictor p = Predictor::fit({r}, "p", d);
    QVERIFY(!p.kernelClasses.byKey.empty());
    std::string why;
    const auto back = Predictor::fromJson(p.toJson(), &why);
    QVERIFY2(back.has_value(), why.c_str());
    QCOMPARE(back->kernelClasses.byKey.size(), p.kernelClasses.byKey.size());
    const LaunchSample unseen = elementwise("never_seen", 5e5);
    QCOMPARE(back->predictNs(unseen), p.predictNs(unseen));
    std::string bad = p.toJson();
    const size_t at = bad.find("\"ratio\":") + 8;
    bad.replace(at, bad.find(',', at) - at, "-1");
    QVERIFY(!Predictor::fromJson(bad, &why).has_value());
    QVERIFY2(why.find("ratio") != std::string::npos, why.c_str());
}

QTEST_APPLESS_MAIN(TestPredictRooflineClass)
#include "tst_predictrooflineclass.moc"
