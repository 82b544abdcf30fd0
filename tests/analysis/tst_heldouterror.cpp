// The held-out error table (analysis/heldouterror.h) and the evaluation's op table on synthetic
// runs made by known per-op costs: the table's step and every-layer rows are the evaluation's
// MAPE; restricted to one group's runs they are that group's; a layer's row is the MAPE over the
// (run, layer) pairs computed here by hand; the default hold-out is the widest the runs allow;
// the op table names the held-out workload's own op as predicted by features; poisoned times of
// a held-out run move its rows and leave its predictions alone.
#include "analysis/evaluationtable.h"
#include "analysis/heldouterror.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace wt;

namespace {

LaunchSample op(const std::string& name, const char* kind, double flops, double bytes, std::mt19937& rng)
{
    LaunchSample s;
    s.name = name;
    s.kind = kind;
    s.flops = flops;
    s.bytesRead = bytes * 0.75;
    s.bytesWritten = bytes * 0.25;
    s.shapes = "rows=128 cols=" + std::to_string(int64_t(bytes / 512));
    const double ns = 300 + (std::string(kind) == "gemm" ? flops / 60.0 : bytes / 10.0);
    std::normal_distribution<double> n(0.0, 0.03);
    s.timeNs = std::max<int64_t>(1, std::llround(ns * (1.0 + n(rng))));
    return s;
}

RunSamples run(int64_t id, const std::string& workload, const std::string& variant, double hidden, std::mt19937& rng)
{
    RunSamples r;
    r.run.id = id;
    r.run.name = workload + "-" + variant + "-" + std::to_string(int(hidden));
    r.run.workload = workload;
    r.run.preset = "small";
    r.run.variant = variant;
    r.steps = 2;
    for (int step = 0; step < 2; ++step)
        for (const char* layer : {"embedding", "block", "softmax"}) {
            const double T = 128;
            LaunchSample g = op("sgemm_nt", "gemm", 2 * T * hidden * hidden, 4 * (2 * T * hidden + hidden * hidden), rng);
            LaunchSample e = op(workload + "_op", "kernel", 4 * T * hidden, 24 * T * hidden, rng);
            g.layer = e.layer = layer;
            g.path = e.path = std::string("step/forward/") + layer + "/op";
            r.launches.insert(r.launches.end(), {g, e});
        }
    return r;
}

EvaluationInput corpus()
{
    std::mt19937 rng(11);
    EvaluationInput in;
    int64_t id = 1;
    for (const char* w : {"gcn", "transformer", "bert"})
        for (const char* v : {"full", "adaptive"})
            for (double h : {128.0, 256.0, 384.0})
                in.runs.push_back(run(id++, w, v, h, rng));
    return in;
}

size_t rowOf(const Table& t, const std::string& errorOf, const std::string& layer = {})
{
    for (size_t r = 0; r < t.rows.size(); ++r)
        if (std::get<std::string>(t.at(r, kHeldOutErrorOfColumn)) == errorOf && std::get<std::string>(t.at(r, kHeldOutLayerColumn)) == layer)
            return r;
    return Table::npos;
}

double num(const Table& t, size_t r, const char* id)
{
    return std::get<double>(t.at(r, id));
}

}  // namespace

class TestHeldOutError : public QObject {
    Q_OBJECT
private slots:
    void widestHoldOutByDefault();
    void rowsAreTheEvaluations();
    void sweepRunsOnly();
    void layerFilter();
    void opsTableNamesUnseenOps();
    void poisonedHeldOutRun();
    void tooFewRuns();
};

void TestHeldOutError::widestHoldOutByDefault()
{
    const EvaluationInput in = corpus();
    const std::vector<HoldOut> possible = possibleHoldOuts(in.runs);
    QCOMPARE(possible, (std::vector<HoldOut> {HoldOut::Workload, HoldOut::Variant, HoldOut::Run}));   // one preset
    const HeldOutError e = computeHeldOutError(in, {});
    QCOMPARE(e.holdOut, HoldOut::Workload);
    QCOMPARE(e.evaluation.groups.size(), size_t(3));
    HeldOutErrorOptions o;
    o.holdOut = HoldOut::Variant;
    QCOMPARE(computeHeldOutError(in, o).evaluation.groups.size(), size_t(2));
}

void TestHeldOutError::rowsAreTheEvaluations()
{
    const HeldOutError e = computeHeldOutError(corpus(), {});
    const Table t = heldOutErrorTable(e);
    const size_t step = rowOf(t, "step"), every = rowOf(t, "every layer");
    QVERIFY(step != Table::npos && every != Table::npos);
    QCOMPARE(t.rows.size(), size_t(5));   // block, embedding, softmax, step, every layer
    QVERIFY(std::abs(num(t, step, kHeldOutMapeModelColumn) - e.evaluation.stepMapeModel) < 1e-9);
    QVERIFY(std::abs(num(t, every, kHeldOutMapeModelColumn) - e.evaluation.layerMapeModel) < 1e-9);
    QVERIFY(std::abs(num(t, every, kHeldOutMapeFlopsColumn) - e.evaluation.layerMapeFlops) < 1e-9);
    QVERIFY(std::holds_alternative<std::monostate>(t.at(step, kHeldOutMapeRooflineColumn)));   // no device
    QCOMPARE(std::get<int64_t>(t.at(step, kHeldOutPairsColumn)), int64_t(18));
    // A layer's row by hand: the MAPE over its (run, layer) pairs of the evaluation.
    double sum = 0, bias = 0;
    int n = 0;
    for (const LayerPrediction& p : e.evaluation.layers)
        if (p.layer == "softmax") {
            sum += std::abs(p.modelNs - p.measuredNs) / p.measuredNs * 100;
            bias += (p.modelNs - p.measuredNs) / p.measuredNs * 100;
            ++n;
        }
    const size_t softmax = rowOf(t, "layer", "softmax");
    QCOMPARE(n, 18);
    QVERIFY(std::abs(num(t, softmax, kHeldOutMapeModelColumn) - sum / n) < 1e-9);
    QVERIFY(std::abs(num(t, softmax, kHeldOutBiasColumn) - bias / n) < 1e-9);
    QVERIFY(num(t, softmax, kHeldOutMapeModelColumn) > 0);
    QCOMPARE(std::get<std::string>(t.at(step, kHeldOutHoldOutColumn)), std::string("workload"));
    QVERIFY(!t.columns[t.column(kHeldOutHoldOutColumn)].inText);
}

void TestHeldOutError::sweepRunsOnly()
{
    const HeldOutError e = computeHeldOutError(corpus(), {});
    std::vector<int64_t> transformer;
    for (const RunEvaluation& r : e.evaluation.runs)
        if (r.group == "transformer")
            transformer.push_back(r.runId);
    QCOMPARE(transformer.size(), size_t(6));
    const Table t = heldOutErrorTable(e, {}, transformer);
    const GroupEvaluation* g = nullptr;
    for (const GroupEvaluation& ge : e.evaluation.groups)
        if (ge.group == "transformer")
            g = &ge;
    QVERIFY(g);
    QVERIFY(std::abs(num(t, rowOf(t, "step"), kHeldOutMapeModelColumn) - g->stepMapeModel) < 1e-9);
    QVERIFY(std::abs(num(t, rowOf(t, "every layer"), kHeldOutMapeModelColumn) - g->layerMapeModel) < 1e-9);
    QCOMPARE(std::get<int64_t>(t.at(rowOf(t, "step"), kHeldOutPairsColumn)), int64_t(6));
    QVERIFY(t.notes[1].find("6 of the 18") != std::string::npos);
}

void TestHeldOutError::layerFilter()
{
    const HeldOutError e = computeHeldOutError(corpus(), {});
    const Table all = heldOutErrorTable(e), one = heldOutErrorTable(e, "softmax");
    QCOMPARE(one.rows.size(), size_t(3));
    QCOMPARE(one.rows[0], all.rows[rowOf(all, "layer", "softmax")]);
    QCOMPARE(one.rows[1], all.rows[rowOf(all, "step")]);   // the summary rows stay
    QCOMPARE(heldOutErrorTable(e, "nothing").rows.size(), size_t(2));
}

void TestHeldOutError::opsTableNamesUnseenOps()
{
    const HeldOutError e = computeHeldOutError(corpus(), {});
    const Table ops = evaluationOpsTable(e.evaluation);
    QCOMPARE(ops.rows.size(), size_t(4));   // sgemm_nt and the three workloads' own ops
    double share = 0;
    for (size_t r = 0; r < ops.rows.size(); ++r) {
        const std::string name = std::get<std::string>(ops.at(r, "op"));
        const double byFeatures = std::get<double>(ops.at(r, "by_features"));
        // A workload's own op is never in the fit that predicts it; the shared GEMM always is.
        QCOMPARE(byFeatures, name == "sgemm_nt" ? 0.0 : 1.0);
        share += std::get<double>(ops.at(r, "share"));
    }
    QVERIFY(std::abs(share - 1.0) < 1e-9);
    // Largest absolute error first.
    for (size_t r = 1; r < e.evaluation.ops.size(); ++r)
        QVERIFY(std::abs(e.evaluation.ops[r - 1].modelNs - e.evaluation.ops[r - 1].measuredNs) >=
                std::abs(e.evaluation.ops[r].modelNs - e.evaluation.ops[r].measuredNs));
}

void TestHeldOutError::poisonedHeldOutRun()
{
    EvaluationInput in = corpus();
    const HeldOutError before = computeHeldOutError(in, {});
    for (LaunchSample& s : in.runs[0].launches)   // gcn, held out with gcn
        s.timeNs *= 5;
    const HeldOutError after = computeHeldOutError(in, {});
    for (size_t i = 0; i < before.evaluation.layers.size(); ++i) {
        const LayerPrediction &b = before.evaluation.layers[i], &a = after.evaluation.layers[i];
        QCOMPARE(a.runId, b.runId);
        if (b.group == "gcn")   // fitted without gcn: the same predictions
            QCOMPARE(a.modelNs, b.modelNs);
    }
    const std::vector<int64_t> victim {in.runs[0].run.id};
    const Table tb = heldOutErrorTable(before, {}, victim), ta = heldOutErrorTable(after, {}, victim);
    QVERIFY(num(ta, rowOf(ta, "step"), kHeldOutMapeModelColumn) > num(tb, rowOf(tb, "step"), kHeldOutMapeModelColumn) + 50);
    QVERIFY(num(ta, rowOf(ta, "step"), kHeldOutBiasColumn) < -50);   // predicted far below the poisoned times
}

void TestHeldOutError::tooFewRuns()
{
    EvaluationInput in = corpus();
    in.runs.resize(1);
    QVERIFY(possibleHoldOuts(in.runs).empty());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, computeHeldOutError(in, {}));
    in = corpus();
    HeldOutErrorOptions o;
    o.holdOut = HoldOut::Preset;   // every run is small
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, computeHeldOutError(in, o));
}

QTEST_APPLESS_MAIN(TestHeldOutError)
#include "tst_heldouterror.moc"
