// The tables of sweeps, variants and the predictor's evaluation (analysis/sweeptable.h,
// variantstable.h, evaluationtable.h) over hand-made inputs: their columns and ids (the swept
// key as a column, its fallbacks), none where a figure does not exist (a run without the
// layer, no twin, no roofline), the prediction error against its formula, the twin's rows (on a
// non-numeric axis only the measured values), the op table's column ids, and the writer's CSV.
#include "analysis/evaluationtable.h"
#include "analysis/sweeptable.h"
#include "analysis/variantstable.h"
#include "render/tablewriter.h"

#include <QTest>

using namespace wt;

namespace {

SweepPoint point(const std::string& value, int64_t run, double ns, double stepNs, bool present = true)
{
    SweepPoint p;
    p.value = value;
    p.runId = run;
    p.present = present;
    p.ns = present ? ns : 0;
    p.stepNs = stepNs;
    p.share = present ? ns / stepNs : 0;
    return p;
}

// One key (hidden 8, 16), two layers; conv1 has no kernels at 16.
SweepTable measuredSweep()
{
    SweepTable t;
    t.sweep.id = "m1";
    t.sweep.key = "hidden";
    t.sweep.values = {"8", "16"};
    t.sweep.runIds = {1, 2};
    t.sweep.workload = "gcn";
    t.sweep.preset = "tiny";
    t.sweep.backend = "cpu";
    t.xKey = "hidden";
    t.numeric = true;
    t.xValues = {"8", "16"};
    t.layers = {"softmax", "conv1"};
    t.series = {{"softmax", "softmax", "", {point("8", 1, 100, 400), point("16", 2, 200, 800)}},
                {"conv1", "conv1", "", {point("8", 1, 50, 400), point("16", 2, 0, 800, false)}}};
    t.notes = {"run 3 (32) has no steps yet (writing): left out"};
    return t;
}

// Its twin: hidden 8, 16, 32 (softmax only).
SweepTable predictedSweep()
{
    SweepTable t = measuredSweep();
    t.sweep.id = "p1";
    t.sweep.backend = "model";
    t.sweep.values = {"8", "16", "32"};
    t.sweep.runIds = {11, 12, 13};
    t.xValues = t.sweep.values;
    t.layers = {"softmax"};
    t.series = {{"softmax", "softmax", "", {point("8", 11, 90, 300), point("16", 12, 230, 700), point("32", 13, 400, 1200)}}};
    t.notes.clear();
    return t;
}

QStringList csvLines(const Table& t)
{
    return QString::fromStdString(render::csv(t)).trimmed().split(QLatin1Char('\n'));
}

}  // namespace

class TestAnalysisTables : public QObject {
    Q_OBJECT
private slots:
    void sweepWithoutTwin();
    void sweepWithTwin();
    void sweepGridAndIds();
    void variantsTables();
    void evaluationTables();
};

void TestAnalysisTables::sweepWithoutTwin()
{
    const Table t = sweepTable(measuredSweep());
    QCOMPARE(t.id, std::string("sweep"));
    const QStringList lines = csvLines(t);
    QCOMPARE(lines[0], QStringLiteral("series,layer,hidden,run,repeats,source,layer_ns,pm_ns,n,stddev_ns,ci_low_ns,ci_high_ns,share,step_ns,"
                                      "predicted_ns,predicted_run,error_pct,predicted_inside"));
    QCOMPARE(lines.size(), 1 + 4);
    QCOMPARE(lines[1], QStringLiteral("softmax,softmax,8,1,,measured,100,,,,,,0.25,400,,,,"));
    // A run without the layer's kernels: its step, no time, no share.
    QCOMPARE(lines[4], QStringLiteral("conv1,conv1,16,2,,measured,,,,,,,,800,,,,"));
    // No twin: the text leaves out source, predicted and error; the notes say the sweep and analysis's notes.
    const std::string text = render::text(t);
    QVERIFY(text.find("error") == std::string::npos);
    QVERIFY(text.find("sweep m1: gcn tiny, hidden=8,16, 2 runs") != std::string::npos);
    QVERIFY(text.find("has no steps yet") != std::string::npos);
}

void TestAnalysisTables::sweepWithTwin()
{
    const SweepTable m = measuredSweep(), p = predictedSweep();
    const Table t = sweepTable(m, &p);
    QCOMPARE(t.rows.size(), size_t(4 + 3));   // measured points, then the twin's softmax points
    const size_t err = t.column(kSweepErrorColumn), pns = t.column(kSweepPredictedNsColumn), prun = t.column(kSweepPredictedRunColumn);
    // softmax at 8: (90 - 100) / 100; at 16: (230 - 200) / 200.
    QCOMPARE(numberOf(t.rows[0][err]), 100.0 * (90.0 - 100.0) / 100.0);
    QCOMPARE(numberOf(t.rows[1][err]), 100.0 * (230.0 - 200.0) / 200.0);
    QCOMPARE(numberOf(t.rows[1][pns]), 230.0);
    QCOMPARE(numberOf(t.rows[1][prun]), 12.0);
    // conv1 has no predicted series: no error.
    QVERIFY(isNone(t.rows[2][err]) && isNone(t.rows[3][err]));
    // The twin's rows: source predicted, its own runs, beyond the measured axis too (numeric).
    for (size_t r = 4; r < 7; ++r) {
        QCOMPARE(textOf(t.at(r, kSweepSourceColumn)), std::string("predicted"));
        QVERIFY(isNone(t.rows[r][err]));
    }
    QCOMPARE(textOf(t.at(6, "hidden")), std::string("32"));
    QCOMPARE(numberOf(t.at(6, kSweepRunColumn)), 13.0);
    QVERIFY(render::text(t).find("predicted twin: sweep p1") != std::string::npos);
    // The layer filter keeps softmax's rows only.
    QCOMPARE(sweepTable(m, &p, "softmax").rows.size(), size_t(2 + 3));
    QCOMPARE(sweepTable(m, &p, "conv1").rows.size(), size_t(2));

    // A non-numeric axis: the twin's rows only at the values the measured axis has.
    SweepTable mv = m, pv = p;
    for (SweepTable* s : {&mv, &pv}) {
        s->numeric = false;
        s->xKey = "variant";
        for (SweepSeries& se : s->series)
            for (SweepPoint& pt : se.points)
                pt.value = pt.value == "8" ? "full" : pt.value == "16" ? "adaptive" : "fused";
    }
    mv.xValues = {"full", "adaptive"};
    pv.xValues = {"full", "adaptive", "fused"};
    const Table tv = sweepTable(mv, &pv);
    QCOMPARE(tv.rows.size(), size_t(4 + 2));
    QCOMPARE(csvLines(tv)[0].section(QLatin1Char(','), 2, 2), QStringLiteral("variant"));
    // A twin on another axis adds nothing.
    SweepTable other = p;
    other.xKey = "batch";
    QCOMPARE(sweepTable(m, &other).rows.size(), size_t(4));
}

void TestAnalysisTables::sweepGridAndIds()
{
    SweepTable g = measuredSweep();
    g.groupKey = "variant";
    g.series[0].group = "fused";
    g.series[0].name = "softmax fused";
    QCOMPARE(sweepGroupColumn(g), std::string("variant"));
    QCOMPARE(csvLines(sweepTable(g))[0].section(QLatin1Char(','), 0, 3), QStringLiteral("series,layer,variant,hidden"));
    QCOMPARE(textOf(sweepTable(g).at(0, "variant")), std::string("fused"));
    // Keys that are not column ids, or that a fixed column has, fall back.
    g.xKey = "Batch Size";
    g.groupKey = "run";
    QCOMPARE(sweepValueColumn(g), std::string("value"));
    QCOMPARE(sweepGroupColumn(g), std::string("group"));
    QCOMPARE(sweepTable(g).columns[3].title, std::string("Batch Size"));
}

void TestAnalysisTables::variantsTables()
{
    VariantsTable v;
    v.setting = "variant";
    v.layer = "softmax";
    v.baseline = 1;
    v.opNames = {"head_gemm", "logits_gemm"};
    auto row = [](const char* value, int64_t id, double fwd, double bwd, double layer, double step) {
        VariantRow r;
        r.value = value;
        r.info.id = id;
        r.info.workload = "gcn";
        r.info.preset = "tiny";
        r.file = "v.wt";
        r.steps = 2;
        r.hasLayer = true;
        r.forwardNs = fwd;
        r.backwardNs = bwd;
        r.layerNs = layer;
        r.updateNs = layer - fwd - bwd;
        r.stepNs = step;
        r.share = layer / step;
        return r;
    };
    v.rows = {row("full", 1, 30, 20, 60, 200), row("adaptive", 2, 10, 8, 20, 150)};
    v.rows[0].ops = {{"head_gemm", 0}, {"logits_gemm", 40}};
    v.rows[1].ops = {{"head_gemm", 12}, {"logits_gemm", 0}};
    v.rows[0].speedup = 20.0 / 60.0;
    v.rows[1].speedup = 1.0;
    v.rows[1].stepSpeedup = 1.0;   // full's step speedup left undefined: none
    const Table t = variantsTable(v);
    const QStringList lines = csvLines(t);
    QCOMPARE(lines[0], QStringLiteral("variant,baseline,run,name,file,steps,forward_ns,backward_ns,update_ns,layer_ns,share,step_ns,"
                                      "step_wall_ns,speedup,forward_speedup,backward_speedup,step_speedup,speedup_low,speedup_high,"
                                      "verdict,step_speedup_low,step_speedup_high,step_verdict"));
    // The baseline has no noise against itself; hand-made rows have no samples.
    QCOMPARE(lines[2], QStringLiteral("adaptive,yes,2,,v.wt,2,10,8,2,20,0.13333333333333333,150,0,1,,,1,,,,,,"));
    // full: no step speedup (and no forward/backward ones): empty fields.
    QCOMPARE(lines[1], QStringLiteral("full,no,1,,v.wt,2,30,20,10,60,0.3,200,0,0.3333333333333333,,,,,,not_enough_samples,,,"
                                      "not_enough_samples"));
    QCOMPARE(t.columns[t.column("layer_ns")].title, std::string("softmax"));
    QVERIFY(render::text(t).find("differ in variant; layer softmax") != std::string::npos);
    // The op table: one column per run by its value, none where the run has no such op.
    const Table ops = variantOpsTable(v);
    QCOMPARE(csvLines(ops), (QStringList{QStringLiteral("op,full_ns,adaptive_ns"), QStringLiteral("head_gemm,,12"),
                                         QStringLiteral("logits_gemm,40,")}));
    // Values that give one id (or none): the run's id instead.
    v.rows[1].value = "FULL";
    QCOMPARE(csvLines(variantOpsTable(v))[0], QStringLiteral("op,full_ns,run2_ns"));
    // A setting that is a fixed column: the value column is "value".
    v.setting = "steps";
    QCOMPARE(variantsValueColumn(v), std::string("value"));
    v.setting.clear();
    QCOMPARE(variantsValueColumn(v), std::string("variant"));
}

void TestAnalysisTables::evaluationTables()
{
    Evaluation ev;
    RunEvaluation r;
    r.runId = 4;
    r.name = "gcn-full";
    r.measuredStepNs = 1000;
    r.modelStepNs = 900;
    r.flopsStepNs = 1200;
    r.layers = 3;
    r.layerMapeModel = 12.5;
    r.layerMapeFlops = 30;
    r.group = "run 4";
    ev.runs = {r};
    ev.stepMapeModel = 10;
    ev.stepMapeFlops = 20;
    ev.layerMapeModel = 12.5;
    ev.layerMapeFlops = 30;
    // No device: the roofline's cells are none.
    const Table runs = evaluationRunsTable(ev, "f.wt", "");
    QCOMPARE(csvLines(runs), (QStringList{QStringLiteral("run,name,measured_step_ns,model_step_ns,roofline_step_ns,flops_step_ns,layers,"
                                                         "layer_mape_model,layer_mape_roofline,layer_mape_flops,group,repeats"),
                                          QStringLiteral("4,gcn-full,1000,900,,1200,3,12.5,,30,run 4,1")}));
    QVERIFY(render::text(runs).find("roofline: none") != std::string::npos);
    const Table mape = evaluationMapeTable(ev);
    QCOMPARE(csvLines(mape), (QStringList{QStringLiteral("error_of,model,roofline,flops"), QStringLiteral("per layer,12.5,,30"),
                                          QStringLiteral("whole step,10,,20")}));
    ev.hasRoofline = true;
    ev.stepMapeRoofline = 40;
    QCOMPARE(csvLines(evaluationMapeTable(ev))[2], QStringLiteral("whole step,10,40,20"));
}

QTEST_GUILESS_MAIN(TestAnalysisTables)
#include "tst_analysistables.moc"
