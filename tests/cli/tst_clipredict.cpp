// `wheretime calibrate` and `wheretime predict` as a user runs them, on real tiny CPU captures:
// stats --json gains FLOPs and bytes; --evaluate on a sweep of captures reports finite errors
// (json fields named *mape*); --fit stores a named predictor that --model reuses, fitted on
// several FILE[:RUN] after one --fit as documented; predicted runs
// (roofline of a table device, sweeps with their tags) open in stats and compare; bad input.
#include "analysis/predictor.h"
#include "analysis/sweep.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace wt;
using test::runCli;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

class TestCliPredict : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void statsHasFeatures();
    void calibrateStoresDevice();
    void evaluateSweep();
    void fitAndPredictWithModel();
    void fitTakesSeveralRuns();
    void predictTableDeviceSweep();
    void badInput();
    void predictGrid();

private:
    QString m_file;
};

void TestCliPredict::initTestCase()
{
    m_file = q(test::tempPath("predict.wt"));
    // A sweep of tiny CPU captures over the hidden size, two variants.
    for (const char* variant : {"full", "adaptive"})
        for (const char* hidden : {"16", "24", "32"}) {
            auto r = runCli({"capture", "--workload", "gcn", "--preset", "tiny", "--backend", "cpu", "--variant", variant,
                             "--set", QStringLiteral("hidden=%1").arg(hidden), "--steps", "2", "--warmup", "1", "-o", m_file});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        }
}

void TestCliPredict::statsHasFeatures()
{
    auto r = runCli({"stats", m_file + ":1", "--group-by", "layer", "--json"});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = test::jsonObject(r.out);
    QJsonArray groups = o.value("groups").toArray();
    QVERIFY(!groups.isEmpty());
    double flops = 0;
    for (const auto& g : groups) {
        QJsonObject go = g.toObject();
        QVERIFY(go.contains("flops") && go.contains("bytes") && go.contains("flop_per_s") && go.contains("bytes_per_s"));
        if (go.value("name").toString() == "softmax") {
            QVERIFY(go.value("flops").toDouble() > 0);
            QVERIFY(go.value("bytes").toDouble() > 0);
            const double rate = go.value("flops").toDouble() / (go.value("time_ns").toDouble() * 1e-9);
            QVERIFY(std::abs(go.value("flop_per_s").toDouble() - rate) <= 1e-6 * rate);
        }
        flops += go.value("flops").toDouble();
    }
    QVERIFY(flops > 0);
    // The table shows the achieved rates per group: softmax's line carries FLOP/s and B/s.
    auto text = runCli({"stats", m_file + ":1", "--group-by", "layer"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("FLOP/s") && text.out.contains("B/s"));
    bool softmaxLine = false;
    for (const QString& line : text.out.split('\n'))
        if (line.startsWith("softmax ")) {
            softmaxLine = true;
            QVERIFY2(line.contains("FLOP/s") && line.contains("B/s"), qPrintable(line));
        }
    QVERIFY(softmaxLine);
    // CSV: the same FLOPs per group as the JSON, before bytes and the two rates.
    auto csv = runCli({"stats", m_file + ":1", "--group-by", "layer", "--csv"});
    QCOMPARE(csv.exitCode, 0);
    double csvFlops = 0;
    const QStringList lines = csv.out.trimmed().split('\n');
    QVERIFY(lines.at(0).endsWith(",flops,bytes,flop_per_s,bytes_per_s"));
    for (int i = 1; i < lines.size(); ++i)
        csvFlops += lines[i].split(',').at(lines[i].split(',').size() - 4).toDouble();
    QVERIFY(std::abs(csvFlops - flops) <= 1e-9 * flops);
}

void TestCliPredict::calibrateStoresDevice()
{
    auto r = runCli({"calibrate", m_file});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("GFLOP/s"));
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    auto m = CostModelStore(db).get("cpu");
    QVERIFY(m);
    QCOMPARE(q(m->kind), QStringLiteral("device"));
    QVERIFY(m->body.find("\"fp32_flops\":") != std::string::npos);
}

void TestCliPredict::evaluateSweep()
{
    auto r = runCli({"predict", "--evaluate", m_file, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonObject o = test::jsonObject(r.out);
    QCOMPARE(o.value("runs").toArray().size(), 6);
    // The MAPE table: per layer and whole step, for the predictor, the roofline (calibrated by
    // the test above) and FLOPs alone.
    const QJsonArray mape = o.value("mape").toArray();
    QCOMPARE(mape.size(), 2);
    QCOMPARE(mape[0].toObject().value("error_of").toString(), QStringLiteral("per layer"));
    QCOMPARE(mape[1].toObject().value("error_of").toString(), QStringLiteral("whole step"));
    int mapeFields = 0;
    for (const auto& row : mape)
        for (const char* key : {"model", "roofline", "flops"}) {
            const QJsonValue v = row.toObject().value(QLatin1String(key));
            QVERIFY2(v.isDouble() && std::isfinite(v.toDouble()) && v.toDouble() >= 0, key);
            ++mapeFields;
        }
    QCOMPARE(mapeFields, 6);
    // The whole step's MAPE is the mean of the runs' step errors (computed here from the rows).
    double stepApe = 0;
    for (const auto& run : o.value("runs").toArray()) {
        const QJsonObject ro = run.toObject();
        stepApe += 100.0 * std::abs(ro.value("model_step_ns").toDouble() - ro.value("measured_step_ns").toDouble()) /
                   ro.value("measured_step_ns").toDouble();
    }
    stepApe /= o.value("runs").toArray().size();
    QVERIFY2(std::abs(stepApe - mape[1].toObject().value("model").toDouble()) <= 1e-9 * std::max(1.0, stepApe),
             qPrintable(QString::number(stepApe)));
    for (const auto& run : o.value("runs").toArray())
        QVERIFY(run.toObject().value("measured_step_ns").toDouble() > 0);
    auto text = runCli({"predict", "--evaluate", m_file});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("whole step"));
    // --csv: the per-run table, the same numbers as the JSON rows.
    auto csv = runCli({"predict", "--evaluate", m_file, "--csv"});
    QCOMPARE(csv.exitCode, 0);
    const QStringList lines = csv.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + 6);
    QCOMPARE(lines[0], QStringLiteral("run,name,measured_step_ns,model_step_ns,roofline_step_ns,flops_step_ns,layers,"
                                      "layer_mape_model,layer_mape_roofline,layer_mape_flops,group,repeats"));
    QCOMPARE(runCli({"predict", "--evaluate", m_file, "--csv", "--json"}).exitCode, 2);
}

void TestCliPredict::fitAndPredictWithModel()
{
    auto fit = runCli({"predict", "--fit", m_file, "--name", "tinyfit"});
    QVERIFY2(fit.exitCode == 0, qPrintable(fit.err));
    QVERIFY(fit.out.contains("sgemm"));
    auto p = runCli({"predict", "--workload", "gcn", "--preset", "tiny", "--variant", "full", "--device", "cpu", "--model",
                     "tinyfit", "--steps", "2", "-o", m_file});
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    RunInfo predicted = reader.runs().back();
    QCOMPARE(q(predicted.backend), QStringLiteral("model"));
    QVERIFY(predicted.kernels > 0);
    bool labelled = false;
    for (const auto& [k, v] : reader.metadata(predicted.id))
        labelled = labelled || (k == "predicted" && v == "true");
    QVERIFY(labelled);
    // The same ops as a capture: as many launches per step as the measured run of that config.
    const int64_t measuredLaunches = reader.countLaunches(1);   // full, hidden 16, 2 steps
    QCOMPARE(reader.countLaunches(predicted.id), measuredLaunches);
    QCOMPARE(predicted.kernels, measuredLaunches);
    // Opens in stats and compares against its measured twin by structure.
    auto s = runCli({"stats", m_file + ":" + QString::number(predicted.id), "--json"});
    QCOMPARE(s.exitCode, 0);
    auto c = runCli({"compare", m_file + ":1", m_file + ":" + QString::number(predicted.id), "--json"});
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    // --evaluate skips predicted runs.
    auto e = runCli({"predict", "--evaluate", m_file, "--json"});
    QCOMPARE(test::jsonObject(e.out).value("runs").toArray().size(), 6);
}

void TestCliPredict::fitTakesSeveralRuns()
{
    // `--fit FILE[:RUN]...` (the help, docs/prediction.md): once failed with "unexpected argument".
    const QString out = q(test::tempPath("fit-runs.wt"));
    auto two = runCli({"predict", "--fit", m_file + ":1", m_file + ":2", "--name", "two", "-o", out});
    QVERIFY2(two.exitCode == 0, qPrintable(two.err));
    QVERIFY2(two.out.startsWith("fitted two on 2 runs"), qPrintable(two.out));
    auto one = runCli({"predict", "--fit", m_file + ":1", "--name", "one", "-o", out});
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    QVERIFY2(one.out.startsWith("fitted one on 1 runs"), qPrintable(one.out));
    auto repeated = runCli({"predict", "--fit", m_file + ":1", "--fit", m_file + ":2", "--name", "repeated", "-o", out});
    QVERIFY2(repeated.exitCode == 0, qPrintable(repeated.err));
    int64_t launches1 = 0, launches2 = 0;
    {
        Database db(m_file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        launches1 = reader.countLaunches(1);
        launches2 = reader.countLaunches(2);
    }
    QVERIFY(launches1 > 0 && launches2 > 0);
    Database db(out.toStdString(), OpenMode::ReadOnly);
    CostModelStore store(db);
    auto load = [&](const char* name) {
        auto stored = store.get(name);
        return stored ? Predictor::fromJson(stored->body) : std::nullopt;
    };
    auto pTwo = load("two"), pOne = load("one"), pRepeated = load("repeated");
    QVERIFY(pTwo && pOne && pRepeated);
    // The global class holds every measured launch it was fitted on: both runs' for two.
    QCOMPARE(pOne->classes.at("*").samples, launches1);
    QCOMPARE(pTwo->classes.at("*").samples, launches1 + launches2);
    QVERIFY(pTwo->classes.at("*").overheadNs != pOne->classes.at("*").overheadNs ||
            pTwo->classes.at("*").nsPerByte != pOne->classes.at("*").nsPerByte);
    // --fit repeated is the same fit.
    QCOMPARE(pRepeated->classes.size(), pTwo->classes.size());
    for (const auto& [key, c] : pTwo->classes) {
        QCOMPARE(pRepeated->classes.at(key).samples, c.samples);
        QCOMPARE(pRepeated->classes.at(key).overheadNs, c.overheadNs);
    }
    // Outside --fit an argument is still refused.
    auto stray = runCli({"predict", "--workload", "gcn", "--device", "h200", m_file, "-o", out});
    QCOMPARE(stray.exitCode, 2);
    QVERIFY2(stray.err.startsWith("wheretime predict: unexpected argument '" + m_file + "'"), qPrintable(stray.err));
}

void TestCliPredict::predictTableDeviceSweep()
{
    const QString out = q(test::tempPath("predicted.wt"));
    auto r = runCli({"predict", "--workload", "gcn", "--preset", "tiny", "--variant", "adaptive", "--device", "h200",
                     "--sweep", "hidden=16,32,64", "-o", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Database db(out.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    auto runs = reader.runs();
    QCOMPARE(runs.size(), size_t(3));
    QStringList values;
    QString sweepId;
    for (const RunInfo& run : runs) {
        QCOMPARE(q(run.backend), QStringLiteral("model"));
        QVERIFY(run.device.find("H200") != std::string::npos);
        for (const auto& [k, v] : reader.metadata(run.id)) {
            if (k == "sweep_value")
                values << q(v);
            if (k == "sweep_key")
                QCOMPARE(q(v), QStringLiteral("hidden"));
            if (k == "sweep_id") {
                QVERIFY(sweepId.isEmpty() || sweepId == q(v));
                sweepId = q(v);
            }
        }
    }
    QCOMPARE(values, (QStringList{"16", "32", "64"}));
    // Larger hidden, more work: the predicted step grows.
    QVERIFY(runs[2].kernelTimeNs > runs[0].kernelTimeNs);
    // Every launch costs at least the H200's launch overhead.
    QVERIFY(runs[0].kernelTimeNs >= runs[0].kernels * 4000);
}

void TestCliPredict::badInput()
{
    const QString out = q(test::tempPath("bad.wt"));
    QCOMPARE(runCli({"predict", "--workload", "gcn", "--device", "tpu9", "-o", out}).exitCode, 1);
    QCOMPARE(runCli({"predict", "--workload", "gcn", "--device", "h100", "--sweep", "hidden", "-o", out}).exitCode, 2);
    QCOMPARE(runCli({"predict", "--workload", "nope", "--device", "h100", "-o", out}).exitCode, 2);
    QCOMPARE(runCli({"predict", "--workload", "gcn", "--device", "h100"}).exitCode, 2);
    QCOMPARE(runCli({"predict", "--workload", "gcn", "--device", "h100", "--model", "none", "-o", out}).exitCode, 1);
    QCOMPARE(runCli({"predict", "--evaluate", q(test::tempPath("missing.wt"))}).exitCode, 1);
    QCOMPARE(runCli({"predict", "--fit", m_file}).exitCode, 2);   // no --name
    QCOMPARE(runCli({"calibrate"}).exitCode, 2);
    QCOMPARE(runCli({"predict", "--workload", "gcn", "--device", "h100", "--sweep", "hidden=8,16", "--sweep", "hidden=4",
                     "-o", out}).exitCode, 2);   // one key twice
    QCOMPARE(runCli({"predict", "--workload", "gcn", "--device", "h100", "--sweep", "hidden=8", "--sweep", "variant=full",
                     "--sweep", "batch=2", "-o", out}).exitCode, 2);   // three keys
}

void TestCliPredict::predictGrid()
{
    // Two --sweep: one predicted run per pair, tagged like a capture grid.
    const QString out = q(test::tempPath("grid.wt"));
    auto r = runCli({"predict", "--workload", "gcn", "--preset", "tiny", "--device", "h100", "--sweep", "hidden=16,32",
                     "--sweep", "variant=full,adaptive,fused", "-o", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Database db(out.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    const std::vector<SweepInfo> sweeps = listSweeps(reader);
    QCOMPARE(sweeps.size(), size_t(1));
    QCOMPARE(sweeps[0].key, std::string("hidden"));
    QCOMPARE(sweeps[0].key2, std::string("variant"));
    QCOMPARE(sweeps[0].runIds.size(), size_t(6));
    QCOMPARE(sweeps[0].values2, (std::vector<std::string>{"full", "adaptive", "fused"}));
    QVERIFY(sweeps[0].predicted());
    for (int64_t id : sweeps[0].runIds) {
        const RunInfo run = reader.run(id);
        const auto tag = sweepTagOf(reader.metadata(id));
        QVERIFY(tag);
        QCOMPARE(run.variant, tag->value2);   // the variant swept is the run's variant
        QVERIFY(run.configJson.find("\"hidden\":" + tag->value) != std::string::npos);
    }
    // Its table: one line per variant on the softmax layer, times from the roofline (all > 0).
    SweepTable t = loadSweep(reader, sweeps[0].id, SweepOptions{"softmax"});
    QCOMPARE(t.xKey, std::string("hidden"));
    QCOMPARE(t.series.size(), size_t(3));
    for (const SweepSeries& s : t.series)
        for (const SweepPoint& p : s.points)
            QVERIFY(p.present && p.ns > 0);
}

QTEST_GUILESS_MAIN(TestCliPredict)
#include "tst_clipredict.moc"
