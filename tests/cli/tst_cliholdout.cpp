// `wheretime predict --evaluate --hold-out` as a user runs it on a corpus of tiny CPU captures
// of three workloads (gcn, transformer, bert; two variants each): every workload held out gets
// finite errors of the predictor, the roofline and FLOPs only, the JSON keeps today's keys and
// adds hold_out, groups and worst_layers; one workload cannot be held out against itself; a
// predictor fitted with the file's calibration applied with a calibration twice as fast predicts
// half the time (issue 30).
#include "analysis/costmodel.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <cmath>

using namespace wt;
using test::runCli;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

bool finiteNumber(const QJsonValue& v) { return v.isDouble() && std::isfinite(v.toDouble()) && v.toDouble() >= 0; }

// The predicted step time the CLI prints: "predicted step 1.234 ms on ...".
double predictedStepMs(const QString& out)
{
    const auto m = QRegularExpression(QStringLiteral("predicted step ([0-9.]+) ms")).match(out);
    return m.hasMatch() ? m.captured(1).toDouble() : -1;
}

}  // namespace

class TestCliHoldOut : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyWorkloadHeldOut();
    void variantAndPreset();
    void refusals();
    void calibrationScalesPredictions();

private:
    QString m_file;
};

void TestCliHoldOut::initTestCase()
{
    m_file = q(test::tempPath("holdout.wt"));
    for (const char* workload : {"gcn", "transformer", "bert"}) {
        auto r = runCli({"capture", "--workload", workload, "--preset", "tiny", "--backend", "cpu", "--sweep",
                         "variant=full,adaptive", "--steps", "2", "--warmup", "1", "-o", m_file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    auto c = runCli({"calibrate", m_file});
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
}

void TestCliHoldOut::everyWorkloadHeldOut()
{
    auto r = runCli({"predict", "--evaluate", m_file, "--hold-out", "workload", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject o = test::jsonObject(r.out);
    QCOMPARE(o.value("hold_out").toString(), QStringLiteral("workload"));
    QCOMPARE(o.value("model").toString(), QStringLiteral("regression"));
    QCOMPARE(o.value("roofline_device").toString(), QStringLiteral("cpu"));
    const QJsonArray groups = o.value("groups").toArray();
    QStringList names;
    for (const auto& g : groups) {
        const QJsonObject go = g.toObject();
        names << go.value("group").toString();
        QCOMPARE(go.value("runs").toInt(), 2);
        for (const char* key : {"step_mape_model", "step_mape_roofline", "step_mape_flops", "layer_mape_model",
                                "layer_mape_roofline", "layer_mape_flops"})
            QVERIFY2(finiteNumber(go.value(QLatin1String(key))), qPrintable(go.value("group").toString() + " " + key));
    }
    QCOMPARE(names, (QStringList{"gcn", "transformer", "bert"}));
    // Today's keys stay: the runs (now with their group) and the two MAPE rows.
    const QJsonArray runs = o.value("runs").toArray();
    QCOMPARE(runs.size(), 6);
    for (const auto& run : runs) {
        const QJsonObject ro = run.toObject();
        QVERIFY(names.contains(ro.value("group").toString()));
        QVERIFY(ro.value("measured_step_ns").toDouble() > 0 && ro.value("model_step_ns").toDouble() > 0);
    }
    const QJsonArray mape = o.value("mape").toArray();
    QCOMPARE(mape.size(), 2);
    for (const auto& row : mape)
        for (const char* key : {"model", "roofline", "flops"})
            QVERIFY(finiteNumber(row.toObject().value(QLatin1String(key))));
    // Beside them, the same against each run alone, with the repeats' spread (none: these runs
    // have no repeats) and the count of runs compared.
    const QJsonArray perRun = o.value("per_run").toArray();
    QCOMPARE(perRun.size(), 2);
    QVERIFY(finiteNumber(perRun[1].toObject().value("model")));
    QVERIFY(perRun[1].toObject().value("repeats").isNull());
    QCOMPARE(perRun[1].toObject().value("compared").toInt(), runs.size());
    const QJsonArray worst = o.value("worst_layers").toArray();
    QVERIFY(!worst.isEmpty() && worst.size() <= 10);
    for (const auto& w : worst) {
        const QJsonObject wo = w.toObject();
        QVERIFY(std::isfinite(wo.value("error_pct").toDouble()) && !wo.value("layer").toString().isEmpty());
    }
    // The text shows the per-group table; the CSV is the per-run table with the group last.
    auto text = runCli({"predict", "--evaluate", m_file, "--hold-out", "workload"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("held-out workload") && text.out.contains("held out by workload: 3 groups"), qPrintable(text.out));
    auto csv = runCli({"predict", "--evaluate", m_file, "--hold-out", "workload", "--csv"});
    QCOMPARE(csv.exitCode, 0);
    const QStringList lines = csv.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 7);
    QVERIFY(lines[0].endsWith(",group,repeats"));
    QVERIFY(lines[1].endsWith(",gcn,1"));
}

void TestCliHoldOut::variantAndPreset()
{
    auto v = runCli({"predict", "--evaluate", m_file, "--hold-out", "variant", "--json"});
    QVERIFY2(v.exitCode == 0, qPrintable(v.err));
    QCOMPARE(test::jsonObject(v.out).value("groups").toArray().size(), 2);
    // The default is leave-one-run-out: one group per run.
    auto r = runCli({"predict", "--evaluate", m_file, "--json"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(test::jsonObject(r.out).value("hold_out").toString(), QStringLiteral("run"));
    QCOMPARE(test::jsonObject(r.out).value("groups").toArray().size(), 6);
    // One preset in the file: nothing to fit on when it is held out.
    auto p = runCli({"predict", "--evaluate", m_file, "--hold-out", "preset"});
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains("at least two groups; every run is tiny"), qPrintable(p.err));
    QCOMPARE(p.err.trimmed().count('\n'), 0);
}

void TestCliHoldOut::refusals()
{
    auto bad = runCli({"predict", "--evaluate", m_file, "--hold-out", "layer"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--hold-out takes run, workload, preset or variant"), qPrintable(bad.err));
    auto model = runCli({"predict", "--evaluate", m_file, "--model", "forest"});
    QCOMPARE(model.exitCode, 2);
    QVERIFY2(model.err.contains("--model with --evaluate takes regression or mlp"), qPrintable(model.err));
    // A file of one workload cannot be held out by workload.
    const QString one = q(test::tempPath("holdout-one.wt"));
    auto c = runCli({"capture", "--workload", "gcn", "--preset", "tiny", "--backend", "cpu", "--sweep",
                     "variant=full,adaptive", "--steps", "1", "--warmup", "0", "-o", one});
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    auto e = runCli({"predict", "--evaluate", one, "--hold-out", "workload"});
    QCOMPARE(e.exitCode, 1);
    QVERIFY2(e.err.contains("every run is gcn"), qPrintable(e.err));
}

void TestCliHoldOut::calibrationScalesPredictions()
{
    auto fit = runCli({"predict", "--fit", m_file, "--name", "tinyfit"});
    QVERIFY2(fit.exitCode == 0, qPrintable(fit.err));
    // A second calibration twice as fast in every rate as the file's `cpu`.
    {
        Database db(m_file.toStdString(), OpenMode::ReadWrite);
        CostModelStore store(db);
        auto cpu = deviceFromJson(store.get("cpu")->body);
        QVERIFY(cpu);
        DeviceSpec fast = *cpu;
        fast.name = "fast";
        fast.fp32Flops *= 2;
        fast.memoryBytesPerS *= 2;
        fast.hostLinkBytesPerS *= 2;
        fast.launchOverheadNs /= 2;
        store.put(StoredCostModel{"fast", "device", "", toJson(fast)});
    }
    auto predict = [&](const char* device) {
        auto p = runCli({"predict", "--workload", "bert", "--preset", "tiny", "--variant", "full", "--device", device,
                         "--model", "tinyfit", "--steps", "1", "-o", m_file});
        return p.exitCode == 0 ? predictedStepMs(p.out) : -1.0;
    };
    const double onCpu = predict("cpu"), onFast = predict("fast");
    QVERIFY2(onCpu > 0 && onFast > 0, qPrintable(QString::number(onCpu) + " " + QString::number(onFast)));
    // Per-op times are rounded to whole ns before they are summed: within 1%.
    QVERIFY2(std::fabs(onFast - onCpu / 2) <= 0.01 * onCpu, qPrintable(QString::number(onCpu) + " " + QString::number(onFast)));
}

QTEST_GUILESS_MAIN(TestCliHoldOut)
#include "tst_cliholdout.moc"
