// A real CUPTI capture on a GPU (label gpu): kernels recorded, attributed to layer scopes,
// device properties stored. Skips cleanly without a usable GPU.
#include "analysis/scopetree.h"
#include "capture/capture.h"
#include "kernels/backend.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"
#include "wheretime_config.h"

#include <QTest>

using namespace wt;

class TestCaptureGpu : public QObject {
    Q_OBJECT
private slots:
    void cuptiCapture();
};

void TestCaptureGpu::cuptiCapture()
{
    if (!WHERETIME_HAVE_CUDA || !kernels::cudaAvailable())
        QSKIP("no usable GPU (or a build without CUDA)");
    std::string file = test::tempPath("gpu.wt");
    capture::CaptureOptions o;
    o.workload = "gcn";
    o.preset = "tiny";
    o.backend = "cuda";
    o.steps = 2;
    o.output = file;
    auto res = capture::runCapture(o);
    QCOMPARE(QString::fromStdString(res.backend), QStringLiteral("cupti"));
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    RunInfo run = r.run(res.runId);
    QVERIFY(run.kernels > 20);
    QVERIFY(run.devicePropertiesJson.find("sm_count") != std::string::npos);
    ScopeTree tree = ScopeTree::load(r, res.runId);
    std::unordered_map<int64_t, int64_t> instScope;
    for (const ScopeInstance& si : r.scopeInstances(res.runId))
        instScope[si.id] = si.scopeId;
    int64_t all = 0, underLayer = 0;
    r.forEachActivity(res.runId, [&](const Activity& a) {
        if (a.kind != ActivityKind::Kernel)
            return true;
        all += a.endNs - a.startNs;
        auto it = instScope.find(a.scopeInstanceId);
        if (it != instScope.end() && tree.ancestorAtLevel(it->second, "layer"))
            underLayer += a.endNs - a.startNs;
        return true;
    });
    QVERIFY(all > 0);
    QVERIFY2(double(underLayer) >= 0.999 * double(all), qPrintable(QString::number(double(underLayer) / double(all))));
}

QTEST_GUILESS_MAIN(TestCaptureGpu)
#include "tst_capture_gpu.moc"
