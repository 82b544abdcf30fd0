// `wheretime capture --sweep`, `wheretime sweep` and `wheretime variants` as a user runs them,
// on tiny CPU captures: a 3-value sweep gives 3 tagged runs and 3 points per layer; the variants
// JSON equals `wheretime compare --json` over the same runs; speedups are ratios of the printed
// numbers; runs differing in two settings are refused naming both; capture's
// softmax_ns_per_step is the softmax layer's forward + backward time.
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <set>

using namespace wt;
using test::runCli;

namespace {

QStringList tinyCapture()
{
    return {"capture", "--workload", "gcn", "--preset", "tiny", "--backend", "cpu", "--steps", "2", "--warmup", "0"};
}

}  // namespace

class TestCliVariants : public QObject {
    Q_OBJECT
private slots:
    void sweepOfThreeCaptures();
    void sweepUsageErrors();
    void variantsEqualCompare();
    void variantsRefusesTwoSettings();
    void softmaxPerStepIsForwardBackward();
};

void TestCliVariants::sweepOfThreeCaptures()
{
    QString file = QString::fromStdString(test::tempPath("sweep.wt"));
    auto r = runCli(tinyCapture() << "--sweep" << "hidden=16,8,32" << "--json" << "-o" << file);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QStringList lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    std::set<QString> ids;
    QStringList values;
    for (const QString& l : lines) {
        QJsonObject o = test::jsonObject(l);
        ids.insert(o["sweep_id"].toString());
        QCOMPARE(o["sweep_key"].toString(), QStringLiteral("hidden"));
        values << o["sweep_value"].toString();
        QCOMPARE(o["status"].toString(), QStringLiteral("complete"));
    }
    QCOMPARE(ids.size(), size_t(1));
    QCOMPARE(values, (QStringList{"16", "8", "32"}));
    {
        Database db(file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        auto runs = reader.runs();
        QCOMPARE(runs.size(), size_t(3));
        // The runs really have the swept sizes, and carry the tags.
        QVERIFY(runs[1].configJson.find("\"hidden\":8,") != std::string::npos);
        bool tagged = false;
        for (const auto& [k, v] : reader.metadata(runs[2].id))
            tagged |= k == "sweep_value" && v == "32";
        QVERIFY(tagged);
    }

    auto s = runCli({"sweep", file, "--json"});
    QVERIFY2(s.exitCode == 0, qPrintable(s.err));
    QJsonObject t = test::jsonObject(s.out);
    QCOMPARE(t["sweep"].toObject()["id"].toString(), *ids.begin());
    QCOMPARE(t["x_key"].toString(), QStringLiteral("hidden"));
    QVERIFY(t["numeric"].toBool());
    QCOMPARE(t["x_values"].toArray().toVariantList(), (QVariantList{"8", "16", "32"}));
    // One row per (series, value): the table's rows, keyed by the CSV header.
    QJsonArray rows = t["rows"].toArray();
    QVERIFY(rows.size() >= 3 * 3);
    QCOMPARE(rows.size() % 3, 0);
    bool sawSoftmax = false;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        QJsonObject po = rows[i].toObject();
        for (const char* f : {"series", "layer", "hidden", "run", "source", "layer_ns", "share", "step_ns", "predicted_ns",
                              "predicted_run", "error_pct"})
            QVERIFY2(po.contains(QLatin1String(f)), f);
        QCOMPARE(po["hidden"].toString(), (QStringList{"8", "16", "32"})[int(i % 3)]);   // x order within a series
        QCOMPARE(po["source"].toString(), QStringLiteral("measured"));
        QVERIFY(po["predicted_ns"].isNull());   // no predicted twin in this file
        if (!po["layer_ns"].isNull())
            QCOMPARE(po["share"].toDouble(), po["layer_ns"].toDouble() / po["step_ns"].toDouble());
        sawSoftmax |= po["layer"].toString() == QLatin1String("softmax");
    }
    QVERIFY(sawSoftmax);

    auto one = runCli({"sweep", file, "--layer", "softmax", "--csv"});
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    QCOMPARE(one.out.trimmed().split('\n').size(), 4);   // header + 3 points
    QCOMPARE(one.out.section('\n', 0, 0),
             QStringLiteral("series,layer,hidden,run,repeats,source,layer_ns,pm_ns,n,stddev_ns,ci_low_ns,ci_high_ns,share,step_ns,predicted_ns,predicted_run,error_pct,predicted_inside"));
    auto list = runCli({"sweep", file, "--list"});
    QVERIFY(list.exitCode == 0);
    QVERIFY(list.out.contains(*ids.begin()));
    auto text = runCli({"sweep", file});
    QVERIFY(text.exitCode == 0);
    QVERIFY(text.out.contains(QStringLiteral("softmax")));

    // A second sweep gets another id; --sweep picks one.
    auto r2 = runCli(tinyCapture() << "--sweep" << "variant=full,fused" << "-o" << file);
    QVERIFY2(r2.exitCode == 0, qPrintable(r2.err));
    auto l2 = runCli({"sweep", file, "--list", "--json"});
    QCOMPARE(QJsonDocument::fromJson(l2.out.toUtf8()).array().size(), 2);
    auto old = runCli({"sweep", file, "--sweep", *ids.begin(), "--json"});
    QCOMPARE(test::jsonObject(old.out)["x_key"].toString(), QStringLiteral("hidden"));
    auto bad = runCli({"sweep", file, "--sweep", "nope"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.err.contains(*ids.begin()));   // the message lists the file's sweeps
}

void TestCliVariants::sweepUsageErrors()
{
    QString file = QString::fromStdString(test::tempPath("bad-sweep.wt"));
    auto r = runCli(tinyCapture() << "--sweep" << "hidden=8,zero" << "-o" << file);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!QFile::exists(file));   // checked before the first capture: nothing written
    r = runCli(tinyCapture() << "--sweep" << "nosuchkey=1,2" << "-o" << file);
    QCOMPARE(r.exitCode, 2);
    r = runCli(tinyCapture() << "--sweep" << "hidden=8" << "--set" << "hidden=16" << "-o" << file);
    QCOMPARE(r.exitCode, 2);
    r = runCli(tinyCapture() << "--sweep" << "hidden=8" << "--sweep" << "hidden=16" << "-o" << file);
    QCOMPARE(r.exitCode, 2);
    r = runCli(tinyCapture() << "--sweep" << "a=1" << "--sweep" << "b=1" << "--sweep" << "c=1" << "-o" << file);
    QCOMPARE(r.exitCode, 2);
    r = runCli(tinyCapture() << "--sweep" << "hidden" << "-o" << file);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!QFile::exists(file));
    auto s = runCli({"sweep", QString::fromStdString(test::tempPath("missing.wt"))});
    QCOMPARE(s.exitCode, 1);
}

void TestCliVariants::variantsEqualCompare()
{
    QString file = QString::fromStdString(test::tempPath("variants.wt"));
    auto r = runCli(tinyCapture() << "--sweep" << "variant=full,adaptive,fused" << "-o" << file);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto v = runCli({"variants", file, "--json"});
    QVERIFY2(v.exitCode == 0, qPrintable(v.err));
    QJsonObject t = test::jsonObject(v.out);
    QCOMPARE(t["setting"].toString(), QStringLiteral("variant"));
    QCOMPARE(t["layer"].toString(), QStringLiteral("softmax"));
    QCOMPARE(t["baseline_value"].toString(), QStringLiteral("adaptive"));
    QJsonArray runs = t["runs"].toArray();
    QCOMPARE(runs.size(), 3);
    for (const auto& x : runs) {
        QJsonObject o = x.toObject();
        for (const char* f : {"variant", "baseline", "run", "name", "file", "steps", "forward_ns", "backward_ns", "update_ns",
                              "layer_ns", "share", "step_ns", "step_wall_ns", "speedup", "forward_speedup", "backward_speedup",
                              "step_speedup"})
            QVERIFY2(o.contains(QLatin1String(f)), f);
    }

    // compare over the same runs, in the same order.
    QStringList sel{"compare"};
    for (const auto& x : runs)
        sel << file + ":" + QString::number(x.toObject()["run"].toInt());
    auto c = runCli(QStringList(sel) << "--json");
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    QJsonObject cmp = test::jsonObject(c.out);
    QCOMPARE(cmp["per"].toString(), QStringLiteral("step"));
    // compare's rows are keyed by column id: ns_1 (BASE) .. ns_3 (docs/compare.md).
    auto perRun = [](const QJsonObject& row) {
        QJsonArray ns;
        for (int i = 1; row.contains(QStringLiteral("ns_%1").arg(i)); ++i)
            ns.append(row[QStringLiteral("ns_%1").arg(i)]);
        return ns;
    };
    QJsonArray softmaxNs;
    for (const auto& g : cmp["groups"].toArray())
        if (g.toObject()["path"].toString() == QLatin1String("softmax"))
            softmaxNs = perRun(g.toObject());
    QCOMPARE(softmaxNs.size(), 3);
    QJsonArray totals = perRun(cmp["total"].toObject());
    auto cf = runCli(QStringList(sel) << "--within" << "phase=forward" << "--json");
    QJsonArray fwdNs;
    for (const auto& g : test::jsonObject(cf.out)["groups"].toArray())
        if (g.toObject()["path"].toString() == QLatin1String("softmax"))
            fwdNs = perRun(g.toObject());
    QCOMPARE(fwdNs.size(), 3);
    int b = t["baseline"].toInt();
    double baseNs = runs[b].toObject()["layer_ns"].toDouble();
    for (int i = 0; i < 3; ++i) {
        QJsonObject o = runs[i].toObject();
        QCOMPARE(o["layer_ns"].toDouble(), softmaxNs[i].toDouble());
        QCOMPARE(o["step_ns"].toDouble(), totals[i].toDouble());
        QCOMPARE(o["forward_ns"].toDouble(), fwdNs[i].toDouble());
        QCOMPARE(o["share"].toDouble(), softmaxNs[i].toDouble() / totals[i].toDouble());
        QCOMPARE(o["speedup"].toDouble(), baseNs / o["layer_ns"].toDouble());
        // The op table: one column per run, named by its value; the ops add up to the layer.
        double ops = 0;
        for (const auto& op : t["ops"].toArray())
            ops += op.toObject()[o["variant"].toString() + QStringLiteral("_ns")].toDouble();   // null (absent) reads 0
        QVERIFY(std::abs(ops - o["layer_ns"].toDouble()) <= 1e-6 * ops);
    }
    // The same runs given as FILE:RUN, and another baseline.
    QStringList given{"variants"};
    given << sel.mid(1) << "--baseline" << "full" << "--json";
    auto g = runCli(given);
    QVERIFY2(g.exitCode == 0, qPrintable(g.err));
    QJsonObject gt = test::jsonObject(g.out);
    QCOMPARE(gt["baseline_value"].toString(), QStringLiteral("full"));
    QCOMPARE(gt["runs"].toArray()[0].toObject()["speedup"].toDouble(), 1.0);
    QCOMPARE(gt["runs"].toArray()[0].toObject()["baseline"].toString(), QStringLiteral("yes"));
    auto text = runCli({"variants", file});
    QVERIFY(text.exitCode == 0);
    QVERIFY(text.out.contains(QStringLiteral("differ in variant")));
    QVERIFY(text.out.contains(QStringLiteral("fused")));
}

void TestCliVariants::variantsRefusesTwoSettings()
{
    QString file = QString::fromStdString(test::tempPath("two.wt"));
    QVERIFY(runCli(tinyCapture() << "--variant" << "adaptive" << "-o" << file).exitCode == 0);
    QVERIFY(runCli(tinyCapture() << "--variant" << "fused" << "--set" << "hidden=32" << "-o" << file).exitCode == 0);
    auto r = runCli({"variants", file + ":1", file + ":2"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("hidden (16, 32)")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("variant (adaptive, fused)")), qPrintable(r.err));
    QCOMPARE(r.err.count('\n'), 1);   // one line
    // FILE alone: the newest run (fused, hidden 32) has no other variant with its settings.
    auto alone = runCli({"variants", file});
    QCOMPARE(alone.exitCode, 1);
    QVERIFY(alone.err.contains(QStringLiteral("only run 2")));
    // One run named, or one run twice: nothing to set beside it, said in one line (was: exit 0, empty).
    for (const QStringList& sel : {QStringList{file + ":1"}, QStringList{file + ":1", file + ":1"}}) {
        auto one = runCli(QStringList{"variants"} + sel);
        QCOMPARE(one.exitCode, 1);
        QCOMPARE(one.err.count('\n'), 1);
        QVERIFY2(one.err.startsWith(QStringLiteral("wheretime: error: variants: %1:1").arg(file)), qPrintable(one.err));
        QVERIFY2(one.err.contains(QStringLiteral("is one run (run 1 of %1)").arg(file)), qPrintable(one.err));
        QVERIFY(one.out.isEmpty());
    }
}

void TestCliVariants::softmaxPerStepIsForwardBackward()
{
    QString file = QString::fromStdString(test::tempPath("phases.wt"));
    auto r = runCli(tinyCapture() << "--json" << "-o" << file);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonObject cap = test::jsonObject(r.out);
    auto s = runCli({"stats", file, "--group-by", "phase", "--within", "layer=softmax", "--json"});
    QVERIFY2(s.exitCode == 0, qPrintable(s.err));
    qint64 fwd = 0, bwd = 0, upd = 0;
    for (const auto& g : test::jsonObject(s.out)["groups"].toArray()) {
        QJsonObject o = g.toObject();
        if (o["name"].toString() == QLatin1String("forward"))
            fwd = o["time_ns"].toInteger();
        else if (o["name"].toString() == QLatin1String("backward"))
            bwd = o["time_ns"].toInteger();
        else if (o["name"].toString() == QLatin1String("update"))
            upd = o["time_ns"].toInteger();
    }
    QVERIFY(fwd > 0 && bwd > 0 && upd > 0);
    QCOMPARE(cap["softmax_ns_per_step"].toInteger(), (fwd + bwd) / 2);
    QCOMPARE(cap["softmax_layer_ns_per_step"].toInteger(), (fwd + bwd + upd) / 2);
}

QTEST_GUILESS_MAIN(TestCliVariants)
#include "tst_clivariants.moc"
