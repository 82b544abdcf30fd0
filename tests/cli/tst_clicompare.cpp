// `wheretime compare` as a user runs it: its JSON numbers equal analysis/compare's (groups,
// totals, kernel diff), two files and two runs of one file, N runs, CSV and table, usage errors
// and bad input, and two real CPU captures of different softmax variants compared by structure.
#include "analysis/compare.h"
#include "analysis/comparetable.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <set>

using namespace wt;
using test::runCli;

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// A per-run key of the JSON groups (the CSV's column ids): col("ns", 0) = "ns_1" (BASE).
QString col(const char* stem, size_t run)
{
    return q(compareColumn(stem, run));
}

}  // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void usageErrorsAndBadInput();
    void jsonEqualsAnalysis_data();
    void jsonEqualsAnalysis();
    void twoFilesAndSelf();
    void nRuns();
    void csvAndTable();
    void kernelsJsonEqualsAnalysis();
    void runsWithoutSteps();
    void cpuCapturesOfSoftmaxVariants();

private:
    // Checks that `compare --json` printed exactly the comparison the analysis computes.
    void checkJson(const QJsonObject& o, const Comparison& c);
    QString m_file;      // runs "s1", "s2" (12 steps each) and "s3" (5,000 kernels)
    QString m_copy;      // a second file holding s1 again
};

void TestCliCompare::initTestCase()
{
    m_file = q(test::tempPath("compare.wt"));
    m_copy = q(test::tempPath("compare-copy.wt"));
    for (const QString& f : {m_file, m_copy}) {
        Database db(f.toStdString(), OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        o.kernels = 272 * 12;
        o.seed = 5;
        o.name = "s1";
        synth::generate(w, o);
        if (f == m_copy)
            continue;
        o.seed = 6;
        o.name = "s2";
        synth::generate(w, o);
        o.kernels = 5000;
        o.seed = 7;
        o.layers = 4;
        o.name = "s3";
        synth::generate(w, o);
    }
}

void TestCliCompare::usageErrorsAndBadInput()
{
    const QString a = m_file + QStringLiteral(":s1"), b = m_file + QStringLiteral(":s2");
    auto code = [](const QStringList& args) { return runCli(QStringList{QStringLiteral("compare")} + args).exitCode; };
    QCOMPARE(code({}), 2);
    QCOMPARE(code({a}), 2);   // one run only
    QCOMPARE(code({a, b, QStringLiteral("--per"), QStringLiteral("day")}), 2);
    QCOMPARE(code({a, b, QStringLiteral("--group-by"), QStringLiteral("colour")}), 2);
    QCOMPARE(code({a, b, QStringLiteral("--json"), QStringLiteral("--csv")}), 2);
    QCOMPARE(code({a, b, QStringLiteral("--depth"), QStringLiteral("0")}), 2);
    QCOMPARE(code({a, b, QStringLiteral("--within"), QStringLiteral("softmax")}), 2);
    QCOMPARE(code({a, b, a, QStringLiteral("--kernels"), QStringLiteral("softmax")}), 2);
    QCOMPARE(code({a, b, QStringLiteral("--kernels"), QStringLiteral("softmax"), QStringLiteral("--group-by"), QStringLiteral("op")}), 2);
    auto help = runCli({QStringLiteral("compare"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(QStringLiteral("--per")));
    QVERIFY(runCli({QStringLiteral("--help")}).out.contains(QStringLiteral("compare")));
    // Bad input: one line on stderr, exit 1.
    for (const QStringList& args : {QStringList{a, QStringLiteral("/nonexistent/x.wt")}, QStringList{a, m_file + QStringLiteral(":nosuchrun")},
                                    QStringList{a, m_file + QStringLiteral(":999")}}) {
        auto r = runCli(QStringList{QStringLiteral("compare")} + args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(r.err.startsWith(QStringLiteral("wheretime: error: ")));
    }
    // A layer that is in neither run (a typo): said so, not an empty table.
    auto typo = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--kernels"), QStringLiteral("sofmax")});
    QCOMPARE(typo.exitCode, 1);
    QVERIFY(typo.err.contains(QStringLiteral("layer=sofmax")));
    QCOMPARE(runCli({QStringLiteral("compare"), a, b, QStringLiteral("--within"), QStringLiteral("layer=sofmax")}).exitCode, 1);
    std::string notDb = test::tempPath("not-a-db.wt");
    {
        FILE* f = std::fopen(notDb.c_str(), "w");
        std::fputs("hello", f);
        std::fclose(f);
    }
    auto r = runCli({QStringLiteral("compare"), a, q(notDb)});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
}

void TestCliCompare::checkJson(const QJsonObject& o, const Comparison& c)
{
    QCOMPARE(o.value(QStringLiteral("per")).toString(), q(std::string(toString(c.per))));
    QCOMPARE(o.value(QStringLiteral("group_by")).toString(), q(std::string(toString(c.groupBy))));
    QJsonArray runs = o.value(QStringLiteral("runs")).toArray();
    QCOMPARE(runs.size(), qsizetype(c.runs.size()));
    for (qsizetype i = 0; i < runs.size(); ++i) {
        QJsonObject r = runs[i].toObject();
        const CompareRunSummary& s = c.runs[size_t(i)];
        QCOMPARE(r.value(QStringLiteral("id")).toInteger(), s.info.id);
        QCOMPARE(r.value(QStringLiteral("name")).toString(), q(s.info.name));
        QCOMPARE(r.value(QStringLiteral("steps")).toInteger(), s.steps);
        QCOMPARE(r.value(QStringLiteral("file")).toString(), q(s.file));
        for (const char* key : {"workload", "variant", "backend", "device"})
            QVERIFY(r.contains(QLatin1String(key)));
        QCOMPARE(o.value(QStringLiteral("total")).toObject().value(col("ns", i)).toDouble(), s.total.ns);
    }
    QCOMPARE(o.value(QStringLiteral("total")).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("(total)"));
    QJsonArray groups = o.value(QStringLiteral("groups")).toArray();
    QCOMPARE(groups.size(), qsizetype(c.groups.size()));
    std::vector<double> sums(c.runs.size(), 0.0);
    for (qsizetype gi = 0; gi < groups.size(); ++gi) {
        QJsonObject g = groups[gi].toObject();
        const CompareGroup& cg = c.groups[size_t(gi)];   // same order
        QCOMPARE(g.value(QStringLiteral("path")).toString(), q(cg.path));
        QCOMPARE(g.value(QStringLiteral("name")).toString(), q(cg.name));
        QCOMPARE(g.value(QStringLiteral("note")).toString(), q(onlyInLabel(cg)));
        for (size_t i = 0; i < c.runs.size(); ++i) {
            const CompareCell& cell = cg.cells[i];
            const QJsonValue ns = g.value(col("ns", i));
            QCOMPARE(ns.isNull(), !cell.present);
            if (cell.present)
                QCOMPARE(ns.toDouble(), cell.ns);
            sums[i] += ns.toDouble();
            if (i == 0) {
                QVERIFY(!g.contains(col("delta_ns", 0)));   // against BASE: OTHERs only
                continue;
            }
            QCOMPARE(g.value(col("delta_ns", i)).toDouble(), cg.deltaNs[i]);
            const QJsonValue ratio = g.value(col("ratio", i)), pct = g.value(col("delta_pct", i));
            QCOMPARE(ratio.isNull(), !cg.ratio[i].has_value());
            if (cg.ratio[i])
                QCOMPARE(ratio.toDouble(), *cg.ratio[i]);
            // The change in % is analysis's: 100 * delta / BASE, unset where BASE has none.
            QCOMPARE(pct.isNull(), !cg.deltaPct[i].has_value());
            if (cg.deltaPct[i]) {
                QCOMPARE(pct.toDouble(), *cg.deltaPct[i]);
                QVERIFY(std::abs(pct.toDouble() - 100.0 * cg.deltaNs[i] / cg.cells[0].ns) < 1e-9 * std::max(1.0, std::abs(pct.toDouble())));
            }
        }
    }
    // Sums over the groups equal the runs' totals at that grouping.
    for (size_t i = 0; i < sums.size(); ++i)
        QVERIFY(std::abs(sums[i] - c.runs[i].total.ns) <= 1e-6 * std::max(1.0, c.runs[i].total.ns));
}

void TestCliCompare::jsonEqualsAnalysis_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::newRow("default") << QStringList{};
    QTest::newRow("per-run") << QStringList{QStringLiteral("--per"), QStringLiteral("run")};
    QTest::newRow("scope-depth-4") << QStringList{QStringLiteral("--group-by"), QStringLiteral("scope"), QStringLiteral("--depth"),
                                                  QStringLiteral("4")};
    QTest::newRow("op-within-softmax") << QStringList{QStringLiteral("--group-by"), QStringLiteral("op"), QStringLiteral("--within"),
                                                      QStringLiteral("layer=softmax")};
    QTest::newRow("kernel") << QStringList{QStringLiteral("--group-by"), QStringLiteral("kernel")};
    QTest::newRow("kind") << QStringList{QStringLiteral("--group-by"), QStringLiteral("kind")};
}

void TestCliCompare::jsonEqualsAnalysis()
{
    QFETCH(QStringList, options);
    auto r = runCli(QStringList{QStringLiteral("compare"), m_file + QStringLiteral(":s1"), m_file + QStringLiteral(":s3"),
                                QStringLiteral("--json")} +
                    options);
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = test::jsonObject(r.out);
    // The same comparison straight from the analysis.
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    CompareRun a = loadCompareRun(reader, reader.resolveRun("s1"), m_file.toStdString());
    CompareRun b = loadCompareRun(reader, reader.resolveRun("s3"), m_file.toStdString());
    CompareOptions co;
    for (qsizetype i = 0; i + 1 < options.size(); i += 2) {
        std::string v = options[i + 1].toStdString();
        if (options[i] == QStringLiteral("--per"))
            co.per = comparePerFromString(v);
        else if (options[i] == QStringLiteral("--group-by"))
            co.groupBy = groupByFromString(v);
        else if (options[i] == QStringLiteral("--depth"))
            co.depth = std::stoi(v);
        else if (options[i] == QStringLiteral("--within"))
            co.filters.emplace_back(*groupByFromString(v.substr(0, v.find('='))), v.substr(v.find('=') + 1));
    }
    Comparison c = compareRuns({&a, &b}, co);
    QVERIFY(!c.groups.empty());
    checkJson(o, c);
    // s3 has 4 decoder layers, s1 twelve: the other eight are in BASE only.
    if (options.isEmpty()) {
        int baseOnly = 0;
        for (const QJsonValue& g : o.value(QStringLiteral("groups")).toArray())
            baseOnly += g.toObject().value(QStringLiteral("ns_2")).isNull() ? 1 : 0;
        QCOMPARE(baseOnly, 8);
        QCOMPARE(o.value(QStringLiteral("per")).toString(), QStringLiteral("step"));
    }
}

void TestCliCompare::twoFilesAndSelf()
{
    // The same run in two files: zero delta everywhere, each run described with its file.
    auto r = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":s1"), m_copy, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = test::jsonObject(r.out);
    QJsonArray runs = o.value(QStringLiteral("runs")).toArray();
    QCOMPARE(runs[0].toObject().value(QStringLiteral("file")).toString(), m_file);
    QCOMPARE(runs[1].toObject().value(QStringLiteral("file")).toString(), m_copy);
    QCOMPARE(runs[1].toObject().value(QStringLiteral("steps")).toInteger(), qint64(12));
    QJsonArray groups = o.value(QStringLiteral("groups")).toArray();
    QCOMPARE(groups.size(), qsizetype(14));   // embedding, 12 decoder layers, softmax
    for (const QJsonValue& v : groups) {
        QJsonObject g = v.toObject();
        QCOMPARE(g.value(QStringLiteral("delta_ns_2")).toDouble(), 0.0);
        QCOMPARE(g.value(QStringLiteral("delta_pct_2")).toDouble(), 0.0);
        QCOMPARE(g.value(QStringLiteral("ratio_2")).toDouble(), 1.0);
        QVERIFY(g.value(QStringLiteral("ns_1")).toDouble() > 0);
    }
    // The same run of the same file as BASE and OTHER: refused in one line saying so (was: exit 0, empty).
    auto self = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":s1"), m_file + QStringLiteral(":s1")});
    QCOMPARE(self.exitCode, 1);
    QCOMPARE(self.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(self.err.contains(QStringLiteral("is the same run as BASE %1:s1").arg(m_file)), qPrintable(self.err));
    QVERIFY(self.out.isEmpty());
}

void TestCliCompare::nRuns()
{
    auto r = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":s1"), m_file + QStringLiteral(":s2"),
                     m_file + QStringLiteral(":s3"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = test::jsonObject(r.out);
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    std::vector<CompareRun> runs;
    for (const char* name : {"s1", "s2", "s3"})
        runs.push_back(loadCompareRun(reader, reader.resolveRun(name), m_file.toStdString()));
    Comparison c = compareRuns({&runs[0], &runs[1], &runs[2]}, CompareOptions{});
    checkJson(o, c);
    // The table: one column per run and one ratio per OTHER.
    auto t = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":s1"), m_file + QStringLiteral(":s2"),
                     m_file + QStringLiteral(":s3")});
    QCOMPARE(t.exitCode, 0);
    QVERIFY(t.out.contains(QStringLiteral("#2/BASE")));
    QVERIFY(t.out.contains(QStringLiteral("#3/BASE")));
    QVERIFY(t.out.contains(QStringLiteral("only in BASE #2")));
}

void TestCliCompare::csvAndTable()
{
    const QString a = m_file + QStringLiteral(":s1"), b = m_file + QStringLiteral(":s3");
    auto csv = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--csv")});
    QCOMPARE(csv.exitCode, 0);
    QStringList lines = csv.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines[0], QStringLiteral("name,path,ns_1,ns_2,delta_ns_2,pm_ns_2,delta_pct_2,ratio_2,verdict_2,count_1,count_2,n_1,n_2,stddev_1,stddev_2,median_1,median_2,min_1,min_2,max_1,max_2,ci_low_ns_2,ci_high_ns_2,p_adj_2,note,per"));
    QCOMPARE(lines.size(), 1 + 14 + 1);   // header, the groups, the total
    QVERIFY(lines.back().startsWith(QStringLiteral("(total),(total),")));
    for (qsizetype i = 1; i < lines.size(); ++i)
        QVERIFY(lines[i].endsWith(QStringLiteral(",step")));
    // Rows in table order, with the analysis' numbers.
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    CompareRun ra = loadCompareRun(reader, reader.resolveRun("s1"));
    CompareRun rb = loadCompareRun(reader, reader.resolveRun("s3"));
    Comparison c = compareRuns({&ra, &rb}, CompareOptions{});
    for (size_t i = 0; i < c.groups.size(); ++i) {
        QStringList f = lines[qsizetype(i) + 1].split(QLatin1Char(','));
        QCOMPARE(f[1], q(c.groups[i].path));
        QCOMPARE(f[2].toDouble(), c.groups[i].cells[0].ns);
        QCOMPARE(f[3].isEmpty(), !c.groups[i].cells[1].present);
        QCOMPARE(f[4].toDouble(), c.groups[i].deltaNs[1]);
        QCOMPARE(f[5].isEmpty(), !c.groups[i].interval[1]);   // pm_ns_2: half the interval
        if (c.groups[i].interval[1])
            QCOMPARE(f[5].toDouble(), (c.groups[i].interval[1]->high - c.groups[i].interval[1]->low) / 2);
        QCOMPARE(f[8], q(std::string(toString(c.groups[i].verdict[1]))));
        QCOMPARE(f[11].toInt(), int(c.groups[i].cells[0].stats.n));   // n_1: 12 steps
        QCOMPARE(f[f.size() - 2], q(onlyInLabel(c.groups[i])));
    }
    auto table = runCli({QStringLiteral("compare"), a, b});
    QCOMPARE(table.exitCode, 0);
    QVERIFY(table.out.contains(QStringLiteral("per step")));
    QVERIFY(table.out.contains(QStringLiteral("BASE only")));
    QVERIFY(table.out.contains(QStringLiteral("(total)")));
    QVERIFY(table.out.contains(QStringLiteral("12 steps")));
    QVERIFY(table.out.contains(QStringLiteral("delta %")));
    // Per run: whole ns and counts, written as integers.
    auto perRun = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--csv"), QStringLiteral("--per"), QStringLiteral("run")});
    QCOMPARE(perRun.exitCode, 0);
    const QStringList f = perRun.out.split(QLatin1Char('\n'))[1].split(QLatin1Char(','));
    QVERIFY2(!f[2].contains(QLatin1Char('.')) && !f[9].contains(QLatin1Char('.')), qPrintable(perRun.out.section(QLatin1Char('\n'), 1, 1)));
    QVERIFY(f.last() == QStringLiteral("run"));
}

void TestCliCompare::kernelsJsonEqualsAnalysis()
{
    auto r = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":s1"), m_file + QStringLiteral(":s2"), QStringLiteral("--kernels"),
                     QStringLiteral("softmax"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = test::jsonObject(r.out);
    Database db(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    CompareRun a = loadCompareRun(reader, reader.resolveRun("s1"), m_file.toStdString());
    CompareRun b = loadCompareRun(reader, reader.resolveRun("s2"), m_file.toStdString());
    KernelDiffOptions ko;
    ko.filters = {{GroupBy::Layer, "softmax"}};
    KernelDiff d = diffKernels(a, b, ko);
    QJsonArray rows = o.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(rows.size(), qsizetype(d.rows.size()));
    QVERIFY(rows.size() >= 8);   // the synthetic softmax's kernels, forward and backward
    for (qsizetype i = 0; i < rows.size(); ++i) {
        QJsonObject row = rows[i].toObject();
        const KernelDiffRow& k = d.rows[size_t(i)];
        QCOMPARE(row.value(QStringLiteral("change")).toString(), q(std::string(toString(k.change))));
        QCOMPARE(row.value(QStringLiteral("op")).toString(), q(k.op));
        QCOMPARE(row.value(QStringLiteral("base_name")).toString(), q(k.baseName));
        QCOMPARE(row.value(QStringLiteral("base_ns")).isNull(), !k.base.present);
        QCOMPARE(row.value(QStringLiteral("base_ns")).toDouble(), k.base.present ? k.base.ns : 0.0);
        QCOMPARE(row.value(QStringLiteral("other_ns")).toDouble(), k.other.present ? k.other.ns : 0.0);
        QCOMPARE(row.value(QStringLiteral("delta_ns")).toDouble(), k.deltaNs);
        QCOMPARE(row.value(QStringLiteral("delta_pct")).isNull(), !k.deltaPct.has_value());
        if (k.deltaPct)
            QCOMPARE(row.value(QStringLiteral("delta_pct")).toDouble(), *k.deltaPct);
        QCOMPARE(row.value(QStringLiteral("other_count")).toDouble(), k.other.present ? k.other.count : 0.0);
        QCOMPARE(row.value(QStringLiteral("other_op")).isNull(), k.change != KernelChange::Moved);
        // The noise: analysis's interval and verdict, the samples per step of each run.
        QCOMPARE(row.value(QStringLiteral("verdict")).toString(), q(std::string(toString(k.verdict))));
        QCOMPARE(row.value(QStringLiteral("ci_low_ns")).isNull(), !k.interval.has_value());
        if (k.interval)
            QCOMPARE(row.value(QStringLiteral("ci_high_ns")).toDouble(), k.interval->high);
        QCOMPARE(row.value(QStringLiteral("base_samples")).toDouble(), double(k.base.stats.n));
    }
    QCOMPARE(o.value(QStringLiteral("total")).toObject().value(QStringLiteral("verdict")).toString(),
             q(std::string(toString(d.other.interval ? d.other.verdict : Verdict::NotEnoughSamples))));
    QCOMPARE(o.value(QStringLiteral("total")).toObject().value(QStringLiteral("delta_ns")).toDouble(), d.other.deltaNs);
    QCOMPARE(o.value(QStringLiteral("summary")).toObject().value(QStringLiteral("changed")).toInt(), d.changed);
}

void TestCliCompare::runsWithoutSteps()
{
    // An imported trace without profiler steps compares per run; per step is refused.
    QString file = q(test::tempPath("mini.wt"));
    auto imp = runCli({QStringLiteral("import"), test::sourcePath(QStringLiteral("tests/data/kineto-mini.json")), QStringLiteral("-o"), file});
    QVERIFY2(imp.exitCode == 0, qPrintable(imp.err));
    const QString copy = q(test::tempPath("mini-copy.wt"));   // a run against itself is refused: compare with a copy
    QFile::remove(copy);
    QVERIFY(QFile::copy(file, copy));
    auto r = runCli({QStringLiteral("compare"), file, copy, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = test::jsonObject(r.out);
    QCOMPARE(o.value(QStringLiteral("per")).toString(), QStringLiteral("run"));
    QCOMPARE(o.value(QStringLiteral("runs")).toArray()[0].toObject().value(QStringLiteral("steps")).toInteger(), qint64(0));
    QVERIFY(!o.value(QStringLiteral("groups")).toArray().isEmpty());
    // Against a run with steps: per run too, and the output names the run without steps.
    auto mixed = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":s1"), file});
    QCOMPARE(mixed.exitCode, 0);
    QVERIFY(mixed.out.contains(QStringLiteral("per run: whole-run totals (run 1 of ")));
    auto step = runCli({QStringLiteral("compare"), file, copy, QStringLiteral("--per"), QStringLiteral("step")});
    QCOMPARE(step.exitCode, 1);
    QVERIFY(step.err.contains(QStringLiteral("has none")));
    QCOMPARE(step.err.count(QLatin1Char('\n')), 1);
}

void TestCliCompare::cpuCapturesOfSoftmaxVariants()
{
    // Two real captures that differ only in the softmax layer: every other layer has the same
    // ops and kernels per step (timings vary, so only the structure is asserted).
    QString file = q(test::tempPath("variants.wt"));
    for (const char* variant : {"adaptive", "full"}) {
        auto c = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                         QStringLiteral("tiny"), QStringLiteral("--variant"), QLatin1String(variant), QStringLiteral("--backend"),
                         QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--name"),
                         QLatin1String(variant), QStringLiteral("-o"), file},
                        300000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    }
    const QString a = file + QStringLiteral(":adaptive"), b = file + QStringLiteral(":full");
    auto byLayer = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--json")});
    QCOMPARE(byLayer.exitCode, 0);
    QJsonObject lo = test::jsonObject(byLayer.out);
    QCOMPARE(lo.value(QStringLiteral("per")).toString(), QStringLiteral("step"));
    QCOMPARE(lo.value(QStringLiteral("runs")).toArray()[1].toObject().value(QStringLiteral("variant")).toString(), QStringLiteral("full"));
    std::set<QString> layers;
    for (const QJsonValue& v : lo.value(QStringLiteral("groups")).toArray()) {
        QJsonObject g = v.toObject();
        layers.insert(g.value(QStringLiteral("path")).toString());
        QVERIFY(!g.value(QStringLiteral("ns_1")).isNull());   // every layer in both runs
        QVERIFY(!g.value(QStringLiteral("ns_2")).isNull());
    }
    QVERIFY(layers.count(QStringLiteral("softmax")));
    QVERIFY(layers.size() >= 3);

    // By scope path down to the op: outside the softmax layer every op is in both runs with the
    // same kernel count per step; inside it, ops exist in one variant only.
    auto byOp = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--group-by"), QStringLiteral("scope"), QStringLiteral("--depth"),
                        QStringLiteral("4"), QStringLiteral("--json")});
    QCOMPARE(byOp.exitCode, 0);
    int outside = 0, softmaxOneSided = 0;
    for (const QJsonValue& v : test::jsonObject(byOp.out).value(QStringLiteral("groups")).toArray()) {
        QJsonObject g = v.toObject();
        QStringList parts = g.value(QStringLiteral("path")).toString().split(QLatin1Char('/'));
        const QJsonValue ns1 = g.value(QStringLiteral("ns_1")), ns2 = g.value(QStringLiteral("ns_2"));
        if (parts.size() > 2 && parts[2] == QStringLiteral("softmax")) {
            softmaxOneSided += ns1.isNull() != ns2.isNull() ? 1 : 0;
            continue;
        }
        ++outside;
        QVERIFY2(!ns1.isNull() && !ns2.isNull(), qPrintable(g.value(QStringLiteral("path")).toString()));
        QCOMPARE(g.value(QStringLiteral("count_1")).toDouble(), g.value(QStringLiteral("count_2")).toDouble());
    }
    QVERIFY(outside >= 10);
    QVERIFY(softmaxOneSided >= 2);

    // Kernel-level: a conv layer's kernels all match by name; the softmax layer's do not.
    auto conv = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--kernels"), QStringLiteral("conv1"), QStringLiteral("--json")});
    QCOMPARE(conv.exitCode, 0);
    QJsonObject cs = test::jsonObject(conv.out).value(QStringLiteral("summary")).toObject();
    QVERIFY(cs.value(QStringLiteral("changed")).toInt() + cs.value(QStringLiteral("unchanged")).toInt() > 0);
    for (const char* k : {"removed", "added", "swapped", "moved"})
        QCOMPARE(cs.value(QLatin1String(k)).toInt(), 0);
    auto sm = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--kernels"), QStringLiteral("softmax"), QStringLiteral("--json")});
    QCOMPARE(sm.exitCode, 0);
    QJsonObject so = test::jsonObject(sm.out);
    QJsonObject ss = so.value(QStringLiteral("summary")).toObject();
    QVERIFY(ss.value(QStringLiteral("removed")).toInt() + ss.value(QStringLiteral("moved")).toInt() +
                ss.value(QStringLiteral("swapped")).toInt() >
            0);
    // Kernel counts per step: the adaptive softmax launches more kernels than the full one.
    QJsonArray counts = so.value(QStringLiteral("total")).toObject().value(QStringLiteral("count")).toArray();
    QVERIFY(counts[0].toDouble() > counts[1].toDouble());
    auto table = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--kernels"), QStringLiteral("softmax")});
    QCOMPARE(table.exitCode, 0);
    QVERIFY(table.out.contains(QStringLiteral("kernels of layer=softmax")));
}

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_clicompare.moc"
