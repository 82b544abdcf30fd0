// The device table and the roofline arithmetic, against hand-computed ops.
#include "analysis/costmodel.h"

#include <QTest>

using namespace wt;

class TestCostModel : public QObject {
    Q_OBJECT
private slots:
    void table();
    void rooflineHandComputed_data();
    void rooflineHandComputed();
    void sampleBytes();
    void expAndLaunchTerms();
    void jsonRoundTrip();
};

void TestCostModel::table()
{
    for (const char* name : {"h200", "h100", "a100", "v100", "rtx4090"}) {
        auto d = tableDevice(name);
        QVERIFY2(d.has_value(), name);
        QVERIFY(d->fp32Flops > 1e12 && d->memoryBytesPerS > 1e11 && d->sms > 0 && !d->source.empty());
    }
    QCOMPARE(tableDevice("H100")->name, std::string("h100"));
    QCOMPARE(tableDevice("RTX 4090")->name, std::string("rtx4090"));
    QVERIFY(!tableDevice("tpu"));
    QCOMPARE(tableDevice("h200")->memoryBytesPerS, 4.8e12);
    QCOMPARE(tableDevice("a100")->sms, 108);
}

void TestCostModel::rooflineHandComputed_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<double>("expectedNs");
    // 4096^3 sgemm: 2*4096^3 FLOP over 67 TFLOP/s = 2051327.66 ns (memory 60097 ns) + 4000 ns.
    QTest::newRow("gemm-h100-compute-bound") << "h100" << "gemm" << 137438953472.0 << 201326592.0 << 2055327.6637611939;
    // Elementwise: 12 MB at 2.039 TB/s = 5885.24 ns (compute 0.05 ns) + 4000 ns.
    QTest::newRow("elementwise-a100-memory-bound") << "a100" << "kernel" << 1e6 << 12e6 << 9885.23786169691;
    // A copy over PCIe 3 (16 GB/s): 1 MB = 62500 ns + 4000 ns.
    QTest::newRow("memcpy-v100-host-link") << "v100" << "memcpy" << 0.0 << 1e6 << 66500.0;
    // An empty launch costs the overhead alone.
    QTest::newRow("empty-h200") << "h200" << "kernel" << 0.0 << 0.0 << 4000.0;
}

void TestCostModel::rooflineHandComputed()
{
    QFETCH(QString, device);
    QFETCH(QString, kind);
    QFETCH(double, flops);
    QFETCH(double, bytes);
    QFETCH(double, expectedNs);
    auto d = tableDevice(device.toStdString());
    QVERIFY(d);
    const double got = rooflineNs(*d, kind.toStdString(), flops, bytes);
    QVERIFY2(std::abs(got - expectedNs) < 1e-6 * expectedNs, qPrintable(QString::number(got, 'f', 3)));
}

void TestCostModel::sampleBytes()
{
    // A copy moves bytesRead once (the workloads count a copy's bytes as read and written).
    DeviceSpec d;
    d.fp32Flops = 1e12;
    d.memoryBytesPerS = 1e12;
    d.hostLinkBytesPerS = 1e10;
    LaunchSample copy;
    copy.kind = "memcpy";
    copy.bytesRead = copy.bytesWritten = 1e6;
    QCOMPARE(rooflineNs(d, copy), 1e5);
    LaunchSample k;
    k.kind = "kernel";
    k.bytesRead = 2e6;
    k.bytesWritten = 1e6;
    k.flops = 1e6;
    QCOMPARE(rooflineNs(d, k), 3000.0);   // max(1000 ns compute, 3000 ns memory)
}

void TestCostModel::expAndLaunchTerms()
{
    // The CPU roofline of bench_roofline: a third limit (exps) and the fixed cost of a launch.
    DeviceSpec d;
    d.fp32Flops = 1e11;
    d.memoryBytesPerS = 4e10;
    d.launchOverheadNs = 250;
    LaunchSample ls;
    ls.name = "log_softmax_forward";
    ls.kind = "kernel";
    ls.shapes = "rows=1024 n=10002";
    ls.bytesRead = ls.bytesWritten = 1024.0 * 10002 * 4;
    ls.flops = 1024.0 * 10002 * 4;
    QCOMPARE(transcendentals(ls), 1024.0 * 10002);
    // No exp throughput: memory-bound, 81.9 MB / 40 GB/s = 2048409.6 ns, + 250.
    QCOMPARE(rooflineNs(d, ls), 1024.0 * 10002 * 8 / 4e10 * 1e9 + 250);
    d.expPerS = 2e9;   // 10.24 M exps at 2 Gexp/s = 5120 us: the exp term wins
    const RooflineTerms t = rooflineTerms(d, ls);
    QCOMPARE(t.expNs, 1024.0 * 10002 / 2e9 * 1e9);
    QCOMPARE(t.launchNs, 250.0);
    QCOMPARE(t.boundNs(), t.expNs + 250);
    QVERIFY(t.expNs > t.memoryNs && t.memoryNs > t.flopsNs);
    // GELU's backward counts two per element; an op without exps none; no shapes, none.
    ls.name = "gelu_backward";
    QCOMPARE(transcendentals(ls), 2 * 1024.0 * 10002);
    ls.name = "sgd_update";
    QCOMPARE(transcendentals(ls), 0.0);
    ls.name = "glu_forward";
    ls.shapes.clear();
    QCOMPARE(transcendentals(ls), 0.0);
    // An op that does nothing costs the launch alone.
    LaunchSample empty;
    empty.kind = "kernel";
    QCOMPARE(rooflineNs(d, empty), 250.0);
}

void TestCostModel::jsonRoundTrip()
{
    DeviceSpec d = *tableDevice("rtx4090");
    d.name = "my \"gpu\"";
    auto back = deviceFromJson(toJson(d));
    QVERIFY(back);
    QCOMPARE(back->name, d.name);
    QCOMPARE(back->fp32Flops, d.fp32Flops);
    QCOMPARE(back->bf16Flops, d.bf16Flops);
    QCOMPARE(back->memoryBytesPerS, d.memoryBytesPerS);
    QCOMPARE(back->hostLinkBytesPerS, d.hostLinkBytesPerS);
    QCOMPARE(back->sms, d.sms);
    QCOMPARE(back->launchOverheadNs, d.launchOverheadNs);
    QVERIFY(!deviceFromJson("{\"fp32_flops\":0,\"memory_bytes_per_s\":1}"));
    QVERIFY(!deviceFromJson("{}"));
}

QTEST_GUILESS_MAIN(TestCostModel)
#include "tst_costmodel.moc"
