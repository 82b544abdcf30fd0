// The roofline table (analysis/rooflinetable.h): per (layer family, op) and step, the measured
// time against max(FLOPs / peak, bytes / bandwidth, exps / exp rate) + launches x launch cost,
// on hand-made launches whose every term is known; the bound is the cost model's rooflineNs
// launch by launch (the predictor's roofline and the table cannot disagree); a calibration keeps
// its exp rate through JSON and an older one reads without it.
#include "analysis/rooflinetable.h"

#include <QTest>

#include <cmath>

using namespace wt;

namespace {

LaunchSample launch(const std::string& layer, const std::string& name, const std::string& kind, double flops, double bytesRead,
                    double bytesWritten, int64_t timeNs, const std::string& shapes = {})
{
    LaunchSample s;
    s.layer = layer;
    s.name = name;
    s.kind = kind;
    s.flops = flops;
    s.bytesRead = bytesRead;
    s.bytesWritten = bytesWritten;
    s.timeNs = timeNs;
    s.shapes = shapes;
    return s;
}

DeviceSpec device()
{
    DeviceSpec d;
    d.name = "test";
    d.fp32Flops = 1e11;          // 100 GFLOP/s
    d.bf16Flops = 4e11;
    d.memoryBytesPerS = 1e10;    // 10 GB/s
    d.hostLinkBytesPerS = 1e10;
    d.expPerS = 1e9;
    d.launchOverheadNs = 1000;
    return d;
}

// Two steps of: a GEMM in conv0 and in conv1 (one family), a log-softmax (exp-bound), a copy
// (its bytesRead only), a tiny op (launch-bound), a bf16 GEMM (priced at the bf16 peak) and a
// launch without a measured time.
RunSamples run()
{
    RunSamples r;
    r.steps = 2;
    for (int step = 0; step < 2; ++step) {
        r.launches.push_back(launch("conv0", "sgemm_nt", "gemm", 2e9, 1e6, 0, 25'000'000));
        r.launches.push_back(launch("conv1", "sgemm_nt", "gemm", 2e9, 1e6, 0, 15'000'000));
        r.launches.push_back(launch("softmax", "log_softmax_forward", "kernel", 3e6, 4e6, 4e6, 3'000'000, "T=1000 C=1000"));
        r.launches.push_back(launch("input", "memcpy_h2d", "memcpy", 0, 1e6, 1e6, 200'000));
        r.launches.push_back(launch("softmax", "select_targets", "kernel", 10, 100, 100, 4'000));
        r.launches.push_back(launch("softmax", "bf16gemm_nt", "gemm", 4e9, 0, 0, 20'000'000));
        r.launches.push_back(launch("softmax", "nonzero", "kernel", 0, 0, 0, step == 0 ? -1 : 6'000));
    }
    return r;
}

const RooflineOp* find(const std::vector<RooflineOp>& ops, const std::string& layer, const std::string& op)
{
    for (const RooflineOp& o : ops)
        if (o.layer == layer && o.op == op)
            return &o;
    return nullptr;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

}  // namespace

class TestRooflineTable : public QObject {
    Q_OBJECT
private slots:
    void termsOfEachOp()
    {
        const std::vector<RooflineOp> ops = rooflineOps(run(), device());
        QCOMPARE(ops.size(), size_t(6));   // conv0 and conv1 are one family
        // Largest measured time first.
        QCOMPARE(ops.front().op, std::string("sgemm_nt"));
        QCOMPARE(ops.front().layer, std::string("conv*"));

        const RooflineOp* gemm = find(ops, "conv*", "sgemm_nt");
        QVERIFY(gemm);
        QVERIFY(near(gemm->launches, 2));                  // 2 a step
        QVERIFY(near(gemm->measuredNs, 40e6));             // 25 + 15 ms a step
        QVERIFY(near(gemm->terms.flopsNs, 2 * 2e7));       // 2 GFLOP at 100 GFLOP/s = 20 ms, twice
        QVERIFY(near(gemm->terms.memoryNs, 2 * 1e5));
        QVERIFY(near(gemm->boundNs, 2 * (2e7 + 1000)));
        QCOMPARE(std::string(toString(gemm->terms.by())), std::string("flop"));

        const RooflineOp* ls = find(ops, "softmax", "log_softmax_forward");
        QVERIFY(ls);
        QVERIFY(near(ls->exps, 1e6));                      // T x C, one exp each
        QVERIFY(near(ls->terms.expNs, 1e6));               // 1e6 exps at 1 Gexp/s
        QVERIFY(near(ls->terms.memoryNs, 8e5));            // 8 MB at 10 GB/s
        QCOMPARE(std::string(toString(ls->terms.by())), std::string("exp"));
        QVERIFY(near(ls->boundNs, 1e6 + 1000));

        const RooflineOp* copy = find(ops, "input", "memcpy_h2d");
        QVERIFY(copy);
        QVERIFY(near(copy->bytes, 1e6));                   // bytesRead: a copy moves them once
        QVERIFY(near(copy->boundNs, 1e5 + 1000));

        const RooflineOp* tiny = find(ops, "softmax", "select_targets");
        QVERIFY(tiny);
        QCOMPARE(std::string(toString(tiny->terms.by())), std::string("launch"));
        QVERIFY(near(tiny->boundNs, 200.0 / 1e10 * 1e9 + 1000));

        const RooflineOp* bf16 = find(ops, "softmax", "bf16gemm_nt");
        QVERIFY(bf16);
        QVERIFY(near(bf16->terms.flopsNs, 4e9 / 4e11 * 1e9));   // the bf16 peak, not fp32's

        // A launch without a measured time counts in the bound, not in the time.
        const RooflineOp* nz = find(ops, "softmax", "nonzero");
        QVERIFY(nz);
        QVERIFY(near(nz->launches, 1));
        QVERIFY(near(nz->measuredNs, 3000));               // 6 us in one step of two
    }

    void boundIsTheCostModelsRoofline()
    {
        // Launch by launch the table's bound is rooflineNs (what predict's roofline prints).
        const RunSamples r = run();
        const DeviceSpec d = device();
        double total = 0;
        for (const LaunchSample& s : r.launches)
            total += rooflineNs(d, s);
        double bound = 0;
        for (const RooflineOp& o : rooflineOps(r, d))
            bound += o.boundNs;
        QVERIFY(near(bound, total / 2));
    }

    void tableRowsFoldAndStep()
    {
        const DeviceSpec d = device();
        const std::vector<RooflineOp> ops = rooflineOps(run(), d);
        RooflineOptions o;
        o.minNs = 1e6;   // the copy, the tiny op and nonzero fold
        const Table t = rooflineTable(ops, d, o);
        QCOMPARE(t.rows.size(), size_t(3 + 1 + 1));
        QCOMPARE(textOf(t.rows[3][t.column("layer")]), std::string("(3 ops under 1 ms)"));
        QVERIFY(near(numberOf(t.at(3, "time_ns")), 200e3 + 4000 + 3000));   // a step of each
        const size_t step = t.rows.size() - 1;
        QCOMPARE(textOf(t.at(step, "layer")), std::string("step"));
        double time = 0, bound = 0;
        for (const RooflineOp& op : ops)
            time += op.measuredNs, bound += op.boundNs;
        QVERIFY(near(numberOf(t.at(step, "time_ns")), time));
        QVERIFY(near(numberOf(t.at(step, "bound_ns")), bound));
        QVERIFY(near(numberOf(t.at(step, "x_bound")), time / bound));
        // Each op row: x bound = time / bound, rates over the measured time.
        QVERIFY(near(numberOf(t.at(0, "x_bound")), 40e6 / (2 * (2e7 + 1000))));
        QVERIFY(near(numberOf(t.at(0, "flop_per_s")), 4e9 / 40e-3));
        QCOMPARE(textOf(t.at(0, "bound")), std::string("flop"));
    }

    void transcendentalsByDefinition()
    {
        QVERIFY(near(transcendentals(launch("x", "gelu_backward", "kernel", 0, 0, 0, 0, "n=40")), 80));
        QVERIFY(near(transcendentals(launch("x", "glu_forward", "kernel", 0, 0, 0, 0, "T=4 C=5")), 20));
        QVERIFY(near(transcendentals(launch("x", "sgemm_nn", "gemm", 0, 0, 0, 0, "m=4 n=5 k=6")), 0));
    }

    void calibrationKeepsItsExpRate()
    {
        DeviceSpec d = device();
        d.expPerS = 3.25e9;
        auto back = deviceFromJson(toJson(d));
        QVERIFY(back);
        QCOMPARE(back->expPerS, 3.25e9);
        // A calibration stored before the exp rate: none, so no exp term.
        auto old = deviceFromJson(std::string(R"({"name":"cpu","fp32_flops":1e11,"memory_bytes_per_s":1e10})"));
        QVERIFY(old);
        QCOMPARE(old->expPerS, 0.0);
        QCOMPARE(rooflineTerms(*old, "kernel", 0, 0, false, 1e9).expNs, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestRooflineTable)
#include "tst_rooflinetable.moc"
