// Held-out evaluation and the cross-kind features (analysis/predictor.h) on synthetic runs made
// by known per-op costs: a held-out group's ops never reach the fit (its poisoned times leave its
// prediction unchanged, while the same poison in a training run moves it); every group of a
// leave-one-workload-out gets finite errors; an op name missing from the fit gets a finite
// prediction from the feature model; a model fitted with one calibration and applied with
// another scales as the calibrations do; the groups and worst-layers tables through the writer.
#include "analysis/evaluationtable.h"
#include "analysis/predictor.h"
#include "render/tablewriter.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace wt;

namespace {

DeviceSpec calibration(double flops, double bytesPerS, double overheadNs)
{
    DeviceSpec d;
    d.name = "cal";
    d.kind = "cpu";
    d.fp32Flops = flops;
    d.memoryBytesPerS = bytesPerS;
    d.hostLinkBytesPerS = bytesPerS;
    d.launchOverheadNs = overheadNs;
    return d;
}

// A device of 100 GFLOP/s, 20 GB/s, 100 ns per op; ops at 60% (GEMM) and 50% (others) of it.
LaunchSample op(const char* name, const char* kind, double flops, double bytes, double noise, std::mt19937& rng)
{
    LaunchSample s;
    s.name = name;
    s.kind = kind;
    s.flops = flops;
    s.bytesRead = bytes * 0.75;
    s.bytesWritten = bytes * 0.25;
    s.shapes = "rows=128 cols=" + std::to_string(int64_t(bytes / 512));
    const double ns = 300 + (std::string(kind) == "gemm" ? flops / 60.0 : bytes / 10.0);
    std::normal_distribution<double> n(0.0, noise);
    s.timeNs = std::max<int64_t>(1, std::llround(ns * (1.0 + n(rng))));
    return s;
}

// A run of one "workload": its own op names beside the shared GEMM, 4 layers, 2 steps.
RunSamples run(int64_t id, const std::string& workload, double hidden, std::mt19937& rng)
{
    RunSamples r;
    r.run.id = id;
    r.run.name = workload + "-" + std::to_string(int(hidden));
    r.run.workload = workload;
    r.run.preset = hidden < 200 ? "tiny" : "small";
    r.run.variant = id % 2 ? "full" : "adaptive";
    r.run.device = "CPU: synthetic";
    r.steps = 2;
    const std::string own = workload + "_op";
    for (int step = 0; step < 2; ++step)
        for (int layer = 0; layer < 4; ++layer) {
            const double T = 128;
            LaunchSample g = op("sgemm_nt", "gemm", 2 * T * hidden * hidden, 4 * (2 * T * hidden + hidden * hidden), 0.02, rng);
            LaunchSample e = op(own.c_str(), "kernel", 4 * T * hidden, 12 * T * hidden * (layer + 1), 0.02, rng);
            LaunchSample c = op("residual_add", "kernel", T * hidden, 12 * T * hidden, 0.02, rng);
            g.layer = e.layer = c.layer = "layer" + std::to_string(layer);
            g.path = e.path = c.path = "step/forward/" + g.layer + "/op";
            r.launches.insert(r.launches.end(), {g, e, c});
        }
    return r;
}

std::vector<RunSamples> corpus()
{
    std::mt19937 rng(5);
    std::vector<RunSamples> runs;
    int64_t id = 1;
    for (const char* w : {"gcn", "transformer", "bert"})
        for (double h : {128.0, 256.0, 384.0})
            runs.push_back(run(id++, w, h, rng));
    return runs;
}

// The corpus captured 3 times (capture --repeat 3: one repeat tag per configuration, ids 1..27,
// configuration c's repeats c, c + 9, c + 18), every launch in its step's instance.
std::vector<RunSamples> repeatedCorpus()
{
    std::mt19937 rng(11);
    std::vector<RunSamples> runs;
    int64_t id = 1;
    for (int repeat = 0; repeat < 3; ++repeat) {
        int config = 0;
        for (const char* w : {"gcn", "transformer", "bert"})
            for (double h : {128.0, 256.0, 384.0}) {
                RunSamples r = run(id, w, h, rng);
                r.repeatId = "config-" + std::to_string(config++);
                for (size_t i = 0; i < r.launches.size(); ++i)
                    r.launches[i].stepInstance = 1000 * id + int64_t(i / 12);   // 12 launches per step
                runs.push_back(std::move(r));
                ++id;
            }
    }
    return runs;
}

// The per-step times of one configuration's repeats (every step of every repeat), of one layer
// (empty: the whole step).
std::vector<double> stepTimes(const std::vector<RunSamples>& runs, const std::string& tag, const std::string& layer = {})
{
    std::map<int64_t, double> bySteps;
    for (const RunSamples& r : runs)
        if (r.repeatId == tag)
            for (const LaunchSample& s : r.launches)
                if (layer.empty() || s.layer == layer)
                    bySteps[s.stepInstance] += double(s.timeNs);
    std::vector<double> v;
    for (const auto& [step, t] : bySteps)
        v.push_back(t);
    std::sort(v.begin(), v.end());
    return v;
}

const RunEvaluation& rowOf(const Evaluation& ev, int64_t runId)
{
    for (const RunEvaluation& r : ev.runs)
        if (r.runId == runId)
            return r;
    throw std::out_of_range("no run");
}

}  // namespace

class TestHoldOut : public QObject {
    Q_OBJECT
private slots:
    void groupsOfRuns();
    void heldOutRunsNeverReachTheFit_data();
    void heldOutRunsNeverReachTheFit();
    void everyWorkloadHasFiniteErrors();
    void unseenOpKindFromFeatures();
    void farOutsideTheFitFallsBack();
    void calibrationScales();
    void jsonKeepsFeaturesAndCalibration();
    void tables();
    void oneGroupIsRefused();
    void repeatsArePooledAndHeldOutTogether();
    void opsByGroupSplitTheOpTable();
    void perRunFiguresBesideTheMedian();
};

void TestHoldOut::groupsOfRuns()
{
    RunSamples r;
    r.run.id = 7;
    r.run.workload = "bert";
    r.run.preset = "small";
    r.run.variant = "fused";
    r.run.configJson = R"({"workload":"bert","density":1,"block":1})";
    QCOMPARE(holdOutGroup(r, HoldOut::Run), std::string("run 7"));
    QCOMPARE(holdOutGroup(r, HoldOut::Workload), std::string("bert"));
    QCOMPARE(holdOutGroup(r, HoldOut::Preset), std::string("small"));
    QCOMPARE(holdOutGroup(r, HoldOut::Variant), std::string("fused"));
    r.run.configJson = R"({"workload":"bert","density":0.5,"block":16})";
    QCOMPARE(holdOutGroup(r, HoldOut::Workload), std::string("bert-blocksparse"));
    r.run.configJson = "not json";
    QCOMPARE(holdOutGroup(r, HoldOut::Workload), std::string("bert"));
    QCOMPARE(parseHoldOut("workload"), std::optional<HoldOut>(HoldOut::Workload));
    QVERIFY(!parseHoldOut("layer"));
}

void TestHoldOut::heldOutRunsNeverReachTheFit_data()
{
    QTest::addColumn<int>("holdOut");
    QTest::newRow("run") << int(HoldOut::Run);
    QTest::newRow("workload") << int(HoldOut::Workload);
    QTest::newRow("preset") << int(HoldOut::Preset);
    QTest::newRow("variant") << int(HoldOut::Variant);
}

void TestHoldOut::heldOutRunsNeverReachTheFit()
{
    QFETCH(int, holdOut);
    EvaluationOptions options;
    options.holdOut = HoldOut(holdOut);
    options.calibration = calibration(100e9, 20e9, 100);
    const std::vector<RunSamples> clean = corpus();
    const Evaluation before = evaluate(clean, options);
    // Poison run 5 (transformer, hidden 256): every time 1/1000 (the fit weighs relative errors,
    // so a run made faster weighs in heavily).
    std::vector<RunSamples> poisoned = clean;
    for (LaunchSample& s : poisoned[4].launches)
        s.timeNs = std::max<int64_t>(1, s.timeNs / 1000);
    const Evaluation after = evaluate(poisoned, options);
    const std::string heldWith = holdOutGroup(clean[4], options.holdOut);
    int moved = 0;
    for (const RunSamples& r : clean) {
        const RunEvaluation &b = rowOf(before, r.run.id), &a = rowOf(after, r.run.id);
        if (holdOutGroup(r, options.holdOut) == heldWith) {
            // Predicted by a fit on the other groups only: the poison cannot move it.
            QCOMPARE(a.modelStepNs, b.modelStepNs);
            QCOMPARE(a.flopsStepNs, b.flopsStepNs);
        } else if (std::fabs(a.modelStepNs - b.modelStepNs) > 0.01 * b.modelStepNs) {
            ++moved;   // the poisoned run was in this run's fit
        }
    }
    // The poison does reach the fits of the other groups (the check above could fail).
    QVERIFY2(moved > 0, qPrintable(QString::number(moved)));
    QVERIFY(rowOf(after, 5).measuredStepNs < rowOf(before, 5).measuredStepNs / 500);
}

void TestHoldOut::everyWorkloadHasFiniteErrors()
{
    EvaluationOptions options;
    options.holdOut = HoldOut::Workload;
    options.calibration = options.roofline = calibration(100e9, 20e9, 100);
    const Evaluation ev = evaluate(corpus(), options);
    QCOMPARE(ev.holdOut, HoldOut::Workload);
    QCOMPARE(ev.groups.size(), size_t(3));
    QCOMPARE(ev.runs.size(), size_t(9));
    for (const GroupEvaluation& g : ev.groups) {
        QCOMPARE(g.runs, 3);
        QCOMPARE(g.layers, 12);
        for (double v : {g.stepMapeModel, g.stepMapeRoofline, g.stepMapeFlops, g.layerMapeModel, g.layerMapeRoofline,
                         g.layerMapeFlops})
            QVERIFY(std::isfinite(v) && v >= 0);
        // Each workload's own op was never fitted; the feature model carries the other
        // workloads' efficiency to it (the synthetic device treats every kernel alike).
        QVERIFY2(g.stepMapeModel < 10, qPrintable(QString::fromStdString(g.group) + " " + QString::number(g.stepMapeModel)));
    }
    QCOMPARE(ev.groups[0].group, std::string("gcn"));
    QVERIFY(ev.layerMapeModel < ev.layerMapeFlops);
    QCOMPARE(ev.worst.size(), size_t(10));
    for (size_t i = 1; i < ev.worst.size(); ++i)
        QVERIFY(std::fabs(ev.worst[i - 1].errorPct) >= std::fabs(ev.worst[i].errorPct));
}

void TestHoldOut::unseenOpKindFromFeatures()
{
    std::vector<RunSamples> runs = corpus();
    runs.resize(3);   // gcn only: no transformer_op, no memset
    const Predictor p = Predictor::fit(runs, "gcn", calibration(100e9, 20e9, 100));
    LaunchSample unseen;
    unseen.name = "transformer_op";
    unseen.kind = "kernel";
    unseen.flops = 4 * 128 * 256;
    unseen.bytesRead = 12 * 128 * 256;
    unseen.shapes = "rows=128 cols=256";
    QVERIFY(!p.classFor(unseen));   // no class of that name: the feature model predicts it
    const double ns = p.predictNs(unseen);
    QVERIFY2(std::isfinite(ns) && ns > 0, qPrintable(QString::number(ns)));
    // Close to what the synthetic device takes for any kernel of those bytes (300 + bytes / 10).
    const double truth = 300 + unseen.bytes() / 10.0;
    QVERIFY2(std::fabs(ns - truth) < 0.1 * truth, qPrintable(QString::number(ns) + " vs " + QString::number(truth)));
    // More bytes, more time.
    LaunchSample bigger = unseen;
    bigger.bytesRead *= 4;
    QVERIFY(p.predictNs(bigger) > ns);
    // A launch kind never fitted (memset) falls back on the all-kinds weights, still finite.
    LaunchSample memset = unseen;
    memset.name = "memset_new";
    memset.kind = "memset";
    QVERIFY(p.features.weightsFor("memset") == &p.features.byKind.at("*"));
    QVERIFY(std::isfinite(p.predictNs(memset)) && p.predictNs(memset) > 0);
}

void TestHoldOut::farOutsideTheFitFallsBack()
{
    std::vector<RunSamples> runs = corpus();
    runs.resize(3);   // gcn at hidden 128-384
    const Predictor p = Predictor::fit(runs, "gcn", calibration(100e9, 20e9, 100));
    LaunchSample s = runs[0].launches[0];   // sgemm_nt at hidden 128
    QVERIFY(p.classFor(s));
    const CostClass& c = *p.classFor(s);
    QVERIFY(c.minWork > 0 && c.maxWork >= c.minWork);
    // 100x the largest work it was fitted on: no extrapolated class, the feature model predicts.
    LaunchSample big = s;
    big.flops = c.maxWork * 100;
    QVERIFY(!p.classFor(big));
    QVERIFY(std::isfinite(p.predictNs(big)) && p.predictNs(big) > p.predictNs(s));
    LaunchSample small = s;
    small.flops = c.minWork / 100;
    small.bytesRead = small.bytesWritten = 0;
    QVERIFY(!p.classFor(small));
    // Within reach (2x): still the class.
    LaunchSample near = s;
    near.flops *= 2;
    QCOMPARE(p.classFor(near), &c);
}

void TestHoldOut::calibrationScales()
{
    std::vector<RunSamples> runs = corpus();
    runs.resize(6);
    const DeviceSpec a = calibration(100e9, 20e9, 100);
    const Predictor p = Predictor::fit(runs, "a", a);
    LaunchSample gemm = runs[0].launches[0], own = runs[0].launches[1], unseen = own;
    unseen.name = "bert_op";
    QVERIFY(p.classFor(gemm) && p.classFor(own) && !p.classFor(unseen));
    // A device twice as fast in every rate: every prediction halves.
    DeviceSpec b = calibration(200e9, 40e9, 50);
    const Predictor q = p.rescaledTo(b);
    QCOMPARE(q.calibration->fp32Flops, 200e9);
    for (const LaunchSample& s : {gemm, own, unseen}) {
        const double pa = p.predictNs(s), pb = q.predictNs(s);
        QVERIFY2(pa > 0 && std::fabs(pb - pa / 2) <= 1e-9 * pa, qPrintable(QString::number(pa) + " " + QString::number(pb)));
    }
    // Only the peak 4x: each class's FLOP term shrinks 4x, its fixed cost and byte term stay.
    DeviceSpec c = a;
    c.fp32Flops *= 4;
    const Predictor r = p.rescaledTo(c);
    for (const LaunchSample& s : {gemm, own}) {
        const CostClass* k = p.classFor(s);
        const double expected = k->overheadNs + k->nsPerFlop * s.flops / 4 + k->nsPerByte * s.bytes();
        QVERIFY(std::fabs(r.predictNs(s) - expected) <= 1e-9 * expected);
    }
    // The feature model: its compute and rows terms (both FLOP-rated) shrink 4x, the others stay.
    const FeatureModel::Weights* w = p.features.weightsFor("kernel");
    QVERIFY(w);
    const CrossFeatures fa = crossFeatures(unseen, a), fc = crossFeatures(unseen, c);
    QCOMPARE(fc.computeNs, fa.computeNs / 4);
    QCOMPARE(fc.memoryNs, fa.memoryNs);
    const double byFeatures = w->w[0] * fa.launchNs + w->w[1] * fa.computeNs / 4 + w->w[2] * fa.memoryNs + w->w[3] * fa.rowsNs / 4;
    // An unseen kernel: the geometric mean of that and its roofline class's price on c.
    const std::optional<double> byClass = p.kernelClasses.predictNs(unseen, c);
    QVERIFY(byClass && *byClass > 0);
    const double expected = std::sqrt(byFeatures * *byClass);
    QVERIFY(std::fabs(r.predictNs(unseen) - expected) <= 1e-9 * expected);
    // Without a calibration there is nothing to scale by: unchanged.
    const Predictor n = Predictor::fit(runs, "n");
    QCOMPARE(n.rescaledTo(b).predictNs(gemm), n.predictNs(gemm));
}

void TestHoldOut::jsonKeepsFeaturesAndCalibration()
{
    std::vector<RunSamples> runs = corpus();
    runs.resize(3);
    const Predictor p = Predictor::fit(runs, "j", calibration(100e9, 20e9, 100));
    std::string why;
    auto back = Predictor::fromJson(p.toJson(), &why);
    QVERIFY2(back, why.c_str());
    QVERIFY(back->calibration);
    QCOMPARE(back->calibration->memoryBytesPerS, 20e9);
    QCOMPARE(back->features.byKind.size(), p.features.byKind.size());
    LaunchSample unseen = runs[0].launches[1];
    unseen.name = "never";
    QVERIFY(std::fabs(back->predictNs(unseen) - p.predictNs(unseen)) <= 1e-9 * p.predictNs(unseen));
    // A damaged calibration is a one-line error, not a silent nominal one.
    std::string text = p.toJson();
    text.replace(text.find("\"fp32_flops\":"), 13, "\"fp32_flops\":-");
    QVERIFY(!Predictor::fromJson(text, &why));
    QVERIFY2(why.find("calibration") != std::string::npos, why.c_str());
}

void TestHoldOut::tables()
{
    EvaluationOptions options;
    options.holdOut = HoldOut::Workload;
    options.calibration = calibration(100e9, 20e9, 100);
    options.worstLayers = 3;
    const Evaluation ev = evaluate(corpus(), options);
    const Table groups = evaluationGroupsTable(ev);
    QCOMPARE(groups.rows.size(), size_t(3));
    const std::string csv = render::csv(groups);
    QVERIFY2(csv.rfind("group,runs,layers,step_mape_model,step_mape_roofline,step_mape_flops,layer_mape_model,"
                       "layer_mape_roofline,layer_mape_flops\ngcn,3,12,", 0) == 0, csv.c_str());
    // No roofline device: its columns are none (empty in CSV).
    QVERIFY(isNone(groups.at(0, "step_mape_roofline")));
    const Table worst = evaluationWorstLayersTable(ev);
    QCOMPARE(worst.rows.size(), size_t(3));
    QCOMPARE(numberOf(worst.at(0, "error_pct")), ev.worst[0].errorPct);
    const Table runs = evaluationRunsTable(ev, "f.wt", "");
    QCOMPARE(textOf(runs.at(0, "group")), std::string("gcn"));
    QVERIFY(render::text(runs).find("held out by workload: 3 groups") != std::string::npos);
}

void TestHoldOut::oneGroupIsRefused()
{
    std::vector<RunSamples> runs = corpus();
    runs.resize(3);   // all gcn
    EvaluationOptions options;
    options.holdOut = HoldOut::Workload;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, evaluate(runs, options));
    options.holdOut = HoldOut::Run;
    QCOMPARE(evaluate(runs, options).groups.size(), size_t(3));
}

// Repeats of one configuration (one repeat tag, or one configuration JSON) are one row: held out together (leave-one-run-out does not fit on
// a repeat of the held-out run) and measured as the median over the steps of all repeats, so one
// preempted step does not move the figure the prediction is compared with.
void TestHoldOut::repeatsArePooledAndHeldOutTogether()
{
    EvaluationOptions options;
    options.calibration = calibration(100e9, 20e9, 100);
    const std::vector<RunSamples> clean = repeatedCorpus();
    const Evaluation before = evaluate(clean, options);
    QCOMPARE(before.runs.size(), size_t(9));
    QCOMPARE(before.groups.size(), size_t(9));
    const RunEvaluation& row = rowOf(before, 2);   // gcn hidden 256: repeats 2, 11, 20
    QCOMPARE(row.repeats, 3);
    QCOMPARE(row.group, std::string("run 2"));
    // 3 repeats x 2 steps: the median of 6 is the mean of the middle two.
    const std::vector<double> steps = stepTimes(clean, "config-1");
    QCOMPARE(steps.size(), size_t(6));
    QVERIFY(std::fabs(row.measuredStepNs - 0.5 * (steps[2] + steps[3])) <= 1e-9 * row.measuredStepNs);
    const std::vector<double> layer1 = stepTimes(clean, "config-1", "layer1");
    bool found = false;
    for (const LayerPrediction& l : before.layers)
        if (l.runId == 2 && l.layer == "layer1") {
            found = true;
            QVERIFY(std::fabs(l.measuredNs - 0.5 * (layer1[2] + layer1[3])) <= 1e-9 * l.measuredNs);
        }
    QVERIFY(found);
    // One step of one repeat preempted 50x: the median stays within the clean steps' range, the
    // mean would be about 9x.
    std::vector<RunSamples> preempted = clean;
    for (LaunchSample& s : preempted[10].launches)   // run 11: the second repeat of configuration 1
        if (s.stepInstance == 1000 * 11)
            s.timeNs *= 50;
    const Evaluation slow = evaluate(preempted, options);
    const double m = rowOf(slow, 2).measuredStepNs;
    QVERIFY2(m >= steps.front() && m <= steps.back(), qPrintable(QString::number(m)));
    // Every repeat of configuration 1 poisoned (1/1000): its own prediction cannot move (nothing of
    // it is in its fit), the others' do (it is in theirs).
    std::vector<RunSamples> poisoned = clean;
    for (RunSamples& r : poisoned)
        if (r.repeatId == "config-1")
            for (LaunchSample& s : r.launches)
                s.timeNs = std::max<int64_t>(1, s.timeNs / 1000);
    const Evaluation after = evaluate(poisoned, options);
    QCOMPARE(rowOf(after, 2).modelStepNs, row.modelStepNs);
    int moved = 0;
    for (const RunEvaluation& r : before.runs)
        moved += std::fabs(rowOf(after, r.runId).modelStepNs - r.modelStepNs) > 0.01 * r.modelStepNs;
    QVERIFY2(moved > 0, qPrintable(QString::number(moved)));
    // Untagged, the same runs are 27 rows, and a repeat of run 2 is in run 2's fit: the poison
    // of run 11 alone moves run 2's prediction.
    std::vector<RunSamples> untagged = clean;
    for (RunSamples& r : untagged)
        r.repeatId.clear();
    const Evaluation loose = evaluate(untagged, options);
    QCOMPARE(loose.runs.size(), size_t(27));
    for (LaunchSample& s : untagged[10].launches)
        s.timeNs = std::max<int64_t>(1, s.timeNs / 1000);
    QVERIFY(std::fabs(rowOf(evaluate(untagged, options), 2).modelStepNs - rowOf(loose, 2).modelStepNs) >
            0.01 * rowOf(loose, 2).modelStepNs);
    // Captured in separate calls (no repeat tag) with one configuration JSON: repeats all the same.
    std::vector<RunSamples> byConfig = clean;
    for (RunSamples& r : byConfig) {
        r.run.configJson = "{\"" + r.repeatId + "\":1}";
        r.run.backend = "cpu";
        r.repeatId.clear();
    }
    const Evaluation configs = evaluate(byConfig, options);
    QCOMPARE(configs.runs.size(), size_t(9));
    QCOMPARE(rowOf(configs, 2).repeats, 3);
    QCOMPARE(rowOf(configs, 2).measuredStepNs, row.measuredStepNs);
    QCOMPARE(configurationKey(byConfig[1]), configurationKey(byConfig[10]));
    QVERIFY(configurationKey(byConfig[1]) != configurationKey(byConfig[2]));
    QCOMPARE(configurationKey(untagged[1]), std::string());
    // The runs table shows the repeats column when rows pool repeats.
    const Table t = evaluationRunsTable(before, "f.wt", "");
    QCOMPARE(t.at(0, "repeats"), Cell(int64_t(3)));
}

// --ops-by-group: one row per (held-out group, op name); an op's rows add up to its row in the
// table by name, and only the groups whose runs have the op have a row of it.
void TestHoldOut::opsByGroupSplitTheOpTable()
{
    EvaluationOptions options;
    options.holdOut = HoldOut::Workload;
    options.calibration = calibration(100e9, 20e9, 100);
    options.worstOps = 100;
    const Evaluation byName = evaluate(corpus(), options);
    options.opsByGroup = true;
    const Evaluation byGroup = evaluate(corpus(), options);
    QCOMPARE(byName.ops.size(), size_t(5));    // sgemm_nt, residual_add and the three own ops
    QCOMPARE(byGroup.ops.size(), size_t(9));   // the shared two in each of 3 groups, the own ones once
    for (const OpError& o : byName.ops) {
        double measured = 0, model = 0;
        int64_t launches = 0;
        for (const OpError& g : byGroup.ops)
            if (g.name == o.name) {
                QVERIFY(g.group == "gcn" || g.group == "transformer" || g.group == "bert");
                measured += g.measuredNs, model += g.modelNs, launches += g.launches;
            }
        QVERIFY(std::fabs(measured - o.measuredNs) <= 1e-9 * o.measuredNs);
        QVERIFY(std::fabs(model - o.modelNs) <= 1e-9 * o.modelNs);
        QCOMPARE(launches, o.launches);
        QVERIFY(o.group.empty());
    }
    for (const OpError& g : byGroup.ops)
        if (g.name.find("_op") != std::string::npos)
            QCOMPARE(g.name, g.group + "_op");   // a workload's own op only in its own group
    const Table t = evaluationOpsTable(byGroup);
    QCOMPARE(t.columns.front().id, std::string("group"));
    QCOMPARE(textOf(t.at(0, "group")), byGroup.ops.front().group);
    QVERIFY(evaluationOpsTable(byName).columns.front().id == "op");
}

// The per-run figures beside the pooled rows: each repeat's own median over its steps against the
// prediction, and against the median over its configuration's other repeats' steps (the spread of
// the repeats), both by hand; one preempted step moves the per-run figures, not the pooled row.
void TestHoldOut::perRunFiguresBesideTheMedian()
{
    EvaluationOptions options;
    const std::vector<RunSamples> clean = repeatedCorpus();
    const Evaluation ev = evaluate(clean, options);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    // Per run: its step times (2 steps).
    auto stepsOf = [](const RunSamples& r) {
        std::map<int64_t, double> by;
        for (const LaunchSample& s : r.launches)
            by[s.stepInstance] += double(s.timeNs);
        std::vector<double> v;
        for (const auto& [k, t] : by)
            v.push_back(t);
        return v;
    };
    double model = 0, spread = 0;
    for (const RunSamples& r : clean) {
        const double own = median(stepsOf(r));
        const int64_t rowId = (r.run.id - 1) % 9 + 1;   // the configuration's row: its first repeat
        model += std::fabs(rowOf(ev, rowId).modelStepNs - own) / own * 100;
        std::vector<double> rest;
        for (const RunSamples& o : clean)
            if (o.repeatId == r.repeatId && o.run.id != r.run.id)
                for (double t : stepsOf(o))
                    rest.push_back(t);
        QCOMPARE(rest.size(), size_t(4));
        spread += std::fabs(own - median(rest)) / median(rest) * 100;
    }
    model /= 27, spread /= 27;
    QCOMPARE(ev.perRun.runs, 27);
    QCOMPARE(ev.perRun.repeatRuns, 27);
    QCOMPARE(ev.perRun.layers, 27 * 4);
    QVERIFY2(std::fabs(ev.perRun.stepMapeModel - model) <= 1e-9 * model,
             qPrintable(QString::number(ev.perRun.stepMapeModel) + " vs " + QString::number(model)));
    QVERIFY2(std::fabs(ev.perRun.stepMapeRepeats - spread) <= 1e-9 * spread,
             qPrintable(QString::number(ev.perRun.stepMapeRepeats) + " vs " + QString::number(spread)));
    QVERIFY(spread > 0 && ev.perRun.layerMapeRepeats > 0);
    // Both steps of run 11 (configuration 1's second repeat) preempted 3x: the pooled row's median
    // stays among the clean steps, while the per-run error and the spread grow.
    std::vector<RunSamples> slow = clean;
    for (LaunchSample& s : slow[10].launches)
        s.timeNs *= 3;
    const Evaluation pre = evaluate(slow, options);
    QVERIFY(rowOf(pre, 2).measuredStepNs < 1.2 * rowOf(ev, 2).measuredStepNs);
    QVERIFY(pre.perRun.stepMapeModel > ev.perRun.stepMapeModel + 50.0 / 27);   // run 11: about 67% off
    QVERIFY(pre.perRun.stepMapeRepeats > ev.perRun.stepMapeRepeats + 100.0 / 27);
    // Through the table: two rows, the spread and its counts; untagged runs have no spread.
    const Table t = evaluationPerRunTable(ev);
    QCOMPARE(t.rows.size(), size_t(2));
    QCOMPARE(t.at(1, "model"), Cell(ev.perRun.stepMapeModel));
    QCOMPARE(t.at(1, "repeats"), Cell(ev.perRun.stepMapeRepeats));
    QCOMPARE(t.at(1, "with_repeats"), Cell(int64_t(27)));
    std::vector<RunSamples> untagged = clean;
    for (RunSamples& r : untagged)
        r.repeatId.clear();
    const Evaluation loose = evaluate(untagged, options);
    QCOMPARE(loose.perRun.repeatRuns, 0);
    QCOMPARE(evaluationPerRunTable(loose).at(1, "repeats"), Cell());
    // Without repeats the per-run figure is the pooled one.
    QVERIFY(std::fabs(loose.perRun.stepMapeModel - loose.stepMapeModel) <= 1e-9 * loose.stepMapeModel);
}

QTEST_GUILESS_MAIN(TestHoldOut)
#include "tst_holdout.moc"
