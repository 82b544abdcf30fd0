// The run's regime in the calibrated predictor (analysis/predictor.h, opfeatures.h
// markRunContext): a launch of a run whose largest launch moves more than a core's cache is
// priced by its op's class in that regime ("cold"), one of a run that stays in cache by the
// "warm" class; a regime the fit has not seen falls back on the op's class over both; runs
// without the context (runMaxBytes 0) keep the classes without regime. Synthetic runs: an 8-byte
// readback that takes 60 ns in warm runs and 800 ns in cold ones (corpus F's loss readback).
#include "analysis/predictor.h"

#include <QTest>

#include <cmath>

using namespace wt;

namespace {

LaunchSample launch(const char* name, const char* kind, double flops, double bytes, int64_t ns)
{
    LaunchSample s;
    s.name = name;
    s.kind = kind;
    s.flops = flops;
    s.bytesRead = bytes;
    s.path = std::string("step/forward/layer/") + name;
    s.layer = "layer";
    s.shapes = "n=" + std::to_string(int64_t(bytes));
    s.timeNs = ns;
    return s;
}

// A run: 4 readbacks of 8 bytes and 4 elementwise kernels of `kernelBytes` (time 1 ns per 10
// bytes + 100 ns); the readback takes readbackNs.
RunSamples run(int64_t id, double kernelBytes, int64_t readbackNs)
{
    RunSamples r;
    r.run.id = id;
    r.run.name = "run" + std::to_string(id);
    r.run.workload = id % 2 ? "a" : "b";
    r.run.device = "CPU: synthetic";
    r.steps = 1;
    for (int i = 0; i < 4; ++i) {
        r.launches.push_back(launch("readback", "memcpy", 0, 8, readbackNs + i));
        r.launches.push_back(launch("scale", "kernel", kernelBytes / 8, kernelBytes, int64_t(100 + kernelBytes / 10) + i));
    }
    markRunContext(r.launches);
    return r;
}

}  // namespace

class TestPredictRegime : public QObject {
    Q_OBJECT
private slots:
    void markRunContextTakesTheLargestLaunch();
    void eachRegimeHasItsClass();
    void unseenRegimeFallsBack();
    void withoutContextNoRegime();
};

void TestPredictRegime::markRunContextTakesTheLargestLaunch()
{
    std::vector<LaunchSample> v = {launch("x", "kernel", 0, 10, 1), launch("y", "kernel", 0, 3e6, 1)};
    v[1].bytesWritten = 1e6;
    markRunContext(v);
    QCOMPARE(v[0].runMaxBytes, 4e6);
    QCOMPARE(v[1].runMaxBytes, 4e6);
}

void TestPredictRegime::eachRegimeHasItsClass()
{
    // Warm runs: kernels of 64 KB; cold runs: 4 MB (beyond kCacheBytes).
    std::vector<RunSamples> runs;
    for (int64_t id = 1; id <= 6; ++id)
        runs.push_back(id <= 3 ? run(id, 64e3, 60) : run(id, 4e6, 800));
    const Predictor p = Predictor::fit(runs, "regime");
    LaunchSample warm = runs[0].launches[0], cold = runs[5].launches[0];
    QVERIFY(p.classFor(warm) && p.classFor(cold));
    QCOMPARE(p.classFor(warm)->key, std::string("readback@readback#warm"));
    QCOMPARE(p.classFor(cold)->key, std::string("readback@readback#cold"));
    QVERIFY2(std::fabs(p.predictNs(warm) - 61.5) < 3, qPrintable(QString::number(p.predictNs(warm))));
    QVERIFY2(std::fabs(p.predictNs(cold) - 801.5) < 20, qPrintable(QString::number(p.predictNs(cold))));
    // The classes survive the JSON.
    auto back = Predictor::fromJson(p.toJson());
    QVERIFY(back);
    QCOMPARE(back->predictNs(warm), p.predictNs(warm));
    QCOMPARE(back->predictNs(cold), p.predictNs(cold));
}

void TestPredictRegime::unseenRegimeFallsBack()
{
    std::vector<RunSamples> runs;
    for (int64_t id = 1; id <= 3; ++id)
        runs.push_back(run(id, 4e6, 800));
    const Predictor p = Predictor::fit(runs, "cold only");
    LaunchSample warm = run(9, 64e3, 60).launches[0];
    QVERIFY(p.classFor(warm));
    QCOMPARE(p.classFor(warm)->key, std::string("readback@readback"));
    QVERIFY(std::fabs(p.predictNs(warm) - 801.5) < 20);
}

void TestPredictRegime::withoutContextNoRegime()
{
    std::vector<RunSamples> runs;
    for (int64_t id = 1; id <= 6; ++id) {
        runs.push_back(id <= 3 ? run(id, 64e3, 60) : run(id, 4e6, 800));
        for (LaunchSample& s : runs.back().launches)
            s.runMaxBytes = 0;
    }
    const Predictor p = Predictor::fit(runs, "no context");
    for (const auto& [key, c] : p.classes)
        QVERIFY2(key.find('#') == std::string::npos, key.c_str());
    // One class over both: between the two times.
    const double ns = p.predictNs(runs[0].launches[0]);
    QVERIFY2(ns > 100 && ns < 800, qPrintable(QString::number(ns)));
}

QTEST_GUILESS_MAIN(TestPredictRegime)
#include "tst_predictregime.moc"
